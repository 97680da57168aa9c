"""The whole import graph of kismet_tui/, protocol/ and server/: no circles, and every import
allowed by docs/design.md's "The packages" table (parsed from the doc, so the two cannot
drift). The graph and the rules are tests/import_graph.py; `python benchmarks/import_graph.py`
prints the graph and its circles."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tests.import_graph import (
    STANDARD_LIBRARY,
    Graph,
    PackageTable,
    build_graph,
    circles,
    describe_circles,
    forbidden_imports,
)


@pytest.fixture(scope="module")
def graph() -> Graph:
    return build_graph()


def test_no_module_imports_another_that_imports_it_back(graph: Graph) -> None:
    found = circles(graph)
    assert not found, (
        f"{len(found)} import circles (each import on a chain; break one import of each):\n"
        + describe_circles(graph, found)
    )


def test_every_import_is_one_the_packages_table_allows(graph: Graph) -> None:
    table = PackageTable.from_design()
    assert not table.problems()
    forbidden = forbidden_imports(graph, table)
    assert not forbidden, (
        "imports docs/design.md's packages table does not allow (change the import, or the "
        "table if the design changed):\n" + "\n".join(forbidden)
    )


def test_the_table_keeps_the_engine_to_the_standard_library() -> None:
    table = PackageTable.from_design()
    engine = table.row_of("kismet_tui/rules/dice.py")
    assert engine.folder == "kismet_tui/rules/"
    assert engine.may_import == (STANDARD_LIBRARY,)
    assert not table.allows(engine, "textual")
    assert not table.allows(engine, table.row_of("protocol/framing.py"))
    assert table.allows(engine, "itertools")


def test_the_hosts_core_knows_the_doors_only_by_their_passes(graph: Graph) -> None:
    """server/ (the rest) imports of server/doors/ and server/lan/ only the door passes; its
    composition root (server.cli) alone opens the doors and the announcement."""
    reached = sorted(
        f"{imp.describe()} imports {imp.imported}"
        for module, found in graph.imports.items()
        if module.startswith("server.")
        and not module.startswith(("server.doors", "server.lan", "server.records"))
        and module != "server.cli"
        for imp in found
        if imp.imported.startswith(("server.doors", "server.lan"))
        and imp.imported != "server.doors.door_pass"
    )
    assert reached == []
    table = PackageTable.from_design()
    assert table.row_of("server/doors/ssh.py").folder == "server/doors/"
    assert table.row_of("server/lan/discovery.py").folder == "server/lan/"
    core = table.row_of("server/table.py")
    for outside in ("asyncssh", "textual", "textual_serve", "aiohttp", "zeroconf"):
        assert not table.allows(core, outside), outside


# -- the checker itself, on a small tree of its own -------------------------------------------


def write_tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return root


def test_a_circle_is_found_through_lazy_relative_and_type_checking_imports(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path,
        {
            "kismet_tui/__init__.py": "",
            "kismet_tui/app.py": "from .screens import lobby\n",
            "kismet_tui/screens/__init__.py": "",
            "kismet_tui/screens/lobby.py": """\
            def open_table():
                from ..widgets.status import Status
            """,
            "kismet_tui/widgets/__init__.py": "",
            "kismet_tui/widgets/status.py": """\
            from typing import TYPE_CHECKING
            if TYPE_CHECKING:
                from kismet_tui.app import KismetApp
            """,
            "protocol/__init__.py": "",
            "protocol/limits.py": "import textual\n",
            "server/__init__.py": "",
            "server/host.py": "from protocol import limits\nfrom server import nothing_here\n",
        },
    )
    graph = build_graph(root)
    assert graph.edges()["kismet_tui.app"] == {"kismet_tui.screens.lobby"}
    assert graph.edges()["server.host"] == {"protocol.limits", "server"}
    found = circles(graph)
    assert [circle.modules for circle in found] == [
        ("kismet_tui.app", "kismet_tui.screens.lobby", "kismet_tui.widgets.status")
    ]
    words = describe_circles(graph, found)
    assert (
        "kismet_tui.app -> kismet_tui.screens.lobby (line 1) -> kismet_tui.widgets.status "
        "(line 2, inside a function) -> kismet_tui.app (line 3, for type checking only)"
    ) in words


def test_two_modules_importing_each_other_are_one_circle_with_one_chain(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path,
        {
            "kismet_tui/__init__.py": "",
            "kismet_tui/screens/__init__.py": "",
            "kismet_tui/screens/words.py": "from . import knock_words\n",
            "kismet_tui/screens/knock_words.py": "from kismet_tui.screens.words import say\n",
            "kismet_tui/screens/plain.py": "import kismet_tui.screens.words\n",
        },
    )
    (circle,) = circles(build_graph(root))
    assert circle.modules == ("kismet_tui.screens.knock_words", "kismet_tui.screens.words")
    assert circle.chains == (
        (
            "kismet_tui.screens.knock_words",
            "kismet_tui.screens.words",
            "kismet_tui.screens.knock_words",
        ),
    )


DESIGN = """\
    # Design

    ## The packages

    | folder | what lives there | may import |
    |---|---|---|
    | `kismet_tui/rules/` | the engines | the standard library only |
    | `kismet_tui/` (the rest) | the app | rules, protocol and textual |
    | `protocol/` | the wire | msgpack |
    | `server/` | the host | rules, protocol |

    ## Next
    """


def test_an_import_the_table_does_not_name_is_forbidden(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path,
        {
            "kismet_tui/__init__.py": "import textual\n",
            "kismet_tui/rules/__init__.py": "import itertools\nfrom . import dice\n",
            "kismet_tui/rules/dice.py": "def later():\n    import msgpack\n",
            "protocol/__init__.py": "import msgpack\nfrom kismet_tui.rules import dice\n",
            "server/__init__.py": "from kismet_tui import rules\nfrom protocol import *\n",
        },
    )
    table = PackageTable.from_design(textwrap.dedent(DESIGN))
    assert table.problems() == []
    assert forbidden_imports(build_graph(root), table) == [
        "kismet_tui.rules.dice:2 (inside a function) imports msgpack, which kismet_tui/rules/ "
        "may not import",
        "protocol:2 (module level) imports kismet_tui.rules.dice, but protocol/ may not import "
        "kismet_tui/rules/",
    ]


def test_a_name_in_the_table_that_names_nothing_is_a_problem_of_the_doc() -> None:
    table = PackageTable.from_design(textwrap.dedent(DESIGN).replace("msgpack", "msgpak"))
    assert table.problems() == [
        "protocol/ may import 'msgpak', which is neither a folder of the table nor a module "
        "this project installs"
    ]


def test_a_module_imported_by_a_literal_name_is_an_edge(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path,
        {
            "kismet_tui/__init__.py": "",
            "kismet_tui/bots/__init__.py": "",
            "kismet_tui/bots/levels.py": """\
            import importlib

            def policy():
                return importlib.import_module("kismet_tui.bots.dice_levels").DicePolicy
            """,
            "kismet_tui/bots/dice_levels.py": "from .levels import LEVELS\n",
        },
    )
    graph = build_graph(root)
    assert [imp.describe() for imp in graph.imports["kismet_tui.bots.levels"]] == [
        "kismet_tui.bots.levels:4 (inside a function)"
    ]
    assert [circle.modules for circle in circles(graph)] == [
        ("kismet_tui.bots.dice_levels", "kismet_tui.bots.levels")
    ]
