"""`python -m kismet_tui.solver`: build (or load) the optimal table and print its value."""

from __future__ import annotations

import sys
import time

from . import table
from .states import lower_index, upper_index


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    rebuild = "--rebuild" in argv
    started = time.monotonic()
    V = None if rebuild else table.load()
    if V is None:
        V, info = table.build_and_save(progress=table.text_progress())
        print(f"Built in {info['build_seconds']:.1f} s, saved to {table.cache_path()}")
    else:
        print(f"Loaded {table.cache_path()} in {time.monotonic() - started:.2f} s")
    print(f"Optimal expected score of a solitaire game: {V[upper_index(0, 0), lower_index(0, False)]:.4f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
