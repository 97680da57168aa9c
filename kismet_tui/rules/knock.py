"""`knock`: the knocking variant of Kismet (1997), docs/rules.md sections 2, 4 and 5.

Each player lays their own 11 cards (2..12) one roll at a time; the others knock to steal a
roll the roller cannot use or overlooked. Time enters only as stamped events.

A round
-------
1. `prelay_commit`: the secret pre-lay [D13]. Every client replays the whole log, so a plain
   action would show the choice to everybody before all have chosen. The engine therefore uses
   commit-reveal: each seat sends `{"type": "prelay", "commit": hex}` with
   `commit = prelay_commitment(cards, salt)` = SHA-256 of `canonical({"cards": [numbers, in
   laying order, the last on top], "salt": salt})`, `salt` a secret hex string (the client
   library draws 16 random bytes). Only the commitment enters the log.
2. `prelay_reveal` (once every seat has committed): each sends `{"type": "reveal", "cards":
   [...], "salt": "..."}`. It is refused, with words, unless it hashes to that seat's
   commitment and is a legal pre-lay: numbers 2..12, no repeats, chips adding up to at most 6
   under the table's chip table. The client library only ever commits legal choices, so an
   honest client never meets that refusal; a seat that cannot reveal keeps an empty pre-lay.
   When every reveal is in, all pre-lays take effect together.
   Both phases last at most `away_limit_ms` from their start, for everybody: at the host's
   timeout, a seat that has not committed (or not revealed) gets an empty pre-lay.
3. `play`: the first roller of round 1 is drawn by the seed [D14] with `rng.below(seats)`,
   the stream's first draw, made when round 1's pre-lays take effect. Round r's first roller
   is the seat after round r-1's first roller. Turns go round in seat order.
4. A player who lays their last card (a knocker too) wins the round at once. Every player
   scores, as minus points, the chips of their cards still open (the winner: 0). After the
   last of `rounds` rounds the game is over, otherwise the next round begins with every
   player's 11 cards open again and a new secret pre-lay.

A turn
------
- `{"type": "roll"}`: three `rng.die()`, drawn when the roll is applied. The turn's seat may
  roll once the knock window of the turn before has passed [D15]: a roll stamped earlier than
  `knock_window_ms` after that turn ended is refused ("Wait: others may still knock for 0.6 s.").
  `legal_actions(seat, t_ms)` lists the roll only from that time on.
- `{"type": "lay", "card": n}`: lay one open card whose number is a target; this ends the
  turn. On a joker throw, `{"type": "lay", "card": n, "extra": m}` also lays any one other
  open card m (on top of n); `extra` is refused on any other throw. Without the target card a
  joker throw lets the roller lay nothing.
- `{"type": "pass"}`: "I have nothing". Always allowed once rolled, even holding a match: an
  overlooked card is what knockers punish.
- Knocks on a roll stay possible until the next roll.

Knocking
--------
`{"type": "knock"}` or `{"type": "knock", "card": n}`: by anyone but the roller, once per roll,
from the roll until the next roll. A named card must be one of the knocker's open cards and a
target of the roll (else refused, nothing changes). Judged at once, in stamp order, against
the game as it stands (docs/rules.md section 4):
1. `case "overlooked"`: the roller passed while holding a match. The first knock judged under
   this case is `good`: the knocker lays a match (named, else [D16]); a knocker without one
   makes the roller turn their top laid card face up. Later knocks: `too_slow`, no effect.
2. `case "roller_holds"`: the roller still holds a match: `wrong`.
3. `case "roller_has_none"`: a knocker with a match is `good` if no knock on this roll was
   good yet (and lays it), else `too_slow`; a knocker without a match is `wrong`.
A wrong knocker turns their own top laid card face up (back among their open cards; nothing
if their pile is empty). [D16] With no card named, the game lays the knocker's match with the
most chips, ties to the higher number. [D17] On a joker throw a knocker lays only the match.

Away players and limits [D18]
-----------------------------
The turn's seat, when away, is played for at `max(turn start, time they went away) +
away_limit_ms` (an idle seat [D31]: at `max(turn start, time it went idle)`); with
`turn_limit_ms` > 0 every turn is also played for at turn start + `turn_limit_ms`
(whichever comes first; never before the knock window has passed). `clocks()` (also in the
view) lists the limits running, for countdowns. The
default play: roll if not rolled yet, then lay the match with most chips (ties: the higher
number; on a joker throw also the other open card with most chips) if there is one, else
pass. An away seat's own actions are refused until the host stamps it back.

Options: `knock_window_ms` 1500, `away_limit_ms` 30000, `turn_limit_ms` 30000 (0: none [D31]), `rounds` 1,
`chips` ([D7] table).

Notes returned by apply
-----------------------
(Declared as TypedDicts in knock_types.py, with the actions and the view; the
words here say what the fields mean.)
`committed {seat}`, `prelay_defaulted {seat, limit_ms}` (empty pre-lay at the deadline),
`revealed {seat, count}`, `prelays_done {first_roller}`, `default_play {seat, why, limit_ms}`
(why the host played: "turn_limit", "away_limit" or "idle", and that limit),
`rolled {seat, roll, dice, targets, joker}`, `laid {seat, cards}`, `passed {seat}`,
`knocked {seat, roll, case, judgement: "good" | "wrong" | "too_slow", laid: n or None,
turned_up: {seat, card} or None}`, `turn {seat, roll_from}` (the next seat's turn, and the
time from which it may roll), `round_over {round, winners, minus}` and
`game_over {scores, winners}`, plus the base class's `away` / `back`.

view(seat)
----------
    ruleset "knock", seats, you, phase ("prelay_commit" | "prelay_reveal" | "play" | "over"),
    round, rounds, chips, deadline (host ms or None), clocks (the limits running),
    first_roller (this round's, or None before the pre-lays are done),
    turn (seat to roll or deciding, or None), stage ("roll" | "decide" | None),
    roll_from (host ms before which the turn's seat may not roll, or None),
    roll: None or {no, roller, dice, targets, joker, status: "deciding" | "laid" | "passed",
        laid: [numbers the roller laid], knocks: [{seat, t, case, judgement, laid,
        turned_up}] in stamp order, knocked: [seats]},
    players: [{seat, back, away, idle, open: [{number, chip, id}] ascending, open_chips,
        laid_count, laid: [numbers, bottom to top] for your own seat only (else None),
        committed, revealed, minus_points}],
    minus_points: totals so far, round_scores: [[minus per seat] per round played],
    last_round: None or {round, winners, minus}, result.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from functools import lru_cache
from itertools import combinations
from typing import Literal

from . import cards
from .base import Chance, Game, IllegalAction, Plain, canonical, check, whole_number_options
from .game_types import Clock
from .knock_types import (
    Case,
    Judgement,
    Knock,
    KnockAction,
    KnockResult,
    LayAction,
    Note,
    PassAction,
    Phase,
    Player,
    PlayerAction,
    PrelayAction,
    RevealAction,
    Roll,
    RollAction,
    RollState,
    RoundScore,
    SeatCard,
    View,
)
from .refusal import NOT_YET, NOT_YOURS

PRELAY_CHIP_LIMIT = 6
# The salt of the few commitments legal_actions offers (for bots and random playouts): public,
# so those choices are not secret. Real clients draw a secret salt.
PUBLIC_SALT = "00"

OPTIONS = {
    "knock_window_ms": (1500, 0, 60_000, "The knock window (ms)"),
    "away_limit_ms": (30_000, 0, 3_600_000, "The away-limit (ms)"),
    "turn_limit_ms": (30_000, 0, 3_600_000, "The turn limit (ms, 0 for none)"),  # [D31]
    "rounds": (1, 1, 50, "The number of rounds"),
}


def normalize_options(options: Plain) -> Plain:
    out: Plain = whole_number_options(options, OPTIONS, "knock", others=("chips",))
    out["chips"] = cards.chips_option(options)
    return out


def prelay_commitment(numbers: Iterable[object], salt: str) -> str:
    """The commitment a client sends for a secret pre-lay: hex SHA-256 of the canonical
    encoding of {"cards": numbers in laying order (last on top), "salt": salt}."""
    return hashlib.sha256(canonical({"cards": list(numbers), "salt": salt})).hexdigest()


def prelay_problem(numbers: object, chips: Sequence[int]) -> str | None:
    """Why a pre-lay is not legal, in words, or None if it is."""
    if not isinstance(numbers, list):
        return "A pre-lay is a list of card numbers."
    for n in numbers:
        if isinstance(n, bool) or not isinstance(n, int) or not 2 <= n <= 12:
            return "A pre-lay lists card numbers from 2 to 12."
    if len(set(numbers)) != len(numbers):
        return "A pre-lay names each card at most once."
    total = sum(cards.chip(n, chips) for n in numbers)
    if total > PRELAY_CHIP_LIMIT:
        return (
            f"Those cards add up to {total} chips; a pre-lay may hold at most {PRELAY_CHIP_LIMIT}."
        )
    return None


@lru_cache(maxsize=16)
def _public_prelays(chips: tuple[int, ...]) -> dict[str, list[int]]:
    """commitment -> numbers, for the empty pre-lay and every legal one- or two-card pre-lay
    (ascending), all with PUBLIC_SALT."""
    choices: list[list[int]] = [[]] + [[n] for n in cards.NUMBERS]
    choices += [list(pair) for pair in combinations(cards.NUMBERS, 2)]
    return {
        prelay_commitment(c, PUBLIC_SALT): c for c in choices if prelay_problem(c, chips) is None
    }


def _best(numbers: Iterable[int], chips: Sequence[int]) -> int:
    """[D16] The card with the most chips; ties go to the higher number."""
    return max(numbers, key=lambda n: (cards.chip(n, chips), n))


class KnockGame(Game[PlayerAction, Note, View]):
    RULESET = "knock"
    MIN_SEATS = 2
    MAX_SEATS = 8

    def __init__(self, seats: int, options: Plain, rng: Chance, start_ms: int = 0):
        super().__init__(seats, options, rng, start_ms)
        self.chips = list(options["chips"])
        self.round = 0
        self.game_first_roller: int | None = None  # drawn once [D14]
        self.minus = [0] * seats
        self.round_scores: list[list[int]] = []
        self.last_round: RoundScore | None = None
        self.away_since: list[int | None] = [None] * seats
        self._start_round(start_ms)

    # ---- state of a round ---------------------------------------------------------------
    def _start_round(self, t_ms: int) -> None:
        self.round += 1
        self.phase: Phase = "prelay_commit"
        self.phase_started = t_ms
        self.open = [list(cards.NUMBERS) for _ in range(self.seats)]  # ascending
        self.laid: list[list[int]] = [[] for _ in range(self.seats)]  # bottom .. top
        self.commits: list[str | None] = [None] * self.seats
        self.defaulted = [False] * self.seats  # given an empty pre-lay by the deadline
        self.reveals: list[list[int] | None] = [None] * self.seats
        self.first_roller: int | None = None
        self.turn: int | None = None
        self.stage: Literal["roll", "decide"] | None = None
        self.turn_started = t_ms
        self.roll_from: int | None = None
        self.roll: RollState | None = None
        self.roll_count = 0

    # The play phase always has a turn, and from its roll on a roll: these read them there.
    @property
    def _the_turn(self) -> int:
        assert self.turn is not None, "no turn outside the play phase"
        return self.turn

    @property
    def _the_roll(self) -> RollState:
        assert self.roll is not None, "nobody has rolled yet this round"
        return self.roll

    # ---- the contract -------------------------------------------------------------------
    def next_deadline(self) -> int | None:
        if self.phase in ("prelay_commit", "prelay_reveal"):
            away_limit: int = self.options["away_limit_ms"]
            return self.phase_started + away_limit
        if self.phase != "play":
            return None
        limits = [d for d in self._turn_deadlines() if d is not None]
        return min(limits) if limits else None

    def _turn_deadlines(self) -> tuple[int | None, int | None]:
        """The turn's seat's turn deadline and away deadline (None where none runs), never
        before the knock window of the turn before has passed [D15]."""
        turn = self._the_turn
        deadlines: list[int | None] = [None, None]
        if self.options["turn_limit_ms"] > 0:
            deadlines[0] = self.turn_started + self.options["turn_limit_ms"]
        if self.away[turn]:
            deadlines[1] = max(self.turn_started, self.away_since[turn] or 0) + self._away_limit(
                turn
            )
        if self.stage == "roll" and self.roll_from is not None:
            deadlines = [None if d is None else max(d, self.roll_from) for d in deadlines]
        return deadlines[0], deadlines[1]

    def clocks(self) -> list[Clock]:
        """The limits running now, for countdowns [D31]: the secret pre-lay's, or the turn's,
        the away seat's and the knock window (while the next throw must wait for it)."""
        if self.phase in ("prelay_commit", "prelay_reveal"):
            return [
                {
                    "kind": "prelay",
                    "seat": None,
                    "until": self.phase_started + self.options["away_limit_ms"],
                }
            ]
        if self.phase != "play":
            return []
        turn = self._the_turn
        limit, away = self._turn_deadlines()
        out: list[Clock] = []
        if (
            self.stage == "roll"
            and self.roll_from is not None
            and self.roll_from > self.turn_started
        ):
            out.append({"kind": "knock_window", "seat": None, "until": self.roll_from})
        if limit is not None:
            out.append({"kind": "turn", "seat": turn, "until": limit})
        if away is not None:
            out.append({"kind": "away", "seat": turn, "until": away})
        return out

    def result(self) -> KnockResult | None:
        if self.phase != "over":
            return None
        return self._final_result()

    def _final_result(self) -> KnockResult:
        best = min(self.minus)
        return {
            "scores": [-m for m in self.minus],
            "minus_points": list(self.minus),
            "winners": [s for s in range(self.seats) if self.minus[s] == best],
            "round_scores": [list(r) for r in self.round_scores],
        }

    def _player_actions(self, seat: int, t_ms: int) -> list[PlayerAction]:
        if self.away[seat] or self.phase == "over":
            return []
        if self.phase == "prelay_commit":
            if self.commits[seat] is not None or self.defaulted[seat]:
                return []
            return [{"type": "prelay", "commit": c} for c in _public_prelays(tuple(self.chips))]
        if self.phase == "prelay_reveal":
            commit = self.commits[seat]
            if commit is None or self.reveals[seat] is not None:
                return []
            # The engine cannot know a secret pre-lay; it can only recognise a public one.
            numbers = _public_prelays(tuple(self.chips)).get(commit)
            if numbers is None:
                return []
            return [{"type": "reveal", "cards": list(numbers), "salt": PUBLIC_SALT}]
        actions: list[PlayerAction] = []
        if seat == self.turn and self.stage == "roll" and self._may_roll_at(t_ms):
            actions.append({"type": "roll"})
        if seat == self.turn and self.stage == "decide":
            matches = self._matches(seat)
            for n in matches:
                actions.append({"type": "lay", "card": n})
                if self._the_roll["joker"]:
                    actions += [
                        {"type": "lay", "card": n, "extra": m} for m in self.open[seat] if m != n
                    ]
            actions.append({"type": "pass"})
        roll = self.roll
        if roll is not None and seat != roll["roller"] and seat not in roll["knocked"]:
            actions.append({"type": "knock"})
            actions += [{"type": "knock", "card": n} for n in self._matches(seat)]
        return actions

    def snapshot(self) -> Plain:
        return {
            "ruleset": self.RULESET,
            "seats": self.seats,
            "options": self.options,
            "now": self.now,
            "away": list(self.away),
            "away_since": list(self.away_since),
            "rng": self.rng.state(),
            "round": self.round,
            "phase": self.phase,
            "phase_started": self.phase_started,
            "game_first_roller": self.game_first_roller,
            "first_roller": self.first_roller,
            "open": [list(o) for o in self.open],
            "laid": [list(p) for p in self.laid],
            "commits": list(self.commits),
            "defaulted": list(self.defaulted),
            "reveals": [None if r is None else list(r) for r in self.reveals],
            "turn": self.turn,
            "stage": self.stage,
            "turn_started": self.turn_started,
            "roll_from": self.roll_from,
            "roll": self.roll,
            "roll_count": self.roll_count,
            "minus": list(self.minus),
            "round_scores": [list(r) for r in self.round_scores],
            "last_round": self.last_round,
            **self._idle_state(),
        }

    def view(self, seat: int | None) -> View:
        players: list[Player] = []
        for s in range(self.seats):
            players.append(
                {
                    "seat": s,
                    "back": cards.BACK_COLOURS[s],
                    "away": self.away[s],
                    "idle": self.idle[s],
                    "open": [
                        {"number": n, "chip": cards.chip(n, self.chips), "id": cards.card_id(s, n)}
                        for n in self.open[s]
                    ],
                    "open_chips": self._open_chips(s),
                    "laid_count": len(self.laid[s]),
                    # A laid pile lies face down: only its owner knows its order.
                    "laid": list(self.laid[s]) if s == seat else None,
                    "committed": self.commits[s] is not None,
                    "revealed": self.reveals[s] is not None,
                    "minus_points": self.minus[s],
                }
            )
        roll: Roll | None = None
        if self.roll is not None:
            now = self.roll
            roll = {
                "no": now["no"],
                "roller": now["roller"],
                "dice": list(now["dice"]),
                "targets": list(now["targets"]),
                "joker": now["joker"],
                "status": now["status"],
                "laid": list(now["laid"]),
                "knocks": [Knock(**k) for k in now["knocks"]],
                "knocked": list(now["knocked"]),
            }
        return {
            "ruleset": "knock",
            "seats": self.seats,
            "you": seat,
            "phase": self.phase,
            "round": self.round,
            "rounds": self.options["rounds"],
            "chips": list(self.chips),
            "deadline": self.next_deadline(),
            "clocks": self.clocks(),
            "first_roller": self.first_roller,
            "turn": self.turn,
            "stage": self.stage,
            "roll_from": self.roll_from,
            "roll": roll,
            "players": players,
            "minus_points": list(self.minus),
            "round_scores": [list(r) for r in self.round_scores],
            "last_round": self.last_round,
            "result": self.result(),
        }

    # ---- helpers --------------------------------------------------------------------------
    def _open_chips(self, seat: int) -> int:
        return sum(cards.chip(n, self.chips) for n in self.open[seat])

    def _matches(self, seat: int) -> list[int]:
        """The seat's open cards that show a target of the roll on the table."""
        if self.roll is None:
            return []
        return [n for n in self.open[seat] if n in self.roll["targets"]]

    def _lay(self, seat: int, number: int) -> None:
        self.open[seat].remove(number)
        self.laid[seat].append(number)

    def _turn_up(self, seat: int) -> int | None:
        """The top laid card goes back among the open cards; None if the pile is empty."""
        if not self.laid[seat]:
            return None
        number = self.laid[seat].pop()
        self.open[seat].append(number)
        self.open[seat].sort()
        return number

    def _check_present(self, seat: int) -> None:
        if self.away[seat]:
            raise IllegalAction(f"Seat {seat} is marked away: come back to play.")

    def _check_playing(self) -> None:
        check(self.phase != "over", "The game is over.")
        check(self.phase == "play", "Wait: the players are still choosing their pre-lays.")

    # ---- pre-lay --------------------------------------------------------------------------
    def _act_prelay(self, seat: int, action: PrelayAction, t_ms: int) -> list[Note]:
        check(self.phase == "prelay_commit", "The time to choose a pre-lay is over.")
        self._check_present(seat)
        check(not self.defaulted[seat], "Time ran out: your pre-lay was left empty.")
        check(self.commits[seat] is None, "You have already committed to your pre-lay.")
        self.commits[seat] = action["commit"]
        notes: list[Note] = [{"type": "committed", "seat": seat}]
        return notes + self._after_commit(t_ms)

    def _after_commit(self, t_ms: int) -> list[Note]:
        if any(self.commits[s] is None and not self.defaulted[s] for s in range(self.seats)):
            return []
        if all(c is None for c in self.commits):  # nobody has anything to reveal
            return self._prelays_take_effect(t_ms)
        self.phase = "prelay_reveal"
        self.phase_started = t_ms
        return []

    def _act_reveal(self, seat: int, action: RevealAction, t_ms: int) -> list[Note]:
        check(self.phase == "prelay_reveal", "This is not the time to reveal a pre-lay.")
        self._check_present(seat)
        check(self.commits[seat] is not None, "Time ran out: your pre-lay was left empty.")
        check(self.reveals[seat] is None, "You have already revealed your pre-lay.")
        numbers = action["cards"]
        check(
            prelay_commitment(numbers, action["salt"]) == self.commits[seat],
            "That is not what you committed to: reveal the same cards and salt.",
        )
        problem = prelay_problem(numbers, self.chips)
        if problem is not None:
            raise IllegalAction(problem)
        self.reveals[seat] = list(numbers)
        notes: list[Note] = [{"type": "revealed", "seat": seat, "count": len(numbers)}]
        if all(self.commits[s] is None or self.reveals[s] is not None for s in range(self.seats)):
            notes += self._prelays_take_effect(t_ms)
        return notes

    def _prelays_take_effect(self, t_ms: int) -> list[Note]:
        for s in range(self.seats):
            for number in self.reveals[s] or []:
                self._lay(s, number)
        if self.game_first_roller is None:
            self.game_first_roller = self.rng.below(self.seats)  # [D14], the first draw
        self.first_roller = (self.game_first_roller + self.round - 1) % self.seats
        self.phase = "play"
        notes: list[Note] = [{"type": "prelays_done", "first_roller": self.first_roller}]
        if any(not self.open[s] for s in range(self.seats)):  # only with a zero-chip table
            return notes + self._round_over(t_ms)
        self.turn, self.stage = self.first_roller, "roll"
        self.turn_started, self.roll_from = t_ms, None
        notes.append({"type": "turn", "seat": self.first_roller, "roll_from": t_ms})
        return notes

    # ---- a turn -----------------------------------------------------------------------------
    def _check_turn(self, seat: int, stage: str) -> None:
        self._check_playing()
        self._check_present(seat)
        if seat != self.turn:
            doing = "rolling" if self.stage == "roll" else "deciding"
            raise IllegalAction(f"Not your turn: seat {self.turn} is {doing}.", NOT_YOURS)
        if stage == "roll":
            check(self.stage == "roll", "You have rolled already: lay a card or pass.")
        else:
            check(self.stage == "decide", "Roll the dice first.")

    def _may_roll_at(self, t_ms: int) -> bool:
        """[D15] The knock window of the turn before has passed (or there was none)."""
        return self.roll_from is None or t_ms >= self.roll_from

    def _act_roll(self, seat: int, action: RollAction, t_ms: int) -> list[Note]:
        self._check_turn(seat, "roll")
        if self.roll_from is not None and t_ms < self.roll_from:  # not self._may_roll_at(t_ms)
            raise IllegalAction(
                f"Wait: others may still knock for {cards.seconds_words(self.roll_from - t_ms)} s.",
                NOT_YET,
            )
        return self._roll(seat)

    def _roll(self, seat: int) -> list[Note]:
        dice = cards.roll_three(self.rng)
        self.roll_count += 1
        self.roll = {
            "no": self.roll_count,
            "roller": seat,
            "dice": dice,
            "targets": cards.targets(dice),
            "joker": cards.is_joker(dice),
            "status": "deciding",
            "laid": [],
            "knocks": [],
            "knocked": [],
            "good_done": False,
        }
        self.stage = "decide"
        return [
            {
                "type": "rolled",
                "seat": seat,
                "roll": self.roll_count,
                "dice": list(dice),
                "targets": list(self.roll["targets"]),
                "joker": self.roll["joker"],
            }
        ]

    def _act_lay(self, seat: int, action: LayAction, t_ms: int) -> list[Note]:
        self._check_turn(seat, "decide")
        number, extra = action["card"], action.get("extra")
        laying = [self._check_own_match(seat, number)]
        if extra is not None:
            check(self._the_roll["joker"], "Only a joker throw lets you lay a second card.")
            check(
                extra in self.open[seat] and extra != number,
                "The extra card must be another of your open cards.",
            )
            laying.append(extra)
        return self._roller_lays(seat, laying, t_ms)

    def _check_own_match(self, seat: int, number: int) -> int:
        """`number`, once it is one of the seat's open cards that matches the roll."""
        # Words are built only when refusing: this check runs on every lay and knock.
        if number not in self.open[seat]:
            raise IllegalAction(f"You have no open {number}.")
        targets = self._the_roll["targets"]
        if number not in targets:
            raise IllegalAction(
                f"Your {number} does not match this roll: the dice make "
                f"{cards.say_numbers(targets)}."
            )
        return number

    def _roller_lays(self, seat: int, laying: list[int], t_ms: int) -> list[Note]:
        for number in laying:
            self._lay(seat, number)
        self._the_roll["status"] = "laid"
        self._the_roll["laid"] = list(laying)
        notes: list[Note] = [{"type": "laid", "seat": seat, "cards": list(laying)}]
        if not self.open[seat]:
            return notes + self._round_over(t_ms)
        return notes + self._end_turn(t_ms)

    def _act_pass(self, seat: int, action: PassAction, t_ms: int) -> list[Note]:
        self._check_turn(seat, "decide")
        self._the_roll["status"] = "passed"
        notes: list[Note] = [{"type": "passed", "seat": seat}]
        return notes + self._end_turn(t_ms)

    def _end_turn(self, t_ms: int) -> list[Note]:
        self.turn = (self._the_turn + 1) % self.seats
        self.stage = "roll"
        self.turn_started = t_ms
        self.roll_from = t_ms + self.options["knock_window_ms"]  # [D15]
        return [{"type": "turn", "seat": self.turn, "roll_from": self.roll_from}]

    # ---- knocking ---------------------------------------------------------------------------
    def _act_knock(self, seat: int, action: KnockAction, t_ms: int) -> list[Note]:
        self._check_playing()
        self._check_present(seat)
        roll = self.roll
        if roll is None:
            raise IllegalAction("Nothing to knock on: nobody has rolled yet this round.")
        check(seat != roll["roller"], "You cannot knock on your own roll.")
        check(seat not in roll["knocked"], "You have knocked on this roll already.")
        named = action.get("card")
        if named is not None:
            self._check_own_match(seat, named)

        roller = roll["roller"]
        roller_holds = bool(self._matches(roller))
        own = self._matches(seat)
        laid: int | None = None
        turned_up: SeatCard | None = None
        case: Case
        judgement: Judgement
        if roll["status"] == "passed" and roller_holds:
            case = "overlooked"
            if roll["good_done"]:
                judgement = "too_slow"
            else:
                judgement = "good"
                if own:
                    laid = named if named is not None else _best(own, self.chips)
                else:
                    card = self._turn_up(roller)
                    turned_up = None if card is None else {"seat": roller, "card": card}
        elif roller_holds:
            case, judgement = "roller_holds", "wrong"
        else:
            case = "roller_has_none"
            if not own:
                judgement = "wrong"
            elif roll["good_done"]:
                judgement = "too_slow"
            else:
                judgement = "good"
                # [D16] the named card, else the most chips; [D17] only the match on a joker.
                laid = named if named is not None else _best(own, self.chips)
        if judgement == "wrong":
            card = self._turn_up(seat)
            turned_up = None if card is None else {"seat": seat, "card": card}
        if judgement == "good":
            roll["good_done"] = True
        if laid is not None:
            self._lay(seat, laid)
        roll["knocks"].append(
            {
                "seat": seat,
                "t": t_ms,
                "case": case,
                "judgement": judgement,
                "laid": laid,
                "turned_up": turned_up,
            }
        )
        roll["knocked"].append(seat)
        notes: list[Note] = [
            {
                "type": "knocked",
                "roll": roll["no"],
                "seat": seat,
                "case": case,
                "judgement": judgement,
                "laid": laid,
                "turned_up": turned_up,
            }
        ]
        if laid is not None and not self.open[seat]:
            notes += self._round_over(t_ms)
        return notes

    # ---- limits, away players -----------------------------------------------------------
    def _on_away(self, seat: int, t_ms: int) -> None:
        self.away_since[seat] = t_ms

    def _on_back(self, seat: int, t_ms: int) -> None:
        self.away_since[seat] = None

    def _on_timeout(self, t_ms: int) -> list[Note]:
        notes: list[Note] = []
        if self.phase == "prelay_commit":
            for s in range(self.seats):
                if self.commits[s] is None:
                    self.defaulted[s] = True
                    notes.append(
                        {
                            "type": "prelay_defaulted",
                            "seat": s,
                            "limit_ms": self.options["away_limit_ms"],
                        }
                    )
            return notes + self._after_commit(t_ms)
        if self.phase == "prelay_reveal":
            for s in range(self.seats):
                if self.commits[s] is not None and self.reveals[s] is None:
                    self.commits[s] = None
                    self.defaulted[s] = True
                    notes.append(
                        {
                            "type": "prelay_defaulted",
                            "seat": s,
                            "limit_ms": self.options["away_limit_ms"],
                        }
                    )
            return notes + self._prelays_take_effect(t_ms)
        # [D18] the default play for the turn's seat (away, or out of turn time)
        seat = self._the_turn
        limit, away = self._turn_deadlines()
        why = self._limit_why(seat, limit, away)
        limit_ms = {
            "turn_limit": self.options["turn_limit_ms"],
            "away_limit": self.options["away_limit_ms"],
            "idle": 0,
        }[why]
        notes.append({"type": "default_play", "seat": seat, "why": why, "limit_ms": limit_ms})
        if self.stage == "roll":
            notes += self._roll(seat)
        matches = self._matches(seat)
        if not matches:
            self._the_roll["status"] = "passed"
            notes.append({"type": "passed", "seat": seat})
            return notes + self._end_turn(t_ms)
        laying = [_best(matches, self.chips)]
        rest = [n for n in self.open[seat] if n != laying[0]]
        if self._the_roll["joker"] and rest:
            laying.append(_best(rest, self.chips))
        return notes + self._roller_lays(seat, laying, t_ms)

    # ---- end of a round ---------------------------------------------------------------------
    def _round_over(self, t_ms: int) -> list[Note]:
        minus = [self._open_chips(s) for s in range(self.seats)]
        winners = [s for s in range(self.seats) if not self.open[s]]
        for s in range(self.seats):
            self.minus[s] += minus[s]
        self.round_scores.append(minus)
        self.last_round = {"round": self.round, "winners": winners, "minus": list(minus)}
        notes: list[Note] = [
            {"type": "round_over", "round": self.round, "winners": winners, "minus": list(minus)}
        ]
        if self.round >= self.options["rounds"]:
            self.phase = "over"
            self.turn = self.stage = self.roll_from = None
            result = self._final_result()
            return notes + [
                {"type": "game_over", "scores": result["scores"], "winners": result["winners"]}
            ]
        self._start_round(t_ms)
        return notes


GAME = KnockGame
