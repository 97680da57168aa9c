"""The wire's action check is derived from the engine's declarations, not written twice:
every declared action type and field is in protocol/actions.py's vocabulary, and nothing else.
"""

from typing import get_args, get_type_hints

import pytest

from kismet_tui.rules import dice_types, knock_types, race_types
from kismet_tui.rules.game_types import HostAction
from protocol.actions import HOST_ACTIONS, VOCABULARY, build_action
from protocol.errors import ProtocolError

DECLARATIONS = {"dice": dice_types, "race": race_types, "knock": knock_types}


def declared_fields(union: object) -> dict[str, set[str]]:
    out = {}
    for declared in get_args(union):
        hints = get_type_hints(declared)
        kind = get_args(hints.pop("type"))[0]
        out[kind] = set(hints)
    return out


@pytest.mark.parametrize("ruleset", sorted(DECLARATIONS))
def test_the_vocabulary_is_exactly_the_declared_actions(ruleset: str) -> None:
    declared = declared_fields(DECLARATIONS[ruleset].PlayerAction)
    assert {kind: set(fields) for kind, (_, fields) in VOCABULARY[ruleset].items()} == declared


def test_the_host_actions_are_the_declared_ones() -> None:
    assert {kind: set(fields) for kind, fields in HOST_ACTIONS.items()} == declared_fields(
        HostAction
    )


def test_a_declared_range_and_its_words_reach_the_wire() -> None:
    # race_types.GrabAction.card: Whole(0, 10, "Say which card of the circle ...")
    assert build_action("race", {"type": "grab", "card": 10}) == {"type": "grab", "card": 10}
    with pytest.raises(ProtocolError) as refused:
        build_action("race", {"type": "grab", "card": 11})
    assert refused.value.words == "Say which card of the circle to grab: a place from 0 to 10."
    # knock_types.PrelayAction is spoken "pre-lay"
    with pytest.raises(ProtocolError) as refused:
        build_action("knock", {"type": "prelay", "note": 1})
    assert refused.value.words == "A pre-lay has no field 'note'."
