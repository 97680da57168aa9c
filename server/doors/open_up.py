"""Opening a running host to the network later, on purpose: `kismet` alone plays on
127.0.0.1, and its lobby's Invite (`o`, kismet_tui/screens/invite.py) asks first, then
opens an ssh door that lets in only friends whose public keys were pasted and/or friends
who type the evening's password (made here, shown to the host's player once), and, only if
chosen, the game's own port for kismet-join (which asks nothing) with its LAN announcement.
`close()` shuts them all again. The asking screen reads `what_opens()`; `open()` returns
the lines to share.

Windows runs no ssh door (its sessions need a pseudo-terminal): there `kismet` does not offer
the key, and says in its lobby how friends can join instead (WINDOWS_WORDS)."""

from __future__ import annotations

import asyncio
import logging
import secrets
import sys
from typing import TYPE_CHECKING

from kismet_tui.invite import InviteChoice, InviteRefused

if TYPE_CHECKING:  # imported by open(), so `kismet` alone never loads asyncssh or zeroconf
    from collections.abc import Callable
    from pathlib import Path

    from ..host import Host
    from ..lan.discovery import Announcer
    from .ssh import SshServer

log = logging.getLogger("kismet.open")

PORT = 7717  # kismet-host's default, so friends type what they would for it
SSH_PORT = 2222
# The evening's password: letters and digits without look-alikes, 10 of them (~50 bits),
# shown as ABCDE-FGHJK; a new one each time Invite opens.
PASSWORD_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
PASSWORD_LENGTH = 10

WINDOWS_WORDS = (
    "Inviting friends from this game needs Linux or macOS (its ssh door runs their "
    "games here). To play together on Windows, start kismet-host in another "
    "window: friends join it with kismet-join, and so do you."
)


def doors_can_run() -> bool:
    """This system can open the doors (the ssh door runs each friend's game on a pty)."""
    return sys.platform != "win32"


async def _listen(factory: Callable[[], asyncio.Protocol], bind: str, port: int) -> asyncio.Server:
    """Listen on `bind` at `port`, or at any free port when that one is taken."""
    loop = asyncio.get_running_loop()
    try:
        return await loop.create_server(factory, bind, port)
    except OSError:
        return await loop.create_server(factory, bind, 0)


def reachable(lines: list[str]) -> list[str]:
    """The lines for other machines (this one's loopback only when it has no other address)."""
    return [line for line in lines if "127.0.0.1" not in line] or lines


def new_password() -> str:
    code = "".join(secrets.choice(PASSWORD_ALPHABET) for _ in range(PASSWORD_LENGTH))
    return f"{code[:5]}-{code[5:]}"


class OpenHost:
    """The doors opened on an embedded `host` (an Invitation: kismet_tui/invite.py); `close()`
    shuts them again. `bind`: every address by default (tests give 127.0.0.1)."""

    def __init__(
        self,
        host: Host,
        key_dir: str | Path,
        *,
        port: int = PORT,
        ssh_port: int = SSH_PORT,
        announce: bool = True,
        bind: str = "0.0.0.0",
    ) -> None:
        self.host = host
        self.key_dir = key_dir
        self.port, self.ssh_port, self.announce, self.bind = port, ssh_port, announce, bind
        self.server: asyncio.Server | None = None
        self.ssh: SshServer | None = None
        self.announcer: Announcer | None = None
        self.password: str | None = None
        self.lines: list[str] = []

    @property
    def is_open(self) -> bool:
        return self.ssh is not None

    def addresses(self) -> list[str]:
        from ..cli import addresses_for

        return reachable(addresses_for(self.bind))

    def what_opens(self) -> list[str]:
        where = ", ".join(self.addresses())
        return [
            f"What opens: an ssh door, port {self.ssh_port} (another if taken), on {where}.",
            "It gives this game and nothing else: no shell, no files.",
            "Who comes in: only friends whose public keys you paste here, and, if you",
            "choose it, friends without a key who type tonight's password.",
            f"Only if you choose it: the game's own port {self.port} for kismet-join, which",
            "asks nothing: anyone on this network could come in"
            + (" (and it is announced there)." if self.announce else "."),
            "o in the lobby closes it all again.",
        ]

    async def open(self, choice: InviteChoice) -> list[str]:
        from .ssh import SshServer
        from .ssh_keys import PastedKeys

        if self.is_open:
            return self.lines
        keys = PastedKeys(choice.keys) if choice.keys.strip() else None
        if keys is not None and keys.refused:
            raise InviteRefused(
                " ".join(keys.refused) + " Paste each friend's public key "
                "(the one line of their ~/.ssh/id_ed25519.pub), or remove that line."
            )
        if (keys is None or not keys.keys) and not choice.password:
            raise InviteRefused(
                "Paste at least one friend's public key, or choose a password for "
                "friends without a key: the door would let nobody in."
            )
        password = new_password() if choice.password else None
        ssh = SshServer(self.host, self.key_dir, keys=keys, password=password)
        try:
            await ssh.start(self.bind, self.ssh_port)
        except OSError:
            await ssh.start(self.bind, 0)
        self.ssh, self.password = ssh, password
        assert ssh.port is not None  # a start that returned is listening
        lines = ["Invite open. Friends type:"]
        lines += [f"  ssh -p {ssh.port} NAME@{address}" for address in self.addresses()]
        if keys is not None and keys.keys:
            count = len(keys.keys)
            lines.append(
                f"Let in by key: the {count} friend{'s' if count != 1 else ''} whose key you pasted."
            )
        if password is not None:
            lines.append(f"Tonight's password, for friends without a key: {password}")
        if choice.join_port:
            await self._open_join_port(lines)
        lines.append("o closes the invite.")
        self.lines = lines
        return lines

    async def _open_join_port(self, lines: list[str]) -> None:
        from ..connection import Connection

        server = self.server = await _listen(
            lambda: Connection(self.host.gate), self.bind, self.port
        )
        port = server.sockets[0].getsockname()[1]
        lines.append("With Kismet installed (anyone on this network, nothing asked):")
        lines += [f"  kismet-join {address}:{port}" for address in self.addresses()]
        if not self.announce:
            return
        try:
            from ..lan.discovery import Announcer

            assert self.ssh is not None and self.ssh.port is not None  # opened first
            announcer = self.announcer = Announcer(self.host, port=port, ssh_port=self.ssh.port)
            await announcer.start()
        except Exception as exc:  # no multicast: they type the address
            log.info("not announced: %s", exc)
            self.announcer = None

    async def close(self) -> None:
        if self.announcer is not None:
            await self.announcer.stop()
            self.announcer = None
        if self.ssh is not None:
            await self.ssh.stop()
            self.ssh = None
        if self.server is not None:
            self.server.close()
            self.server = None
        self.password = None
        self.lines = []

    async def stop(self) -> None:
        await self.close()
