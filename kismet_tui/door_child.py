"""`kismet-join` as a door session's child: what the ssh door hands it, and how it ends.

The ssh door (server/doors/ssh.py) runs the client on a pty of its own under a hard memory limit
(server/doors/door_limits.py). This module is the client's side of that arrangement: an end in
plain words when the memory limit is hit: the process exits with OUT_OF_MEMORY at once (no
traceback drawn over the player's screen), and the door, which sees the exit status, says
what happened. What the two sides agree on (the environment the door hands the child and
that exit status) is kismet_tui/door_env.py, which imports neither side.
"""

from __future__ import annotations

import asyncio
import os
import sys
import threading

from .door_env import OUT_OF_MEMORY


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
