"""`python -m kismet_tui.solver`: build (or load) the optimal table and print its value.

    python -m kismet_tui.solver [--rebuild] [--lines]

`--rebuild` builds it again even when it is cached. `--lines` is for background.py, which
runs this as a child process: instead of a progress bar it prints one line per event on
stdout ("progress DONE TOTAL", "waiting", "damaged WHY", "ready PATH").
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import time

from . import table
from .states import lower_index, upper_index


def _line(*words: object) -> None:
    print(*words, flush=True)


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m kismet_tui.solver",
        description="Build (or load) the optimal table of solitaire dice Kismet, which the "
        "hard bot and the hint key use, and print its value.",
    )
    parser.add_argument(
        "--rebuild", action="store_true", help="build the table again even when it is cached"
    )
    parser.add_argument(
        "--lines",
        action="store_true",
        help="one line per event on stdout instead of a progress bar (for the background build)",
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    if args.lines:
        # A background build: leave the CPU to the program that asked for it, and stop
        # cleanly (no temporary file left) when it ends.
        if hasattr(os, "nice"):
            os.nice(10)
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
        last = [-1]

        def progress(done: int, total: int) -> None:
            percent = 100 * done // total
            if percent != last[0]:  # a line per percent is plenty
                last[0] = percent
                _line("progress", done, total)

        table.ensure_built(
            progress=progress,
            on_wait=lambda: _line("waiting"),
            on_damaged=lambda why: _line("damaged", why),
        )
        _line("ready", table.cache_path())
        return 0
    rebuild = args.rebuild
    started = time.monotonic()
    if rebuild:
        with table.locked(on_wait=lambda: print("Another program is building the table: waiting.")):
            V, info = table.build_and_save(progress=table.text_progress())
        print(f"Built in {info['build_seconds']:.1f} s, saved to {table.cache_path()}")
    else:
        built: list[bool] = []
        bar = table.text_progress()

        def building(done: int, total: int) -> None:
            built.append(True)
            bar(done, total)

        V = table.ensure_built(
            progress=building,
            on_wait=lambda: print("Another program is building the table: waiting."),
            on_damaged=lambda why: print(
                f"The cached table is damaged ({why}): building it again."
            ),
        )
        if built:
            print(f"Built in {time.monotonic() - started:.1f} s, saved to {table.cache_path()}")
        else:
            print(f"Loaded {table.cache_path()} in {time.monotonic() - started:.2f} s")
    print(
        f"Optimal expected score of a solitaire game: {V[upper_index(0, 0), lower_index(0, False)]:.4f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
