"""The player key kismet-join keeps per host (kismet_tui/player_key.py): one per host address,
the same on every run, private to the user, none in a door session; and the host's records
id from it (server/records/proof.py)."""

import stat

from kismet_tui.player_key import DOOR_PASS_VARIABLE, player_key_for
from server.doors.door_pass import ENVIRONMENT_NAME
from server.records.proof import bot_id, player_id, proof_of


def test_one_key_per_host_kept_between_runs_and_private(tmp_path):
    path = tmp_path / "player-keys.json"
    first = player_key_for("10.0.0.5:7717", path)
    assert first and len(first) >= 40
    assert player_key_for("10.0.0.5:7717", path) == first  # the next run: the same
    assert player_key_for("10.0.0.6:7717", path) not in (None, first)  # another host: another
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_damaged_file_gives_a_new_key_and_a_door_session_sends_none(tmp_path, monkeypatch):
    path = tmp_path / "player-keys.json"
    path.write_text("{not json")
    assert player_key_for("h:1", path)
    monkeypatch.setenv(ENVIRONMENT_NAME, "a-door-pass")
    assert player_key_for("h:1", path) is None
    assert DOOR_PASS_VARIABLE == ENVIRONMENT_NAME  # the client's copy of the door's name


def test_records_ids_follow_the_proof_never_the_name():
    assert player_id(proof_of(None, "k" * 43)) == player_id(proof_of(None, "k" * 43))
    assert player_id(proof_of(None, "k" * 43)) != player_id(proof_of(None, "j" * 43))
    # A door's proof wins over any key, and a key is never taken for a door identity.
    assert proof_of("ssh-key SHA256:abc", "k" * 43) == "door ssh-key SHA256:abc"
    assert player_id(proof_of("x", None)) != player_id(proof_of(None, "x"))
    assert proof_of(None, None) is None
    assert bot_id("easy") == "bot:easy" and len(player_id("door web 1")) == 32
