"""The player's own files (keys, rejoin tokens, known host keys) live in `player/` in the
user's data folder, apart from any host's state, and are moved there from where they were
kept before on first use (kismet_tui/player_files.py)."""

from __future__ import annotations

import json

import pytest

from kismet_tui import known_hosts, player_files, player_key, saved_seats


@pytest.fixture
def folders(fresh_user_folders):
    """The session's user folders, with no player files in any of the places."""
    state, data = fresh_user_folders / "state" / "kismet", fresh_user_folders / "data" / "kismet"
    for folder in (state, data, data / "player"):
        for name in ("player-keys.json", "rejoin-tokens.json", "known-hosts.json"):
            (folder / name).unlink(missing_ok=True)
    return state, data


def test_the_players_files_are_apart_from_the_hosts_default_state(folders):
    from server.cli import default_state_dir

    state, data = folders
    for module in (player_key, saved_seats, known_hosts):
        path = module.default_path()
        assert path.parent == data / "player"
        assert not path.is_relative_to(default_state_dir())


@pytest.mark.parametrize(
    "module, old_folder", [(player_key, "state"), (saved_seats, "state"), (known_hosts, "data")]
)
def test_a_file_in_its_old_place_is_moved_on_first_use(folders, module, old_folder):
    state, data = folders
    old = (state if old_folder == "state" else data) / module.FILE_NAME
    old.parent.mkdir(parents=True, exist_ok=True)
    old.write_text(json.dumps({"kept": True}))
    new = module.default_path()
    assert new == data / "player" / module.FILE_NAME
    assert json.loads(new.read_text()) == {"kept": True} and not old.exists()
    old.write_text("{}")  # a file there again later (an old version ran) is left alone
    assert module.default_path() == new and json.loads(new.read_text()) == {"kept": True}
    old.unlink()


def test_a_players_key_made_now_is_kept_in_the_new_place_and_read_back(folders):
    state, data = folders
    key = player_key.player_key_for("192.168.1.20:7717")
    assert key is not None
    assert (data / "player" / "player-keys.json").is_file()
    assert not (state / "player-keys.json").exists()
    assert player_key.player_key_for("192.168.1.20:7717") == key


def test_a_file_that_cannot_be_moved_is_read_where_it_is(folders, monkeypatch):
    state, _ = folders
    old = state / "rejoin-tokens.json"
    old.parent.mkdir(parents=True, exist_ok=True)
    old.write_text("{}")

    def refuse(*args):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(player_files.shutil, "move", refuse)
    assert saved_seats.default_path() == old
    old.unlink()


def test_where_state_is_data_the_hosts_default_folder_holds_no_players_files(tmp_path, monkeypatch):
    """On macOS and Windows the user's state folder is the data folder: the host's default
    state then goes in a `host` folder of its own, so neither `kismet`'s solo folder nor the
    player's own files sit inside a host's state (deleting it loses none of them); a host
    that already kept its state in the old place (its lock file is there) stays there."""
    from kismet_tui.recent import game_folders, solo_state_dir
    from server.cli import default_state_dir

    shared = tmp_path / "Application Support"
    monkeypatch.setenv("XDG_STATE_HOME", str(shared))
    monkeypatch.setenv("XDG_DATA_HOME", str(shared))
    host = default_state_dir()
    assert host == str(shared / "kismet" / "host")
    for mine in (
        solo_state_dir(),
        *(module.default_path() for module in (player_key, saved_seats, known_hosts)),
    ):
        assert not mine.is_relative_to(host), mine
    assert shared / "kismet" / "host" / "games" in game_folders()
    (shared / "kismet").mkdir(parents=True)
    (shared / "kismet" / "host.lock").write_text("pid 1, port 7717\n")
    assert default_state_dir() == str(shared / "kismet")
