"""What a door and its session's child agree on: the environment the door hands the child
(its door pass, a keyless player's rejoin code), the exit status that says the child ran
out of memory, and the web door's one message of the child's own (whether a text field has
the focus: kismet_tui/web_typing.py sends it, server/doors/web_session.py hands it to the page).

Both sides import this module (server/doors/ssh.py and server/doors/door_pass.py on the door's side,
the client's cli, player key and help on the child's), so it imports nothing of either:
kismet_tui/door_child.py, which runs the client, imports the client's cli, and the cli must
not import it back (tests/test_import_graph.py).
"""

from __future__ import annotations

import os
from pathlib import Path

# Exit status of a door child that ran out of memory (its address-space limit).
OUT_OF_MEMORY = 86

# The door pass's variable (server/doors/door_pass.py sets it; the client reads it).
PASS_VARIABLE = "KISMET_DOOR_PASS"
# A keyless ssh player's rejoin code, for the app to show where it stays readable.
REJOIN_CODE_VARIABLE = "KISMET_REJOIN_CODE"
# The meta packet's type by which a web door's child says whether a text field has the focus
# ({"type": TYPING_META, "typing": bool}); the page is sent [TYPING_META, bool].
TYPING_META = "kismet_typing"


# The folder that holds this copy's packages (kismet_tui, protocol, server): a site-packages,
# or a checkout's root when it runs from one.
PACKAGES_ROOT = str(Path(__file__).resolve().parent.parent)


def from_our_packages(code: str) -> str:
    """`code` for `python -c`, importing this copy of Kismet first. `python -c` puts the
    working folder first on the import path: a host started from a folder holding a checkout
    would otherwise hand its players that folder's code (which the session's sandbox may not
    even let them read)."""
    return f"import sys; sys.path[0] = {PACKAGES_ROOT!r}; {code}"


def door_pass() -> str | None:
    """The pass the door issued for this session, to offer in hello; None outside a door."""
    return os.environ.get(PASS_VARIABLE) or None


def rejoin_code() -> str | None:
    """The rejoin code this session's player was shown, or None (a key proves them)."""
    return os.environ.get(REJOIN_CODE_VARIABLE) or None
