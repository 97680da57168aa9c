"""`kismet-host --ssh`: play over ssh with nothing installed, and nothing else over that port.

`ssh -p 2222 NAME@HOST` opens the Kismet app for NAME, as a member of this host. The server
owns the ssh side only: who may log in (anyone, or the keys of `--ssh-keys`; for `kismet`'s
Invite, keys pasted for the evening and/or the evening's password), refusing every
request but one terminal session per login (no exec, no subsystem such as sftp, no port,
agent or X11 forwarding), the name (asked for in the terminal when NAME is taken or
unusable), the host key (made once, kept in the state folder) and the seats of dropped
players. Each session runs `kismet-join` on a pty of its own (server/doors/pty_app.py).

A dropped session is a dropped player: the host keeps the seat for the rejoin token the
client was given, and that token is saved per NAME and proof (server state folder,
`ssh-seats/`, a folder each, removed once the host holds none of its tokens:
server/doors/seat_files.py): the client's key, or for a login without a key the rejoin code it
was shown at first login (server/doors/rejoin_code.py), asked for when that NAME comes back while its seat
is held. So the same NAME with the same key or code takes the seat back, and somebody else
typing that NAME does not. Wrong codes are limited per address and per name, a few a minute
(rejoin_code.Guesses): past that a login is told "Too many tries: wait a minute."

No session can take the machine (server/doors/door_limits.py): its window is clamped, its app
runs under a memory limit (and ends in words past it) and dies with the session or the
host, its keys are read with backpressure, and the doors hold at most `slots` sessions. Each
app is handed a door pass (server/doors/door_pass.py), so the host counts the player by their
real address, not as loopback.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import logging
import re
from collections.abc import Callable, Coroutine, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import asyncssh

from kismet_tui.door_env import REJOIN_CODE_VARIABLE
from protocol import limits
from protocol.text import clean_name

from ..identity import HostIdentity
from ..peer_cap import DEFAULT_MAX_PER_ADDRESS, PeerCap, address_of
from . import rejoin_code
from .door_limits import SESSION_ADDRESS_SPACE, SessionSlots, clamp_size
from .door_pass import ENVIRONMENT_NAME
from .door_starts import StartTurn
from .pty_app import PtyApp
from .seat_files import SeatFolders
from .session_policy import died_of_its_memory, stop_reading
from .session_sandbox import SessionSandbox, own_environment, session_rules
from .ssh_keys import AuthorizedKeys, PastedKeys
from .warm_doors import DoorForker

if TYPE_CHECKING:
    from kismet_tui.saved_seats import Damaged

    from ..host import Host

log = logging.getLogger("kismet.ssh")

DEFAULT_SSH_PORT = 2222
# What a session's keys may fill on the host before its client must wait: ssh's window (what
# asyncssh buffers while the door does not read) is small, so a flood waits at the sender.
INPUT_WINDOW = 64 * 1024
# Back to a plain terminal (main screen, no mouse reports, a cursor) after an app that could
# not tidy up, so the words after it can be read.
# (What Textual turns on and off: mouse reports, focus events, bracketed paste, in-band
# resizes, the kitty keyboard protocol, line wrap.)
PLAIN_TERMINAL = (
    b"\x1b[?1049l\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?1015l\x1b[?1016l"
    b"\x1b[?1004l\x1b[?2004l\x1b[?2048l\x1b[<u\x1b[?7h\x1b[?25h\x1b[0m\r\n"
)
# How long a stopping host waits for the players' ssh clients to show its goodbye.
GOODBYE_WAIT_S = 2.0
HOST_STOPPED_WORDS = (
    "The host stopped. Your game is saved: log in again when it is back to take your seat."
)
OUT_OF_MEMORY_WORDS = "Your game used too much memory and was ended."
CRASHED_WORDS = "Your game stopped unexpectedly. Log in again to go on: your seat is kept."
NO_TERMINAL = (
    "Kismet is played in a terminal: connect with plain `ssh -p {port} NAME@HOST` "
    "(no command, no -T).\r\n"
)


# What a terminal type may hold (`xterm-256color`, `screen.xterm`, `rxvt-unicode+x`): the
# client sends any bytes, and TERM is read by curses-like code in the app, so anything else
# plays as the common default.
TERM_PATTERN = re.compile(r"[A-Za-z0-9._+-]{1,64}")
DEFAULT_TERM = "xterm-256color"


def clean_term(term_type: object) -> str:
    """The player's terminal type if it looks like one, else DEFAULT_TERM."""
    if isinstance(term_type, str) and TERM_PATTERN.fullmatch(term_type):
        return term_type
    return DEFAULT_TERM


def load_host_key(state_dir: str | Path) -> asyncssh.SSHKey:
    """The host's key: its identity (server/identity.py), which also signs its games."""
    return asyncssh.import_private_key(HostIdentity.load(state_dir).private_bytes())


def key_proof(key: asyncssh.SSHKey) -> str:
    """What proves a player who logged in with `key` (their seats file, their door pass)."""
    return "ssh-key " + key.get_fingerprint("sha256")


def name_problem(name: str) -> str | None:
    """Why `name` cannot be used as it is, in plain words, or None."""
    if not name or not name.strip():
        return "Please type a name."
    if len(name) > limits.MAX_NAME:
        return f"That name is longer than {limits.MAX_NAME} letters."
    if clean_name(name) != name or name != name.strip():
        return "A name cannot hold control characters or begin or end with spaces."
    return None


class SshServer:
    """The ssh front door of `host` (a server.Host in this process)."""

    def __init__(
        self,
        host: Host,
        state_dir: str | Path,
        *,
        keys_file: str | Path | None = None,
        max_per_address: int | None = DEFAULT_MAX_PER_ADDRESS,
        cap_loopback: bool = False,
        slots: SessionSlots | None = None,
        forker: DoorForker | None = None,
        sandbox: SessionSandbox | None = None,
        keys: PastedKeys | None = None,
        password: str | None = None,
        session_address_space: int = SESSION_ADDRESS_SPACE,
    ) -> None:
        self.host = host
        self.session_address_space = session_address_space  # each session's memory limit
        self.slots = slots if slots is not None else SessionSlots()  # shared with the web door
        self.forker = forker  # the warm parent of sessions (None: a new process each)
        self.state_dir = Path(state_dir)
        self.keys_file = keys_file
        # None: an open host, anyone may play. Raises OSError when the file cannot be read.
        # `keys`: keys pasted for the evening instead (`kismet`'s Invite, server/doors/open_up.py).
        self.authorized: AuthorizedKeys | PastedKeys | None = (
            AuthorizedKeys(keys_file) if keys_file else keys
        )
        # With a password, a login without a listed key must give it (keyless friends whom
        # `kismet`'s Invite let in for the evening); without one, only listed keys, or anyone.
        self.password = password
        # The per-address cap, the host's own rule (server/peer_cap.py) for this door's peers.
        self.cap = PeerCap(max_per_address, cap_loopback)
        self.host_key: asyncssh.SSHKey | None = None
        self.port: int | None = None
        self.sessions: set[PlayerSession] = set()
        # The sessions' own tasks (an app opening, an ending): kept, so the loop cannot
        # collect one mid-flight, and waited for by stop.
        self.tasks: set[asyncio.Task[None]] = set()
        self.guesses = rejoin_code.Guesses()  # wrong rejoin codes, per address and per name
        self.seats = SeatFolders(host, self.state_dir, "ssh-seats")
        # What each session may open: its seat folder, never the rest of the state folder.
        self.sandbox = sandbox if sandbox is not None else SessionSandbox(self.state_dir)
        self._server: asyncssh.SSHAcceptor | None = None

    async def start(self, bind: str = "0.0.0.0", port: int = DEFAULT_SSH_PORT) -> None:
        # asyncssh logs every packet exchange at INFO; the host's log keeps our own lines.
        logging.getLogger("asyncssh").setLevel(max(logging.WARNING, log.getEffectiveLevel()))
        self.host_key = load_host_key(self.state_dir)
        self._server = await asyncssh.create_server(
            lambda: SshLogin(self),
            bind,
            port,
            server_host_keys=[self.host_key],
            encoding=None,
            x11_forwarding=False,
            agent_forwarding=False,
            allow_scp=False,
            line_editor=False,
            sftp_factory=None,
            window=INPUT_WINDOW,
            # A host started again on its ssh port while old connections wait out TIME_WAIT
            # binds it (asyncssh 2.14, the floor, leaves it off; asyncio has it on for TCP).
            reuse_address=True,
        )
        self.port = self._server.sockets[0].getsockname()[1]
        self.seats.start()
        log.info("ssh on %s:%s, key %s", bind, self.port, self.fingerprint)

    @property
    def fingerprint(self) -> str:
        return self.host_key.get_fingerprint("sha256") if self.host_key else ""

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
        sessions = list(self.sessions)
        for session in sessions:
            session.goodbye(HOST_STOPPED_WORDS)  # a plain terminal, not the board, is left
        # OpenSSH quits at the connection's "disconnect" without writing out what it has
        # received and not yet shown: so the goodbye's channel is closed first (its client
        # has then shown it), for a moment at most, and only then the connections.
        with contextlib.suppress(TimeoutError, asyncio.TimeoutError):
            await asyncio.wait_for(
                asyncio.gather(
                    *(session.chan.wait_closed() for session in sessions), return_exceptions=True
                ),
                GOODBYE_WAIT_S,
            )
        for session in sessions:
            session.login.conn.close()  # the players' ssh clients end too
        await asyncio.gather(*(session.end() for session in sessions), return_exceptions=True)
        # (Ended, the openings return at once and the endings have little left to do.)
        await asyncio.gather(*self.tasks, return_exceptions=True)
        if self._server is not None:
            await self._server.wait_closed()
        await self.seats.stop()

    def keep(self, work: Coroutine[Any, Any, None]) -> None:
        """Run `work` as a task of the door's, until it ends or the door stops."""
        task = asyncio.create_task(work)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    @staticmethod
    def seat_digest(name: str, proof: str) -> str:
        """What names the seat folder of this NAME with this proof (its key's fingerprint,
        or the identity of its rejoin code: never NAME alone)."""
        return hashlib.sha256(f"{name}\0{proof}".encode()).hexdigest()[:32]

    def seats_file(self, name: str, proof: str) -> Path:
        """Where this NAME with this proof keeps its rejoin token."""
        return self.seats.tokens_file(self.seat_digest(name, proof))

    def host_address(self) -> str:
        return f"{self.host.connect_address()}:{self.host.port}"

    def name_taken(self, name: str, token: str | None) -> bool:
        """Somebody else is here under `name` or a look-alike of it (protocol.text.name_key):
        connected, or holding a seat while away."""
        from ..handshake import name_holder

        return name_holder(self.host, name, token) is not None


class SshLogin(asyncssh.SSHServer):
    """One ssh connection: its address under the cap, who logged in, one session at most."""

    def __init__(self, server: SshServer):
        self.server = server
        # Declared, not set: asyncssh calls connection_made, which sets both, before any
        # other method of the login.
        self.conn: asyncssh.SSHServerConnection
        self.address: str
        self.admitted = False
        self.key: asyncssh.SSHKey | None = None
        self.username = ""
        self.session: PlayerSession | None = None

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self.conn = conn
        self.address = address_of(conn.get_extra_info("peername")) or "?"
        self.admitted = self.server.cap.admit(self.address)

    def connection_lost(self, exc: Exception | None) -> None:
        if self.admitted:
            self.admitted = False
            self.server.cap.release(self.address)

    def begin_auth(self, username: str) -> bool:
        if not self.admitted:
            self.conn.disconnect(asyncssh.DISC_TOO_MANY_CONNECTIONS, self.server.cap.refusal())
            return True
        self.username = username
        return True  # always authenticate: that is how we learn the player's key

    def public_key_auth_supported(self) -> bool:
        return True

    def validate_public_key(self, username: str, key: asyncssh.SSHKey) -> bool:
        allowed = self.server.authorized
        if allowed is None and self.server.password is not None:
            return False  # a password alone: no key is let in without it
        if allowed is not None and not allowed.allows(key, self.address):
            return False
        self.key = key  # the client signs with the key it asked about last
        return True

    def kbdint_auth_supported(self) -> bool:
        # An open host lets in players without any key, with no question asked; a host with
        # an evening's password asks for it.
        return self.server.authorized is None or self.server.password is not None

    def get_kbdint_challenge(
        self, username: str, lang: str, submethods: str
    ) -> bool | tuple[str, str, str, list[tuple[str, bool]]]:
        self.key = None
        if self.server.password is None:
            return True
        return (
            "Kismet",
            "The password of this evening's game (ask who invited you).",
            "",
            [("Password: ", False)],
        )

    def validate_kbdint_response(self, username: str, responses: Sequence[str]) -> bool:
        return len(responses) == 1 and self.validate_password(username, responses[0])

    def password_auth_supported(self) -> bool:
        return self.server.password is not None

    def validate_password(self, username: str, password: str) -> bool:
        expected = self.server.password
        if expected is None:
            return False
        self.key = None
        return hmac.compare_digest(password.strip().encode(), expected.encode())

    def session_requested(self) -> PlayerSession | bool:
        if self.session is not None:
            return False  # one game per login at a time
        self.session = PlayerSession(self)
        return self.session

    # Nothing but the game: every kind of forwarding is refused.
    def connection_requested(
        self, dest_host: str, dest_port: int, orig_host: str, orig_port: int
    ) -> bool:
        return False

    def server_requested(self, listen_host: str, listen_port: int) -> bool:
        return False

    def unix_connection_requested(self, dest_path: str) -> bool:
        return False

    def unix_server_requested(self, listen_path: str) -> bool:
        return False


class PlayerSession(asyncssh.SSHServerSession[bytes]):
    """One terminal session: the name (asked for when needed), then the app on its pty."""

    def __init__(self, login: SshLogin):
        self.login = login
        self.server = login.server
        # Declared, not set: asyncssh calls connection_made, which sets it, first. The
        # server is made with encoding=None, so the channel carries bytes.
        self.chan: asyncssh.SSHServerChannel[bytes]
        self.term: str | None = None  # set by pty_requested; None: no terminal
        self.size = (80, 24)
        self.app: PtyApp | None = None
        self.typed: bytearray | None = None  # the line being typed, while asking
        self.answered: Callable[[str], None] = self.name_given  # what takes that line
        self.wrong_codes = 0
        self.ended = False
        self.slot = False  # holds one of the doors' SessionSlots
        self.door_pass: str | None = None  # issued for the app, revoked at the end
        self.seat_digest: str | None = None  # its seat folder's, while the app uses it
        self.reading = True  # False while the app's key backlog is full
        self.turn: StartTurn | None = None  # its start-up's turn (server/doors/door_starts.py)
        self.ahead: int | None = None  # logins starting before it, as last shown

    def connection_made(self, chan: asyncssh.SSHServerChannel[bytes]) -> None:
        self.chan = chan
        self.server.sessions.add(self)

    # ---- what the client may ask for ------------------------------------------------------
    def pty_requested(
        self, term_type: str, term_size: tuple[int, int, int, int], term_modes: Mapping[int, int]
    ) -> bool:
        self.term = clean_term(term_type)
        if term_size:
            self.size = clamp_size(term_size[0], term_size[1], self.size)
        return True

    def shell_requested(self) -> bool:
        return True

    def exec_requested(self, command: str) -> bool:
        log.info("refused a command from %s", self.login.address)
        return False

    def subsystem_requested(self, subsystem: str) -> bool:
        log.info("refused subsystem %r from %s", subsystem, self.login.address)
        return False

    def session_started(self) -> None:
        if self.term is None:
            self.chan.write(NO_TERMINAL.format(port=self.server.port).encode())
            self.chan.exit(1)
            return
        if not self.server.slots.take():
            self.chan.write(f"\r\n{self.server.slots.refusal()}\r\n".encode())
            self.chan.exit(1)
            return
        self.slot = True
        name = self.login.username
        problem = name_problem(name)
        if problem is None:
            self.sit_down(name)
        else:
            self.ask_name(problem)

    # ---- who the player is: the name, and what proves them -----------------------------------
    def sit_down(self, name: str) -> None:
        """Open the app for a usable `name`, once this login has the right to it: a key's
        own seat, or a new player; a keyless name that holds a seat asks for its code."""
        from ..handshake import name_refusal

        key = self.login.key
        if key is not None:
            proof = key_proof(key)
            problem = self.taken_words(name, self.token_for(name, proof))
            if problem is None:
                self.start_app(name, proof)
            else:
                self.ask_name(problem)
        elif self.server.name_taken(name, None):  # (a seat from before a restart too)
            self.ask_code(name)
        elif (problem := name_refusal(self.server.host, name, None)) is not None:
            self.ask_name(problem)  # a name in the bots' form
        else:
            code = rejoin_code.new_code()
            self.chan.write(rejoin_code.first_words(name, code).encode())
            # The code stays until the player says they have it: the app would cover it.
            self.ask(lambda typed: self.start_app(name, rejoin_code.identity(name, code), code))

    def token_for(self, name: str, proof: str) -> str | Damaged | None:
        """The token saved for NAME with this proof: a str, None, or saved_seats.Damaged."""
        from kismet_tui.saved_seats import load_token

        return load_token(self.server.host_address(), name, self.server.seats_file(name, proof))

    def taken_words(self, name: str, token: str | Damaged | None) -> str | None:
        """Why a login whose saved token for `name` is `token` cannot go by it, or None."""
        from kismet_tui.saved_seats import Damaged

        from ..handshake import name_refusal

        if isinstance(token, Damaged):
            # Perhaps the rightful owner, whose proof was in that file: say what happened.
            if self.server.name_taken(name, None):
                return (
                    f"Your saved seat as {name} could not be read (its file was damaged and "
                    "is set aside), so this host cannot tell the seat is yours. Please pick "
                    "another name."
                )
            return None
        if self.server.name_taken(name, token):
            return f"Somebody called {name} is already at this host."
        # The host would refuse a bot's name too (server/handshake.py): ask before the app.
        return name_refusal(self.server.host, name, token)

    def ask_name(self, problem: str) -> None:
        self.chan.write(f"\r\n{problem}\r\nYour name at the table: ".encode())
        self.ask(self.name_given)

    def name_given(self, name: str) -> None:
        problem = name_problem(name)
        if problem is None:
            self.sit_down(name)
        else:
            self.ask_name(problem)

    def ask_code(self, name: str, problem: str = "") -> None:
        if self.wrong_codes >= rejoin_code.TRIES:  # this login had its tries at NAME's code
            self.ask_name(
                f"{problem}Somebody called {name} is already at this host, and this "
                "login has typed three wrong codes: please pick another name."
            )
            return
        self.chan.write(
            f"\r\n{problem}Rejoin code for {name} (shown when you first logged in "
            f"as {name}),\r\nor enter to pick a new name: ".encode()
        )
        self.ask(lambda typed: self.code_given(name, typed))

    def code_given(self, name: str, typed: str) -> None:
        if not typed:
            self.ask_name(f"Somebody called {name} is already at this host.")
            return
        guesses = self.server.guesses
        if not guesses.allowed(self.login.address, name):  # (the code is not even looked at)
            self.chan.write(f"\r\n{rejoin_code.TOO_MANY}\r\n".encode())
            self.chan.exit(1)
            return
        code = rejoin_code.read_back(typed)
        if code is not None:
            proof = rejoin_code.identity(name, code)
            token = self.token_for(name, proof)
            # The code is right when its file holds the token of the one holding the name.
            if isinstance(token, str) and not self.server.name_taken(name, token):
                self.start_app(name, proof, code)
                return
            if token is not None and not isinstance(token, str):  # saved_seats.Damaged
                self.ask_name(
                    self.taken_words(name, token)
                    or f"Somebody called {name} is already at this host."
                )
                return
        self.wrong_codes += 1
        if guesses.wrong(self.login.address, name):
            log.warning(
                "rejoin codes for %s from %s: too many wrong, refused for a minute",
                name,
                self.login.address,
            )
            self.chan.write(
                f"\r\nThat is not the rejoin code for {name}. {rejoin_code.TOO_MANY}\r\n".encode()
            )
            self.chan.exit(1)
            return
        self.ask_code(name, f"That is not the rejoin code for {name}.\r\n")

    # ---- a line typed before the app starts (a name, a code) -----------------------------------
    def ask(self, answered: Callable[[str], None]) -> None:
        self.typed = bytearray()
        self.answered = answered

    def typed_line(self, data: bytes) -> None:
        # data_received calls this only while a line is asked for (typed is a buffer).
        assert self.typed is not None
        if data.startswith(b"\x1b"):
            return  # an arrow or function key: not part of a name
        for byte in data:
            if byte in (3, 4):  # ctrl+c, ctrl+d
                self.chan.write(b"\r\nBye.\r\n")
                self.chan.exit(0)
                return
            if byte in (8, 127):  # backspace
                if self.typed:
                    text = self.typed.decode("utf-8", "ignore")[:-1]
                    self.typed = bytearray(text.encode())
                    self.chan.write(b"\b \b")
            elif byte in (10, 13):
                line = self.typed.decode("utf-8", "ignore").strip()
                self.typed = None
                self.answered(line)
                return
            elif byte >= 32 and len(self.typed) < limits.MAX_NAME * 4:
                self.typed.append(byte)
                self.chan.write(bytes([byte]))

    # ---- the app ---------------------------------------------------------------------------
    def start_app(self, name: str, proof: str, code: str | None = None) -> None:
        self.chan.write(b"\r\n")
        self.server.keep(self.open_app(name, proof, code))

    async def open_app(self, name: str, proof: str, code: str | None) -> None:
        if self.ended:
            return
        # Opened only from session_started, which first ends a session without a terminal.
        assert self.term is not None
        # A storm of logins starts a few at a time (server/doors/door_starts.py): wait for a turn.
        self.turn = self.server.slots.starts.turn()
        await self.turn.wait(self.show_place)
        if self.ended:
            return
        seats = self.server.seats_file(name, proof)
        self.seat_digest = self.server.seat_digest(name, proof)
        self.server.seats.using(self.seat_digest)
        # `--name=NAME` in one word: a name such as "-h" or "--fresh" stays a name.
        args = [self.server.host_address(), f"--name={name}", f"--seats-file={seats}"]
        # The pass tells the host who this player really is (address, key or code): it
        # counts them against their own address, not loopback's.
        self.door_pass = self.server.host.door_passes.issue(
            "ssh", self.login.address, proof, listed=self.turn.listed
        )
        door_env = {ENVIRONMENT_NAME: self.door_pass, **own_environment(seats.parent)}
        if code:
            door_env[REJOIN_CODE_VARIABLE] = rejoin_code.shown(code)
        self.app = PtyApp(
            args,
            term=self.term,
            cols=self.size[0],
            rows=self.size[1],
            on_output=self.show,
            on_exit=self.app_ended,
            on_input_room=self.input_room,
            door_env=door_env,
            client_env=dict(self.chan.get_environment()),
            forker=self.server.forker,
            confinement=session_rules(self.server.sandbox, seats.parent),
            address_space=self.server.session_address_space,
            turn=self.turn,
        )
        try:
            await self.app.start()
        except OSError as exc:
            self.turn.end()
            self.chan.write(f"Sorry, the game could not start here: {exc}\r\n".encode())
            self.chan.exit(1)
            return
        log.info("%s plays over ssh from %s (pid %s)", name, self.login.address, self.app.pid)

    def show_place(self, ahead: int) -> None:
        """How many logins start before this one, on the line the cursor is on."""
        if not self.ended and ahead != self.ahead:
            self.ahead = ahead
            self.show(f"\r\x1b[KStarting your game: {ahead} ahead of you.".encode())

    def show(self, data: bytes) -> None:
        """The app's screen output, to the player (unless the line has just gone)."""
        if not self.ended:
            try:
                self.chan.write(data)
            except (OSError, asyncssh.Error):
                pass

    # A player on a slow line: stop reading the app's output until ssh has sent what it has
    # (the app then waits on its terminal, as it would on a slow real one).
    def pause_writing(self) -> None:
        if self.app is not None:
            self.app.pause_reading()

    def resume_writing(self) -> None:
        if self.app is not None:
            self.app.resume_reading()

    def goodbye(self, words: str) -> None:
        """The session ends from this side while the app may still be drawing: the player's
        terminal back to plain (the app has no chance to tidy it), and why."""
        if not self.ended:
            self.ended = True  # (nothing the app still draws reaches the player after this)
            try:
                self.chan.write(PLAIN_TERMINAL + f"{words}\r\n".encode())
                self.chan.exit(0)
            except (OSError, asyncssh.Error):
                pass

    def app_ended(self, code: int) -> None:
        if not self.ended:
            self.ended = True
            # (the app's watches, its memory's and its wedge's, end it with OUT_OF_MEMORY:
            # pty_app.py)
            out_of_memory = died_of_its_memory(
                code,
                watched_over=False,
                near_limit=self.app is not None and self.app.memory.near,
            )
            if out_of_memory:
                log.warning("the game of %s ran out of memory", self.login.address)
                self.chan.write(PLAIN_TERMINAL + f"{OUT_OF_MEMORY_WORDS}\r\n".encode())
            elif code < 0:  # killed by a signal the door did not send (a crash)
                log.warning("the game of %s stopped by signal %d", self.login.address, -code)
                self.chan.write(PLAIN_TERMINAL + f"{CRASHED_WORDS}\r\n".encode())
            self.chan.exit(0 if code == 0 else 1)

    def data_received(self, data: bytes, datatype: asyncssh.DataType) -> None:
        if self.app is not None:
            self.app.write(data)
            if self.reading and stop_reading(self.app.input_backlog):
                self.reading = False
                self.chan.pause_reading()
        elif self.typed is not None:
            self.typed_line(data)

    def input_room(self) -> None:
        """The app has taken enough of the keys waiting: read the player's side again."""
        if not self.reading and not self.ended:
            self.reading = True
            self.chan.resume_reading()

    def terminal_size_changed(self, width: int, height: int, pixwidth: int, pixheight: int) -> None:
        self.size = clamp_size(width, height, self.size)
        if self.app is not None:
            self.app.resize(*self.size)

    def eof_received(self) -> bool:
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self.server.sessions.discard(self)
        if self.login.session is self:
            self.login.session = None
        self.server.keep(self.end())

    async def end(self) -> None:
        """The ssh side is gone: hang up on the app (the host keeps the seat)."""
        self.ended = True
        if self.turn is not None:
            self.turn.end()  # (waiting for it, or starting: the next login's turn)
        try:
            if self.app is not None:
                await self.app.close()
        finally:
            if self.door_pass is not None:
                self.server.host.door_passes.revoke(self.door_pass)
                self.door_pass = None
            if self.seat_digest is not None:
                self.server.seats.done(self.seat_digest)
                self.seat_digest = None
            if self.slot:
                self.slot = False
                self.server.slots.give_back()
