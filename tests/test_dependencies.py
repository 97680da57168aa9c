"""pyproject.toml's dependencies match the code (issue 31 point 6): every library the
program imports is declared (not only pulled in by another one), each floor is the version
.ci/constraints-lowest.txt pins (and .ci/run tests), and the libraries whose private names
the code uses are bounded above."""

from __future__ import annotations

import importlib.metadata
import re
import sys
import tomllib

from packaging.requirements import Requirement

from tests.import_graph import build_graph
from tests.netutil import ROOT

PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
DECLARED = {
    Requirement(text).name.lower().replace("_", "-"): Requirement(text)
    for text in PROJECT["dependencies"] + PROJECT["optional-dependencies"]["fast"]
}
LOWEST = ROOT / ".ci" / "constraints-lowest.txt"


def distribution_of(module: str) -> str:
    names = importlib.metadata.packages_distributions().get(module, [module])
    return names[0].lower().replace("_", "-")


def test_every_imported_library_is_declared():
    graph = build_graph()
    imported = {
        i.imported
        for uses in graph.outside.values()
        for i in uses
        if i.imported not in sys.stdlib_module_names
    }
    missing = {
        name: distribution_of(name) for name in imported if distribution_of(name) not in DECLARED
    }
    assert not missing, f"imported but not in pyproject.toml's dependencies: {missing}"


def test_the_floors_are_the_versions_ci_tests():
    pinned = {}
    for line in LOWEST.read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, version = line.split("==")
            pinned[name.lower()] = version
    for name, requirement in DECLARED.items():
        if name == "uvloop":  # the optional `fast` extra, not built everywhere
            continue
        floors = [spec.version for spec in requirement.specifier if spec.operator == ">="]
        assert floors, f"{name} has no floor"
        assert name in pinned, f"{name} is not in {LOWEST.name}"
        assert re.sub(r"(\.0)+$", "", pinned[name]) == re.sub(r"(\.0)+$", "", floors[0]), name


def test_private_apis_are_bounded_above():
    for name, bound in (("textual", "<9"), ("textual-serve", "<1.2")):
        assert bound in str(DECLARED[name].specifier), name
    assert "2.14.2" in str(DECLARED["asyncssh"].specifier)  # the CVE fixes
