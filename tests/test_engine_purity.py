"""The engine imports the standard library only (docs/design.md: the engine is pure)."""

import ast
import subprocess
import sys
from pathlib import Path

RULES = Path(__file__).resolve().parent.parent / "kismet_tui" / "rules"
# Modules that would bring a clock, I/O, concurrency or global randomness into the engine.
FORBIDDEN = {
    "time",
    "random",
    "datetime",
    "asyncio",
    "socket",
    "threading",
    "os",
    "io",
    "pathlib",
    "subprocess",
    "secrets",
    "uuid",
    "textual",
    "rich",
    "msgpack",
    "numpy",
    "protocol",
    "server",
}


def imported_top_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_rules_import_only_the_standard_library():
    files = sorted(RULES.glob("*.py"))
    assert files, "no engine modules found"
    stdlib = sys.stdlib_module_names
    for path in files:
        for name in imported_top_modules(path):
            if name in ("kismet_tui", "__future__"):
                continue
            assert name in stdlib, f"{path.name} imports {name}, which is not standard library"
            assert name not in FORBIDDEN, f"{path.name} imports {name}: no clock, I/O or randomness"


def test_importing_the_engine_does_not_import_textual():
    code = (
        "import sys, kismet_tui.rules, kismet_tui.rules.rng;"
        "import importlib, importlib.util;"
        "[importlib.import_module(m) for m in kismet_tui.rules.RULESETS.values() "
        " if importlib.util.find_spec(m)];"
        "bad = [m for m in ('textual', 'msgpack', 'asyncio', 'numpy') if m in sys.modules];"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
