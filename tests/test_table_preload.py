"""The door forker loads a built optimal table once, before it forks, so every session shares
its pages (kismet_tui/bots/dice_levels.preload): loaded when the file appears, never twice,
a damaged file tried once per change of the file, and what sessions then read is that copy."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from kismet_tui.bots import dice_levels
from kismet_tui.solver import table


@pytest.fixture
def fake_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict:
    """The cache path in a temp folder and a loader that counts its calls (a real table takes
    minutes to build); what it returns is set per test."""
    path = tmp_path / "dice-optimal.npy"
    state: dict = {"calls": 0, "returns": (np.zeros((3, 3)), None), "path": path}

    def load_checked(at: Path | None = None) -> tuple:
        assert at == path
        state["calls"] += 1
        return state["returns"]

    monkeypatch.setattr(table, "cache_path", lambda: path)
    monkeypatch.setattr(table, "load_checked", load_checked)
    monkeypatch.setattr(dice_levels, "_optimal", None)
    monkeypatch.setattr(dice_levels, "_preload_tried", None)
    return state


def test_nothing_is_loaded_while_the_table_is_not_built(fake_table: dict) -> None:
    dice_levels.preload()
    assert fake_table["calls"] == 0 and dice_levels._optimal is None


def test_a_built_table_is_loaded_once_read_only_and_sessions_read_that_copy(
    fake_table: dict,
) -> None:
    fake_table["path"].write_bytes(b"built")
    dice_levels.preload()
    dice_levels.preload()
    assert fake_table["calls"] == 1
    loaded = dice_levels._optimal
    assert loaded is fake_table["returns"][0]
    assert not loaded.flags.writeable  # shared by every forked session
    assert dice_levels.optimal_table() is loaded and fake_table["calls"] == 1


def test_a_damaged_table_is_tried_once_until_the_file_changes(fake_table: dict) -> None:
    fake_table["returns"] = (None, "does not match its checksum")
    fake_table["path"].write_bytes(b"damaged")
    dice_levels.preload()
    dice_levels.preload()
    assert fake_table["calls"] == 1 and dice_levels._optimal is None
    fake_table["returns"] = (np.ones((3, 3)), None)
    fake_table["path"].unlink()
    fake_table["path"].write_bytes(b"rebuilt, a new file")  # the build renames a new file in
    dice_levels.preload()
    assert fake_table["calls"] == 2 and dice_levels._optimal is fake_table["returns"][0]
