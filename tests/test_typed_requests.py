"""A misspelt field of a client request fails mypy, where it is built and where it is read.

The requests are declared once (protocol/requests.py): the client builds them, `parse_client`
returns them narrowed by `type`, and the host's handlers read them. The test runs mypy (its
API, with a cache of its own) on a snippet that does each of the three, first as written
(mypy must pass it, so the test can fail) and then with each field misspelt: each misspelling
must be reported, at its line, naming the key.
"""

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

SNIPPET = """\
from protocol.requests import Hello, JoinTable, parse_client


def hello(name: str) -> Hello:
    return {"type": "hello", "version": 3, "name": name, "token": None}


def table_asked(msg: JoinTable) -> int:
    return msg["table"]


def watching(sent: object) -> bool:
    parsed = parse_client(sent)
    if parsed["type"] == "join_table":
        return parsed["spectator"]
    return False
"""

# (the right spelling, the misspelt one): one on each of the snippet's three uses
MISSPELT = [
    ('"name": name', '"nmae": name'),
    ('["table"]', '["tabel"]'),
    ('["spectator"]', '["spectater"]'),
]


def _mypy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, source: str) -> tuple[str, int]:
    api = pytest.importorskip("mypy.api")
    (tmp_path / "snippet.py").write_text(source)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MYPYPATH", str(ROOT))  # (this checkout's protocol/ and kismet_tui/)
    stdout, stderr, status = api.run(
        [
            "--config-file",
            str(ROOT / "pyproject.toml"),
            "--cache-dir",
            str(tmp_path / "cache"),
            "--no-error-summary",
            "--strict",
            "snippet.py",
        ]
    )
    return stdout + stderr, status


@pytest.mark.timeout(300)
def test_a_misspelt_request_field_fails_mypy_and_the_right_one_passes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reported, status = _mypy(tmp_path, monkeypatch, SNIPPET)
    assert status == 0, reported

    source, expected = SNIPPET, []
    for right, wrong in MISSPELT:
        assert source.count(right) == 1
        source = source.replace(right, wrong)
        line = source[: source.index(wrong)].count("\n") + 1
        expected.append((f"snippet.py:{line}:", wrong.split('"')[1]))
    reported, status = _mypy(tmp_path, monkeypatch, source)
    assert status != 0, reported
    for where, key in expected:
        assert any(
            line.startswith(where) and f'"{key}"' in line for line in reported.splitlines()
        ), f"mypy did not report the misspelt {key!r} at {where}\n{reported}"
