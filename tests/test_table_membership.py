"""A table owns who is at it and what state it is in (server/table.py): the lobby, the owner's
steering, the start, resume and the rest call its methods (sit, unseat, watch, set_owner,
close, ...) and never edit its seats, watchers, owner or state themselves; a host stamp is
written `HOST`, never -1. Read from the source with ast."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OWNED = {"seats", "watchers", "owner", "state"}
# What edits a list in place.
EDITS = {"append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse"}
# A seat's own fields, edited only through the table (`set_ready`, `rename`, ...).
SEAT_FIELDS = {"name", "ready", "entropy", "token", "bot"}


def _is_owned(node: ast.AST) -> bool:
    """`x.seats` (and the rest) where `x` is not `self`: another object's membership."""
    return (
        isinstance(node, ast.Attribute)
        and node.attr in OWNED
        and not (isinstance(node.value, ast.Name) and node.value.id == "self")
    )


def membership_edits(tree: ast.AST) -> list[str]:
    found = []
    for node in ast.walk(tree):
        targets: list[ast.AST] = []
        if isinstance(node, (ast.Assign, ast.Delete)):
            targets = list(node.targets)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        for target in targets:
            inner = target.value if isinstance(target, (ast.Subscript, ast.Attribute)) else None
            if _is_owned(target) or (isinstance(target, ast.Subscript) and _is_owned(inner)):
                found.append(f"line {node.lineno}: {ast.unparse(target)}")
            elif (  # table.seats[i].ready = ...
                isinstance(target, ast.Attribute)
                and target.attr in SEAT_FIELDS
                and isinstance(target.value, ast.Subscript)
                and _is_owned(target.value.value)
            ):
                found.append(f"line {node.lineno}: {ast.unparse(target)}")
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in EDITS
            and _is_owned(node.func.value)
        ):
            found.append(f"line {node.lineno}: {ast.unparse(node.func)}")
    return found


def host_seat_as_minus_one(tree: ast.AST) -> list[str]:
    """`stamp(-1, ...)` or a comparison with -1 where HOST is meant."""
    found = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "stamp"
            and node.args
            and ast.unparse(node.args[0]) == "-1"
        ):
            found.append(f"line {node.lineno}: {ast.unparse(node)}")
    return found


def server_modules() -> dict[str, ast.AST]:
    return {
        str(path.relative_to(ROOT)): ast.parse(path.read_text())
        for path in sorted((ROOT / "server").rglob("*.py"))
    }


def test_no_module_but_the_table_edits_its_membership_or_state():
    found = {
        name: edits
        for name, tree in server_modules().items()
        if name != "server/table.py" and (edits := membership_edits(tree))
    }
    assert not found, f"edit the table through its methods: {found}"


def test_host_stamps_say_host():
    found = {
        name: hits
        for name, tree in server_modules().items()
        if (hits := host_seat_as_minus_one(tree))
    }
    assert not found, f"write HOST, not -1: {found}"


def test_the_checks_find_what_they_look_for():
    tree = ast.parse(
        "table.seats.append(seat)\n"
        "del table.seats[0]\n"
        "table.state = 'closed'\n"
        "table.seats[1].ready = True\n"
        "table.watchers.remove(token)\n"
        "self.owner = token\n"  # a class's own field: not another's membership
    )
    assert len(membership_edits(tree)) == 5
    assert host_seat_as_minus_one(ast.parse("table.stamp(-1, {'type': 'away'})"))
