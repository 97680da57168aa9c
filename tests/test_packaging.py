"""The package as people get it (issue 31 points 3 and 8): the sdist and the wheel built from a
copy of this tree with the build backend pyproject.toml names, the licence in both, the
metadata filled in, the sdist's own tests runnable, and the wheel installed into a fresh venv
(with a fresh HOME, outside this tree) giving four commands that print the version from the
installed metadata.

Building needs setuptools at pyproject.toml's floor: it is installed into a folder of the
test's own (from the package index, as pip's build isolation would). The fresh venv gets the
wheel alone; the dependencies it imports are this interpreter's (a .pth file), so nothing
else is downloaded and the test stays within a minute.
"""

from __future__ import annotations

import email.parser
import os
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tomllib
import zipfile
from pathlib import Path

import pytest

from tests.netutil import ROOT

pytestmark = [pytest.mark.timeout(300)]

PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
VERSION = PROJECT["version"]
SCRIPTS = ["kismet", "kismet-join", "kismet-replay", "kismet-host"]
NOT_COPIED = shutil.ignore_patterns(
    ".git",
    "__pycache__",
    "*.egg-info",
    "build",
    "dist",
    ".pytest_cache",
    ".mypy_cache",
    ".hypothesis",
    ".venv",
)


def call(*command: str | Path, **kwargs) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [str(part) for part in command], capture_output=True, text=True, timeout=240, **kwargs
    )
    assert done.returncode == 0, f"{command}: {done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    return done


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, Path]:
    """(the sdist, the wheel), built from a copy of this tree."""
    work = tmp_path_factory.mktemp("build")
    tree = work / "tree"
    shutil.copytree(ROOT, tree, ignore=NOT_COPIED)
    backend = work / "backend"
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text())["build-system"]["requires"]
    call(
        sys.executable,
        "-m",
        "pip",
        "install",
        "--quiet",
        "--disable-pip-version-check",
        "--target",
        backend,
        *requires,
    )
    out = work / "dist"
    call(
        sys.executable,
        "-c",
        "import sys; from setuptools import build_meta as b; out = sys.argv[1]; "
        "b.build_sdist(out); b.build_wheel(out)",
        out,  # (the backend rewrites sys.argv)
        cwd=tree,
        env=dict(os.environ, PYTHONPATH=str(backend)),
    )
    (sdist,), (wheel,) = out.glob("*.tar.gz"), out.glob("*.whl")
    return sdist, wheel


def test_the_wheel_holds_the_licence_and_the_metadata(built):
    _, wheel = built
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        info = f"kismet_tui-{VERSION}.dist-info"
        licence = archive.read(f"{info}/licenses/LICENSE").decode()
        metadata = email.parser.Parser().parsestr(archive.read(f"{info}/METADATA").decode())
        scripts = archive.read(f"{info}/entry_points.txt").decode()
    assert licence == (ROOT / "LICENSE").read_text() and licence.startswith("MIT License")
    assert metadata["License-Expression"] == "MIT" and metadata["License-File"] == "LICENSE"
    assert metadata["Version"] == VERSION and metadata["Author"]
    classifiers = metadata.get_all("Classifier")
    for wanted in (
        "Environment :: Console",
        "Topic :: Games/Entertainment",
        "Operating System :: Microsoft :: Windows",
        "Operating System :: MacOS",
        "Programming Language :: Python :: 3.11",
    ):
        assert wanted in classifiers
    assert "dice" in metadata["Keywords"]
    assert any(url.startswith("Repository, ") for url in metadata.get_all("Project-URL"))
    requires = metadata.get_all("Requires-Dist")
    for wanted in (
        "asyncssh>=2.14.2",
        "aiohttp>=3.9.5",
        "aiohttp-jinja2>=1.6",
        "jinja2>=3.1.4",
        "rich>=14.3",
    ):
        assert wanted in requires
    assert "textual<9,>=8.2.5" in requires and "textual-serve<1.2,>=1.1" in requires
    for script in SCRIPTS:
        assert f"\n{script} = " in "\n" + scripts
    assert not [name for name in names if name.startswith("tests/")]  # the tests: in the sdist


def test_the_sdist_holds_the_licence_and_tests_that_run(built, tmp_path):
    sdist, _ = built
    with tarfile.open(sdist) as archive:
        archive.extractall(tmp_path, filter="data")
    tree = tmp_path / f"kismet_tui-{VERSION}"
    assert (tree / "LICENSE").read_text() == (ROOT / "LICENSE").read_text()
    assert (tree / "CHANGELOG.md").is_file() and (tree / "docs" / "kismet-host.service").is_file()
    for helper in ("conftest.py", "netutil.py", "sshutil.py", "scripted.py", "import_graph.py"):
        assert (tree / "tests" / helper).is_file(), helper
    ours = {
        p.relative_to(ROOT)
        for p in (ROOT / "tests").rglob("*")
        if p.is_file() and p.suffix in (".py", ".txt", ".svg") and "__pycache__" not in p.parts
    }
    theirs = {p.relative_to(tree) for p in (tree / "tests").rglob("*") if p.is_file()}
    assert ours <= theirs, f"not in the sdist: {sorted(map(str, ours - theirs))[:10]}"
    # Its tests run there, on its own code: the architecture, the docs' citations, the
    # golden pictures.
    done = call(
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-n",
        "0",
        "-p",
        "no:randomly",
        "-p",
        "no:cacheprovider",
        "tests/test_import_graph.py",
        "tests/test_citations.py",
        "tests/test_golden_render.py",
        cwd=tree,
        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
    )
    assert " passed" in done.stdout and "failed" not in done.stdout


def test_the_wheel_installed_in_a_fresh_venv_gives_four_commands_with_the_version(built, tmp_path):
    _, wheel = built
    venv = tmp_path / "venv"
    call(sys.executable, "-m", "venv", "--without-pip", venv)
    python = venv / "bin" / "python"
    call(
        sys.executable,
        "-m",
        "pip",
        "--python",
        python,
        "install",
        "--quiet",
        "--no-deps",
        "--disable-pip-version-check",
        wheel,
    )
    site = Path(
        call(
            python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"
        ).stdout.strip()
    )
    # The dependencies: this interpreter's, after the venv's own (its kismet_tui comes first).
    paths = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    (site / "zz_dependencies.pth").write_text("\n".join(sorted(paths)) + "\n")
    home = tmp_path / "home"
    home.mkdir()
    env = {"HOME": str(home), "PATH": f"{venv / 'bin'}:/usr/bin:/bin", "LANG": "C.UTF-8"}
    where = call(
        python,
        "-c",
        "import kismet_tui, server; print(kismet_tui.__file__, server.__file__)",
        cwd=home,
        env=env,
    ).stdout
    assert where.count(str(site)) == 2, where  # the installed copy, not this tree
    for script in SCRIPTS:
        done = call(venv / "bin" / script, "--version", cwd=home, env=env)
        assert done.stdout == f"{script} {VERSION}\n"
    assert (
        call(python, "-m", "kismet_tui", "--version", cwd=home, env=env).stdout
        == f"kismet {VERSION}\n"
    )
    # What the program reads at run time came with it: the host's web page, the styles.
    assert (site / "server" / "doors" / "web_page").is_dir() and (
        site / "kismet_tui" / "kismet.tcss"
    ).is_file()
