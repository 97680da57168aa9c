"""A misspelt action field where an action is made or read fails mypy: `Game.apply` takes the
game's declared actions (kismet_tui/rules/<game>_types.py) and `build_action` returns them,
not `Mapping[str, Any]`.

The test writes a small module that makes and reads an action of each game, once spelt right
and once with one field misspelt, and runs mypy (its API, with a cache of its own) on it
against this checkout: the right spelling passes, and each misspelling is reported at its
line (naming the key where mypy can tell which action was meant).
"""

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# (a line that makes or reads an action, its misspelling, the key mypy names or None)
LINES = [
    (
        'dice.apply(0, {"type": "score", "box": "aces", "joker": True}, 0)',
        'dice.apply(0, {"type": "score", "box": "aces", "jokr": True}, 0)',
        None,
    ),
    (
        'race.apply(0, {"type": "grab", "card": 3}, 0)',
        'race.apply(0, {"type": "grab", "crad": 3}, 0)',
        None,
    ),
    (
        'knock.apply(0, {"type": "lay", "card": 7, "extra": 8}, 0)',
        'knock.apply(0, {"type": "lay", "card": 7, "extar": 8}, 0)',
        None,
    ),
    (
        'race.apply(-1, {"type": "away", "seat": 1}, 0)',
        'race.apply(-1, {"type": "away", "saet": 1}, 0)',
        None,
    ),
    ('print(built["id"])', 'print(built["idd"])', "idd"),
]

HEAD = """\
from kismet_tui.rules.dice import DiceGame
from kismet_tui.rules.knock import KnockGame
from kismet_tui.rules.race import RaceGame
from protocol.actions import build_action


def moves(dice: DiceGame, race: RaceGame, knock: KnockGame, sent: object) -> None:
    built = build_action("race", sent)
    assert built["type"] == "grab"
"""


def mypy_on(
    tmp_path: Path, name: str, lines: list[str], monkeypatch: pytest.MonkeyPatch
) -> list[str]:
    api = pytest.importorskip("mypy.api")
    module = tmp_path / f"{name}.py"
    module.write_text(HEAD + "".join(f"    {line}\n" for line in lines))
    monkeypatch.chdir(ROOT)  # (so this checkout is what mypy imports)
    stdout, stderr, _status = api.run(
        [
            "--config-file",
            "pyproject.toml",
            "--cache-dir",
            str(tmp_path / "cache"),
            "--follow-imports",
            "silent",  # (the tree's own findings are .ci/run's: only this module's here)
            "--no-error-summary",
            str(module),
        ]
    )
    assert not stderr, stderr
    return [line for line in stdout.splitlines() if f"{name}.py:" in line]


@pytest.mark.timeout(300)
def test_a_misspelt_action_field_fails_mypy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    right = mypy_on(tmp_path, "right_actions", [r for r, _, _ in LINES], monkeypatch)
    assert right == [], "\n".join(right)
    reported = mypy_on(tmp_path, "misspelt_actions", [m for _, m, _ in LINES], monkeypatch)
    first = len(HEAD.splitlines()) + 1
    for number, (_, misspelt, key) in enumerate(LINES, start=first):
        at = [line for line in reported if f"misspelt_actions.py:{number}: error" in line]
        assert at, f"mypy did not report {misspelt!r} at line {number}\n" + "\n".join(reported)
        if key is not None:
            assert any(f'"{key}"' in line for line in at), "\n".join(at)
