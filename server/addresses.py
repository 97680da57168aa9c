"""This machine's addresses, found without sending anything anywhere: for the host's join
lines (server/cli.py) and its LAN announcement (server/lan/discovery.py)."""

from __future__ import annotations

import socket


def local_addresses() -> list[str]:
    """This machine's IPv4 addresses, found without sending anything anywhere."""
    found: set[str] = set()
    try:
        for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
            found.add(str(info[4][0]))  # (an IPv4 address is a str; typeshed allows an int)
    except OSError:
        pass
    # A UDP "connection" sends no packet; it only asks the kernel which source address a
    # route would use (works offline for a private address too).
    for probe in ("10.255.255.255", "192.168.255.255"):
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
            try:
                sock.connect((probe, 1))
                found.add(sock.getsockname()[0])
            except OSError:
                pass
    found.discard("0.0.0.0")
    found.add("127.0.0.1")
    return sorted(found, key=lambda a: (a.startswith("127."), a))
