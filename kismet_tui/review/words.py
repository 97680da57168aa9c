"""The race and knock figures in words: a line per player, for the end box and for
`kismet-replay --review` (docs/review.md); and a race round or a knock throw in a few lines,
for the review screen (screens/review_rounds.py)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..rules.game_types import LogHeader
from ..widgets.glyphs import glyph
from ..widgets.names import fit
from .knock import KnockMade, KnockThrow, SeatChances, knock_chances, read_knock
from .race import RaceRound, SeatReactions, race_reactions, read_race

Plain = Mapping[str, Any]

# The titles over the lines, in the end box and on the review screens.
RACE_TITLE = "How fast: the median time from the throw to a grab"
KNOCK_TITLE = "Chances missed"


def seconds(ms: int | None) -> str:
    """0.41 s; "-" when there is no time."""
    return "-" if ms is None else f"{ms / 1000:.2f} s"


def who(name: str, bot: bool, width: int) -> str:
    """A name cut to `width` cells and padded; a bot says so, so its times read as a bot's."""
    label = f"{name} (bot)" if bot and "bot" not in name.lower() else name
    return fit(label, width, pad=True)


def race_line(seat: SeatReactions, width: int = 12) -> str:
    """ "Ana          0.41 s (best 0.25) · 1 wrong · 2 missed": the median first."""
    dot = f" {glyph('·')} "
    if not seat.reactions_ms:
        speed = "no grabs"
    else:
        assert seat.fastest_ms is not None
        speed = f"{seconds(seat.median_ms)} (best {seat.fastest_ms / 1000:.2f})"
    return (
        f"{who(seat.name, seat.bot, width)} {speed}{dot}{seat.wrong} wrong{dot}{seat.missed} missed"
    )


def knock_line(seat: SeatChances, width: int = 12) -> str:
    """ "Bo           1 overlooked · 2 missed knocks · 1 wrong (-3)"."""
    dot = f" {glyph('·')} "
    parts = [f"{seat.overlooked} overlooked", f"{seat.missed_knocks} missed knocks"]
    wrong = f"{seat.wrong_knocks} wrong"
    if seat.wrong_cost:
        wrong += f" (-{seat.wrong_cost})"
    parts.append(wrong)
    return f"{who(seat.name, seat.bot, width)} {dot.join(parts)}"


def learned_lines(
    ruleset: str, header: LogHeader, events: Sequence[Mapping[str, Any]], width: int = 12
) -> tuple[str, list[str]]:
    """A title and a line per seat for a race or knock game; ("", []) for other games (the
    dice review has its own lines) or a log the engine cannot replay."""
    try:
        if ruleset == "race":
            return (RACE_TITLE, [race_line(seat, width) for seat in race_reactions(header, events)])
        if ruleset == "knock":
            return (
                KNOCK_TITLE,
                [knock_line(seat, width) for seat in knock_chances(header, events)],
            )
    except (ValueError, KeyError, TypeError):
        return "", []
    return "", []


def learned_json(
    ruleset: str, header: LogHeader, events: Sequence[Mapping[str, Any]]
) -> dict[str, Any]:
    """`players`: one object per seat, the race reactions or the knock chances; with race's
    `rounds` (every round) or knock's `throws` (those worth learning from): docs/review.md.
    Empty for other games."""
    if ruleset == "race":
        seats, rounds = read_race(header, events)
        return {
            "players": [seat.as_json() for seat in seats],
            "rounds": [one.as_json() for one in rounds],
        }
    if ruleset == "knock":
        chances, throws = read_knock(header, events)
        return {
            "players": [seat.as_json() for seat in chances],
            "throws": [throw.as_json() for throw in throws if throw.notable],
        }
    return {}


def numbers(values: Sequence[int]) -> str:
    return " ".join(map(str, values)) or "none"


def race_round_lines(
    one: RaceRound, players: Sequence[SeatReactions], width: int = 12
) -> list[str]:
    """A round: its dice and targets, then a line per seat: its grab (the card's number, right
    or wrong, the time) or pass or nothing, and whether it missed a card that was there."""
    dot = f" {glyph('·')} "
    lines = [f"Dice {numbers(one.dice)}{dot}targets {numbers(one.targets)}"]
    if one.wiped:
        return lines + ["No card showed a target: the circle was wiped, nobody could grab."]
    for seat, player in zip(one.seats, players):
        if seat.did == "grab":
            verdict = {True: "right", False: "wrong", None: "not revealed"}[seat.right]
            did = f"grabbed {seat.card}, {verdict}, {seconds(seat.reaction_ms)}"
        else:
            did = "passed" if seat.did == "pass" else "did nothing"
        if seat.missed:
            did += f"{dot}missed a card that was there"
        lines.append(f"{who(player.name, player.bot, width)} {did}")
    if not one.ended:
        lines.append("(The log ends before this round did.)")
    return lines


def knock_made_words(knock: KnockMade) -> str:
    if knock.judgement == "good":
        return "knocked: good" + (
            f", laid {knock.laid}" if knock.laid is not None else ", the roller turned a card up"
        )
    if knock.judgement == "too_slow":
        return "knocked too late: another knock was good first"
    return "knocked: wrong" + (
        f", -{knock.cost} (a card turned face up again)" if knock.cost else ""
    )


def knock_throw_lines(
    throw: KnockThrow, players: Sequence[SeatChances], width: int = 12
) -> list[str]:
    """A throw worth learning from: who threw what, then a line per seat that could have done
    something or did: an overlooked lay, a knock nobody made, a knock good or wrong."""
    dot = f" {glyph('·')} "
    roller = players[throw.roller]
    joker = " (a joker throw)" if throw.joker else ""
    lines = [
        f"{roller.name} threw {numbers(throw.dice)}{joker}{dot}targets {numbers(throw.targets)}"
    ]
    for player in players:
        said: list[str] = []
        if player.seat == throw.roller:
            if throw.overlooked:
                said.append(f"passed holding {numbers(throw.overlooked)}: a lay overlooked")
            elif throw.passed:
                said.append("passed, holding no match")
            elif throw.laid:
                said.append(f"laid {numbers(throw.laid)}")
        if player.seat in throw.missed_by:
            held = throw.holding[player.seat] if throw.holding else []
            why = (
                f"held {numbers(held)}"
                if held
                else "the roller had overlooked a match: any knock was good"
            )
            said.append(f"could have knocked and won ({why})")
        said += [knock_made_words(knock) for knock in throw.knocks if knock.seat == player.seat]
        if said:
            lines.append(f"{who(player.name, player.bot, width)} {'; '.join(said)}")
    return lines
