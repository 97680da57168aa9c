"""A storm of door logins starts a few at a time (server/doors/door_starts.py): never more than the
limit in their start-up at once, the others told how many are ahead of them, and every one
reaches its lobby; a turn that is never finished, or a session that goes, holds nobody up."""

from __future__ import annotations

import asyncio
import contextlib

import asyncssh
import pytest

from server.doors import door_starts
from server.doors.door_limits import SessionSlots
from server.doors.door_starts import StartQueue
from tests.sshutil import ssh_host, ssh_login

pytestmark = [pytest.mark.timeout(240)]


def new_key() -> asyncssh.SSHKey:
    return asyncssh.generate_private_key("ssh-ed25519")


async def test_turns_come_in_order_one_at_a_time_and_each_waiter_hears_its_place():
    queue = StartQueue(1)
    first, second, third = queue.turn(), queue.turn(), queue.turn()
    heard: dict[str, list[int]] = {"first": [], "second": [], "third": []}
    await first.wait(heard["first"].append)  # room: at once, and nothing said
    waits = [
        asyncio.ensure_future(second.wait(heard["second"].append)),
        asyncio.ensure_future(third.wait(heard["third"].append)),
    ]
    await asyncio.sleep(0)
    assert queue.starting == 1 and not any(wait.done() for wait in waits)
    first.listed()
    first.drew()  # its lobby: the next one's turn
    await waits[0]
    assert queue.starting == 1 and not waits[1].done()
    second.drew()  # a frame before its table list is not its lobby
    assert queue.starting == 1 and not waits[1].done()
    second.end()  # (it went)
    await waits[1]
    third.end()
    assert queue.starting == 0 and not queue.waiting
    assert heard == {"first": [], "second": [1], "third": [2, 1]}


async def test_a_session_that_goes_while_waiting_gives_its_place_up(monkeypatch):
    queue = StartQueue(1)
    holder, gone, next_one = queue.turn(), queue.turn(), queue.turn()
    await holder.wait()
    waiting = asyncio.ensure_future(gone.wait())
    after = asyncio.ensure_future(next_one.wait())
    await asyncio.sleep(0)
    waiting.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await waiting
    holder.end()
    await after
    assert next_one.starting and not gone.starting and queue.starting == 1


async def test_a_turn_never_finished_ends_by_itself(monkeypatch):
    monkeypatch.setattr(door_starts, "START_TURN_SECONDS", 0.05)
    queue = StartQueue(1)
    stuck, next_one = queue.turn(), queue.turn()
    await stuck.wait()
    await asyncio.wait_for(next_one.wait(), 10)
    assert stuck.ended and next_one.starting


@pytest.mark.network
async def test_a_storm_of_ssh_logins_starts_one_at_a_time_and_all_reach_their_lobby(tmp_path):
    logins = 4
    async with ssh_host(tmp_path, slots=SessionSlots(starting=1)) as (host, ssh):
        await asyncio.wait_for(ssh.forker.ready.wait(), 120)

        def listed(session) -> bool:
            """The host has answered this session's table list (what ends its start-up)."""
            door = host.door_passes.find(session.door_pass)
            return any(conn.door is door for conn in host.table_list.listeners)

        most = 0

        async def watch() -> None:
            """Sessions started (their process is running) and not yet at their lobby."""
            nonlocal most
            while True:
                starting = [
                    session
                    for session in ssh.sessions
                    if session.app is not None
                    and session.app.proc is not None
                    and not listed(session)
                ]
                most = max(most, len(starting))
                await asyncio.sleep(0.001)

        watcher = asyncio.ensure_future(watch())
        try:
            async with contextlib.AsyncExitStack() as players:
                terminals = await asyncio.gather(
                    *(
                        players.enter_async_context(ssh_login(ssh.port, f"P{index}", new_key()))
                        for index in range(logins)
                    )
                )
                await asyncio.gather(
                    *(
                        terminal.wait_for_text("make a new table", timeout=120)
                        for terminal in terminals
                    )
                )
                told = [terminal for terminal in terminals if b"ahead of you" in terminal.received]
        finally:
            watcher.cancel()
        assert most == 1, f"{most} sessions were starting at once (the limit is 1)"
        assert told, "nobody waiting was told how many were ahead"
        assert b"Starting your game: " in told[0].received
