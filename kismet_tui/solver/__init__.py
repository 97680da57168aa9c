"""Optimal solitaire Kismet (the 1964 dice game) by dynamic programming, and decisions from it.

Not part of the pure engine: numpy is allowed here. The rules come from
`kismet_tui.rules.dice` (its `score` and `basic_bonus`), never restated.

- space.py: rolls, holds and score tables; states.py: turn states and transitions;
  turn.py: one turn for many states at once (the first algorithm, and the turn layers
  advice.py and simulate.py use); fast.py: the fast build of the whole table; table.py:
  build, cache (checksummed, locked) and load the value table; background.py: the build
  started by itself, in a child process, when a hard bot or a hint needs the table;
  advice.py: ranked choices for one turn state and dice; heuristic.py: a cheap approximate
  table for when the optimal one is missing; simulate.py: many games at once played by a
  table's policy (for the benchmark).
- `python -m kismet_tui.solver` builds the table into the user's cache folder by hand
  (about 10 s of CPU; `--rebuild` builds it again). The optimal expected score of a
  solitaire game is 315.104.
"""
