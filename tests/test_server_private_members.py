"""No module of server/ uses another module's private members (`host._spawn_bot`,
`table._save`): each job offers what others need as its public, typed interface.

A private member is a `_name` (not a dunder) that some module of server/ defines: as a
function, class or module-level name, or as an attribute it sets on `self` (or names in
`__slots__`). Using it through anything but `self` or `cls` is fine only in that module.
"""

from __future__ import annotations

import ast
from pathlib import Path

SERVER = Path(__file__).resolve().parent.parent / "server"


def private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def defined_privates(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and private(
            node.name
        ):
            names.add(node.name)
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.ctx, ast.Store)
            and private(node.attr)
            and isinstance(node.value, ast.Name)
            and node.value.id in ("self", "cls")
        ):
            names.add(node.attr)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and private(node.id):
            names.add(node.id)
        elif isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__slots__" for t in node.targets
        ):
            names.update(
                c.value
                for c in ast.walk(node.value)
                if isinstance(c, ast.Constant) and isinstance(c.value, str) and private(c.value)
            )
    return names


def foreign_uses(trees: dict[str, ast.Module]) -> list[str]:
    """`module:line expression` for each private member used outside the module defining it."""
    defined = {name: defined_privates(tree) for name, tree in trees.items()}
    found = []
    for name, tree in trees.items():
        others = set().union(*(names for other, names in defined.items() if other != name))
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Attribute) and private(node.attr)):
                continue
            if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
                continue
            # Not this module's own, and a name some other module of server/ defines (the
            # standard library's and other libraries' own are not the host's business here).
            if node.attr not in defined[name] and node.attr in others:
                found.append(f"{name}:{node.lineno} {ast.unparse(node)}")
    return found


def server_trees() -> dict[str, ast.Module]:
    return {
        str(path.relative_to(SERVER.parent)): ast.parse(path.read_text(), str(path))
        for path in sorted(SERVER.rglob("*.py"))
    }


def test_no_module_of_the_server_uses_another_modules_private_members():
    assert foreign_uses(server_trees()) == []


def test_the_check_finds_a_private_member_reached_from_another_module():
    trees = server_trees()
    trees["server/lobby.py"].body.append(ast.parse("host._ended(conn)").body[0])
    trees["server/saving.py"].body.append(ast.parse("table._rebuild()").body[0])
    found = foreign_uses(trees)
    assert [use.split(" ", 1)[1] for use in found] == ["host._ended", "table._rebuild"]
    assert found[0].startswith("server/lobby.py:")
