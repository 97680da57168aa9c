"""The wire's action check (protocol/actions.build_action, derived from the engine's
declarations at import): its cost per action, median of several runs.

    python benchmarks/action_validator.py
"""

import statistics
import timeit

from protocol.actions import build_action

# One of each common kind: what a host checks on every `act`.
ACTIONS = [
    ("dice", {"type": "roll", "hold": [0, 3]}),
    ("dice", {"type": "score", "box": "aces"}),
    ("race", {"type": "grab", "card": 3, "id": 17}),
    ("knock", {"type": "lay", "card": 7, "extra": None}),
    ("knock", {"type": "knock"}),
]
ROUNDS, RUNS = 20_000, 7


def per_action_ns() -> float:
    def check_all() -> None:
        for ruleset, action in ACTIONS:
            build_action(ruleset, action)

    return min(timeit.repeat(check_all, number=ROUNDS, repeat=3)) / (ROUNDS * len(ACTIONS)) * 1e9


def main() -> None:
    runs = [per_action_ns() for _ in range(RUNS)]
    print(
        f"build_action: {statistics.median(runs):.0f} ns per action "
        f"(median of {RUNS} runs, {len(ACTIONS)} kinds)"
    )


if __name__ == "__main__":
    main()
