"""Tonight's standings (server/evening.py): games won per player across the host's tables
since its evening began, kept over a restart, and labelled as such in the end box."""

import pytest

from kismet_tui.net import Client
from tests.hostutil import play_turn
from tests.netutil import running_host, wait_until

pytestmark = [pytest.mark.network, pytest.mark.timeout(120)]


async def keyed(host, name: str) -> Client:
    client = Client(reconnect=False)
    client.player_key = (name.lower() * 43)[:43]  # what proves the player: the same across restarts
    await client.connect("127.0.0.1", host.port, name)
    return client


async def a_dice_game(ana: Client, bo: Client) -> dict:
    table = await ana.create_table("dice", {})
    await bo.join_table(table["id"])
    await bo.ready()
    await ana.start()
    await wait_until(lambda: ana.game is not None and bo.game is not None)
    while not ana.game.finished:
        await play_turn(ana, bo)
        await wait_until(lambda: len(bo.events) == len(ana.events))
    await wait_until(lambda: ana.table["state"] == "finished")
    return dict(ana.game.result())


def wins_shown(client: Client) -> dict:
    return {seat["name"]: seat["wins"] for seat in client.table["seats"]}


async def test_tonight_counts_every_table_of_the_host_and_survives_a_restart(tmp_path):
    won = {"Ana": 0, "Bo": 0}
    async with running_host(tmp_path) as host:
        ana, bo = await keyed(host, "Ana"), await keyed(host, "Bo")
        for _ in range(2):  # two tables, one game each
            result = await a_dice_game(ana, bo)
            for seat in result["winners"]:
                won[["Ana", "Bo"][seat]] += 1
            await wait_until(lambda: wins_shown(ana) == won)
            since = ana.table["evening_since"]
            assert isinstance(since, int)
            await ana.leave()
            await bo.leave()
        await ana.close()
        await bo.close()
    assert max(won.values()) >= 1 and sum(won.values()) >= 2
    async with running_host(tmp_path) as host:  # the same state folder: the evening goes on
        ana, bo = await keyed(host, "Ana"), await keyed(host, "Bo")
        table = await ana.create_table("dice", {})
        await bo.join_table(table["id"])
        await wait_until(lambda: len(ana.table["seats"]) == 2)
        assert wins_shown(ana) == won
        assert ana.table["evening_since"] == since
        await ana.close()
        await bo.close()


def test_the_end_box_says_since_when_it_counts():
    from datetime import datetime

    from kismet_tui.screens.end import records_line

    since = int(datetime(2026, 12, 1, 20, 14).timestamp() * 1000)
    table = {
        "evening_since": since,
        "seats": [
            {"name": "Ana", "wins": 2, "client_id": 1},
            {"name": "Bo", "wins": 1, "client_id": 2},
        ],
    }
    line = records_line(table, 1).plain
    assert line.startswith("Won tonight (since 20:14): Ana 2"), line
    older = records_line({"seats": table["seats"]}, 1).plain
    assert older.startswith("Won at this table: "), older


def test_the_evening_standings_break_between_players_never_inside_one():
    """The race box at 80x24 read "... · Bo" and "0" on the next line: the standings now
    break between players, each line within the box (58 cells inside its border)."""
    from kismet_tui.screens.end import END_BOX_TEXT_WIDTH, records_line

    table = {
        "evening_since": 1_800_000_000_000,
        "seats": [
            {"name": "root", "wins": 0, "client_id": 1, "outcome": {"rating": 1062, "change": 62}},
            {"name": "Bot 1 (medium)", "wins": 1, "client_id": None},
            {"name": "Bo", "wins": 0, "client_id": 2},
        ],
    }
    lines = records_line(table, 1).plain.splitlines()
    assert END_BOX_TEXT_WIDTH == 58
    assert all(len(line) <= END_BOX_TEXT_WIDTH for line in lines), lines
    assert any(line.endswith("Bo 0") for line in lines), lines


def test_a_ranking_row_that_left_stays_on_one_line_in_the_box():
    """Bo, idle at the end of a race, read "3. Bo  0 points  (you)  left the" and "game" on
    the next line: with short names the name column narrows, so the row fits the box."""
    from kismet_tui.screens.end import END_BOX_TEXT_WIDTH, render_result

    result = {"scores": [30, 51, 0], "winners": [1]}
    lines = render_result(
        "race", result, ["root", "Bot 1 (medium)", "Bo"], 2, left=[2]
    ).plain.splitlines()
    assert all(len(line) <= END_BOX_TEXT_WIDTH for line in lines), lines
    assert any(line.endswith("(you)  left the game") for line in lines), lines
