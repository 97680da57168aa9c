"""A misspelt field of a host message fails mypy, where the host builds it and where the
client reads it: every message the host sends is declared once (protocol/host_messages.py),
the host builds them typed (server/, protocol/errors.py) and the client reads them typed
(kismet_tui/net/client.py, kismet_tui/messages.py), not as `dict`; and a game screen
sends its game's declared action, not a `Plain` (GameScreen.act).

As tests/test_typed_views.py does for the games' views, the test copies the packages to a
temporary folder, misspells one field in each place below, and runs mypy (its API, with a
cache of its own) on the copy: each misspelling must be reported, naming the key, at its
line (a map built in one statement is reported where the statement starts: a few lines up),
and nothing else may be (so every other field, spelt right, passes).
"""

import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# How far above a misspelt key mypy may report it: where its map's statement starts.
STATEMENT_LINES = 12

# file -> (a host message's field as the code builds or reads it, the same misspelt)
RENAMES = {
    # the host: every `error` it sends, a `table` message's table, a records page
    "protocol/errors.py": ('"words": self.words', '"wordz": self.words'),
    "server/table.py": ('"games_played": self.games_played', '"games_playd": self.games_played'),
    "server/records/queries.py": (
        'return {"rows": leaders, "more": more}',
        'return {"rows": leaders, "mroe": more}',
    ),
    # the client: the welcome's clock, the app's typed message for a `table`
    "kismet_tui/net/client.py": ('welcome["now"]', 'welcome["noww"]'),
    "kismet_tui/messages.py": ('TableChanged(msg["table"])', 'TableChanged(msg["tabel"])'),
    # and what a game screen sends back: its game's declared action (GameScreen.act)
    "kismet_tui/screens/dice.py": ('"box": self.cursor}', '"bxo": self.cursor}'),
}
# What mypy names instead of the key, where the map is given for a union of declarations.
SAID = {"kismet_tui/screens/dice.py": 'expected "RollAction | ScoreAction"'}


@pytest.mark.timeout(300)
def test_a_misspelt_host_message_field_fails_mypy_where_built_and_where_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    api = pytest.importorskip("mypy.api")
    tree = tmp_path / "tree"
    for package in ("kismet_tui", "protocol", "server"):
        shutil.copytree(
            ROOT / package,
            tree / package,
            ignore=shutil.ignore_patterns("__pycache__", "*.bin", "*.npy"),
        )
    shutil.copy(ROOT / "pyproject.toml", tree / "pyproject.toml")
    expected = []
    for name, (right, misspelt) in RENAMES.items():
        path = tree / name
        lines = path.read_text().splitlines(keepends=True)
        number = next(i for i, line in enumerate(lines) if right in line)
        lines[number] = lines[number].replace(right, misspelt, 1)
        path.write_text("".join(lines))
        key = next(part for part in misspelt.split('"')[1::2] if part not in right)
        said = SAID.get(name, f'"{key}"')
        expected.append((name, range(number + 1 - STATEMENT_LINES, number + 2), said))
    monkeypatch.chdir(tree)  # (so the copy, not this checkout, is what mypy imports)
    stdout, stderr, status = api.run(
        [
            "--config-file",
            "pyproject.toml",
            "--cache-dir",
            str(tmp_path / "cache"),
            "--no-error-summary",
            "--hide-error-context",
            *RENAMES,
        ]
    )
    errors = [line.split(":", 2) for line in stdout.splitlines() if ": error:" in line]
    assert status != 0, stdout + stderr

    def near(error: list[str], name: str, lines: range) -> bool:
        return error[0] == name and int(error[1]) in lines

    for name, lines, said in expected:
        assert any(near(e, name, lines) and said in e[2] for e in errors), (
            f"mypy did not report the misspelling in {name} ({said})\n{stdout}"
        )
    # Nothing else: the fields spelt right (every other line of these files) pass.
    stray = [e for e in errors if not any(near(e, n, lines) for n, lines, _ in expected)]
    assert not stray, stdout
