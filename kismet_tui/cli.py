"""The three commands of the client.

- `kismet-join HOST:PORT [--name NAME]`: join a running kismet-host.
- `kismet [--name NAME]`: play alone at once: a host runs inside this process on 127.0.0.1
  (any free port), bots fill the other seats. Its games are kept in the user's data folder
  (kismet_tui/recent.py solo_state_dir), like a host's, so they can be replayed.
- `kismet-replay [FILE]`: watch a saved game again (see kismet_tui/replay.py); without a
  file, choose one of the recent games on this computer.
  `kismet-replay --verify FILE` checks it instead (kismet_tui/log_check.py): the host's
  signature, by a host this player joined (kismet_tui/known_hosts.py) or the one
  `--host-key SHA256:...` names, every event replayed through the engine, every die and
  card against the seed committed at the start, and the end record. Exit 0 when all hold,
  1 naming what differs and where (also: the file cannot be read, a signing host's log has
  no signature, or a key never met, or not the one `--host-key` names, signed it), 2 when
  something cannot be checked (a log from before signing, a game that carries no
  commitment, protocol version 1, a game that never ended, or a file cut short: "truncated")
  and nothing differs.
  A file either command cannot read (missing, empty, not a game log, damaged) gets one line
  saying so (exit 1 for --verify, 2 for playback: kismet_tui/saved_game.py); whatever is
  printed from a file is cleaned first.
  `kismet-replay --review [--json] FILE` prints the game's review instead (kismet_tui/review/,
  docs/review.md): dice, each decision of each seat graded by the perfect player; race,
  reaction times; knock, missed chances. Before the optimal table is built a dice review
  asks to build it (at a terminal), builds it with `--build-table`, or says how (exit 2):
  it never guesses.

Each takes `--ascii` to draw with ASCII only; a terminal without Unicode (a locale without
UTF-8; on Windows, a console other than Windows Terminal) gets it by itself, and `--unicode`
draws with Unicode whatever the terminal says. Each takes `--version`, `--log-file`,
`--log-level` and `--completion` (kismet_tui/command.py). An error nobody caught ends a
command with exit 1, a line of words and the traceback in its log file; `kismet-join` exits 1
when the host cannot be reached; without a terminal that can draw, a drawing command exits 2
with words (kismet_tui/needs_terminal.py).
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from .command import add_common_options, crashed, honest_exit, start_logging
from .terminal import ends_with_its_terminal

if TYPE_CHECKING:  # (each loads only when its command needs it)
    from protocol.gamelog import GameLog
    from server import Host
    from server.doors.open_up import OpenHost

    from .app import KismetApp
    from .bots.runner import LoopbackBotFactory
    from .net.client import Client
    from .review.optimal import Table
    from .rules.game_types import Event, Header


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
    drawing = parser.add_mutually_exclusive_group()
    drawing.add_argument(
        "--ascii",
        action="store_true",
        help="draw dice, cards and boxes with ASCII only (automatic when the "
        "terminal has no Unicode: a locale without UTF-8, or on Windows "
        "a console other than Windows Terminal)",
    )
    drawing.add_argument(
        "--unicode",
        action="store_true",
        help="draw with Unicode even where the terminal seems not to have it",
    )


def set_drawing(args: argparse.Namespace) -> None:
    from .widgets.glyphs import terminal_has_unicode, use_ascii

    use_ascii(args.ascii or not (args.unicode or terminal_has_unicode()))


def discover_address(seconds: float = 2.0) -> str | None:
    """Look for hosts announced on the LAN; let the player pick one. None: none found (said)."""
    from server.lan.discovery import find_hosts

    print(f"Looking for Kismet hosts on this network ({seconds:g} seconds)...")
    try:
        found = asyncio.run(find_hosts(seconds))
    except Exception as exc:  # no network, no multicast
        print(f"Could not look on this network: {exc}")
        found = []
    if not found:
        print(
            "No Kismet host answered. If you know where one runs, type its address:\n"
            "  kismet-join ADDRESS:PORT    (for example kismet-join 192.168.1.20:7717)"
        )
        return None
    for number, entry in enumerate(found, 1):
        tables = f"{entry.tables} table{'s' if entry.tables != 1 else ''} open"
        print(f"  {number}. {entry.name} at {entry.address}:{entry.port} ({tables})")
    question = (
        "Press enter to join it (q to stop): "
        if len(found) == 1
        else f"Which one? (1-{len(found)}, enter for 1, q to stop): "
    )
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


def join_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="kismet-join", description="Join a Kismet host and play.")
    parser.add_argument(
        "address",
        nargs="?",
        default=None,
        help="the host, as host:port (none: look for hosts on this network)",
    )
    parser.add_argument(
        "--name", default=None, help="your name at the table (default: your login name)"
    )
    parser.add_argument(
        "--fresh",
        action="store_true",
        help="join as someone new, not taking back the seat this name had here",
    )
    add_ascii_option(parser)
    # Where the rejoin token is kept (kismet-host --ssh gives each NAME and key a file).
    parser.add_argument("--seats-file", default=None, help=argparse.SUPPRESS)
    # Ask for the name on screen first (kismet-host --web: a browser has no login name).
    parser.add_argument("--ask-name", action="store_true", help=argparse.SUPPRESS)
    add_common_options(parser, "kismet-join")
    return parser


@honest_exit("kismet-join")
@ends_with_its_terminal
def join_main(argv: list[str] | None = None) -> int:
    parser = join_parser()
    args = parser.parse_args(argv)
    from .door_env import door_pass

    # A door session (ssh, web) runs as the host's user: one player's records in a file all
    # sessions share would be every player's to read. Its words go to the door instead.
    start_logging("kismet-join", args, to_file=not door_pass())
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
    from .net.client import Client

    # Asked on screen, the name offered is --name's, or none.
    name = args.name or ("" if args.ask_name else login_name())
    seats = Path(args.seats_file) if args.seats_file else None
    client = Client(door_pass=door_pass())
    from .player_key import FILE_NAME, player_key_for

    # What this host knows the player's records by (kept beside the rejoin tokens).
    client.player_key = player_key_for(
        f"{host}:{port}", seats.with_name(FILE_NAME) if seats else None
    )
    refused: list[str] = []

    async def connect() -> None:
        await join_by_name(
            app,
            client,
            host,
            port,
            name,
            ask=args.ask_name,
            fresh=args.fresh,
            seats=seats,
            refused=refused,
        )

    app = KismetApp(client, connect=connect, address=f"{host}:{port}", on_quit=client.close)
    app.run()
    if refused:
        print(f"kismet-join: {refused[0]} (--name picks another)", file=sys.stderr)
        return 1
    if app.unreachable is not None:
        print(f"kismet-join: {app.unreachable}", file=sys.stderr)
        return 1
    return ended(app, "kismet-join")  # (1 when the app failed: the web door then says so)


def ended(app: KismetApp, command: str) -> int:
    """The app's exit code; after an error that ended it (Textual's code 1, its traceback
    in the log already), the line saying so and where the log is."""
    code = app.return_code or 0
    if app.failed:
        return crashed(command)
    return code


async def join_by_name(
    app: KismetApp,
    client: Client,
    host: str,
    port: int,
    name: str,
    *,
    ask: bool,
    fresh: bool,
    seats: Path | None,
    refused: list[str],
) -> None:
    """Say hello as `name` (asked on screen first when `ask`). A name the host refuses as
    taken is asked for again, with the host's words, when `ask`; otherwise the words go in
    `refused` and the app ends (join_main says them and exits 1)."""
    from .net import RequestError
    from .saved_seats import connect_keeping_seat, last_name
    from .screens.ask_name import AskNameScreen

    problem = ""
    if ask and not name and not fresh:  # the name typed here last time (a browser's: its own file)
        name = last_name(f"{host}:{port}", seats) or ""
    while True:
        if ask:
            name = await app.push_screen_wait(AskNameScreen(name, problem))
        try:
            await connect_keeping_seat(
                client,
                host,
                port,
                name,
                fresh=fresh,
                path=seats,
                say=lambda words: app.notify(words, severity="warning"),
            )
            say_if_name_cut(app, name, client.name)
            news = remember_host_key(client, f"{host}:{port}")
            if news is not None:  # told, as ssh tells it, but play goes on
                app.notify(news, title="This host's key changed", severity="warning", timeout=60)
            return
        except RequestError as exc:
            if exc.code != "name_taken":
                raise
            if not ask:
                refused.append(exc.words)
                app.exit(return_code=1)
                raise
            problem = exc.words


def say_if_name_cut(app: KismetApp, asked: str, given: str | None) -> None:
    """The host keeps MAX_NAME characters of a name: when it kept fewer than were asked for,
    say so, and what the name is now."""
    from protocol import limits

    if len(asked.strip()) > limits.MAX_NAME and given is not None and given != asked.strip():
        app.notify(
            f"A name holds up to {limits.MAX_NAME} characters: you are “{given}”.",
            severity="warning",
            timeout=10,
            markup=False,
        )


def remember_host_key(client: Client, address: str) -> str | None:
    """Remember the key the host at `address` showed in its welcome (kismet_tui/
    known_hosts.py); words for the player when it showed another one before. A door session
    remembers nothing (it runs as the host's user: the file would be the host's)."""
    from .door_env import door_pass
    from .known_hosts import remember

    if client.host_key is None or door_pass():
        return None
    return remember(address, client.host_key)


def bot_factory() -> LoopbackBotFactory | None:
    """The bots the embedded host seats, or None if this install has none."""
    try:
        from .bots.runner import bot_factory as make_factory
    except ImportError:
        return None
    return make_factory()


def solo_host(state_dir: Path) -> tuple[Host, OpenHost]:
    """`kismet`'s own host on `state_dir`, and the doors its lobby's `o` (Invite) opens on it.

    Everything of theirs is kept in that folder, whose lock `kismet` holds (the host's
    claim_state_folder): the key that signs its games and that its ssh door shows (read when
    first needed: the first screen does not wait for cryptography; the same key each time,
    so friends who come back see no new one), and the ssh door's saved seats. Never a
    `kismet-host`'s folder, which that host may be writing while it runs. A game with bots
    pauses while its player is away, and is offered again at the next start, however this
    one ended (server/table_share.py)."""
    from server import Host
    from server.doors.open_up import OpenHost
    from server.identity import HostIdentity

    host = Host(
        state_dir=state_dir,
        bot_factory=bot_factory(),
        identity=HostIdentity.when_needed(state_dir),
        pause_alone=True,
    )
    host.program = "kismet"  # (a second `kismet` on this folder is told it is one)
    return host, OpenHost(host, state_dir)


def local_parser() -> argparse.ArgumentParser:
    from .recent import solo_state_dir

    parser = argparse.ArgumentParser(prog="kismet", description="Play Kismet now, against bots.")
    parser.add_argument("--name", default=None, help="your name (default: your login name)")
    parser.add_argument(
        "--state-dir", default=None, help=f"keep the game logs here (default: {solo_state_dir()})"
    )
    add_ascii_option(parser)
    add_common_options(parser, "kismet")
    return parser


@honest_exit("kismet")
@ends_with_its_terminal
def local_main(argv: list[str] | None = None) -> int:
    from .recent import solo_state_dir

    args = local_parser().parse_args(argv)
    start_logging("kismet", args)  # the embedded host's records go there too
    set_drawing(args)
    from .app import KismetApp
    from .net.client import Client

    name = args.name or login_name()
    state_dir = Path(args.state_dir) if args.state_dir else solo_state_dir()
    host, doors = solo_host(state_dir)
    from server.state_lock import StateFolderBusy

    try:  # before the folder is touched: another `kismet` may be playing from it
        host.claim_state_folder()
    except StateFolderBusy as exc:
        print(f"kismet: {exc}", file=sys.stderr)
        return 1
    client = Client()
    from .player_key import player_key_for

    client.player_key = player_key_for("this computer")  # the solo records follow it

    async def connect() -> None:
        # (A closed terminal or a kill ends the app properly, logs closed: terminal.py.)
        await host.start("127.0.0.1", 0)
        assert host.port is not None  # a start that returned is listening
        from .known_hosts import THIS_COMPUTER

        await connect_solo(app, client, host.port, name, state_dir)
        say_if_name_cut(app, name, client.name)
        remember_host_key(client, THIS_COMPUTER)  # its own host: the games it signs verify

    async def stop() -> None:
        await client.close()
        await doors.stop()
        await host.stop()

    app = KismetApp(client, connect=connect, address="this computer", quick=True, on_quit=stop)
    from server.doors.open_up import WINDOWS_WORDS, doors_can_run

    if doors_can_run():
        app.invitation = doors
    else:  # (Windows) no key to press; the lobby says how friends can play instead
        app.invite_words = WINDOWS_WORDS
    app.replay_folder = state_dir / "games"
    app.run()
    return ended(app, "kismet")


async def connect_solo(
    app: KismetApp, client: Client, port: int, name: str, state_dir: Path
) -> None:
    """Say hello to `kismet`'s own host with the token kept in its state folder, so a game
    left unfinished last time (paused, quit, a closed terminal, a crash: the host resumed it
    from the folder) is this player's again; it is offered in the lobby instead of the
    new-table form."""
    from .saved_seats import FILE_NAME, load_token, save_token

    tokens = state_dir / FILE_NAME
    saved = load_token(SOLO_ADDRESS, name, tokens)
    await client.connect("127.0.0.1", port, name, saved if isinstance(saved, str) else None)
    try:
        if client.token is not None:
            save_token(SOLO_ADDRESS, name, client.token, tokens)
    except OSError:
        pass  # a read-only folder: only the game left unfinished is not offered next time
    paused = [entry["id"] for entry in await client.list_tables() if entry.get("paused")]
    if paused:
        app.quick = False  # the lobby offers the paused game first
        which = (
            f"table {paused[0]}" if len(paused) == 1 else "tables " + ", ".join(map(str, paused))
        )
        # (Fits the top line at 80 columns.)
        app.notify(
            f"Your unfinished game waits at {which}: enter goes back, n leaves it.",
            timeout=20,
            markup=False,
        )


SOLO_ADDRESS = "this computer"  # what the solo token is kept under


def replay_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="kismet-replay", description="Watch a saved Kismet game.")
    parser.add_argument(
        "file",
        nargs="?",
        default=None,
        help="a game log (a .kismet file); without it, choose a recent game",
    )
    parser.add_argument(
        "--speed",
        type=float,
        default=1.0,
        help="playback speed: 0.25, 0.5, 1 (the default), 2, 4, 8 or 16",
    )
    parser.add_argument(
        "--verify",
        action="store_true",
        help="do not play: check the host's signature, every event, every die "
        "and card and the end (exit 0), or name what differs or cannot be "
        "read (exit 1), or what cannot be checked though nothing differs: "
        "an unfinished or truncated log, or one from before hosts signed "
        "(exit 2)",
    )
    parser.add_argument(
        "--host-key",
        default=None,
        metavar="SHA256:...",
        help="with --verify: the log must be signed by this host key (the "
        "fingerprint kismet-host prints at start); needed only for a "
        "host you never joined from this computer",
    )
    parser.add_argument(
        "--review",
        action="store_true",
        help="do not play: print what the game's log teaches each player: dice, "
        "each decision graded by the perfect player; race, reaction times; "
        "knock, missed chances (docs/review.md)",
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="with --review: print it as JSON (dice: one object per decision; "
        "race and knock: one per player)",
    )
    parser.add_argument(
        "--build-table",
        action="store_true",
        help="with --review: if the perfect player's table is not built yet, "
        "build it first (about 10 s, once) instead of saying how",
    )
    add_ascii_option(parser)
    add_common_options(parser, "kismet-replay")
    return parser


@honest_exit("kismet-replay")
@ends_with_its_terminal
def replay_main(argv: list[str] | None = None) -> int:
    parser = replay_parser()
    args = parser.parse_args(argv)
    start_logging("kismet-replay", args)
    set_drawing(args)
    if args.host_key is not None and not args.verify:
        parser.error("--host-key goes with --verify.")
    if (args.json or args.build_table) and not args.review:
        parser.error("--json and --build-table go with --review.")
    if args.review and args.verify:
        parser.error("--review and --verify are two things: ask for one at a time.")
    from .replay import SPEEDS  # (the replay's: loaded for the playback anyway)

    if args.speed not in SPEEDS:  # (+ and - step through these while it plays)
        parser.error(
            f"--speed {args.speed:g} is not a speed the replay has: "
            f"{', '.join(f'{speed:g}' for speed in SPEEDS)}."
        )
    from .saved_game import UnreadableGame, playable, read_game

    path = args.file
    if path is None:
        path = choose_recent()
        if path is None:
            return 1
    try:
        if args.verify:
            return verify_file(path, read_game(path), args.host_key)
        header, events = playable(path)
        if args.review:
            return review_file(path, header, events, as_json=args.json, build=args.build_table)
    except UnreadableGame as exc:
        print(f"kismet-replay: {exc.words}", file=sys.stderr)
        return 1 if args.verify else 2  # --verify: a file it cannot read is not verified
    from .replay import ReplayApp

    app = ReplayApp(header, events, speed=args.speed)
    app.run()
    return ended(app, "kismet-replay")


def review_file(
    path: Path, header: Header, events: list[Event], *, as_json: bool, build: bool
) -> int:
    """Print the dice review of a game (kismet_tui/review/): exit 0, or 2 with words when the
    game is not a dice game or the perfect player's table is not built (it never guesses)."""
    from .review.dice import NotADiceGame, review_dice_game
    from .review.text import review_json, review_lines
    from .saved_game import shown

    if header.get("ruleset") in ("race", "knock"):
        return review_race_or_knock(header, events, as_json)
    if header.get("ruleset") != "dice":
        print(
            f"kismet-replay: {shown(path)} is a game of {header.get('ruleset')}: it has no review.",
            file=sys.stderr,
        )
        return 2
    V = review_table(build)
    if V is None:
        return 2
    try:
        review = review_dice_game(header, events, V)
    except NotADiceGame as exc:  # (checked above; the review's own word, should it differ)
        print(f"kismet-replay: {exc}", file=sys.stderr)
        return 2
    print(review_json(review) if as_json else "\n".join(review_lines(review)))
    return 0


def review_table(build: bool) -> Table | None:
    """The perfect player's table for a review, or None once the user has been told why not.
    Not built yet: with --build-table (or a yes at a terminal) it is built here with a
    progress line; otherwise the words say how."""
    from .review import optimal

    V, _problem = optimal.load_checked()
    if V is not None:
        return V
    if not build and sys.stdin.isatty() and sys.stderr.isatty():
        print(
            "The perfect player's table is not built yet: the review grades against it. "
            "Building it takes about 10 seconds, once.",
            file=sys.stderr,
        )
        try:
            build = input("Build it now and wait? [Y/n] ").strip().lower() in ("", "y", "yes")
        except EOFError:
            build = False
    if not build:
        print(
            "kismet-replay: the perfect player's table is not built yet, and the review never "
            "guesses without it. Build it (about 10 s, once) with kismet-replay --review "
            "--build-table FILE, or python -m kismet_tui.solver.",
            file=sys.stderr,
        )
        return None
    return optimal.build_here(
        progress=optimal.text_progress(),
        on_wait=lambda: print("Another program is building the table: waiting.", file=sys.stderr),
        on_damaged=lambda why: print(
            f"The cached table is damaged ({why}): building it again.", file=sys.stderr
        ),
    )


def review_race_or_knock(header: Header, events: list[Event], as_json: bool) -> int:
    """Print a race or knock game's figures (kismet_tui/review/race.py, knock.py): text, or
    JSON with --json."""
    import json

    from .review.words import learned_json, learned_lines

    ruleset = str(header.get("ruleset"))
    if as_json:
        print(json.dumps({"ruleset": ruleset, **learned_json(ruleset, header, events)}, indent=1))
        return 0
    title, lines = learned_lines(ruleset, header, events, width=20)
    if not lines:
        print(f"kismet-replay: nothing to review in a {ruleset} game yet.", file=sys.stderr)
        return 2
    print(title)
    for line in lines:
        print("  " + line)
    return 0


def verify_file(path: Path, log: GameLog, host_key: str | None) -> int:
    """Print what --verify found (kismet_tui/log_check.py), each line cleaned, so nothing
    from the file can break a line, rewrite one or reach the terminal as an escape; returns
    the report's exit code."""
    from protocol.text import clean_text

    from .known_hosts import known_keys
    from .log_check import check_log
    from .saved_game import UnreadableGame, shown

    try:
        report = check_log(log, host_key=host_key, known=known_keys())
    except Exception as exc:  # a crafted file can hold anything: say so, no traceback
        raise UnreadableGame(
            f"{shown(path)} cannot be checked: {type(exc).__name__}: {exc}"
        ) from None
    out = sys.stdout if report.ok else sys.stderr
    for line in report.lines:
        print(f"{shown(path)}: {clean_text(line)}", file=out)
    return report.exit_code


def choose_recent() -> Path | None:
    """The recent games listed on the terminal, one chosen by number; None if there are
    none or none was chosen."""
    from .recent import choose, game_folders, recent_games

    games = recent_games()
    if not games:
        folders = " and ".join(str(folder) for folder in game_folders())
        print(
            f"kismet-replay: no saved games yet (looked in {folders}). Play one with `kismet`, "
            "or give a file: kismet-replay FILE.kismet",
            file=sys.stderr,
        )
        return None
    print("Recent games, newest first:")
    return choose(games)
