"""One per-address cap (server/peer_cap.py) for the host's port and both doors: the same
limit, the same loopback exemption, as `kismet-host --max-per-address N [--cap-loopback]`
says, at every way in.

Seen before (main at 74e054e): `--max-per-address 0` ("no cap") left the host's port
uncapped but capped each door at 8, and `--cap-loopback` capped loopback at the port only.
"""

from __future__ import annotations

import contextlib

import pytest

from server.cli import build_parser, open_doors
from server.peer_cap import PeerCap, address_of, is_loopback
from tests.netutil import running_host

pytestmark = [pytest.mark.network, pytest.mark.timeout(60)]

SOMEONE = "192.0.2.7"  # (TEST-NET-1: an address no test ever reaches)


def test_the_cap_counts_each_address_up_to_its_limit_and_gives_back():
    cap = PeerCap(2)
    assert cap.admit(SOMEONE) and cap.admit(SOMEONE)
    assert not cap.admit(SOMEONE)  # refused, and not counted
    assert cap.admit("192.0.2.8")
    assert cap.counts == {SOMEONE: 2, "192.0.2.8": 1}
    cap.release(SOMEONE)
    assert cap.admit(SOMEONE)
    for _ in range(2):
        cap.release(SOMEONE)
    cap.release("192.0.2.8")
    assert cap.counts == {}


@pytest.mark.parametrize("limit", [None, 0])
def test_no_limit_is_no_cap(limit):
    cap = PeerCap(limit)
    assert all(cap.admit(SOMEONE) for _ in range(100))
    assert cap.counts == {}


def test_loopback_is_exempt_unless_capped_in_any_spelling():
    for address in ("127.0.0.1", "127.3.2.1", "::1", "::1%lo"):
        assert is_loopback(address), address
        assert PeerCap(1).exempts(address)
        assert all(PeerCap(1).admit(address) for _ in range(3))
        capped = PeerCap(1, cap_loopback=True)
        assert capped.admit(address) and not capped.admit(address)
    for other in (SOMEONE, "localhost", "?", None):
        assert not is_loopback(other)
    assert PeerCap(1).exempts(None)  # no address: nothing to count it against
    assert address_of(("::ffff:192.0.2.7", 4000, 0, 0)) == SOMEONE  # IPv4 as itself


@contextlib.asynccontextmanager
async def doors_of(tmp_path, *options):
    """`kismet-host --ssh 0 --web 0 OPTIONS` on 127.0.0.1, its doors opened as the command
    opens them (each session a process of its own, nothing announced)."""
    args = build_parser().parse_args(
        [
            "--bind",
            "127.0.0.1",
            "--state-dir",
            str(tmp_path),
            "--ssh",
            "0",
            "--web",
            "0",
            "--door-sessions",
            "spawn",
            "--no-announce",
            *options,
        ]
    )
    async with running_host(
        tmp_path, max_per_address=args.max_per_address or None, cap_loopback=args.cap_loopback
    ) as host:
        doors = await open_doors(args, host)
        assert doors is not None
        try:
            yield host, [door for door in doors if hasattr(door, "cap")]
        finally:
            for door in reversed(doors):
                await door.stop()


async def test_max_per_address_zero_caps_no_way_in(tmp_path):
    async with doors_of(tmp_path, "--max-per-address", "0") as (host, doors):
        assert len(doors) == 2  # ssh and web
        for cap in [host.gate.per_address] + [door.cap for door in doors]:
            assert all(cap.admit(SOMEONE) for _ in range(20)), cap


async def test_the_same_limit_and_loopback_rule_hold_at_every_way_in(tmp_path):
    async with doors_of(tmp_path, "--max-per-address", "2", "--cap-loopback") as (host, doors):
        for cap in [host.gate.per_address] + [door.cap for door in doors]:
            for address in (SOMEONE, "127.0.0.1"):
                assert cap.admit(address) and cap.admit(address), (cap, address)
                assert not cap.admit(address), (cap, address)
