"""The doors' rule for an app wedged at its memory limit (server/doors/session_policy.py's
WedgeWatch), on a clock the test turns: ended when near its limit and silent for
WEDGED_AFTER_S after it was asked to draw; left alone when it drew, when it is far from the
limit, and while the door itself holds its output back. (Real apps, stopped, over ssh and
the web: tests/test_ssh_hostile.py, tests/test_web.py.)"""

from __future__ import annotations

import pytest

from server.doors.session_policy import WEDGED_AFTER_S, MemoryLook, WedgeWatch

pytestmark = [pytest.mark.timeout(30)]

PID = 4242  # (never looked up: the memory is the test's)


class Memory(MemoryLook):
    """A MemoryLook whose reading the test sets."""

    def __init__(self, near: bool) -> None:
        super().__init__()
        self.reading = near

    def look_now(self, pid: int, now: float) -> bool:
        self.near = self.reading
        return self.near


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def watch(near: bool) -> tuple[WedgeWatch, Clock, list[str]]:
    clock, ended = Clock(), []
    return WedgeWatch(Memory(near), lambda: ended.append("ended"), clock), clock, ended


async def test_an_app_near_its_limit_that_answers_nothing_is_ended_once():
    wedge, clock, ended = watch(near=True)
    wedge.asked(PID)
    clock.now += WEDGED_AFTER_S - 0.1
    wedge.judge()
    assert ended == []  # not yet: it has some time to answer
    wedge.asked(PID)  # (a second key does not start the wait anew)
    clock.now += 0.1
    wedge.judge()
    assert ended == ["ended"] and wedge.judged == 1
    wedge.asked(PID)
    clock.now += WEDGED_AFTER_S
    wedge.judge()
    assert ended == ["ended"]


async def test_an_app_that_draws_is_not_ended_whatever_its_memory():
    wedge, clock, ended = watch(near=True)
    wedge.asked(PID)
    clock.now += 1
    wedge.drew(PID)
    clock.now += WEDGED_AFTER_S
    wedge.judge()
    assert ended == [] and wedge.judged == 0
    wedge.stop()


async def test_a_silent_app_far_from_its_limit_is_judged_and_left_alone():
    wedge, clock, ended = watch(near=False)
    wedge.asked(PID)
    clock.now += 10 * WEDGED_AFTER_S
    wedge.judge()
    assert wedge.judged == 1 and ended == []
    # It came near since (a later key finds it so): judged anew from that key.
    wedge.memory.reading = True  # type: ignore[attr-defined]
    wedge.asked(PID)
    clock.now += WEDGED_AFTER_S
    wedge.judge()
    assert wedge.judged == 2 and ended == ["ended"]


async def test_its_silence_while_the_door_holds_its_output_back_does_not_count():
    # A player on a slow line: the door reads nothing of the app until it has sent what it
    # has, so the app cannot be seen drawing. Its time counts from when the door reads again.
    wedge, clock, ended = watch(near=True)
    wedge.asked(PID)
    wedge.holding(True)
    clock.now += 10 * WEDGED_AFTER_S
    wedge.judge()
    assert ended == [] and wedge.judged == 0
    wedge.holding(False)
    clock.now += WEDGED_AFTER_S - 0.1
    wedge.judge()
    assert ended == []
    clock.now += 0.1
    wedge.judge()
    assert ended == ["ended"]


async def test_an_ended_app_is_not_judged():
    wedge, clock, ended = watch(near=True)
    wedge.asked(PID)
    wedge.stop()
    clock.now += WEDGED_AFTER_S
    wedge.judge()
    wedge.asked(PID)
    assert ended == [] and wedge.judged == 0
