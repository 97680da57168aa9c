"""Opening a running host to the network later: `kismet` alone plays on 127.0.0.1, and one
key in its lobby lets friends in (the host's protocol on every address, ssh, and the LAN
announcement). Returns the lines they should type.

Windows runs no ssh door (its sessions need a pseudo-terminal): there `kismet` does not offer
the key, and says in its lobby how friends can join instead (WINDOWS_WORDS).
"""

from __future__ import annotations

import asyncio
import logging
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported by open(), so `kismet` alone never loads asyncssh or zeroconf
    from collections.abc import Callable
    from pathlib import Path

    from .discovery import Announcer
    from .host import Host
    from .ssh import SshServer

log = logging.getLogger("kismet.open")

PORT = 7717          # kismet-host's default, so friends type what they would for it
SSH_PORT = 2222
WINDOWS_WORDS = ("Inviting friends from this game needs Linux or macOS (its ssh door runs their "
                 "games here). To play together on Windows, start kismet-host in another "
                 "window: friends join it with kismet-join, and so do you.")


def doors_can_run() -> bool:
    """This system can open the doors (the ssh door runs each friend's game on a pty)."""
    return sys.platform != "win32"


async def _listen(factory: Callable[[], asyncio.Protocol], port: int) -> asyncio.Server:
    """Listen on every address at `port`, or at any free port when that one is taken."""
    loop = asyncio.get_running_loop()
    try:
        return await loop.create_server(factory, "0.0.0.0", port)
    except OSError:
        return await loop.create_server(factory, "0.0.0.0", 0)


def reachable(lines: list[str]) -> list[str]:
    """The lines for other machines (this one's loopback only when it has no other address)."""
    return [line for line in lines if "127.0.0.1" not in line] or lines


class OpenHost:
    """The doors opened on an embedded `host`; `stop()` closes them again."""

    def __init__(self, host: Host, key_dir: str | Path, *, port: int = PORT, ssh_port: int = SSH_PORT,
                 announce: bool = True) -> None:
        self.host = host
        self.key_dir = key_dir
        self.port, self.ssh_port, self.announce = port, ssh_port, announce
        self.server: asyncio.Server | None = None
        self.ssh: SshServer | None = None
        self.announcer: Announcer | None = None
        self.lines: list[str] = []

    async def open(self) -> list[str]:
        from .cli import join_lines, ssh_lines
        from .connection import Connection
        from .ssh import SshServer

        if self.server is not None:
            return self.lines
        server = self.server = await _listen(lambda: Connection(self.host.gate), self.port)
        port = server.sockets[0].getsockname()[1]
        self.lines = ["Friends on this network can now join with:"]
        self.lines += ["  " + line for line in reachable(join_lines("0.0.0.0", port))]
        ssh = self.ssh = SshServer(self.host, self.key_dir)
        try:
            await ssh.start("0.0.0.0", self.ssh_port)
        except OSError:
            await ssh.start("0.0.0.0", 0)
        assert ssh.port is not None  # a start that returned is listening
        self.lines.append("or with nothing installed:")
        self.lines += ["  " + line for line in reachable(ssh_lines("0.0.0.0", ssh.port))]
        if not self.announce:
            return self.lines
        try:
            from .discovery import Announcer

            announcer = self.announcer = Announcer(self.host, port=port, ssh_port=ssh.port)
            await announcer.start()
        except Exception as exc:  # no multicast: they type the address
            log.info("not announced: %s", exc)
            self.announcer = None
        return self.lines

    async def stop(self) -> None:
        if self.announcer is not None:
            await self.announcer.stop()
        if self.ssh is not None:
            await self.ssh.stop()
        if self.server is not None:
            self.server.close()
