"""A misspelt view field in a game screen, or note field in a game's move-log words, fails
mypy: the screens read the engine's declared views and the words its declared notes
(kismet_tui/rules/<game>_types.py), not `dict[str, Any]`.

The test copies the package to a temporary folder, misspells one view field per game screen
and one note field per game's words there, and runs mypy (its API, with a cache of its own)
on the copy: each misspelling must be reported, at its line, naming the key.
"""

import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# file under kismet_tui/ -> (a view or note access it makes, the same access misspelt)
RENAMES = {
    "screens/dice.py": ('view["cards"]', 'view["cardz"]'),
    "screens/race.py": ('view["circle"]', 'view["circel"]'),
    "screens/knock.py": ('view["players"]', 'view["playerz"]'),
    "words/dice.py": ('note["held"]', 'note["hled"]'),
    "words/race.py": ('note["why"]', 'note["whyy"]'),
    "words/knock.py": ('note["judgement"]', 'note["judgment"]'),
}


@pytest.mark.timeout(300)
def test_a_misspelt_view_or_note_field_in_each_game_fails_mypy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    api = pytest.importorskip("mypy.api")
    tree = tmp_path / "tree"
    shutil.copytree(
        ROOT / "kismet_tui",
        tree / "kismet_tui",
        ignore=shutil.ignore_patterns("__pycache__", "*.bin", "*.npy"),
    )
    shutil.copytree(
        ROOT / "protocol", tree / "protocol", ignore=shutil.ignore_patterns("__pycache__")
    )
    shutil.copy(ROOT / "pyproject.toml", tree / "pyproject.toml")
    expected = []
    for name, (access, misspelt) in RENAMES.items():
        path = tree / "kismet_tui" / name
        lines = path.read_text().splitlines(keepends=True)
        number = next(i for i, line in enumerate(lines) if access in line)
        lines[number] = lines[number].replace(access, misspelt, 1)
        path.write_text("".join(lines))
        expected.append((f"kismet_tui/{name}:{number + 1}:", misspelt.split('"')[1]))
    monkeypatch.chdir(tree)  # (so the copy, not this checkout, is what mypy imports)
    stdout, stderr, status = api.run(
        [
            "--config-file",
            "pyproject.toml",
            "--cache-dir",
            str(tmp_path / "cache"),
            "--no-error-summary",
            *[f"kismet_tui/{n}" for n in RENAMES],
        ]
    )
    reported = stdout
    assert status != 0, reported + stderr
    for where, key in expected:
        assert any(
            line.startswith(where) and f'"{key}"' in line for line in reported.splitlines()
        ), f"mypy did not report the misspelt {key!r} at {where}\n{reported}"
