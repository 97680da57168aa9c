"""The records as docs/protocol.md ("Records") says them (issue 29, point 9):

- `best` rows are `recent` rows: their `seats` are filled;
- an unknown bot level is an unknown value: `error` `bad_message` with words, over real TCP
  to a real host (a level the host runs but that has no game yet is only "not found");
- two seats of one player in one game: unrated, nothing added to their standing, listed on
  their page once per seat, as the doc says;
- openskill's parameters are the ones the doc names.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kismet_tui.bots.runner import bot_factory
from kismet_tui.net.client import RequestError
from server.records import connect, queries, rebuild
from server.records.index import model
from server.records.proof import player_id
from server.records.schema import migrate
from tests.hostutil import keyed, write_log
from tests.netutil import running_host, wait_until

DOC = (Path(__file__).resolve().parent.parent / "docs" / "protocol.md").read_text()
RECORDS = DOC.split("\n## Records\n", 1)[1].split("\n## ", 1)[0]

ANA, BO = player_id("key ana"), player_id("key bo")


def indexed(tmp_path, games: list[tuple[list, list[int]]]):
    folder = tmp_path / "games"
    folder.mkdir()
    for n, (players, scores) in enumerate(games):
        write_log(folder, n, players, scores)
    db = connect(tmp_path / "records.sqlite3")
    migrate(db)
    rebuild(db, folder)
    return db


def test_best_rows_have_their_seats_as_recent_rows_do(tmp_path):
    db = indexed(tmp_path, [([ANA], [250]), ([ANA, BO], [200, 100]), ([BO], [300])])
    best = queries.best(db, "dice")
    recent = {row["game"]: row for row in queries.recent(db, "dice")["rows"]}
    assert [row["score"] for row in best["rows"]] == [300, 250]
    for row in best["rows"]:
        assert row["seats"] and row["seats"] == recent[row["game"]]["seats"]
        assert set(row) == set(recent[row["game"]]) | {"name", "score"}
    assert queries.best(db, "dice", ANA)["rows"][0]["seats"][0]["player"] == ANA


def test_two_seats_of_one_player_count_as_the_doc_says(tmp_path):
    db = indexed(tmp_path, [([ANA, ANA, BO], [300, 50, 100])])
    assert (
        db.execute("SELECT COUNT(*) FROM standings WHERE player_id = ?", (ANA,)).fetchone()[0] == 0
    )
    page = queries.player(db, ANA)
    assert page["standings"] == [] and [row["game"] for row in page["rows"]] == [1, 1]
    assert "their page lists that game once per seat" in " ".join(RECORDS.split())


def test_openskill_parameters_are_the_ones_the_doc_names():
    said = " ".join(RECORDS.split())
    rating = model()
    named = dict(re.findall(r"(mu|sigma|beta|kappa|tau) (\d+(?:\.\d+)?(?:/\d+)?)", said))
    assert set(named) == {"mu", "sigma", "beta", "kappa", "tau"}, named
    for name, text in named.items():
        top, _, bottom = text.partition("/")
        assert getattr(rating, name) == pytest.approx(float(top) / float(bottom or 1)), name
    assert rating.limit_sigma is False and rating.balance is False
    assert "no draw probability" in said and type(rating).__name__ == "PlackettLuce"


@pytest.mark.network
@pytest.mark.timeout(60)
async def test_an_unknown_bot_level_is_a_bad_message(tmp_path):
    async with running_host(tmp_path, bot_factory=bot_factory(speed=0.01)) as host:
        ana = await keyed(host.port, "Ana", "a" * 40)
        await wait_until(lambda: host.records.ready.is_set())
        with pytest.raises(RequestError) as refused:
            await ana.records("player", player="bot:wizard")
        assert refused.value.code == "bad_message", refused.value.words
        assert refused.value.words.startswith("There is no bot level 'wizard'. The levels are: ")
        assert "easy" in refused.value.words
        # A level the host runs, with no game yet, is a player not found.
        page = await ana.records("player", player="bot:easy")
        assert page["found"] is False
        # And the connection is still answered.
        assert (await ana.records("recent"))["rows"] == []
        await ana.close()
