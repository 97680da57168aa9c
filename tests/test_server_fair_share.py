"""Fair share of the host: a cap per address beside the total cap, each refusal saying which
limit it met; loopback (the host's bots, players logged into its machine) is exempt unless
asked. Over real TCP with an in-process host."""

import pytest

from tests.hostutil import Raw
from tests.netutil import running_host, wait_until

pytestmark = [pytest.mark.network, pytest.mark.timeout(60)]


async def welcomed(port, name):
    raw = await Raw().open(port)
    await raw.hello(name)
    return raw


async def refused(port):
    raw = await Raw().open(port)
    error = await raw.recv()
    assert error["type"] == "error" and error["code"] == "full"
    assert await raw.closed_by_host()
    return error["words"]


async def test_one_address_cannot_hold_every_slot(tmp_path):
    async with running_host(tmp_path, max_per_address=3, cap_loopback=True) as host:
        held = [await welcomed(host.port, f"Idler {n}") for n in range(3)]
        words = await refused(host.port)
        assert words == (
            "Too many connections from your address: the host takes 3 from one "
            "address. Close one and try again."
        )
        held.pop().close()
        await wait_until(lambda: host.gate.per_address.counts.get("127.0.0.1") == 2)
        held.append(await welcomed(host.port, "Newcomer"))  # a freed slot is free again
        for raw in held:
            raw.close()
        await wait_until(lambda: not host.gate.per_address.counts)


async def test_loopback_is_not_capped_per_address_by_default(tmp_path):
    async with running_host(tmp_path) as host:
        assert host.gate.per_address.limit == 8 and not host.gate.per_address.cap_loopback
        held = [await welcomed(host.port, f"Local {n}") for n in range(12)]
        assert len(host.connections) == 12 and host.gate.per_address.counts == {}
        for raw in held:
            raw.close()


async def test_the_total_cap_says_it_is_the_total(tmp_path):
    async with running_host(tmp_path, max_connections=4) as host:
        held = [await welcomed(host.port, f"P{n}") for n in range(4)]
        words = await refused(host.port)
        assert (
            words
            == "The host is full right now: it holds 4 connections, its most. Please try again later."
        )
        for raw in held:
            raw.close()


def test_the_cli_takes_the_per_address_options():
    from server.cli import build_parser

    args = build_parser().parse_args([])
    assert (args.max_per_address, args.cap_loopback) == (8, False)
    args = build_parser().parse_args(["--max-per-address", "2", "--cap-loopback"])
    assert (args.max_per_address, args.cap_loopback) == (2, True)
