"""The version every command prints with --version, from one source: the package metadata.

An installed Kismet (pip, pipx, uv tool) reads it from its distribution's metadata, which
setuptools writes from pyproject.toml's `version`. Run from a source tree that was never
installed (`python -m kismet_tui` in a clone, the tests), the same line of pyproject.toml is
read instead, so the number is written in one place only.
"""

from __future__ import annotations

import functools
from pathlib import Path

DISTRIBUTION = "kismet-tui"
PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"


@functools.cache
def version() -> str:
    in_tree = source_version(PYPROJECT)
    if in_tree is not None:  # a source tree: its own pyproject.toml, whatever is installed
        return in_tree
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed(DISTRIBUTION)
    except PackageNotFoundError:
        return "unknown (not installed)"


def source_version(pyproject: Path) -> str | None:
    """The version in `pyproject` when it is Kismet's own; None when there is none (an
    installed copy: site-packages holds no pyproject.toml, or another project's)."""
    import tomllib

    try:
        project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not isinstance(project, dict) or project.get("name") != DISTRIBUTION:
        return None
    return str(project.get("version"))
