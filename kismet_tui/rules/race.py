"""`race`: the grab game of Kismet (1997), docs/rules.md sections 2, 3 and 5.

Every player at once grabs a card of the circle whose number is the sum of two of the three
dice. Time enters only as stamped events: the host stamps `{"type": "timeout"}` when
`next_deadline()` has passed.

Phases, and what ends them
--------------------------
- `countdown`: the circle is out, the dice are about to roll [D8]. Deadline: the phase's start
  + `countdown_ms` (the first countdown counts from the game's start time t0). On the host's
  timeout the dice are rolled.
- The roll: if no card of the circle shows a target, all 11 leave the game and 11 new ones
  are dealt [D9] (or the game ends), then `pause`. Otherwise `grabbing`.
- `grabbing`: deadline = roll time + `round_limit_ms` [D12]. Ends at once when every player
  has grabbed or passed (an away player counts as passed while away [D18]; back in time, they
  may still grab or pass [D32]), when no ungrabbed card
  showing a target is left, or on the host's timeout. Then the reveal, in grab order: a right
  card goes on top of its grabber's winning pile; a wrong card stays in the circle, and its
  grabber slides the top card of their winning pile (if any) under the draw pile. Then the
  circle's empty places are refilled, lowest position first, from the top of the pile.
- `pause`: deadline = its start + `reveal_ms`, so everybody sees what happened; then the next
  `countdown`, whose deadline counts from the stamped time of that timeout.
- `over`: the draw pile could not refill the circle to 11 (after a wipe or a reveal). Scores
  are the chips of each winning pile; the highest score wins, ties share.
Each new phase's deadline counts from the stamped time of the event that began it, so a host
that stamps a timeout late never shortens the next phase.

Chance [D19]: the face-down pile is never shuffled up front (one shuffle would fix the whole
deck's order for anyone holding the seed). It is two parts: `unseen`, the cards of the pile
nobody has seen, kept in ascending card id order, and `under`, the cards slid under the pile,
in the order they went. Each card dealt is `unseen.pop(rng.below(len(unseen)))` while
`unseen` holds any, then `under.pop(0)`; that is exactly a shuffled pile with cards slid under
it. Draws, in order: creating the game deals the circle's 11 places, 0 to 10 (11 `below`);
each roll draws three `rng.die()` at the countdown's timeout; each refill (after a reveal or a
wipe) deals the empty places lowest first, one `below` per card taken from `unseen` (cards
taken from `under` draw nothing). Nothing else is drawn.

Actions
-------
- `{"type": "grab", "card": pos}`: grab the card at position `pos` (0..10) of the circle.
  An optional `"id": card` must name the card lying there, or the grab is refused ("That card
  has left the circle"; an id that no card of this game has is malformed: "There is no card
  50 in this game", or past 87 the declaration's "There is no such card"): clients send it
  so that a grab aimed at one card can never land on another. A grab is final. A card someone grabbed first is refused, at no cost, and the
  player may grab another [D10]. Any card may be grabbed; a wrong one costs at the reveal.
- `{"type": "pass"}`: "I see no match" [D11]; no more grabs this round.
- Host: `timeout`, `away`, `back` (base class). An away player's own actions are refused
  until the host stamps them back.

Options: `countdown_ms` 3000, `round_limit_ms` 10000, `reveal_ms` 2000, `away_limit_ms` 30000,
`chips` ([D7] table). `away_limit_ms` is accepted so every game of a table shares it, but has
no effect here: an away player counts as passed at once, and no wait in this game is longer
than the round limit anyway.

Notes returned by apply
-----------------------
(Declared as TypedDicts in race_types.py, with the actions and the view; the
words here say what the fields mean.)
`{"type": "rolled", "round", "dice", "targets"}`, `{"type": "wiped", "cards": [ids]}`,
`{"type": "dealt", "cards": [{"pos", "card"}]}`, `{"type": "grabbed", "seat", "pos", "card"}`,
`{"type": "passed", "seat"}`, `{"type": "round_ended", "why": "all_done" | "no_match_left" |
"time_up"}`, `{"type": "revealed", "seat", "pos", "card", "number", "right": bool,
"penalty": card id slid under the pile or None}`, `{"type": "pause", "deadline"}`,
`{"type": "countdown", "deadline"}`, `{"type": "game_over", "scores", "winners"}`, and the
base class's `away` / `back`.

view(seat)
----------
Plain data; the order of the face-down pile is never shown, only its size.

    ruleset "race", seats, you (seat or None), phase, deadline (host ms or None), round,
    chips (the table), dice (list or None), targets (list), joker (bool),
    circle: 11 entries, each None (an empty place) or
        {pos, id, number, chip, set, back, target (bool), grabbed_by (seat or None)}
        (target and grabbed_by are marks of the running round: False/None outside grabbing;
        dice, targets and grabs stay from the last roll until the next one)
    pile_count, removed_count,
    grabs: [{seat, pos, card, t}] in stamp order, this round,
    passed: [seats] this round, done: [bool per seat] (grabbed, passed or away),
    last_round: None or {round, dice, targets, wiped: [ids] or None,
        reveals: [{seat, pos, card, number, right, penalty}], dealt: [{pos, card}],
        why: "all_done" | "no_match_left" | "time_up" | "no_match"},
    players: [{seat, back, away, pile_count, top (card info or None), score}],
    scores: [per seat], result (None or as result()).
"""

from __future__ import annotations

from . import cards
from .base import BaseNote, Chance, Game, IllegalAction, Plain, check, whole_number_options
from .game_types import AwayAction, Result
from .race_types import (
    CircleCard,
    Dealt,
    Grab,
    GrabAction,
    LastRound,
    Note,
    PassAction,
    Phase,
    Player,
    PlayerAction,
    Reveal,
    RoundEndedWhy,
    View,
)
from .refusal import MALFORMED, NOT_YET

OPTIONS = {
    "countdown_ms": (3000, 0, 60_000, "The countdown before each roll (ms)"),
    "round_limit_ms": (10_000, 500, 600_000, "The round's time limit (ms)"),
    "reveal_ms": (2000, 0, 60_000, "The pause to show a reveal (ms)"),
    "away_limit_ms": (30_000, 0, 3_600_000, "The away-limit (ms)"),
}


def normalize_options(options: Plain) -> Plain:
    out: Plain = whole_number_options(options, OPTIONS, "race", others=("chips",))
    out["chips"] = cards.chips_option(options)
    return out


class RaceGame(Game[PlayerAction, Note, View]):
    RULESET = "race"
    MIN_SEATS = 2
    MAX_SEATS = 8

    def __init__(self, seats: int, options: Plain, rng: Chance, start_ms: int = 0):
        super().__init__(seats, options, rng, start_ms)
        self.chips = list(options["chips"])
        # [D19] The pile: cards nobody has seen (ascending ids) and the cards slid under it.
        self.unseen: list[int] = cards.deck(seats)
        self.under: list[int] = []
        self.circle: list[int | None] = [self._deal() for _ in range(cards.CIRCLE_SIZE)]
        self.winning: list[list[int]] = [[] for _ in range(seats)]  # bottom .. top
        self.removed: list[int] = []
        self.phase: Phase = "countdown"
        self.deadline: int | None = start_ms + options["countdown_ms"]
        self.round = 0
        self.dice: list[int] | None = None
        self.targets: list[int] = []
        self.grabs: list[Grab] = []  # this round, in stamp order
        self.passed = [False] * seats
        self.last_round: LastRound | None = None

    # ---- the pile [D19] -------------------------------------------------------------------
    @property
    def pile_count(self) -> int:
        return len(self.unseen) + len(self.under)

    def _deal(self) -> int:
        """The next card of the pile: a uniform draw from the unseen cards, then the cards
        slid under, in order."""
        if self.unseen:
            return self.unseen.pop(self.rng.below(len(self.unseen)))
        return self.under.pop(0)

    # ---- the contract -------------------------------------------------------------------
    def next_deadline(self) -> int | None:
        return self.deadline

    def scores(self) -> list[int]:
        return [
            sum(cards.chip(cards.number_of(c), self.chips) for c in pile) for pile in self.winning
        ]

    def result(self) -> Result | None:
        if self.phase != "over":
            return None
        return self._final_result()

    def _final_result(self) -> Result:
        scores = self.scores()
        best = max(scores)
        return {"scores": scores, "winners": [s for s in range(self.seats) if scores[s] == best]}

    def _player_actions(self, seat: int, t_ms: int) -> list[PlayerAction]:
        if self.phase != "grabbing" or self.away[seat] or self._done(seat):
            return []
        taken = {g["pos"] for g in self.grabs}
        grabs: list[PlayerAction] = [
            {"type": "grab", "card": pos, "id": card}
            for pos, card in enumerate(self.circle)
            if card is not None and pos not in taken
        ]
        return grabs + [{"type": "pass"}]

    def snapshot(self) -> Plain:
        return {
            "ruleset": self.RULESET,
            "seats": self.seats,
            "options": self.options,
            "now": self.now,
            "away": list(self.away),
            "rng": self.rng.state(),
            "phase": self.phase,
            "deadline": self.deadline,
            "round": self.round,
            "unseen": list(self.unseen),
            "under": list(self.under),
            "circle": list(self.circle),
            "winning": [list(p) for p in self.winning],
            "removed": list(self.removed),
            "dice": self.dice,
            "targets": list(self.targets),
            "grabs": [dict(g) for g in self.grabs],
            "passed": list(self.passed),
            "last_round": self.last_round,
            **self._idle_state(),
        }

    def view(self, seat: int | None) -> View:
        grabbed_by = {g["pos"]: g["seat"] for g in self.grabs}
        circle: list[CircleCard | None] = []
        for pos, card in enumerate(self.circle):
            if card is None:
                circle.append(None)
                continue
            # Marks of the running round only: in a pause the places hold newly dealt cards.
            live = self.phase == "grabbing"
            circle.append(
                CircleCard(
                    **cards.card_info(card, self.chips),
                    pos=pos,
                    target=live and self._shows_target(card),
                    grabbed_by=grabbed_by.get(pos) if live else None,
                )
            )
        scores = self.scores()
        players: list[Player] = [
            {
                "seat": s,
                "back": cards.BACK_COLOURS[s],
                "away": self.away[s],
                "pile_count": len(self.winning[s]),
                "top": cards.card_info(self.winning[s][-1], self.chips)
                if self.winning[s]
                else None,
                "score": scores[s],
            }
            for s in range(self.seats)
        ]
        return {
            "ruleset": "race",
            "seats": self.seats,
            "you": seat,
            "phase": self.phase,
            "deadline": self.deadline,
            "round": self.round,
            "chips": list(self.chips),
            "dice": list(self.dice) if self.dice else None,
            "targets": list(self.targets),
            "joker": self.dice is not None and cards.is_joker(self.dice),
            "circle": circle,
            "pile_count": self.pile_count,
            "removed_count": len(self.removed),
            "grabs": [Grab(**g) for g in self.grabs],
            "passed": [s for s in range(self.seats) if self.passed[s]],
            "done": [self._done(s) for s in range(self.seats)],
            "last_round": self.last_round,
            "players": players,
            "scores": scores,
            "result": self.result(),
        }

    # ---- actions --------------------------------------------------------------------------
    def _check_can_act(self, seat: int, t_ms: int) -> None:
        if self.phase == "countdown":
            left = 0 if self.deadline is None else self.deadline - t_ms  # (a countdown has one)
            wait = cards.seconds_words(max(0, left))
            raise IllegalAction(f"Wait for the dice: they roll in {wait} s.", NOT_YET)
        check(self.phase != "pause", "This round is over: the next roll is coming.")
        check(self.phase != "over", "The game is over.")
        if self.away[seat]:
            raise IllegalAction(f"Seat {seat} is marked away: come back to play.")
        check(not self._grab_of(seat), "You already grabbed a card this round: a grab is final.")
        check(not self.passed[seat], "You passed this round.")

    def _act_grab(self, seat: int, action: GrabAction, t_ms: int) -> list[Note]:
        self._check_can_act(seat, t_ms)
        pos = action["card"]
        card = self.circle[pos]
        if card is None:
            raise IllegalAction("There is no card at that place.")
        if "id" in action:
            named = action["id"]
            if not named < cards.CARDS_PER_SET * self.seats:
                # Never a card of this game: not one that has left (no state would take it).
                raise IllegalAction(
                    f"There is no card {named} in this game: its cards are 0 to "
                    f"{cards.CARDS_PER_SET * self.seats - 1}.",
                    MALFORMED,
                )
            check(named == card, "That card has left the circle: look again.")
        holder = next((g["seat"] for g in self.grabs if g["pos"] == pos), None)
        if holder is not None:
            raise IllegalAction(f"Seat {holder} grabbed that card first: grab another one.")
        self.grabs.append({"seat": seat, "pos": pos, "card": card, "t": t_ms})
        notes: list[Note] = [{"type": "grabbed", "seat": seat, "pos": pos, "card": card}]
        return notes + self._maybe_end_round(t_ms)

    def _act_pass(self, seat: int, action: PassAction, t_ms: int) -> list[Note]:
        self._check_can_act(seat, t_ms)
        self.passed[seat] = True
        notes: list[Note] = [{"type": "passed", "seat": seat}]
        return notes + self._maybe_end_round(t_ms)

    def _act_away(self, seat: int, action: AwayAction, t_ms: int) -> list[Note | BaseNote]:
        notes = super()._act_away(seat, action, t_ms)
        # An away player counts as passed [D18]: that may be the last one the round awaited.
        return notes + self._maybe_end_round(t_ms)

    def _on_timeout(self, t_ms: int) -> list[Note]:
        if self.phase == "countdown":
            return self._roll(t_ms)
        if self.phase == "grabbing":
            return self._end_round(t_ms, "time_up")
        # pause -> the next countdown
        self.phase = "countdown"
        self.deadline = t_ms + self.options["countdown_ms"]
        return [{"type": "countdown", "deadline": self.deadline}]

    # ---- the round ------------------------------------------------------------------------
    def _grab_of(self, seat: int) -> Grab | None:
        return next((g for g in self.grabs if g["seat"] == seat), None)

    def _done(self, seat: int) -> bool:
        return self.passed[seat] or self.away[seat] or self._grab_of(seat) is not None

    def _shows_target(self, card: int) -> bool:
        return cards.number_of(card) in self.targets

    def _roll(self, t_ms: int) -> list[Note]:
        self.dice = cards.roll_three(self.rng)
        self.targets = cards.targets(self.dice)
        self.round += 1
        self.grabs = []
        self.passed = [False] * self.seats
        notes: list[Note] = [
            {
                "type": "rolled",
                "round": self.round,
                "dice": list(self.dice),
                "targets": list(self.targets),
            }
        ]
        if not any(c is not None and self._shows_target(c) for c in self.circle):
            # [D9] Nothing could be taken: the whole circle leaves the game.
            wiped = [c for c in self.circle if c is not None]
            self.removed.extend(wiped)
            self.circle = [None] * cards.CIRCLE_SIZE
            notes.append({"type": "wiped", "cards": wiped})
            self.last_round = {
                "round": self.round,
                "dice": list(self.dice),
                "targets": list(self.targets),
                "wiped": wiped,
                "reveals": [],
                "dealt": [],
                "why": "no_match",
            }
            return notes + self._refill_or_end(t_ms)
        self.phase = "grabbing"
        self.deadline = t_ms + self.options["round_limit_ms"]
        return notes + self._maybe_end_round(t_ms)

    def _maybe_end_round(self, t_ms: int) -> list[Note]:
        if self.phase != "grabbing":
            return []
        if all(self._done(s) for s in range(self.seats)):
            return self._end_round(t_ms, "all_done")
        taken = {g["pos"] for g in self.grabs}
        if not any(
            card is not None and pos not in taken and self._shows_target(card)
            for pos, card in enumerate(self.circle)
        ):
            return self._end_round(t_ms, "no_match_left")
        return []

    def _end_round(self, t_ms: int, why: RoundEndedWhy) -> list[Note]:
        assert self.dice is not None  # a round ends only after its roll
        notes: list[Note] = [{"type": "round_ended", "why": why}]
        reveals: list[Reveal] = []
        for grab in self.grabs:  # stamp order
            seat, pos, card = grab["seat"], grab["pos"], grab["card"]
            right = self._shows_target(card)
            penalty = None
            if right:
                self.circle[pos] = None
                self.winning[seat].append(card)
            elif self.winning[seat]:
                penalty = self.winning[seat].pop()
                self.under.append(penalty)  # slid under the face-down pile
            reveal: Reveal = {
                "seat": seat,
                "pos": pos,
                "card": card,
                "number": cards.number_of(card),
                "right": right,
                "penalty": penalty,
            }
            reveals.append(reveal)
            notes.append({"type": "revealed", **reveal})
        self.last_round = {
            "round": self.round,
            "dice": list(self.dice),
            "targets": list(self.targets),
            "wiped": None,
            "reveals": reveals,
            "dealt": [],
            "why": why,
        }
        return notes + self._refill_or_end(t_ms)

    def _refill_or_end(self, t_ms: int) -> list[Note]:
        empty = [pos for pos, card in enumerate(self.circle) if card is None]
        if self.pile_count < len(empty):
            self.phase = "over"
            self.deadline = None
            result = self._final_result()
            return [{"type": "game_over", "scores": result["scores"], "winners": result["winners"]}]
        dealt: list[Dealt] = []
        for pos in empty:
            card = self._deal()
            self.circle[pos] = card
            dealt.append({"pos": pos, "card": card})
        assert self.last_round is not None  # set by the caller, _roll or _end_round
        self.last_round["dealt"] = dealt
        self.phase = "pause"
        self.deadline = t_ms + self.options["reveal_ms"]
        notes: list[Note] = [{"type": "dealt", "cards": dealt}] if dealt else []
        return notes + [{"type": "pause", "deadline": self.deadline}]


GAME = RaceGame
