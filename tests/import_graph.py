"""The project's import graph, read from the source with `ast`, and the import rules it must keep.

Owns three things, used by tests/test_import_graph.py and printed by benchmarks/import_graph.py:

- `build_graph()`: which project module (under kismet_tui/, protocol/, server/) imports which.
  Every `import` and `from ... import` counts, wherever it stands: at module level, inside a
  function (a lazy import still closes a circle, only later), and under `if TYPE_CHECKING:`
  (the type checker follows it, and the design is the same design). Relative imports are
  resolved; `from pkg import name` points at the submodule `pkg.name` when there is one, else
  at `pkg`. Only the module named counts, not its parent packages (whose `__init__` runs
  first anyway), as in import-linter and grimp. `importlib.import_module` with a literal name
  counts too; the two computed ones (the engine's RULESETS, the bots' levels) name modules
  in their own folder.
- `circles()`: the modules that import each other, directly or through others (the strongly
  connected parts of the graph), each shown as chains of imports a reader can follow.
- `PackageTable`: docs/design.md's "The packages" table, parsed from the doc, which says which
  folder may import which; `forbidden_imports()` lists every import it does not allow.
"""

from __future__ import annotations

import ast
import importlib.util
import re
import sys
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("kismet_tui", "protocol", "server")
DESIGN = ROOT / "docs" / "design.md"
PYPROJECT = ROOT / "pyproject.toml"


@dataclass(frozen=True)
class Import:
    """One import statement: `importer` imports `imported` (a project module or, for an
    outside one, its top-level name) at `line`; `where` says how it runs."""

    importer: str
    imported: str
    line: int
    where: str  # "module level", "inside a function", "for type checking only"

    def describe(self) -> str:
        return f"{self.importer}:{self.line} ({self.where})"


@dataclass
class Graph:
    """Project modules, their files, and their imports (project and outside ones apart)."""

    root: Path
    files: dict[str, Path]
    imports: dict[str, list[Import]]  # module -> imports of project modules
    outside: dict[str, list[Import]]  # module -> imports of anything else, by top-level name

    def edges(self) -> dict[str, set[str]]:
        """module -> the project modules it imports (never itself)."""
        return {
            module: {imp.imported for imp in found if imp.imported != module}
            for module, found in self.imports.items()
        }


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def project_files(root: Path = ROOT) -> dict[str, Path]:
    files: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            files[module_name(path, root)] = path
    return files


def _is_type_checking_test(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


COMPOUND_FIELDS = ("body", "orelse", "finalbody", "handlers", "cases")


def _statements(tree: ast.Module, calls_too: bool) -> Iterator[tuple[ast.AST, str]]:
    """Every statement of `tree` (and, with `calls_too`, every call inside a simple one),
    with where it runs: at module level, inside a function (a method's body too), or under
    `if TYPE_CHECKING:`. Imports are statements, so expressions are not walked otherwise:
    the graph stays quick to build."""

    def walk(body: Iterable[ast.AST], where: str) -> Iterator[tuple[ast.AST, str]]:
        for stmt in body:
            if isinstance(stmt, (ast.ExceptHandler, ast.match_case)):
                yield from walk(stmt.body, where)
                continue
            yield stmt, where
            if isinstance(stmt, ast.If) and _is_type_checking_test(stmt.test):
                yield from walk(stmt.body, "for type checking only")
                yield from walk(stmt.orelse, where)
                continue
            inner = where
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and (
                where == "module level"
            ):
                inner = "inside a function"
            compound = False
            for field in COMPOUND_FIELDS:
                children = getattr(stmt, field, None)
                if children:
                    compound = True
                    yield from walk(children, inner)
            if calls_too and not compound:
                for node in ast.walk(stmt):
                    if isinstance(node, ast.Call):
                        yield node, inner

    yield from walk(tree.body, "module level")


def _package_of(module: str, path: Path) -> str:
    """The package a relative import in `module` is relative to."""
    return module if path.name == "__init__.py" else module.rpartition(".")[0]


def _resolve_relative(module: str, path: Path, level: int, name: str | None) -> str:
    base = _package_of(module, path).split(".")
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join(base + ([name] if name else []))


def _targets(node: ast.AST, module: str, path: Path, files: dict[str, Path]) -> list[str]:
    """The modules one import node names: project modules by full name, others by top name."""
    if isinstance(node, ast.Import):
        return [_known(alias.name, files) for alias in node.names]
    if isinstance(node, ast.ImportFrom):
        if node.level:
            source = _resolve_relative(module, path, node.level, node.module)
        else:
            source = node.module or ""
        found = []
        for alias in node.names:
            submodule = f"{source}.{alias.name}"
            found.append(submodule if submodule in files else _known(source, files))
        return found
    if isinstance(node, ast.Call) and node.args:
        func = node.func
        called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        first = node.args[0]
        if (
            called == "import_module"
            and isinstance(first, ast.Constant)
            and isinstance(first.value, str)
        ):
            return [_known(first.value, files)]
    return []


def _known(dotted: str, files: dict[str, Path]) -> str:
    """`dotted` if it is a project module, its longest project prefix if a part of it is (a
    name that is not a module, such as `import kismet_tui.rules.nothing`), else its top name."""
    parts = dotted.split(".")
    for end in range(len(parts), 0, -1):
        candidate = ".".join(parts[:end])
        if candidate in files:
            return candidate
    return parts[0]


def build_graph(root: Path = ROOT) -> Graph:
    files = project_files(root)
    imports: dict[str, list[Import]] = {}
    outside: dict[str, list[Import]] = {}
    for module, path in files.items():
        source = path.read_text(encoding="utf-8")
        tree = ast.parse(source, filename=str(path))
        inside, other = imports.setdefault(module, []), outside.setdefault(module, [])
        for node, where in _statements(tree, calls_too="import_module" in source):
            for target in _targets(node, module, path, files):
                if target == "__future__":
                    continue
                found = Import(module, target, getattr(node, "lineno", 0), where)
                bucket = inside if target in files else other
                if found not in bucket:  # `from x import a, b` is one import of x
                    bucket.append(found)
    return Graph(root, files, imports, outside)


# -- circles --------------------------------------------------------------------------------


def strongly_connected(edges: dict[str, set[str]]) -> list[list[str]]:
    """The groups of two or more modules that each reach every other (Tarjan's algorithm,
    iterative so that a deep graph cannot hit the recursion limit), each sorted, in order."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    groups: list[list[str]] = []
    counter = 0
    for start in sorted(edges):
        if start in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    groups.append(sorted(group))
    return sorted(groups)


def _shortest_path(
    edges: dict[str, set[str]], start: str, goal: str, allowed: set[str]
) -> list[str]:
    """The shortest chain of imports from `start` to `goal` through `allowed` modules."""
    came_from: dict[str, str] = {}
    queue = deque([start])
    seen = {start}
    while queue:
        node = queue.popleft()
        if node == goal:
            path = [goal]
            while path[-1] != start:
                path.append(came_from[path[-1]])
            return path[::-1]
        for child in sorted(edges.get(node, ())):
            if child in allowed and child not in seen:
                seen.add(child)
                came_from[child] = node
                queue.append(child)
    raise ValueError(f"{goal} is not reachable from {start}")


@dataclass(frozen=True)
class Circle:
    """Modules that import each other, and chains that show how: every import between two of
    them lies on one of the chains, each a shortest way round back to where it started."""

    modules: tuple[str, ...]
    chains: tuple[tuple[str, ...], ...]


def circles(graph: Graph) -> list[Circle]:
    edges = graph.edges()
    found = []
    for group in strongly_connected(edges):
        members = set(group)
        chains: list[tuple[str, ...]] = []
        covered: set[tuple[str, str]] = set()
        for importer in group:
            for imported in sorted(edges[importer] & members):
                if (importer, imported) in covered:
                    continue
                chain = [importer] + _shortest_path(edges, imported, importer, members)
                covered.update(zip(chain, chain[1:]))
                chains.append(tuple(chain))
        found.append(Circle(tuple(group), tuple(chains)))
    return found


def describe_chain(graph: Graph, chain: Iterable[str]) -> str:
    """`a -> b -> a`, each step with the line that imports and how it runs."""
    steps = list(chain)
    words = [steps[0]]
    for importer, imported in zip(steps, steps[1:]):
        first = next(imp for imp in graph.imports[importer] if imp.imported == imported)
        where = "" if first.where == "module level" else f", {first.where}"
        words.append(f"-> {imported} (line {first.line}{where})")
    return " ".join(words)


def describe_circles(graph: Graph, found: list[Circle]) -> str:
    lines = []
    for number, circle in enumerate(found, 1):
        lines.append(
            f"circle {number}, {len(circle.modules)} modules: " + ", ".join(circle.modules)
        )
        lines.extend(f"    {describe_chain(graph, chain)}" for chain in circle.chains)
    return "\n".join(lines)


# -- the packages table ---------------------------------------------------------------------

STANDARD_LIBRARY = "the standard library"
ANYTHING = "anything"


@dataclass(frozen=True)
class Row:
    """One row of the table: a folder (as `kismet_tui/rules/`) and what it may import."""

    folder: str
    may_import: tuple[str, ...]  # short names of other rows, outside modules, or the words

    @property
    def short_name(self) -> str:
        return self.folder.rstrip("/").rpartition("/")[2]


class TableError(ValueError):
    """The doc's packages table cannot be read as the rules it is meant to state."""


@dataclass
class PackageTable:
    rows: list[Row]

    @classmethod
    def from_design(cls, text: str | None = None) -> PackageTable:
        """The table under `## The packages` in docs/design.md (or in `text`)."""
        text = DESIGN.read_text(encoding="utf-8") if text is None else text
        section = re.search(r"^## The packages\n(.*?)(?=^## )", text, re.M | re.S)
        if section is None:
            raise TableError("docs/design.md has no '## The packages' section")
        rows = []
        for line in section.group(1).splitlines():
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            if len(cells) != 3 or not line.startswith("|"):
                continue
            folder = re.match(r"`([^`]+/)`", cells[0])
            if folder is None:
                continue  # the header and its rule
            items = [item.strip() for item in re.split(r",| and ", cells[2]) if item.strip()]
            rows.append(Row(folder.group(1), tuple(_normal(item) for item in items)))
        if not rows:
            raise TableError("the packages table in docs/design.md has no rows")
        return cls(rows)

    def row_of(self, module_path: str) -> Row:
        """The row of the deepest folder holding `module_path` (as `kismet_tui/app.py`)."""
        holding = [row for row in self.rows if module_path.startswith(row.folder)]
        if not holding:
            raise TableError(f"no row of the packages table holds {module_path}")
        return max(holding, key=lambda row: len(row.folder))

    def named(self, item: str) -> Row | None:
        """The row `item` names by its short name (the folder's last part), if any."""
        matches = [row for row in self.rows if row.short_name == item]
        if len(matches) > 1:
            raise TableError(f"'{item}' names more than one folder of the packages table")
        return matches[0] if matches else None

    def problems(self) -> list[str]:
        """Items of the may-import column that name nothing: neither a row, nor a module that
        is installed, nor one pyproject.toml names (an optional extra's, such as uvloop), so
        that a typo in the doc fails rather than quietly allowing nothing."""
        declared = PYPROJECT.read_text(encoding="utf-8").replace("-", "_")
        found = []
        for row in self.rows:
            for item in row.may_import:
                if item in (STANDARD_LIBRARY, ANYTHING) or self.named(item):
                    continue
                if importlib.util.find_spec(item) is None and f'"{item}' not in declared:
                    found.append(
                        f"{row.folder} may import '{item}', which is neither a folder "
                        "of the table nor a module this project installs"
                    )
        return found

    def allows(self, importer: Row, imported: Row | str) -> bool:
        """Whether `importer`'s folder may import `imported` (a row, or an outside module)."""
        if ANYTHING in importer.may_import or imported == importer:
            return True
        if isinstance(imported, Row):
            return imported.short_name in importer.may_import
        if imported in sys.stdlib_module_names:
            return True  # the engine's purity within the standard library: test_engine_purity
        return imported in importer.may_import


def _normal(item: str) -> str:
    item = item.strip().strip("`").strip()
    if item.startswith(STANDARD_LIBRARY):
        return STANDARD_LIBRARY  # "the standard library only": the rows's only item
    return item.rstrip("/")


def _relative_path(graph: Graph, module: str) -> str:
    return graph.files[module].relative_to(graph.root).as_posix()


def forbidden_imports(graph: Graph, table: PackageTable) -> list[str]:
    """Every import, project or outside, that the table's may-import column does not allow,
    one line each, with the folder rule it breaks."""
    found = []
    for module in sorted(graph.files):
        importer = table.row_of(_relative_path(graph, module))
        for imp in graph.imports[module]:
            imported = table.row_of(_relative_path(graph, imp.imported))
            if not table.allows(importer, imported):
                found.append(
                    f"{imp.describe()} imports {imp.imported}, but {importer.folder} "
                    f"may not import {imported.folder}"
                )
        for imp in graph.outside[module]:
            if not table.allows(importer, imp.imported):
                found.append(
                    f"{imp.describe()} imports {imp.imported}, which {importer.folder} "
                    "may not import"
                )
    return found
