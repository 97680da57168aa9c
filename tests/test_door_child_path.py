"""A door's session runs the host's own copy of Kismet, wherever the host was started: an
installed host started from a folder holding a checkout (or anything named kismet_tui) must
not hand its players that folder's code (`python -c` puts the working folder first on the
import path)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import kismet_tui
from kismet_tui.door_env import from_our_packages
from server.doors import pty_app, warm_doors, web_session


def test_a_child_started_in_a_folder_with_another_kismet_imports_the_hosts_own(
    tmp_path: Path,
) -> None:
    other = tmp_path / "kismet_tui"
    other.mkdir()
    (other / "__init__.py").write_text("raise SystemExit('the wrong Kismet')\n")
    code = from_our_packages("import kismet_tui; print(kismet_tui.__file__)")
    found = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert found.returncode == 0, found.stderr
    assert Path(found.stdout.strip()) == Path(kismet_tui.__file__)


def test_every_door_child_is_started_so() -> None:
    for code in (pty_app.JOIN_CODE, web_session.JOIN_CODE, warm_doors.FORKER_CODE):
        assert code.startswith(from_our_packages("")), code
