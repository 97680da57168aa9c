"""The host's identity key and the signature of a log: docs/protocol.md's worked vector, the
key made once and shared with the ssh door, and `kismet-host` printing its fingerprint."""

import hashlib
import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import asyncssh
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from protocol.gamelog import read_game_log, record_bytes
from protocol.logsign import check_signature, fingerprint, signature_record, signed_message
from server.doors.ssh import load_host_key
from server.identity import KEY_FILE, LEGACY_SSH_KEY_FILE, HostIdentity
from tests.netutil import ROOT, host_process

DOC = (Path(__file__).resolve().parent.parent / "docs" / "protocol.md").read_text()


def doc_section(title: str) -> str:
    start = DOC.index(title)
    return DOC[start : DOC.index("\n### ", start + 1)]


def hex_blocks(text: str) -> list[bytes]:
    """The fenced blocks of hex in `text`, as bytes."""
    return [
        bytes.fromhex("".join(block.split()))
        for block in re.findall(r"```\n([0-9a-f\n]+)```", text)
    ]


def test_the_docs_worked_vector_is_what_the_code_signs_and_checks(tmp_path):
    section = doc_section("### The signature")
    log_bytes, trailer = hex_blocks(section)
    records = [
        {
            "kind": "header",
            "header": {"ruleset": "dice", "seats": ["Ana"], "options": {}, "t0": 0, "chance": []},
            "table": 1,
        },
        {
            "kind": "event",
            "seq": 1,
            "t": 100,
            "seat": 0,
            "action": {"type": "roll", "hold": []},
            "chance": [5, 4, 2, 4, 2],
        },
        {"kind": "end", "result": {"scores": [0]}},
    ]
    assert b"".join(record_bytes(r) for r in records) == log_bytes and len(log_bytes) == 175
    digest = hashlib.sha256(log_bytes).digest()
    assert f"their SHA-256: `{digest.hex()}`" in section
    key = Ed25519PrivateKey.from_private_bytes(bytes([0x5A]) * 32)
    identity = HostIdentity(key)
    assert f"`{identity.public_key.hex()}`" in section
    assert f"fingerprint\n`{identity.fingerprint}`" in section
    signature = identity.sign(signed_message(digest))
    assert signed_message(digest) == b"kismet-log-v1" + digest and len(signed_message(digest)) == 45
    written = " ".join(re.findall(r"^  `([0-9a-f]{64})`$", section, re.M))
    assert written == f"{signature[:32].hex()} {signature[32:].hex()}"
    assert record_bytes(signature_record(identity.public_key, signature)) == trailer
    # Read back as a file: the reader hashes the same bytes, and the signature holds.
    path = tmp_path / "vector.kismet"
    path.write_bytes(log_bytes + trailer)
    log = read_game_log(path)
    assert log.signed_digest == digest and log.signature is not None
    assert check_signature(log.signature, log.signed_digest) is None
    # One byte of the log changed (the last die, 2 -> 3): the same signature no longer holds.
    changed = bytearray(log_bytes)
    changed[changed.index(bytes([0x95, 5, 4, 2, 4, 2])) + 5] = 3
    assert check_signature(log.signature, hashlib.sha256(bytes(changed)).digest()) == (
        "the log's bytes are not the ones the key signed"
    )


def test_the_fingerprint_is_the_one_ssh_shows():
    key = asyncssh.generate_private_key("ssh-ed25519")
    raw = key.pyca_key.public_key().public_bytes_raw()
    assert fingerprint(raw) == key.get_fingerprint("sha256")


def test_the_identity_is_made_once_private_and_is_the_ssh_doors_key(tmp_path):
    first = HostIdentity.load(tmp_path)
    assert stat.S_IMODE((tmp_path / KEY_FILE).stat().st_mode) == 0o600
    again = HostIdentity.load(tmp_path)
    assert again.public_key == first.public_key and again.fingerprint == first.fingerprint
    assert load_host_key(tmp_path).get_fingerprint("sha256") == first.fingerprint
    assert [p.name for p in tmp_path.iterdir()] == [KEY_FILE]  # no temporary file left


def test_an_older_hosts_ssh_key_is_adopted_so_ssh_players_see_no_new_key(tmp_path):
    old = asyncssh.generate_private_key("ssh-ed25519", comment="kismet-host")
    (tmp_path / LEGACY_SSH_KEY_FILE).write_bytes(old.export_private_key())
    identity = HostIdentity.load(tmp_path)
    assert identity.fingerprint == old.get_fingerprint("sha256")
    assert load_host_key(tmp_path).get_fingerprint("sha256") == old.get_fingerprint("sha256")
    assert stat.S_IMODE((tmp_path / KEY_FILE).stat().st_mode) == 0o600


def test_a_key_file_that_is_not_a_key_is_said_in_words(tmp_path):
    from server.identity import IdentityError

    (tmp_path / KEY_FILE).write_text("not a key\n")
    with pytest.raises(IdentityError, match="is not a usable private key"):
        HostIdentity.load(tmp_path)


@pytest.mark.timeout(60)
def test_kismet_host_prints_its_keys_fingerprint_without_ssh(tmp_path):
    with host_process(tmp_path, bots=0) as proc:  # no --ssh
        lines: list[str] = []
        while not lines or "key" not in lines[-1]:
            line = proc.proc.stdout.readline()
            assert line, f"kismet-host ended: {lines}"
            lines.append(line.strip())
    identity = HostIdentity.load(tmp_path)  # the key it made, kept in its state folder
    assert lines[-1] == (
        f"This host's key: {identity.fingerprint} (it signs every finished "
        "game; `kismet-replay --verify` shows it)."
    )


@pytest.mark.timeout(60)
def test_kismet_host_with_a_broken_key_file_says_so_and_stops(tmp_path):
    (tmp_path / KEY_FILE).write_text("not a key\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "server.cli",
            "--bind",
            "127.0.0.1",
            "--port",
            "0",
            "--state-dir",
            str(tmp_path),
            "--bots",
            "0",
            "--no-announce",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert done.stderr.startswith(
        f"kismet-host: cannot use this host's key: {tmp_path / KEY_FILE} "
        f"is not a usable private key"
    ), done.stderr
    assert (tmp_path / KEY_FILE).read_text() == "not a key\n"  # left as it was
