"""What a door session's client finds in its environment: the door pass and the rejoin code.

The ssh and browser doors (server/ssh.py, server/web.py) start `kismet-join` with these
variables set; the client reads them (kismet_tui/cli.py, the help screen, the player key)
and the host names them from here too. Apart from kismet_tui/door_child.py, which runs
the client and so imports kismet_tui/cli.py: reading a variable must not import the client.
"""

from __future__ import annotations

import os

# Exit status of a door child that ran out of memory (its address-space limit).
OUT_OF_MEMORY = 86

# The door pass (server/door_pass.py issues it; the client does not import the server).
PASS_VARIABLE = "KISMET_DOOR_PASS"
# A keyless ssh player's rejoin code, for the app to show where it stays readable.
REJOIN_CODE_VARIABLE = "KISMET_REJOIN_CODE"


def door_pass() -> str | None:
    """The pass the door issued for this session, to offer in hello; None outside a door."""
    return os.environ.get(PASS_VARIABLE) or None


def rejoin_code() -> str | None:
    """The rejoin code this session's player was shown, or None (a key proves them)."""
    return os.environ.get(REJOIN_CODE_VARIABLE) or None
