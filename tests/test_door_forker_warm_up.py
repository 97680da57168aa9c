"""The warm parent's warm-up (server/doors/door_forker.py): it rehearses a session before any fork,
so what a session's first screens fill in (Textual's caches, Python's specialised code) is
there to share, and it leaves no thread and no event loop behind, as a fork needs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(180)

ROOT = Path(__file__).resolve().parent.parent

# Run as the forker runs it: a fresh interpreter, then what it holds once warm.
WARM_UP_THEN_LOOK = """
import asyncio, json, os, threading
import textual.css.parse
from server.doors.door_forker import warm_up
warm_up()
try:
    asyncio.get_running_loop()
    running = True
except RuntimeError:
    running = False
print(json.dumps({
    "threads": threading.active_count(),
    "tasks": len(os.listdir("/proc/self/task")),
    "loop_running": running,
    "selectors_parsed": textual.css.parse.parse_selectors.cache_info().currsize,
}))
"""


def test_the_warm_up_rehearses_a_session_and_leaves_no_thread_or_loop():
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [sys.executable, "-c", WARM_UP_THEN_LOOK],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=150,
    )
    assert done.returncode == 0, done.stderr
    assert "did not finish" not in done.stderr, done.stderr  # the rehearsal played through
    held = json.loads(done.stdout.strip().splitlines()[-1])
    assert held["selectors_parsed"] > 0  # a screen was drawn here
    assert (held["threads"], held["tasks"], held["loop_running"]) == (1, 1, False)
