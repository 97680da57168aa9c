"""The easy, medium and hard bots play whole games of every kind over real TCP, through the
host and the bot runner (against each other in the turn games, each level at a table of its
own in the race game), and every replica ends on the host's digest."""

import asyncio
import logging

import pytest

from kismet_tui.bots import dice_levels
from kismet_tui.bots.runner import BotLoop, bot_factory
from protocol.errors import ProtocolError
from protocol.limits import REACTION_FLOOR_MS
from server.reaction import FLOOR_S, ThrowShown
from tests.netutil import FAST, connected, digests_checked, running_host, wait_until

pytestmark = [pytest.mark.network, pytest.mark.timeout(120)]


def answers_and_refusals(monkeypatch) -> tuple[list[tuple[bool, float]], list[bool]]:
    """What the bots' grabs and knocks were, and why the host refused any as too quick [D20]:
    (whether the bot's game had not moved since it chose it, ms since its client saw the
    throw) for each sent, and for each refused whether the connection had been shown an
    earlier throw at least the floor before the action came (a race lost to the next throw,
    which a bot on a busy machine can lose, however long it looked)."""
    answers: list[tuple[bool, float]] = []
    refusals: list[bool] = []
    send = BotLoop._send

    def sending(self, action, chosen_on) -> None:
        if action.get("type") in ("grab", "knock"):
            answers.append((self._game_state() == chosen_on, self.client.since_throw_ms()))
        send(self, action, chosen_on)

    earlier: dict[int, dict] = {}
    begin, check = ThrowShown.begin, ThrowShown.check

    def beginning(self) -> None:
        earlier[id(self)] = dict(self.written)
        begin(self)

    def checking(self, ruleset, action, conn) -> None:
        try:
            check(self, ruleset, action, conn)
        except ProtocolError:
            shown = earlier.get(id(self), {}).get(conn)
            refusals.append(shown is not None and conn.last_heard - shown >= FLOOR_S)
            raise

    monkeypatch.setattr(BotLoop, "_send", sending)
    monkeypatch.setattr(ThrowShown, "begin", beginning)
    monkeypatch.setattr(ThrowShown, "check", checking)
    return answers, refusals


# The turn games seat the three levels together. In the race game the quickest hand takes
# the card, so an easy bot beside two quicker ones could lose every race of a short game
# (seen under load: it never moved) and say nothing of whether it plays: there each level
# plays a table of its own, the owner's seat at the same level.
TABLES = [
    ("dice", ["easy", "medium", "hard"], "hard"),
    ("knock", ["easy", "medium", "hard"], "hard"),
    *[("race", [level] * 3, level) for level in ("easy", "medium", "hard")],
]


@pytest.mark.parametrize(
    "ruleset, bots, owner_level",
    TABLES,
    ids=["dice", "knock", "race-easy", "race-medium", "race-hard"],
)
async def test_levels_play_whole_games_over_tcp(
    tmp_path, monkeypatch, caplog, ruleset, bots, owner_level
):
    caplog.set_level(logging.WARNING, logger="kismet.bots")
    checked = digests_checked(monkeypatch)
    answers, refusals = answers_and_refusals(monkeypatch)
    # As on a fresh machine: the hard dice bot falls back to the heuristic table.
    monkeypatch.setenv("KISMET_SOLVER_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(dice_levels, "_optimal", None)
    async with running_host(tmp_path, bot_factory=bot_factory(speed=0.01)) as host:
        async with connected(host, "Ana") as ana, connected(host, "Watcher") as watcher:
            table = await ana.create_table(ruleset, FAST[ruleset], bots=bots)
            await watcher.join_table(table["id"], spectator=True)
            await wait_until(
                lambda: all(s["connected"] and s["ready"] for s in ana.table["seats"][1:])
            )
            await ana.start()
            # The table's owner is played by the runner too.
            player = asyncio.create_task(BotLoop(ana, owner_level, 0.01, rematches=False).run())
            hosted = host.tables[table["id"]]
            await wait_until(lambda: hosted.game is not None and hosted.game.finished, timeout=45)
            await wait_until(lambda: watcher.game is not None and watcher.game.finished)
            player.cancel()
            assert hosted.game.seats == 4
            assert watcher.game.digest() == ana.game.digest() == hosted.game.digest()
            # Every seat made moves of its own (nobody only sat there timing out).
            movers = {event["seat"] for event in hosted.events if event.get("seat", -1) >= 0}
            assert movers == {0, 1, 2, 3}
            # Every replica's digest of the last event (three bots, Ana's, the watcher's) has
            # been compared with the host's, and none differed.
            final = len(hosted.events)
            await wait_until(lambda: len({conn for conn, seq in checked if seq == final}) == 5)
            assert host.desyncs == 0
            # Bots act only when their action is legal, at 100 times their speed too (the
            # knock window is waited out): no refusal was left unexplained.
            assert not [r for r in caplog.records if "refused although legal" in r.getMessage()]
            # And no grab or knock came before the bot could have seen the dice [D20]: each
            # one sent on the game it was chosen on left at least the floor after its throw,
            # and each the host refused as too quick had lost a race with the next throw (the
            # bot had seen the throw it answered, but the next one reached the host first).
            assert not [since for fresh, since in answers if fresh and since < REACTION_FLOOR_MS]
            assert refusals == [True] * hosted.throw_shown.refused
