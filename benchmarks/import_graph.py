"""Prints the project's import graph (each module of kismet_tui/, protocol/ and server/, and
the project modules it imports), then its circles, each as chains of imports, and the
imports docs/design.md's packages table does not allow. The graph is tests/import_graph.py's,
the one tests/test_import_graph.py checks; the time to build it is printed last (median of
--runs; wall clock and this process's CPU time, which a busy machine disturbs less), since
the test must stay quick.

    python benchmarks/import_graph.py [--root TREE] [--runs 5] [--no-graph]

--root reads another checkout (e.g. a worktree of main) with this checkout's reader, to show
a graph before and after a change; its own docs/design.md gives the table.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.import_graph import (
    PackageTable,
    TableError,
    build_graph,
    circles,
    describe_circles,
    forbidden_imports,
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--no-graph", action="store_true", help="only the circles and counts")
    args = parser.parse_args()
    root = args.root.resolve()

    wall, cpu = [], []
    for _ in range(args.runs):
        started, started_cpu = time.perf_counter(), time.process_time()
        graph = build_graph(root)
        found = circles(graph)
        wall.append(time.perf_counter() - started)
        cpu.append(time.process_time() - started_cpu)

    edges = graph.edges()
    if not args.no_graph:
        print(f"# the import graph of {root} (module -> the project modules it imports)")
        for module in sorted(edges):
            print(f"{module} -> {', '.join(sorted(edges[module])) or '(none)'}")
        print()
    print(
        f"{len(edges)} modules, {sum(len(targets) for targets in edges.values())} imports "
        f"between them, {len(found)} circles "
        f"({sum(len(circle.modules) for circle in found)} modules in circles)"
    )
    if found:
        print(describe_circles(graph, found))
    try:
        table = PackageTable.from_design((root / "docs" / "design.md").read_text())
        forbidden = table.problems() + forbidden_imports(graph, table)
    except TableError as error:
        forbidden = [f"the packages table cannot be read: {error}"]
    print(f"{len(forbidden)} imports the packages table does not allow")
    for line in forbidden:
        print(f"    {line}")
    print(
        f"graph and circles built in {statistics.median(wall) * 1000:.0f} ms, "
        f"{statistics.median(cpu) * 1000:.0f} ms of CPU (medians of {args.runs})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
