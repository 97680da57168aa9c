"""The usage examples in docstrings run: every module of kismet_tui, server and protocol
with `>>>` examples is run through doctest. Outlines that cannot run (they need a host or a
terminal) are written without `>>>` and say so."""

import doctest
import importlib
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGES = ("kismet_tui", "server", "protocol")


def modules_with_examples() -> list[str]:
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if ">>> " in path.read_text(encoding="utf-8"):
                parts = path.relative_to(ROOT).with_suffix("").parts
                found.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return found


MODULES = modules_with_examples()


def test_the_examples_are_found():
    # Guards the test below against running nothing.
    assert {
        "kismet_tui.rules",
        "kismet_tui.rules.dice",
        "kismet_tui.rules.cards",
        "protocol.text",
    } <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS, verbose=False)
    assert result.attempted > 0, f"{name} has '>>> ' but no example doctest could find"
    assert result.failed == 0, f"{result.failed} example(s) of {name} failed (see above)"
