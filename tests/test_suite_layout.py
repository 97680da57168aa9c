"""The suite's own layout: a test module imports no other test module. Helpers shared by tests
live in helper modules (tests/uiutil.py, hostutil.py, netutil.py, ...), so that running one
test module never collects another's tests, fixtures or module-level set-up, and a test module
can be moved or deleted without breaking others."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).parent


def test_the_check_finds_every_spelling_of_such_an_import(tmp_path):
    (tmp_path / "test_a.py").write_text(
        "import tests.test_b\nfrom tests import test_c\n"
        "def f():\n    from tests.test_d import x\n    from tests.netutil import y\n"
        "from . import test_e\nfrom .test_f import z\n"
    )
    assert imported_test_modules(tmp_path / "test_a.py") == [
        "tests.test_b",
        "tests.test_c",
        "tests.test_d",
        "tests.test_e",
        "tests.test_f",
    ]


def imported_test_modules(path: Path) -> list[str]:
    """The test modules (tests.test_*) that the module at `path` imports, anywhere in it."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            module = "tests" if node.level else (node.module or "")
            if node.level and node.module:
                module += "." + node.module
            found.append(module)
            found += [f"{module}.{alias.name}" for alias in node.names]
    return sorted(
        {
            ".".join(name.split(".")[:2])
            for name in found
            if name.startswith("tests.test_") and name.count(".") >= 1
        }
    )


def test_no_test_module_imports_another():
    importing = {
        path.name: imported
        for path in sorted(TESTS.glob("*.py"))
        if (imported := imported_test_modules(path))
    }
    assert not importing, (
        "test modules import other test modules (move what they share into a helper module "
        f"of tests/, as tests/uiutil.py): {importing}"
    )
