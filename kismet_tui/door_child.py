"""`kismet-join` as a door session's child: what the ssh door hands it, and how it ends.

The ssh door (server/ssh.py) runs the client on a pty of its own under a hard memory limit
(server/door_limits.py). This module is the client's side of that arrangement: the door pass
and the player's rejoin code it finds in its environment, and an end in plain words when
the memory limit is hit: the process exits with OUT_OF_MEMORY at once (no traceback drawn
over the player's screen), and the door, which sees the exit status, says what happened.
"""

from __future__ import annotations

import asyncio
import os
import sys
import threading

# Exit status of a door child that ran out of memory (its address-space limit).
OUT_OF_MEMORY = 86

# The door pass (server/door_pass.py names it too; the client does not import the server).
PASS_VARIABLE = "KISMET_DOOR_PASS"
# A keyless ssh player's rejoin code, for the app to show where it stays readable.
REJOIN_CODE_VARIABLE = "KISMET_REJOIN_CODE"


def door_pass() -> str | None:
    """The pass the door issued for this session, to offer in hello; None outside a door."""
    return os.environ.get(PASS_VARIABLE) or None


def rejoin_code() -> str | None:
    """The rejoin code this session's player was shown, or None (a key proves them)."""
    return os.environ.get(REJOIN_CODE_VARIABLE) or None


def run(argv: list[str]) -> int:
    """join_main(argv), ending with OUT_OF_MEMORY on a MemoryError wherever it is raised."""
    try:
        from textual.app import App

        from .cli import join_main

        # Textual catches what a handler raises and draws a traceback at exit: for a
        # MemoryError there is nothing to draw with, and nothing the player should read.
        handle_exception = App._handle_exception

        def out_of_memory_ends(app: App, error: Exception) -> None:
            if isinstance(error, MemoryError):
                os._exit(OUT_OF_MEMORY)
            handle_exception(app, error)

        App._handle_exception = out_of_memory_ends  # type: ignore[method-assign,assignment]
        # The same for what fails in a thread of the app, or in an event-loop callback.
        thread_hook = threading.excepthook

        def thread_out_of_memory(args: threading.ExceptHookArgs) -> None:
            if isinstance(args.exc_value, MemoryError):
                os._exit(OUT_OF_MEMORY)
            thread_hook(args)

        threading.excepthook = thread_out_of_memory
        loop_handler = asyncio.BaseEventLoop.default_exception_handler

        def loop_out_of_memory(loop: asyncio.BaseEventLoop, context: dict[str, object]) -> None:
            if isinstance(context.get("exception"), MemoryError):
                os._exit(OUT_OF_MEMORY)
            loop_handler(loop, context)

        asyncio.BaseEventLoop.default_exception_handler = loop_out_of_memory  # type: ignore[method-assign,assignment]
        return join_main(argv)
    except MemoryError:
        os._exit(OUT_OF_MEMORY)


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
