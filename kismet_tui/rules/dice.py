"""The `dice` ruleset: Kismet (1964), five coloured dice and a 15-box scorecard.

This module owns the scorecard (box ids, names, colours, what each box scores, the Basic
bonus) and the game itself (docs/rules.md section 1; the away default of section 5 [D18]).

Scoring API (public: bots, the solver and the UI's score preview use it)
-----------------------------------------------------------------------
- `BOXES`: the 15 box ids in scorecard order; `BASIC_BOXES` the first six, `KISMET_BOXES`
  the other nine. `BOX_NAMES`: id -> the name printed on the card.
- `COLOR`: face -> "black" (1, 6), "red" (2, 5) or "green" (3, 4).
- `score(box, dice, joker=False) -> int`: the points `dice` (five faces 1..6) earn in `box`.
  With `joker=True` the dice must be five of a kind and count as a joker [D5]: they meet
  every pattern (Full House = sum + 15, Full House Same Color = sum + 20, Flush = 35, ...).
  A joker is never scored as a Straight, so `score("straight", dice, joker=True)` is 0: in
  the game, choosing Straight with a joker is a scratch.
- `basic_bonus(total) -> int`: 0, 35, 55 or 75 for a Basic section total.

The game
--------
Actions (a player's, for the seat to move):
- `{"type": "roll", "hold": [positions]}`: roll the dice not held. The five dice keep their
  positions 0..4 all turn. `hold` is empty (or absent) on a turn's first roll; holding all five
  is refused (that is stopping: choose a box). At most three rolls.
- `{"type": "score", "box": id}`: end the turn by writing the dice's points into an open box
  of your card; any open box may be chosen and scores 0 if the dice do not meet it [D1].
  When the dice are a joker (see below) the joker applies by itself in every box that takes
  one. An optional `"joker": true` asks for it explicitly and is refused where it cannot apply
  ("A joker cannot be scored as a Straight.").
A seat marked away is refused until the host stamps it back (as in race and knock).
`legal_actions(seat)` lists the seat's rolls (each hold as a sorted list of positions) and
score actions, exactly the moves `apply` accepts (it also accepts a hold in any order, no
`hold` on a first roll, and the explicit `"joker": true`); for HOST it lists the timeout once
the deadline has passed, and `away` / `back`.
The host stamps `timeout`, `away` and `back` (base.py). A timeout plays the default [D18] for
the seat to move: roll once if they have not rolled this turn, then score the open box that
scores most (ties: the first in scorecard order), the joker applied.

The second Kismet [D4][D5]: ending a turn with five of a kind while your Kismet box holds a
non-zero Kismet. The dice are then a joker: in their own number box or any Kismet-section box
but the Straight they score as if they met the pattern; anywhere else they are a scratch (0).
Whatever box is chosen, every other seat with an open box gets a 0 in its first open box in
scorecard order (that zero is the turn they lose; they are not skipped again later), and the
roller at once takes another turn if their card has an open box.

Turn order: the roll-off [D6] picks the first seat; then seat order, skipping full cards.
The game ends when every card is full. Total = Basic + bonus + Kismet section; the highest
total wins, equal totals share the win. One seat is a solo game.

Chance is drawn only at these points, all through the game's RNG (`rng.die()`):
1. Creating the game: the roll-off [D6]. Every seat rolls one die, in seat order; while
   several seats share the highest face, those seats roll again, in seat order. A solo game
   draws nothing here.
2. Each roll: one die for each position not held, in position order 0..4.

Options (`normalize_options`): `away_limit_ms` (default 30000, 0..86400000) and
`turn_limit_ms` (default 60000; 0 = no limit [D31], else 1000..86400000).
`next_deadline()`: when the seat to move is away, `away_limit_ms` after their turn began or
they went away, whichever is later (nothing for an idle seat [D31]: its turn is played at
once); with a turn limit, `turn_limit_ms` after the turn began; the earlier of the two. None
when neither applies or the game is over. `clocks()` (also in the view) lists both, for
countdowns.

Notes returned by `apply` (in this order when several):
(Declared as TypedDicts in dice_types.py, with the actions and the view; the
words here say what the fields mean.)
- `{"type": "timeout", "seat", "why", "limit_ms"}`: the host played the default for `seat`
  because `why` ("turn_limit", "away_limit" or "idle") passed; `limit_ms` is that limit.
- `{"type": "rolled", "seat", "dice", "roll", "held"}`: `roll` is 1..3; `held` sorted positions.
- `{"type": "scored", "seat", "box", "points", "dice", "joker"}`: `joker` true when the box
  was scored as a joker (a joker scratched in Straight or another number box says false).
- `{"type": "penalty", "seat", "victims": [[seat, box], ...]}`: after a second Kismet by `seat`
  (victims may be empty, e.g. solo).
- `{"type": "extra_turn", "seat"}`: the second-Kismet roller moves again at once.
- `{"type": "turn", "seat"}`: a new turn begins for `seat`.
- `{"type": "game_over", "scores", "winners"}`.
- `{"type": "away"|"back", "seat"}` from the base.

`view(seat)` (the dice game has no secrets: every seat and spectators see the same, except
`you` and `your_turn`):
- `ruleset` "dice", `you` (the seat asked for, None for a spectator), `seats` (count),
  `phase` "playing" or "over", `current` (seat to move, None when over), `your_turn`.
- `dice` (five faces, [] before the turn's first roll), `rolls_used` 0..3, `rolls_left`,
  `can_roll`, `can_score`, `joker` (the dice are a joker for the seat to move now).
- `preview`: None before the first roll; else box -> {"points", "legal", "joker"} for all 15
  boxes, for the seat to move (`legal`: the box is open; `joker`: scored as a joker).
- `boxes` (ids in order), `box_names`, `cards` (per seat: box -> points or None),
  `totals` (per seat: {"basic", "bonus", "kismet_section", "total"}, open boxes as 0, the
  bonus shown once reached), `holds_kismet`, `card_full` (per seat).
- `rolloff`: {"rounds": [[[seat, face], ...], ...], "first": seat} ([] rounds when solo).
- `turn` (turns begun, from 1), `turn_started_ms`, `deadline_ms` (next_deadline()), `away`
  (per seat), `last` (the last scored turn: {"seat", "box", "points", "dice", "joker"} or
  None), `options`, `result` (None until over, then as `result()`).

`result()`: {"scores", "winners", "basic", "bonus", "kismet_section"}, lists per seat.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import combinations

from .base import (
    Chance,
    Game,
    IllegalAction,
    Plain,
    check,
    check_known_options,
    int_option,
)
from .dice_types import (
    BoxPreview,
    DiceResult,
    LastScore,
    Note,
    PenaltyNote,
    PlayerAction,
    RollAction,
    RolledNote,
    ScoreAction,
    Totals,
    View,
)
from .game_types import Clock
from .refusal import MALFORMED, NOT_YOURS

BASIC_BOXES = ("aces", "deuces", "treys", "fours", "fives", "sixes")
KISMET_BOXES = (
    "two_pair_same_color",
    "three_of_a_kind",
    "straight",
    "flush",
    "full_house",
    "full_house_same_color",
    "four_of_a_kind",
    "yarborough",
    "kismet",
)
BOXES = BASIC_BOXES + KISMET_BOXES

BOX_NAMES = {
    "aces": "Aces",
    "deuces": "Deuces",
    "treys": "Treys",
    "fours": "Fours",
    "fives": "Fives",
    "sixes": "Sixes",
    "two_pair_same_color": "2 Pair Same Color",
    "three_of_a_kind": "3 of a Kind",
    "straight": "Straight",
    "flush": "Flush",
    "full_house": "Full House",
    "full_house_same_color": "Full House Same Color",
    "four_of_a_kind": "4 of a Kind",
    "yarborough": "Yarborough",
    "kismet": "Kismet",
}

# The face each Basic box counts.
BOX_FACE = {box: face for face, box in enumerate(BASIC_BOXES, start=1)}

COLOR = {1: "black", 6: "black", 2: "red", 5: "red", 3: "green", 4: "green"}

STRAIGHTS = ((1, 2, 3, 4, 5), (2, 3, 4, 5, 6))

# Basic section bonus tiers: (lowest total, bonus), highest first.
BONUS_TIERS = ((78, 75), (71, 55), (63, 35))


def basic_bonus(total: int) -> int:
    """The bonus a Basic section total earns: 63..70 -> 35, 71..77 -> 55, 78+ -> 75.

    >>> [basic_bonus(total) for total in (62, 63, 71, 78)]
    [0, 35, 55, 75]
    """
    for lowest, bonus in BONUS_TIERS:
        if total >= lowest:
            return bonus
    return 0


def check_dice(dice: object) -> tuple[int, ...]:
    """The dice as a tuple of five faces, or IllegalAction saying what is wrong."""
    if not isinstance(dice, (list, tuple)) or len(dice) != 5:
        raise IllegalAction("Kismet is scored with exactly five dice.", MALFORMED)
    for face in dice:
        if isinstance(face, bool) or not isinstance(face, int) or not 1 <= face <= 6:
            raise IllegalAction(f"A die shows 1 to 6, not {face!r}.", MALFORMED)
    return tuple(dice)


def is_five_of_a_kind(dice: Iterable[int]) -> bool:
    return len(set(dice)) == 1


def _two_pair_same_color(counts: Counter[int]) -> bool:
    # [D2] four (or five) of one face is two pairs of the same colour.
    if max(counts.values()) >= 4:
        return True
    pairs = [face for face, n in counts.items() if n >= 2]
    return any(COLOR[a] == COLOR[b] for i, a in enumerate(pairs) for b in pairs[i + 1 :])


def _full_house(counts: Counter[int]) -> bool:
    # [D3] three of one face and two of ANOTHER: five of a kind is not a natural full house.
    return sorted(counts.values()) == [2, 3]


def _one_color(dice: Iterable[int]) -> bool:
    return len({COLOR[face] for face in dice}) == 1


def score(box: str, dice: Sequence[int], joker: bool = False) -> int:
    """The points `dice` earn in `box`; 0 when the dice do not meet the box's pattern.

    `joker=True` scores five of a kind as a joker [D5]: it meets every pattern except the
    Straight, which a joker may only scratch (0). Raises IllegalAction for an unknown box,
    dice that are not five faces, or a joker that is not five of a kind.

    >>> score("full_house", [2, 2, 5, 5, 5])  # 19 + 15
    34
    >>> score("full_house", [6, 6, 6, 6, 6]), score("full_house", [6] * 5, joker=True)  # [D3]
    (0, 45)
    >>> score("two_pair_same_color", [3, 3, 4, 4, 1])  # [D2]
    15
    """
    if box not in BOX_NAMES:
        raise IllegalAction(f"There is no box called '{box}' on a Kismet card.", MALFORMED)
    five = check_dice(dice)
    if joker and not is_five_of_a_kind(five):
        raise IllegalAction("Only five of a kind can be scored as a joker.")
    total = sum(five)
    if box in BOX_FACE:
        # A joker in its own number box scores as usual; in another number box it is a scratch.
        face = BOX_FACE[box]
        return face * five.count(face)
    if joker:
        return 0 if box == "straight" else _points_when_met(box, total)
    return _points_when_met(box, total) if PATTERNS[box](five, Counter(five)) else 0


# Whether five dice (and their face counts) meet each Kismet-section box's pattern.
PATTERNS: dict[str, Callable[[tuple[int, ...], Counter[int]], bool]] = {
    "two_pair_same_color": lambda dice, counts: _two_pair_same_color(counts),
    "three_of_a_kind": lambda dice, counts: max(counts.values()) >= 3,
    "straight": lambda dice, counts: tuple(sorted(dice)) in STRAIGHTS,
    "flush": lambda dice, counts: _one_color(dice),
    "full_house": lambda dice, counts: _full_house(counts),
    "full_house_same_color": lambda dice, counts: _full_house(counts) and _one_color(dice),
    "four_of_a_kind": lambda dice, counts: max(counts.values()) >= 4,
    "yarborough": lambda dice, counts: True,
    "kismet": lambda dice, counts: len(counts) == 1,
}


def _points_when_met(box: str, total: int) -> int:
    """What a Kismet-section box pays once its pattern is met (`total` = sum of the dice)."""
    return {
        "two_pair_same_color": total,
        "three_of_a_kind": total,
        "straight": 30,
        "flush": 35,
        "full_house": total + 15,
        "full_house_same_color": total + 20,
        "four_of_a_kind": total + 25,
        "yarborough": total,
        "kismet": total + 50,
    }[box]


# ---- the game ------------------------------------------------------------------------------

DEFAULT_AWAY_LIMIT_MS = 30_000
DEFAULT_TURN_LIMIT_MS = 60_000  # [D31]: three throws and a choice among 15 boxes
MAX_LIMIT_MS = 86_400_000  # a day: anything longer is a typing mistake
MIN_TURN_LIMIT_MS = 1_000

# Every hold allowed before a second or third roll: each subset of the five positions but
# all five (holding everything is stopping), as sorted lists, smallest first.
HOLDS = tuple(list(c) for size in range(5) for c in combinations(range(5), size))


def normalize_options(options: Plain) -> Plain:
    """The dice game's options with defaults: away_limit_ms (30000) and turn_limit_ms (60000;
    0 = no turn limit [D31], otherwise at least 1000)."""
    check_known_options(options, {"away_limit_ms", "turn_limit_ms"}, "dice")
    away = int_option(
        options,
        "away_limit_ms",
        DEFAULT_AWAY_LIMIT_MS,
        0,
        MAX_LIMIT_MS,
        "The away-limit (away_limit_ms)",
    )
    turn = int_option(
        options,
        "turn_limit_ms",
        DEFAULT_TURN_LIMIT_MS,
        0,
        MAX_LIMIT_MS,
        "The turn limit (turn_limit_ms)",
    )
    if 0 < turn < MIN_TURN_LIMIT_MS:
        raise IllegalAction(
            "The turn limit (turn_limit_ms) must be 0 for none, or at least "
            f"{MIN_TURN_LIMIT_MS} ms.",
            MALFORMED,
        )
    return {"away_limit_ms": away, "turn_limit_ms": turn}


def takes_joker(box: str, face: int) -> bool:
    """Whether a joker of `face` may be scored (not only scratched) in `box` [D5]."""
    if box in BOX_FACE:
        return BOX_FACE[box] == face
    return box != "straight"


def card_totals(card: Mapping[str, int | None]) -> Totals:
    """Section totals of one card (open boxes count 0); the bonus shows once it is reached."""
    basic = sum(card[box] or 0 for box in BASIC_BOXES)
    kismet = sum(card[box] or 0 for box in KISMET_BOXES)
    bonus = basic_bonus(basic)
    return {
        "basic": basic,
        "bonus": bonus,
        "kismet_section": kismet,
        "total": basic + bonus + kismet,
    }


class DiceGame(Game[PlayerAction, Note, View]):
    """Kismet (1964) for 1 to 8 seats. See the module docstring for actions, notes, view."""

    RULESET = "dice"
    MIN_SEATS = 1
    MAX_SEATS = 8

    def __init__(self, seats: int, options: Plain, rng: Chance, start_ms: int = 0):
        super().__init__(seats, options, rng, start_ms)
        # Per seat, box -> points, None while the box is open.
        self.cards: list[dict[str, int | None]] = [
            {box: None for box in BOXES} for _ in range(seats)
        ]
        self.away_since: list[int | None] = [None] * seats
        self.rolloff, first = self._roll_off()
        self.first = first
        self.turns = 0  # turns begun so far
        self.last: LastScore | None = None  # the last scored turn, for screens
        self.over = False
        self._begin_turn(first, start_ms)

    # ---- chance at fixed points -----------------------------------------------------------
    def _roll_off(self) -> tuple[list[list[list[int]]], int]:
        """[D6] Every seat rolls one die, in seat order; the seats tied for highest roll again,
        in seat order, until one is highest. Drawn when the game is created, before any turn.
        A solo game draws nothing."""
        contenders = list(range(self.seats))
        rounds: list[list[list[int]]] = []
        while len(contenders) > 1:
            throws = [[seat, self.rng.die()] for seat in contenders]
            rounds.append(throws)
            high = max(face for _, face in throws)
            contenders = [seat for seat, face in throws if face == high]
        return rounds, contenders[0]

    # ---- turns -----------------------------------------------------------------------------
    def _begin_turn(self, seat: int, t_ms: int) -> None:
        self.current = seat
        self.dice: list[int] = []
        self.rolls = 0
        self.turn_start = t_ms
        self.turns += 1

    def _has_open_box(self, seat: int) -> bool:
        return any(points is None for points in self.cards[seat].values())

    def holds_kismet(self, seat: int) -> bool:
        """[D4] The Kismet box holds a real Kismet (a scratched Kismet box does not count)."""
        return bool(self.cards[seat]["kismet"])

    def joker_now(self) -> bool:
        """Whether the dice of the seat to move are a joker: five of a kind rolled while their
        Kismet box holds a Kismet [D4][D5]. Ending the turn with them is a second Kismet."""
        return (
            not self.over
            and self.rolls > 0
            and is_five_of_a_kind(self.dice)
            and self.holds_kismet(self.current)
        )

    def _points(self, box: str) -> int:
        """What the current dice earn in `box` for the seat to move, the joker applied."""
        return score(box, self.dice, joker=self.joker_now())

    def _check_turn(self, seat: int) -> None:
        check(not self.over, "The game is over.")
        if seat != self.current:
            raise IllegalAction(f"Not your turn: seat {self.current} is rolling.", NOT_YOURS)
        if self.away[seat]:
            # As in race and knock: the host stamps a returning player back before they play.
            raise IllegalAction(f"Seat {seat} is marked away: come back to play.")

    def _roll(self, hold: list[int]) -> RolledNote:
        # Fixed draw point: one die per position not held, in position order 0..4.
        if not self.dice:
            self.dice = [self.rng.die() for _ in range(5)]
        else:
            self.dice = [face if i in hold else self.rng.die() for i, face in enumerate(self.dice)]
        self.rolls += 1
        return {
            "type": "rolled",
            "seat": self.current,
            "dice": list(self.dice),
            "roll": self.rolls,
            "held": sorted(hold),
        }

    def _score(self, box: str, t_ms: int) -> list[Note]:
        """Write the turn's score into `box`, apply a second Kismet, start the next turn."""
        seat = self.current
        second_kismet = self.joker_now()
        joker = second_kismet and takes_joker(box, self.dice[0])
        points = self._points(box)
        self.cards[seat][box] = points
        self.last = {
            "seat": seat,
            "box": box,
            "points": points,
            "dice": list(self.dice),
            "joker": joker,
        }
        notes: list[Note] = [
            {
                "type": "scored",
                "seat": seat,
                "box": box,
                "points": points,
                "dice": list(self.dice),
                "joker": joker,
            }
        ]
        if second_kismet:
            notes.append(self._penalty(seat))
            if self._has_open_box(seat):
                notes.append({"type": "extra_turn", "seat": seat})
                self._begin_turn(seat, t_ms)
                notes.append({"type": "turn", "seat": seat})
                return notes
        return notes + self._advance(seat, t_ms)

    def _penalty(self, roller: int) -> PenaltyNote:
        """Every other seat with an open box writes 0 in its first open box, in scorecard
        order; that zero is the turn they lose."""
        victims: list[list[int | str]] = []
        for other in range(self.seats):
            if other == roller:
                continue
            for box in BOXES:
                if self.cards[other][box] is None:
                    self.cards[other][box] = 0
                    victims.append([other, box])
                    break
        return {"type": "penalty", "seat": roller, "victims": victims}

    def _advance(self, after: int, t_ms: int) -> list[Note]:
        """The next seat in seat order with an open box moves (skipping full cards); or the
        game ends when every card is full."""
        for step in range(1, self.seats + 1):
            seat = (after + step) % self.seats
            if self._has_open_box(seat):
                self._begin_turn(seat, t_ms)
                return [{"type": "turn", "seat": seat}]
        self.over = True
        self.dice = []
        self.rolls = 0
        result = self._final_result()
        return [{"type": "game_over", "scores": result["scores"], "winners": result["winners"]}]

    # ---- actions ---------------------------------------------------------------------------
    def _act_roll(self, seat: int, action: RollAction, t_ms: int) -> list[Note]:
        self._check_turn(seat)
        check(self.rolls < 3, "You have already rolled three times; choose a box.")
        hold = action.get("hold") or []
        check(len(set(hold)) == len(hold), "Each die can be held only once.")
        check(self.rolls > 0 or not hold, "There is nothing to hold before the first roll.")
        check(len(hold) < 5, "Holding all five dice is the same as stopping: choose a box.")
        return [self._roll(list(hold))]

    def _act_score(self, seat: int, action: ScoreAction, t_ms: int) -> list[Note]:
        self._check_turn(seat)
        box = action["box"]
        if box not in BOX_NAMES:  # (any short word is well formed: the card names 15)
            raise IllegalAction(f"There is no box called {box!r} on a Kismet card.", MALFORMED)
        check(self.rolls > 0, "Roll the dice before you choose a box.")
        if self.cards[seat][box] is not None:
            raise IllegalAction(f"{BOX_NAMES[box]} is already filled on your card.")
        if action.get("joker", False):
            self._check_joker_box(box)
        return self._score(box, t_ms)

    def _check_joker_box(self, box: str) -> None:
        """An action that asks for a joker ("joker": true) must have one, in a box that takes
        it. (Without the flag the joker applies by itself wherever it may.)"""
        check(
            self.joker_now(),
            "These dice are not a joker: a joker is five of a kind rolled "
            "after your Kismet box holds a Kismet.",
        )
        face = self.dice[0]
        check(box != "straight", "A joker cannot be scored as a Straight.")
        check(
            takes_joker(box, face),
            f"A joker of {face}s goes in {BOX_NAMES[BASIC_BOXES[face - 1]]} or the Kismet "
            f"section, not in {BOX_NAMES[box]}.",
        )

    def _on_timeout(self, t_ms: int) -> list[Note]:
        """[D18] The default play for the seat to move: roll once if they have not rolled this
        turn, then score the open box that scores most (ties: first in scorecard order)."""
        turn, away = self._deadlines()
        why = self._limit_why(self.current, turn, away)
        limit = {
            "turn_limit": self.options["turn_limit_ms"],
            "away_limit": self.options["away_limit_ms"],
            "idle": 0,
        }[why]
        notes: list[Note] = [
            {"type": "timeout", "seat": self.current, "why": why, "limit_ms": limit}
        ]
        if self.rolls == 0:
            notes.append(self._roll([]))
        notes.extend(self._score(self.best_box(), t_ms))
        return notes

    def best_box(self) -> str:
        """The open box of the seat to move that the current dice score most in (first in
        scorecard order on a tie), the joker applied."""
        best, best_points = "", -1
        for box in BOXES:
            if self.cards[self.current][box] is None:
                points = self._points(box)
                if points > best_points:
                    best, best_points = box, points
        return best

    def _on_away(self, seat: int, t_ms: int) -> None:
        self.away_since[seat] = t_ms

    def _on_back(self, seat: int, t_ms: int) -> None:
        self.away_since[seat] = None

    # ---- the contract ----------------------------------------------------------------------
    def next_deadline(self) -> int | None:
        if self.over:
            return None
        deadlines = [d for d in self._deadlines() if d is not None]
        return min(deadlines) if deadlines else None

    def _deadlines(self) -> tuple[int | None, int | None]:
        """The seat to move's turn deadline and away deadline (None where none runs)."""
        turn = (
            self.turn_start + self.options["turn_limit_ms"]
            if self.options["turn_limit_ms"]
            else None
        )
        away_since = self.away_since[self.current]  # (set by _on_away whenever away)
        away = None
        if self.away[self.current] and away_since is not None:
            away = max(self.turn_start, away_since) + self._away_limit(self.current)
        return turn, away

    def clocks(self) -> list[Clock]:
        """The limits running now, for countdowns [D31]: the turn's and, for an away seat,
        its away-limit's."""
        if self.over:
            return []
        turn, away = self._deadlines()
        out: list[Clock] = []
        if turn is not None:
            out.append({"kind": "turn", "seat": self.current, "until": turn})
        if away is not None:
            out.append({"kind": "away", "seat": self.current, "until": away})
        return out

    def _player_actions(self, seat: int, t_ms: int) -> list[PlayerAction]:
        # Nothing in a dice turn depends on the time: a move stamped after the turn limit is
        # still the player's (the host stamps its timeout first if it is due).
        if self.over or seat != self.current or self.away[seat]:
            return []
        actions: list[PlayerAction] = []
        if self.rolls == 0:
            actions.append({"type": "roll", "hold": []})
        elif self.rolls < 3:
            actions.extend({"type": "roll", "hold": list(hold)} for hold in HOLDS)
        if self.rolls > 0:
            actions.extend(
                {"type": "score", "box": box} for box in BOXES if self.cards[seat][box] is None
            )
        return actions

    def totals(self) -> list[Totals]:
        return [card_totals(card) for card in self.cards]

    def result(self) -> DiceResult | None:
        if not self.over:
            return None
        return self._final_result()

    def _final_result(self) -> DiceResult:
        totals = self.totals()
        scores = [t["total"] for t in totals]
        high = max(scores)
        return {
            "scores": scores,
            "winners": [seat for seat, s in enumerate(scores) if s == high],
            "basic": [t["basic"] for t in totals],
            "bonus": [t["bonus"] for t in totals],
            "kismet_section": [t["kismet_section"] for t in totals],
        }

    def preview(self) -> dict[str, BoxPreview] | None:
        """For the seat to move, once they have rolled: box -> {points, legal, joker}, for
        every box (legal = open; a filled box shows what it would have scored)."""
        if self.over or self.rolls == 0:
            return None
        joker = self.joker_now()
        card = self.cards[self.current]
        return {
            box: {
                "points": self._points(box),
                "legal": card[box] is None,
                "joker": joker and takes_joker(box, self.dice[0]),
            }
            for box in BOXES
        }

    def view(self, seat: int | None) -> View:
        # Nothing in the dice game is secret: every seat and spectator sees the same table.
        totals = self.totals()
        return {
            "ruleset": "dice",
            "you": seat,
            "seats": self.seats,
            "phase": "over" if self.over else "playing",
            "current": None if self.over else self.current,
            "your_turn": not self.over and seat == self.current,
            "dice": list(self.dice),
            "rolls_used": self.rolls,
            "rolls_left": 0 if self.over else 3 - self.rolls,
            "can_roll": not self.over and self.rolls < 3,
            "can_score": not self.over and self.rolls > 0,
            "joker": self.joker_now(),
            "preview": self.preview(),
            "boxes": list(BOXES),
            "box_names": dict(BOX_NAMES),
            "cards": [dict(card) for card in self.cards],
            "totals": totals,
            "holds_kismet": [self.holds_kismet(s) for s in range(self.seats)],
            "card_full": [not self._has_open_box(s) for s in range(self.seats)],
            "rolloff": {
                "rounds": [[list(t) for t in r] for r in self.rolloff],
                "first": self.first,
            },
            "turn": self.turns,
            "turn_started_ms": self.turn_start,
            "deadline_ms": self.next_deadline(),
            "clocks": self.clocks(),
            "away": list(self.away),
            "idle": list(self.idle),
            "last": LastScore(**self.last) if self.last else None,
            "options": dict(self.options),
            "result": self.result(),
        }

    def snapshot(self) -> Plain:
        return {
            "ruleset": self.RULESET,
            "seats": self.seats,
            "options": dict(self.options),
            "now": self.now,
            "away": list(self.away),
            "away_since": list(self.away_since),
            "rng": self.rng.state(),
            "rolloff": [[list(t) for t in r] for r in self.rolloff],
            "first": self.first,
            "cards": [[card[box] for box in BOXES] for card in self.cards],
            "current": self.current,
            "dice": list(self.dice),
            "rolls": self.rolls,
            "turn_start": self.turn_start,
            "turns": self.turns,
            "last": dict(self.last) if self.last else None,
            "over": self.over,
            **self._idle_state(),
        }


GAME = DiceGame
