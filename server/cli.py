"""`kismet-host`: run a host from the command line (the composition root: adds bots).

    kismet-host [--bind 0.0.0.0] [--port 7717] [--state-dir DIR] [--bots N]
                [--max-per-address 8] [--cap-loopback] [--keep-games N] [--tables-per-player 3]
                [--bots-per-player 7]
                [--ssh [PORT]] [--ssh-keys FILE] [--web [PORT]] [--web-origin ORIGIN]
                [--max-sessions N] [--max-starting N] [--door-sessions warm|spawn]
                [--no-announce] [--config FILE] [--log-file FILE] [--log-level LEVEL]
    kismet-host --version | --completion bash|zsh|fish

Every option can also be kept in a TOML file (server/host_config.py; `host.toml` in the
user's config folder is read when it exists, --config names another); the command line wins.

Prints a `kismet-join ADDR:PORT` line for each address of this machine, then serves until
SIGINT or SIGTERM, when it closes every connection and flushes the logs. Unfinished games
are resumed the next time a host starts on the same state folder.

On Windows the host serves `kismet-join` players as anywhere, but --ssh and --web are
refused in words: each of their sessions runs on a pseudo-terminal or under POSIX process
limits Windows has not. Elsewhere the doors say at start what this system lacks for them
(server/doors/door_limits.py platform_lacks).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import signal
import sys
from typing import TYPE_CHECKING, Protocol

from kismet_tui.command import add_common_options, honest_exit, start_logging

from .addresses import local_addresses
from .peer_cap import DEFAULT_MAX_PER_ADDRESS

if TYPE_CHECKING:  # imported by serve(), so --help stays light
    from .host import Host

DEFAULT_PORT = 7717
DEFAULT_BOTS = 32
RECORDS_WAIT_S = 120  # the longest the start-up lines wait for the records (10,000 logs: ~12 s)
DEFAULT_KEEP_GAMES = 1000  # server.store.DEFAULT_KEEP_GAMES (not imported: --help stays light)
DEFAULT_TABLES_PER_PLAYER = 3  # server.table_share.DEFAULT_TABLES_PER_PLAYER, likewise
DEFAULT_BOTS_PER_PLAYER = 7  # server.table_share.DEFAULT_BOTS_PER_PLAYER, likewise
DEFAULT_SSH_PORT = 2222  # server/doors/ssh.py says the same; kept here so --help imports no ssh
DEFAULT_WEB_PORT = 8080  # server/doors/web.py too


class Door(Protocol):
    """Another way in, opened beside the host and closed before it (ssh, web, the LAN
    announcement)."""

    async def stop(self) -> None: ...


class Listener(Door, Protocol):
    """A door that listens on an address and port of its own (ssh, web)."""

    async def start(self, bind: str, port: int) -> None: ...


def default_state_dir() -> str:
    """The host's state folder when --state-dir names none: the user's state folder; where
    the system has no state folder apart from the data folder (macOS, Windows), a `host`
    folder in it, so the host's state never holds `kismet`'s solo folder or the player's own
    files. A host that already keeps its state in the old place (its lock file is there)
    goes on using it: nothing it kept is left behind."""
    from pathlib import Path

    from platformdirs import user_data_dir, user_state_dir

    state = Path(user_state_dir("kismet"))
    if state != Path(user_data_dir("kismet")) or (state / "host.lock").exists():
        return str(state)
    return str(state / "host")


def join_lines(bind: str, port: int) -> list[str]:
    addresses = local_addresses() if bind in ("0.0.0.0", "", "::") else [bind]
    return [f"kismet-join {address}:{port}" for address in addresses]


async def serve(args: argparse.Namespace) -> int:
    from kismet_tui.bots.runner import bot_factory
    from server import Host
    from server.store import Store

    problem = Store.check_writable(args.state_dir)
    if problem is not None:
        print(
            f"kismet-host: cannot write to the state folder {args.state_dir}: {problem}. "
            f"Games could not be saved; give a folder it can write with --state-dir.",
            file=sys.stderr,
        )
        return 2
    if args.reindex:
        return reindex(args.state_dir)
    from server.identity import HostIdentity

    try:
        identity = HostIdentity.load(args.state_dir)
    except OSError as exc:  # unreadable, or not a key (IdentityError)
        why = f"{exc.filename}: {exc.strerror}" if exc.filename else str(exc)
        print(
            f"kismet-host: cannot use this host's key: {why}. Move that file away to have a "
            f"new key made (players then see a new fingerprint).",
            file=sys.stderr,
        )
        return 2
    factory = bot_factory() if args.bots > 0 else None
    from server.capacity import raise_fd_limit

    raise_fd_limit()  # the connection limit follows the descriptors this process may open
    host = Host(
        state_dir=args.state_dir,
        bot_factory=factory,
        max_bots=args.bots,
        max_per_address=args.max_per_address or None,
        cap_loopback=args.cap_loopback,
        keep_games=args.keep_games or None,
        tables_per_player=args.tables_per_player or None,
        bots_per_player=args.bots_per_player or None,
        identity=identity,
    )
    from server.state_lock import StateFolderBusy

    try:
        await host.start(args.bind, args.port)
    except StateFolderBusy as exc:
        print(f"kismet-host: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(
            f"kismet-host: cannot listen on {args.bind}:{args.port}: {exc.strerror or exc}",
            file=sys.stderr,
        )
        return 1
    assert host.port is not None  # a start that returned is listening
    print(
        f"Kismet host listening on {args.bind}:{host.port} (state in {args.state_dir}; "
        f"at most {host.max_connections} connections)."
    )
    print(
        f"This host's key: {host.store.identity.fingerprint} (it signs every finished game; "
        f"`kismet-replay --verify` shows it)."
    )
    for line in host.resumed + host.set_aside_lines:
        print(line)
    if host.tables:
        print(
            f"Resumed {len(host.tables)} unfinished table(s); players rejoin by connecting again."
        )
    # The records open (and catch up, or rebuild) on their own thread while players can come
    # in already; their words belong to the start-up lines, so they are waited for here.
    if not host.records.ready.is_set():
        print("Opening the records (records.sqlite3)...")
        sys.stdout.flush()
    await asyncio.to_thread(host.records.ready.wait, RECORDS_WAIT_S)
    for line in host.records.start_words + ([host.records.paused] if host.records.paused else []):
        print(line)
    print("Players join with:")
    for line in join_lines(args.bind, host.port):
        print("  " + line)
    doors = await open_doors(args, host)
    if doors is None:
        await host.stop()
        return 1
    sys.stdout.flush()
    # What start-up made (modules, the records, the doors) lives as long as the host: out of
    # the collector's sight, so its full collections walk the games' objects, not all of it.
    gc.freeze()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(sig, stop.set)
        except NotImplementedError:  # Windows' event loop: a plain handler wakes it instead
            signal.signal(sig, lambda *_: loop.call_soon_threadsafe(stop.set))
    await stop.wait()
    print("Shutting down: closing connections and logs.")
    for door in reversed(doors):
        await door.stop()
    await host.stop()
    sys.stdout.flush()
    return 0


def addresses_for(bind: str) -> list[str]:
    """The addresses players can type to reach a listener bound to `bind`."""
    return local_addresses() if bind in ("0.0.0.0", "", "::") else [bind]


def ssh_lines(bind: str, port: int) -> list[str]:
    return [f"ssh -p {port} NAME@{address}" for address in addresses_for(bind)]


async def open_doors(args: argparse.Namespace, host: Host) -> list[Door] | None:
    """The other ways in (ssh, web, the LAN announcement), each started and described on
    stdout; None (after saying why on stderr, and closing those opened) when one cannot."""
    doors: list[Door] = []
    # The host's per-address cap holds at each door too (0: none; loopback with --cap-loopback).
    cap = getattr(args, "max_per_address", None) or None
    cap_loopback = getattr(args, "cap_loopback", False)
    from .doors.door_limits import SessionSlots

    # One cap on the sessions of both doors: each runs a client process on this machine.
    slots = SessionSlots(getattr(args, "max_sessions", None), getattr(args, "max_starting", None))
    sandbox = None
    if args.ssh is not None or args.web is not None:
        from .doors.session_sandbox import SessionSandbox

        # What every door session may open: never the host's key or logs, where it can be.
        sandbox = SessionSandbox(args.state_dir)
        if (words := sandbox.words()) is not None:
            print(words)
    forker = None
    warm = getattr(args, "door_sessions", "warm") == "warm"
    if args.ssh is not None or args.web is not None:
        from .doors.door_limits import has_pidfds, platform_lacks

        for line in platform_lacks():  # (macOS, Linux before 5.3)
            print(line)
        warm = warm and has_pidfds()  # the warm parent's sessions are watched by pidfds
    if warm and (args.ssh is not None or args.web is not None):
        from .doors.warm_doors import DoorForker

        # One warm parent forks the sessions of both doors; it warms up while they open, and
        # is stopped last (doors stop in reverse order), with every session it forked.
        forker = DoorForker(f"{host.connect_address()}:{host.port}")
        try:
            await forker.start()
        except OSError as exc:
            print(f"(The door sessions start one process each: {exc}.)")
            forker = None
        else:
            doors.append(forker)

    async def start(door: Listener, port: int, what: str) -> bool:
        try:
            await door.start(args.bind, port)
        except (OSError, ValueError) as exc:
            print(
                f"kismet-host: cannot serve {what} on {args.bind}:{port}: "
                f"{getattr(exc, 'strerror', None) or exc}",
                file=sys.stderr,
            )
            for opened in doors:
                await opened.stop()
            return False
        doors.append(door)
        return True

    ssh_port = None
    if args.ssh is not None:
        from .doors.ssh import SshServer

        try:
            ssh = SshServer(
                host,
                args.state_dir,
                keys_file=args.ssh_keys,
                max_per_address=cap,
                cap_loopback=cap_loopback,
                slots=slots,
                forker=forker,
                sandbox=sandbox,
            )
        except (OSError, ValueError) as exc:  # asyncssh's KeyImportError is a ValueError
            print(
                f"kismet-host: cannot read the keys in {args.ssh_keys}: "
                f"{getattr(exc, 'strerror', None) or exc}",
                file=sys.stderr,
            )
            return None
        if not await start(ssh, args.ssh, "ssh"):
            return None
        assert ssh.port is not None  # a start that returned is listening
        ssh_port = ssh.port
        who = f"the keys in {args.ssh_keys}" if args.ssh_keys else "anyone who can reach it"
        for line in ssh.authorized.refused if ssh.authorized is not None else []:
            print(f"(--ssh-keys: {line})")
        print(f"Or with nothing installed, over ssh (open to {who}):")
        for line in ssh_lines(args.bind, ssh.port):
            print("  " + line)
        print(f"  (this host's ssh key: {ssh.fingerprint})")
    if args.web is not None:
        from .doors.web import WebServer

        web = WebServer(
            host,
            args.state_dir,
            max_per_address=cap,
            cap_loopback=cap_loopback,
            slots=slots,
            forker=forker,
            origins=args.web_origin or (),
            sandbox=sandbox,
        )
        if not await start(web, args.web, "the web page"):
            return None
        print("Or in a browser:")
        for address in addresses_for(args.bind):
            print(f"  http://{address}:{web.port}/")
    if not args.no_announce:
        from .lan.discovery import Announcer

        # Bound to one IPv4 address, the host is reached there only: announce it there only.
        bound = None if args.bind in ("0.0.0.0", "", "::") else [args.bind]
        on = bound if bound and all(part.isdigit() for part in args.bind.split(".")) else None
        announcer = Announcer(host, ssh_port=ssh_port, addresses=bound, interfaces=on)
        try:
            await announcer.start()
        except Exception as exc:  # no multicast here: play on, only without being found
            print(f"(Not announced on the LAN: {exc}. Players type the address instead.)")
        else:
            doors.append(announcer)
            print("Announced on the LAN: `kismet-join` with no address finds this host.")
    return doors


def use_uvloop() -> bool:
    """Run on uvloop when it is installed (`pip install kismet-tui[fast]`): a faster event
    loop, same behaviour. Without it the standard asyncio loop serves just as well."""
    try:
        import uvloop
    except ImportError:
        return False
    asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    return True


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kismet-host", description="Host Kismet games for players on this network."
    )
    parser.add_argument(
        "--bind", default="0.0.0.0", help="address to listen on (default 0.0.0.0: every address)"
    )
    parser.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"TCP port (default {DEFAULT_PORT})"
    )
    parser.add_argument(
        "--state-dir", default=None, help="folder for game logs and resumable tables"
    )
    parser.add_argument(
        "--bots",
        type=int,
        default=DEFAULT_BOTS,
        help=f"most bots this host runs at once (default {DEFAULT_BOTS}; 0: none)",
    )
    parser.add_argument(
        "--max-per-address",
        type=int,
        default=DEFAULT_MAX_PER_ADDRESS,
        help=f"most connections from one address (default {DEFAULT_MAX_PER_ADDRESS}; "
        f"0: no cap). Loopback is not capped: see --cap-loopback",
    )
    parser.add_argument(
        "--cap-loopback",
        action="store_true",
        help="cap loopback (127.0.0.1, ::1) like any other address; by default it is "
        "exempt, as the host's bots and players logged into this machine use it",
    )
    parser.add_argument(
        "--keep-games",
        type=int,
        default=DEFAULT_KEEP_GAMES,
        help=f"finished game logs kept as replays (default {DEFAULT_KEEP_GAMES}; 0: "
        f"keep all); the oldest go first, unfinished games are never removed",
    )
    parser.add_argument(
        "--reindex",
        action="store_true",
        help="build the records (records.sqlite3: games, players, ratings) again from "
        "the game logs in the state folder, then exit",
    )
    parser.add_argument(
        "--tables-per-player",
        type=int,
        default=DEFAULT_TABLES_PER_PLAYER,
        help=f"open tables one player may own (default {DEFAULT_TABLES_PER_PLAYER}; "
        f"0: no cap). A player is their ssh key or token, and their address "
        f"where addresses are capped",
    )
    parser.add_argument(
        "--bots-per-player",
        type=int,
        default=DEFAULT_BOTS_PER_PLAYER,
        help=f"bots at once at the tables one player opened (default "
        f"{DEFAULT_BOTS_PER_PLAYER}; 0: no cap); a game left to its bots "
        f"closes after a minute",
    )
    parser.add_argument(
        "--ssh",
        nargs="?",
        type=int,
        const=DEFAULT_SSH_PORT,
        default=None,
        metavar="PORT",
        help=f"also let players in over ssh, with nothing installed (port {DEFAULT_SSH_PORT} "
        f"if none given)",
    )
    parser.add_argument(
        "--ssh-keys",
        default=None,
        metavar="FILE",
        help="let in over ssh only the keys in FILE (authorized_keys format)",
    )
    parser.add_argument(
        "--web",
        nargs="?",
        type=int,
        const=DEFAULT_WEB_PORT,
        default=None,
        metavar="PORT",
        help=f"also serve the game in a web browser (port {DEFAULT_WEB_PORT} if none given)",
    )
    parser.add_argument(
        "--web-origin",
        action="append",
        default=None,
        metavar="ORIGIN",
        help="the page's address as browsers see it, as scheme://host[:port], when "
        "it is not one of this machine's addresses (a name, or behind a "
        "proxy); the game's websocket then opens only from that page, and "
        "only for this machine's addresses or that name (may be given again)",
    )
    parser.add_argument(
        "--door-sessions",
        choices=("warm", "spawn"),
        default="warm",
        help="how ssh and web sessions start: forked from one warm parent that "
        "has loaded the game (warm, the default: a quick login, shared "
        "memory), or a new process each (spawn)",
    )
    parser.add_argument(
        "--max-sessions",
        type=int,
        default=None,
        metavar="N",
        help="most players over ssh and the web at once, together (default: from "
        "this machine's memory, 64 MB each over half of it; 0: no cap)",
    )
    parser.add_argument(
        "--max-starting",
        type=int,
        default=None,
        metavar="N",
        help="most ssh and web sessions starting at once, together; the others "
        "wait their turn (default: 32 per core; 0: no limit)",
    )
    parser.add_argument(
        "--no-announce",
        action="store_true",
        help="do not announce this host on the LAN (kismet-join then needs the address)",
    )
    parser.add_argument(
        "--config",
        default=None,
        metavar="FILE",
        help="read options from this TOML file (default: "
        f"{config_default_path()}, when it exists); the command line wins",
    )
    add_common_options(parser, "kismet-host")
    return parser


def config_default_path() -> str:
    from .host_config import default_path

    return str(default_path())


def reindex(state_dir: str) -> int:
    """--reindex: the records rebuilt from the logs, with words; the folder's lock held."""
    import time
    from pathlib import Path

    from server.records import FILE_NAME, open_checked, rebuild
    from server.state_lock import StateFolderBusy, StateLock

    try:
        lock = StateLock.acquire(Path(state_dir))
    except StateFolderBusy as exc:
        print(
            f"kismet-host: {exc} Stop it first: the records are rebuilt with no host running.",
            file=sys.stderr,
        )
        return 1
    import sqlite3

    try:
        began = time.monotonic()
        db, words, _fresh = open_checked(Path(state_dir) / FILE_NAME, Path(state_dir) / "damaged")
        for line in words:
            print(line)
        count, unreadable = rebuild(db, Path(state_dir) / "games")
        db.close()
    except (sqlite3.Error, OSError) as exc:
        print(
            f"kismet-host: the records could not be rebuilt: {exc}. The game logs are "
            f"untouched; try again once that is fixed.",
            file=sys.stderr,
        )
        return 1
    finally:
        lock.release()
    for why in unreadable:
        print(f"Left out (cannot be read): {why}")
    print(
        f"Rebuilt the records from {count} game logs in "
        f"{time.monotonic() - began:.1f} s ({Path(state_dir) / FILE_NAME})."
    )
    return 0


def refuse_doors_windows_lacks(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """On Windows, --ssh and --web end the command in words (exit 2): their sessions need a
    pseudo-terminal and POSIX process limits. The host itself serves kismet-join players."""
    if sys.platform != "win32":
        return
    for option, value in (("--ssh", args.ssh), ("--web", args.web)):
        if value is not None:
            parser.error(
                f"{option} is not available on Windows: its players' games would run "
                f"on this computer, which needs Linux or macOS. Friends join this host "
                f"with kismet-join; leave out {option}."
            )


@honest_exit("kismet-host")
def main(argv: list[str] | None = None) -> int:
    from pathlib import Path

    from .host_config import ConfigError, default_path, settings

    parser = build_parser()
    args = parser.parse_args(argv)
    config = Path(args.config) if args.config else default_path()
    if args.config or config.is_file():
        try:
            parser.set_defaults(**settings(config, parser))
        except ConfigError as exc:
            parser.error(str(exc))
        args = parser.parse_args(argv)  # the file's values as defaults: the command line wins
    refuse_doors_windows_lacks(parser, args)
    if args.ssh_keys and args.ssh is None:
        parser.error("--ssh-keys goes with --ssh.")
    for option in ("keep_games", "tables_per_player", "bots_per_player", "max_per_address"):
        if getattr(args, option) < 0:
            parser.error(f"--{option.replace('_', '-')} is a count: 0 or more (0: no limit).")
    args.state_dir = args.state_dir or default_state_dir()
    start_logging("kismet-host", args, to_stderr=True)
    use_uvloop()
    return asyncio.run(serve(args))


if __name__ == "__main__":
    sys.exit(main())
