"""The drawing commands need a terminal that can draw: refused in words without one.

`kismet`, `kismet-join` and `kismet-replay` (playback) draw a full screen. With TERM=dumb
(an editor's shell buffer, say) the codes would come out as garbage, and with stdout going
to a file or a pipe they would fill it while the app waits for keys that never come. So the
apps check just before they run (KismetApp.run) and the command exits 2 with a line of
words (kismet_tui/command.py). The browser door runs the app through Textual's web driver
(TEXTUAL_DRIVER set), whose stdout is a pipe by design: that is let through.
"""

from __future__ import annotations

import os
from typing import TextIO


class NoTerminal(Exception):
    """The words why the app cannot draw here."""


def refusal(stdout: TextIO) -> str | None:
    """Why an app cannot draw on `stdout` in this environment, or None when it can."""
    if os.environ.get("TEXTUAL_DRIVER"):  # a driver of its own (the web door): no terminal
        return None
    if os.environ.get("TERM") == "dumb":
        return (
            "this terminal cannot draw a screen (TERM is dumb). Run it in a terminal "
            "window, or set TERM to your terminal's type (for example TERM=xterm-256color)."
        )
    try:
        is_terminal = stdout.isatty()
    except (AttributeError, ValueError):  # closed, or not a real file
        is_terminal = False
    if not is_terminal:
        return (
            "its output is not a terminal (a file or a pipe), and it draws a screen "
            "there. Run it in a terminal window."
        )
    return None
