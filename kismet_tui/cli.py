"""The three commands of the client.

- `kismet-join HOST:PORT [--name NAME]`: join a running kismet-host.
- `kismet [--name NAME]`: play alone at once: a host runs inside this process on 127.0.0.1
  (any free port), bots fill the other seats. Its games are kept in the user's data folder
  (kismet_tui/recent.py solo_state_dir), like a host's, so they can be replayed.
- `kismet-replay [FILE]`: watch a saved game again (see kismet_tui/replay.py); without a
  file, choose one of the recent games on this computer.
  `kismet-replay --verify FILE` checks its chance instead: exit 0 when every die and card came
  from the seed committed at the start, 1 naming the first event that differs, 2 for a game
  that carries no commitment (protocol version 1) or never ended.

Each takes `--ascii` to draw with ASCII only; a locale without UTF-8 gets it by itself.
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import signal
import sys
from pathlib import Path


def login_name() -> str:
    try:
        return getpass.getuser() or "Player"
    except Exception:  # no login name in some containers
        return "Player"


def parse_address(text: str) -> tuple[str, int]:
    """'host:port' (or '[v6]:port') -> (host, port), or ValueError in plain words."""
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"'{text}' is not host:port (for example 192.168.1.20:7717).")
    return host.strip("[]"), int(port)


def add_ascii_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--ascii", action="store_true",
                        help="draw dice, cards and boxes with ASCII only (automatic when the "
                             "locale has no UTF-8)")


def set_drawing(args) -> None:
    from .widgets.glyphs import locale_has_utf8, use_ascii

    use_ascii(args.ascii or not locale_has_utf8())


def discover_address(seconds: float = 2.0) -> str | None:
    """Look for hosts announced on the LAN; let the player pick one. None: none found (said)."""
    from server.discovery import find_hosts

    print(f"Looking for Kismet hosts on this network ({seconds:g} seconds)...")
    try:
        found = asyncio.run(find_hosts(seconds))
    except Exception as exc:  # no network, no multicast
        print(f"Could not look on this network: {exc}")
        found = []
    if not found:
        print("No Kismet host answered. If you know where one runs, type its address:\n"
              "  kismet-join ADDRESS:PORT    (for example kismet-join 192.168.1.20:7717)")
        return None
    for number, entry in enumerate(found, 1):
        tables = f"{entry.tables} table{'s' if entry.tables != 1 else ''} open"
        print(f"  {number}. {entry.name} at {entry.address}:{entry.port} ({tables})")
    question = ("Press enter to join it (q to stop): " if len(found) == 1 else
                f"Which one? (1-{len(found)}, enter for 1, q to stop): ")
    while True:
        try:
            answer = input(question).strip()
        except EOFError:
            return None
        if answer.lower() == "q":
            return None
        if answer == "":
            answer = "1"
        if answer.isdigit() and 1 <= int(answer) <= len(found):
            chosen = found[int(answer) - 1]
            return f"{chosen.address}:{chosen.port}"
        print(f"Please type a number from 1 to {len(found)}.")


def join_main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="kismet-join", description="Join a Kismet host and play.")
    parser.add_argument("address", nargs="?", default=None,
                        help="the host, as host:port (none: look for hosts on this network)")
    parser.add_argument("--name", default=None, help="your name at the table (default: your login name)")
    parser.add_argument("--fresh", action="store_true",
                        help="join as someone new, not taking back the seat this name had here")
    add_ascii_option(parser)
    # Where the rejoin token is kept (kismet-host --ssh gives each NAME and key a file).
    parser.add_argument("--seats-file", default=None, help=argparse.SUPPRESS)
    # Ask for the name on screen first (kismet-host --web: a browser has no login name).
    parser.add_argument("--ask-name", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    set_drawing(args)
    if args.address is None:
        args.address = discover_address()
        if args.address is None:
            return 1
    try:
        host, port = parse_address(args.address)
    except ValueError as exc:
        parser.error(str(exc))
    from .app import KismetApp
    from .door_child import door_pass
    from .net.client import Client
    from .saved_seats import connect_keeping_seat

    name = args.name or login_name()
    seats = Path(args.seats_file) if args.seats_file else None
    client = Client(door_pass=door_pass())

    async def connect() -> None:
        chosen = name
        if args.ask_name:
            from .screens.ask_name import AskNameScreen

            chosen = await app.push_screen_wait(AskNameScreen(args.name or ""))
        await connect_keeping_seat(client, host, port, chosen, fresh=args.fresh, path=seats)

    app = KismetApp(client, connect=connect,
                    address=f"{host}:{port}", on_quit=client.close)
    app.run()
    return 0


def bot_factory():
    """The bots the embedded host seats, or None if this install has none."""
    try:
        from .bots.runner import bot_factory as make_factory
    except ImportError:
        return None
    return make_factory()


def local_main(argv: list[str] | None = None) -> int:
    from .recent import solo_state_dir

    parser = argparse.ArgumentParser(prog="kismet", description="Play Kismet now, against bots.")
    parser.add_argument("--name", default=None, help="your name (default: your login name)")
    parser.add_argument("--state-dir", default=None,
                        help=f"keep the game logs here (default: {solo_state_dir()})")
    add_ascii_option(parser)
    args = parser.parse_args(argv)
    set_drawing(args)
    from server import Host

    from .app import KismetApp
    from .net.client import Client

    name = args.name or login_name()
    state_dir = Path(args.state_dir) if args.state_dir else solo_state_dir()
    forget_unfinished_tables(state_dir)
    host = Host(state_dir=state_dir, bot_factory=bot_factory())
    client = Client()

    async def connect() -> None:
        # A closed terminal (or a kill) still ends the app properly, so the logs are closed.
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGHUP, signal.SIGTERM):
            loop.add_signal_handler(signum, app.exit)
        await host.start("127.0.0.1", 0)
        assert host.port is not None  # a start that returned is listening
        await client.connect("127.0.0.1", host.port, name)

    from server.cli import default_state_dir
    from server.open_up import OpenHost

    # The lobby's "open to friends" key; the ssh host key lives in the user's state folder,
    # so friends who come back never see it change.
    doors = OpenHost(host, default_state_dir())

    async def stop():
        await client.close()
        await doors.stop()
        await host.stop()

    app = KismetApp(client, connect=connect, address="this computer", quick=True, on_quit=stop)
    app.open_to_network = doors.open
    app.run()
    return 0


def forget_unfinished_tables(state_dir: Path) -> None:
    """A solo game left unfinished stays as a log to replay, but is not resumed: nobody
    could take its seat back (the embedded host's rejoin tokens die with the process)."""
    for record in (state_dir / "tables").glob("*.json"):
        try:
            record.unlink()
        except OSError:
            pass


def replay_main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="kismet-replay", description="Watch a saved Kismet game.")
    parser.add_argument("file", nargs="?", default=None,
                        help="a game log (a .kismet file); without it, choose a recent game")
    parser.add_argument("--speed", type=float, default=1.0, help="playback speed (default 1)")
    parser.add_argument("--verify", action="store_true",
                        help="do not play: check that every die and card came from the seed "
                             "committed at the start (exit 0), or name the first event that "
                             "differs (exit 1)")
    add_ascii_option(parser)
    args = parser.parse_args(argv)
    set_drawing(args)
    from protocol.gamelog import LogError, read_log_full

    path = args.file
    if path is None:
        path = choose_recent()
        if path is None:
            return 1
    try:
        header, events, end = read_log_full(path)
    except (OSError, LogError) as exc:
        print(f"kismet-replay: cannot read {path}: {exc}", file=sys.stderr)
        return 1
    if args.verify:
        from .rules.verify import verify

        result = verify(header, events, (end or {}).get("server_seed"))
        print(f"{path}: {result.words}", file=sys.stdout if result.ok else sys.stderr)
        if result.ok:
            return 0
        return 2 if result.seq is None else 1
    from .replay import ReplayApp

    ReplayApp(header, events, speed=args.speed).run()
    return 0


def choose_recent():
    """The recent games listed on the terminal, one chosen by number; None if there are
    none or none was chosen."""
    from .recent import choose, game_folders, recent_games

    games = recent_games()
    if not games:
        folders = " and ".join(str(folder) for folder in game_folders())
        print(f"kismet-replay: no saved games yet (looked in {folders}). Play one with `kismet`, "
              "or give a file: kismet-replay FILE.kismet", file=sys.stderr)
        return None
    print("Recent games, newest first:")
    return choose(games)
