"""Resume never stops the host: one table's damaged files set that table aside (into damaged/,
with the reason, named in the start-up lines, its players told at hello), every other table
resumes, a torn last record is dropped and counted, and table ids are never given again."""

import asyncio

import pytest

from tests.hostutil import hello_with, two_games
from tests.netutil import host_process, running_host

pytestmark = [pytest.mark.network, pytest.mark.timeout(90)]


def log_of(state_dir, table_id):
    return next((state_dir / "games").glob(f"*-table{table_id}-*.kismet"))


async def test_a_damaged_table_is_set_aside_and_the_host_starts_with_the_others(tmp_path):
    with host_process(tmp_path, bots=0) as proc:
        (first, first_tokens), (second, second_tokens) = await two_games(proc.port)
        proc.kill()
        # One changed byte: the first event's 'action' renamed (the same length, so it still
        # reads as msgpack).
        damaged = log_of(tmp_path, first)
        assert b"\xa6action" in damaged.read_bytes()
        damaged.write_bytes(damaged.read_bytes().replace(b"\xa6action", b"\xa6actiom", 1))
        # The other table's log was torn mid-record by the kill.
        torn = log_of(tmp_path, second)
        whole = torn.read_bytes()
        torn.write_bytes(whole + b"\x00\x00\x00\x40\x85\xa4kind")
        proc.start()
        lines = []
        while not lines or not lines[-1].startswith("Players join with"):
            lines.append(await asyncio.to_thread(proc.proc.stdout.readline))
        said = "".join(lines)
        assert f"Set aside table {first}: its game log lacks the field 'action'" in said, said
        assert f"Resumed table {second} (dice) at event" in said
        assert "10 bytes dropped after the last whole event" in said
        assert torn.read_bytes() != whole + b"\x00\x00\x00\x40\x85\xa4kind"
        # Its files moved to damaged/, beside a note saying why.
        aside = list((tmp_path / "damaged").iterdir())
        assert len(aside) == 1 and aside[0].name.startswith(f"table{first}-")
        assert "'action'" in (aside[0] / "why.txt").read_text()
        assert {p.name for p in aside[0].iterdir()} == {"why.txt", f"{first}.json", damaged.name}
        # Its players are told in words at hello; the other table's players get their seats.
        raw, welcome = await hello_with(proc.port, first_tokens[0])
        assert welcome["table"] is None
        told = await raw.recv_type("error")
        assert (
            told["code"] == "no_table"
            and f"Your table {first} could not be taken up" in told["words"]
        )
        back, welcome = await hello_with(proc.port, second_tokens[1])
        assert welcome["table"] == second
        # A new table never gets a set-aside table's id.
        raw.send({"type": "create_table", "ruleset": "dice", "id": 4})
        table = (await raw.recv_type("table"))["table"]
        assert table["id"] not in (first, second) and table["id"] > max(first, second)
        raw.close()
        back.close()


@pytest.mark.parametrize(
    "damage, words",
    [
        ("garbage", "its game log is damaged"),
        ("no header", "does not start with a game header"),
        ("table file cut", "its table file cannot be read"),
        ("log gone", "its game log is missing"),
        ("refused event", "its game log does not replay"),
    ],
)
async def test_each_kind_of_damage_sets_aside_one_table_only(tmp_path, damage, words):
    async with running_host(tmp_path) as host:
        (first, _), (second, _) = await two_games(host.port)
    log = log_of(tmp_path, first)
    data = log.read_bytes()
    if damage == "garbage":
        log.write_bytes(data + b"\xff" * 40)
    elif damage == "no header":
        head = int.from_bytes(data[:4], "big") + 4
        log.write_bytes(data[head:])
    elif damage == "table file cut":
        table_file = tmp_path / "tables" / f"{first}.json"
        table_file.write_bytes(table_file.read_bytes()[: len(table_file.read_bytes()) // 2])
    elif damage == "log gone":
        log.unlink()
    elif damage == "refused event":
        log.write_bytes(data.replace(b"\xa4roll", b"\xa4rolz"))
    async with running_host(tmp_path) as host:
        assert list(host.tables) == [second]
        assert len(host.set_aside_lines) == 1 and words in host.set_aside_lines[0], (
            host.set_aside_lines
        )
        assert not (tmp_path / "tables" / f"{first}.json").exists()
        assert len(list((tmp_path / "damaged").iterdir())) == 1
    async with running_host(tmp_path) as host:  # set aside once; the next start is quiet
        assert list(host.tables) == [second] and host.set_aside_lines == []
        assert host.store.allocate_table_id() == second + 1
