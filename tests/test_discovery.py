"""LAN discovery: a host announced over zeroconf is found by another zeroconf instance on
this machine; `kismet-join` with no address lists what it finds, or says plainly it found
none. The multicast tests are skipped (with the reason) only where multicast does not work.

Everything stays on loopback: each zeroconf here is bound to 127.0.0.1 (tests/conftest.py
fails a test whose zeroconf is not), the probe multicasts on 127.0.0.1, and the kismet-host
subprocess, bound to 127.0.0.1, is seen to hold no socket on another address."""

from __future__ import annotations

import os
import socket
import struct
import subprocess
import sys
import time

import pytest

from kismet_tui import cli
from server.lan.discovery import Announcer, FoundHost, find_hosts
from tests.netutil import ROOT, free_port, running_host, wait_until

pytestmark = [pytest.mark.network, pytest.mark.timeout(120)]

LOOPBACK = ["127.0.0.1"]


def multicast_problem() -> str | None:
    """Why multicast cannot be used here (None: a datagram sent to a group comes back)."""
    group, port = "224.0.0.251", free_port()
    try:
        with (
            socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as rx,
            socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as tx,
        ):
            rx.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            rx.bind(("", port))
            rx.setsockopt(
                socket.IPPROTO_IP,
                socket.IP_ADD_MEMBERSHIP,
                struct.pack("4s4s", socket.inet_aton(group), socket.inet_aton("127.0.0.1")),
            )
            rx.settimeout(1.0)
            tx.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton("127.0.0.1"))
            tx.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_LOOP, 1)
            tx.sendto(b"kismet?", (group, port))
            data, _ = rx.recvfrom(64)
            return None if data == b"kismet?" else "a multicast datagram came back changed"
    except OSError as exc:
        return f"multicast is not available on this machine ({exc})"


@pytest.fixture
def multicast():
    problem = multicast_problem()
    if problem:
        print(f"skipping: {problem}")
        pytest.skip(problem)


async def test_two_zeroconf_instances_find_each_others_service(tmp_path, multicast):
    from zeroconf.asyncio import AsyncZeroconf

    async with running_host(tmp_path) as host:
        announcer = Announcer(host, name="Ana's table", ssh_port=2222, interfaces=LOOPBACK)
        await announcer.start()
        try:
            listener = AsyncZeroconf(interfaces=LOOPBACK)
            try:
                found = await find_hosts(2.0, zc=listener)
            finally:
                await listener.async_close()
        finally:
            await announcer.stop()
    ours = [h for h in found if h.port == host.port]
    assert len(ours) == 1, found
    assert ours[0].name == "Ana's table" and ours[0].tables == 0 and ours[0].ssh_port == 2222


async def test_the_open_table_count_is_kept_current(tmp_path, multicast, monkeypatch):
    from server.lan import discovery
    from tests.netutil import connected

    monkeypatch.setattr(discovery, "REFRESH_S", 0.05)
    async with running_host(tmp_path) as host:
        announcer = Announcer(host, name="Counting", interfaces=LOOPBACK)
        await announcer.start()
        try:
            async with connected(host, "Ana") as ana:
                await ana.create_table("dice", {}, [])
                await wait_until(
                    lambda: announcer.info.properties.get(b"tables") == b"1", timeout=10
                )
                found = await find_hosts(2.0, interfaces=LOOPBACK)
        finally:
            await announcer.stop()
    assert [h.tables for h in found if h.port == host.port] == [1]


def host_command(state_dir, port, *extra):
    # Bound to 127.0.0.1, the host announces on loopback only (server/cli.py).
    return [
        sys.executable,
        "-m",
        "server.cli",
        "--bind",
        "127.0.0.1",
        "--port",
        str(port),
        "--state-dir",
        str(state_dir),
        "--bots",
        "0",
        *extra,
    ]


@pytest.mark.parametrize("quiet", [False, True], ids=["announced", "no-announce"])
async def test_kismet_host_announces_itself_unless_told_not_to(tmp_path, multicast, quiet):
    port = free_port()
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONUNBUFFERED="1")
    proc = subprocess.Popen(
        host_command(tmp_path, port, *(["--no-announce"] if quiet else [])),
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            line = proc.stdout.readline()
            assert line, "kismet-host ended before it was ready"
            if "Announced on the LAN" in line or (quiet and "kismet-join 127.0.0.1" in line):
                break
            assert time.monotonic() < deadline
        # Its zeroconf answers and multicasts from sockets bound to each of its interfaces:
        # none but loopback (and the 0.0.0.0 socket every mDNS listener binds) may be there.
        assert set(udp_addresses(proc.pid)) <= {"127.0.0.1", "0.0.0.0"}, udp_addresses(proc.pid)
        found = await find_hosts(2.0, interfaces=LOOPBACK)
    finally:
        proc.terminate()
        proc.wait(10)
        proc.stdout.close()
    ports = [h.port for h in found]
    assert (port in ports) is not quiet


def udp_addresses(pid: int) -> list[str]:
    """The local IPv4 addresses of process `pid`'s UDP sockets (from /proc)."""
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    addresses = []
    with open(f"/proc/{pid}/net/udp") as table:
        for line in table.readlines()[1:]:
            fields = line.split()
            if fields[9] in inodes:
                packed = bytes.fromhex(fields[1].split(":")[0])[::-1]
                addresses.append(socket.inet_ntoa(packed))
    return addresses


async def test_a_tests_zeroconf_on_every_interface_fails_the_test(multicast):
    with pytest.raises(AssertionError, match="must be bound to 127.0.0.1"):
        await find_hosts(0.1)
    with pytest.raises(AssertionError, match="must be bound to 127.0.0.1"):
        await find_hosts(0.1, interfaces=["192.0.2.2"])


def test_join_without_an_address_says_plainly_when_it_finds_nobody(monkeypatch, capsys):
    async def nobody(seconds):
        return []

    monkeypatch.setattr("server.lan.discovery.find_hosts", nobody)
    assert cli.join_main([]) == 1
    out = capsys.readouterr().out
    assert "No Kismet host answered" in out and "kismet-join ADDRESS:PORT" in out


def test_join_without_an_address_lists_the_hosts_to_pick_from(monkeypatch, capsys):
    hosts = [
        FoundHost("Ana's box", "192.168.1.20", 7717, 2, None),
        FoundHost("Bo's box", "192.168.1.21", 7718, 0, 2222),
    ]

    async def two(seconds):
        return hosts

    answers = iter(["7", "2"])
    monkeypatch.setattr("server.lan.discovery.find_hosts", two)
    monkeypatch.setattr("builtins.input", lambda prompt="": next(answers))
    assert cli.discover_address() == "192.168.1.21:7718"
    out = capsys.readouterr().out
    assert "1. Ana's box at 192.168.1.20:7717 (2 tables open)" in out
    assert "2. Bo's box at 192.168.1.21:7718 (0 tables open)" in out
    assert "Please type a number from 1 to 2." in out
