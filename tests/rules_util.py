"""Helpers shared by the engine tests."""

import pytest

from kismet_tui.rules import IllegalAction


def refused(g, seat, action, words, t=None):
    """Assert the action is refused with `words` in the reason and changes nothing."""
    before = g.digest()
    with pytest.raises(IllegalAction) as caught:
        g.apply(seat, action, g.now if t is None else t)
    assert words in caught.value.words
    assert g.digest() == before
