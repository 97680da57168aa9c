"""Finding a host on the LAN: `kismet-host` announces itself over multicast DNS (zeroconf),
`kismet-join` with no address looks for a couple of seconds and lists what it heard.

The announcement is a `_kismet._tcp` service: its port is the host's, its text record says
the host's name, how many tables are open and, when there is one, the ssh port. The count
is kept current while the host runs; `kismet-host --no-announce` sends nothing at all.
Both take `interfaces`: the addresses of the interfaces to multicast on (zeroconf's own
argument; None: every interface). A host bound to one address announces on that one only,
and the tests keep to ["127.0.0.1"], so nothing of theirs leaves the machine.
"""

from __future__ import annotations

import asyncio
import logging
import socket
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..addresses import local_addresses

if TYPE_CHECKING:  # imported when announcing, so a host that never announces never loads it
    from zeroconf import ServiceStateChange, Zeroconf
    from zeroconf.asyncio import AsyncServiceInfo, AsyncZeroconf

    from ..host import Host

log = logging.getLogger("kismet.discovery")

SERVICE = "_kismet._tcp.local."
REFRESH_S = 5.0  # how often the open-table count is looked at (sent only when it changed)


def open_tables(host: Host) -> int:
    return sum(1 for table in host.tables.values() if table.state in ("lobby", "playing"))


def text_record(host: Host, name: str, ssh_port: int | None) -> dict[str, str]:
    record = {"name": name, "tables": str(open_tables(host))}
    if ssh_port:
        record["ssh"] = str(ssh_port)
    return record


def lan_addresses() -> list[str]:
    """This machine's IPv4 addresses others can reach (loopback only when there is no other)."""
    found = local_addresses()
    return [a for a in found if not a.startswith("127.")] or found


class Announcer:
    """Announces `host` (a server.Host, started) as NAME until stopped."""

    def __init__(
        self,
        host: Host,
        name: str | None = None,
        addresses: list[str] | None = None,
        ssh_port: int | None = None,
        port: int | None = None,
        interfaces: list[str] | None = None,
    ):
        self.host = host
        self.interfaces = interfaces
        self.port = port  # where players connect, when not the host's own listener
        self.name = name or socket.gethostname() or "Kismet"
        self.addresses = addresses
        self.ssh_port = ssh_port
        self.zc: AsyncZeroconf | None = None  # while announcing
        self.info: AsyncServiceInfo | None = None  # what was announced last
        self._refresher: asyncio.Task | None = None

    def _service_info(self, registered: str | None = None) -> AsyncServiceInfo:
        from zeroconf.asyncio import AsyncServiceInfo

        label = self.name.replace(".", " ")[:50]
        return AsyncServiceInfo(
            SERVICE,
            registered or f"{label}.{SERVICE}",
            port=self.port or self.host.port,
            properties=text_record(self.host, self.name, self.ssh_port),
            parsed_addresses=self.addresses or lan_addresses(),
            server=f"{socket.gethostname() or 'kismet'}.local.",
        )

    async def start(self) -> None:
        zc = self.zc = new_zeroconf(self.interfaces)
        info = self.info = self._service_info()
        announced = await zc.async_register_service(info, allow_name_change=True)
        self._refresher = asyncio.create_task(self._refresh(zc, info, announced))
        log.info("announced as %r (%s)", info.name, SERVICE)

    async def _refresh(
        self, zc: AsyncZeroconf, info: AsyncServiceInfo, announced: Awaitable[None]
    ) -> None:
        """Keep the record of `info` (announced on `zc`) current until stop() cancels this."""
        # The first announcements repeat the first record for a second or two: an update
        # sent meanwhile would be overtaken by them.
        await announced
        while True:
            await asyncio.sleep(REFRESH_S)
            record = text_record(self.host, self.name, self.ssh_port)
            if record != {k.decode(): (v or b"").decode() for k, v in info.properties.items()}:
                # (under the name it was registered with: another host may have had ours)
                info = self.info = self._service_info(info.name)
                await zc.async_update_service(info)

    async def stop(self) -> None:
        if self._refresher is not None:
            self._refresher.cancel()
        if self.zc is not None:
            try:
                await self.zc.async_unregister_all_services()
            finally:
                await self.zc.async_close()
            self.zc = None


@dataclass
class FoundHost:
    name: str
    address: str
    port: int
    tables: int
    ssh_port: int | None

    def join_line(self) -> str:
        return f"kismet-join {self.address}:{self.port}"


def _found(info: AsyncServiceInfo | None) -> FoundHost | None:
    addresses = info.parsed_addresses() if info is not None else []
    if info is None or not addresses or not info.port:
        return None
    props = {
        k.decode(errors="replace"): (v or b"").decode(errors="replace")
        for k, v in (info.properties or {}).items()
    }
    tables = props.get("tables", "0")
    ssh = props.get("ssh", "")
    name = props.get("name") or info.name.removesuffix("." + SERVICE)
    return FoundHost(
        name[:40],
        addresses[0],
        info.port,
        int(tables) if tables.isdigit() else 0,
        int(ssh) if ssh.isdigit() else None,
    )


def new_zeroconf(interfaces: list[str] | None) -> AsyncZeroconf:
    """Zeroconf over IPv4 on `interfaces` (their addresses), or on every interface."""
    from zeroconf import InterfaceChoice, IPVersion
    from zeroconf.asyncio import AsyncZeroconf

    return AsyncZeroconf(interfaces=interfaces or InterfaceChoice.All, ip_version=IPVersion.V4Only)


async def find_hosts(
    seconds: float = 2.0, zc: AsyncZeroconf | None = None, interfaces: list[str] | None = None
) -> list[FoundHost]:
    """The hosts that answer within `seconds`, by name (one line per host and port), heard
    on `zc` or else on `interfaces` (None: every interface)."""
    from zeroconf.asyncio import AsyncServiceBrowser, AsyncServiceInfo

    own = zc is None
    zc = zc or new_zeroconf(interfaces)
    names: set[str] = set()

    def changed(
        zeroconf: Zeroconf, service_type: str, name: str, state_change: ServiceStateChange
    ) -> None:
        names.add(name)

    browser = AsyncServiceBrowser(zc.zeroconf, SERVICE, handlers=[changed])
    try:
        await asyncio.sleep(seconds)
        found = {}
        for name in sorted(names):
            info = AsyncServiceInfo(SERVICE, name)
            if await info.async_request(zc.zeroconf, 1000):
                host = _found(info)
                if host is not None:
                    found[(host.address, host.port)] = host
        return sorted(found.values(), key=lambda h: (h.name.casefold(), h.address, h.port))
    finally:
        await browser.async_cancel()
        if own:
            await zc.async_close()
