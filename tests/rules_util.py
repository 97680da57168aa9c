"""Helpers shared by the engine tests."""

import pytest

from kismet_tui.rules.refusal import Refusal
from protocol.actions import build_action


def refused(g, seat, action, words, t=None):
    """Assert the action is refused with `words` in the reason and changes nothing. It enters
    the engine as every action does: built at the edge (protocol/actions.py), which refuses
    a field the declarations do not allow before the engine judges the rest."""
    before = g.digest()
    with pytest.raises(Refusal) as caught:
        g.apply(seat, build_action(g.RULESET, action), g.now if t is None else t)
    assert words in caught.value.words
    assert g.digest() == before
