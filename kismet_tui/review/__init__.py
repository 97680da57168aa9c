"""After a game: what a player can learn from its log (docs/review.md).

dice.py grades every decision of a finished dice game against the optimal solitaire
strategy (the solver's table), seat by seat; race.py reads each player's reaction times,
knock.py their missed chances. A review reads only the log (header and stamped events), the
engine's notes and the solver: nothing is stored that the log cannot rebuild.
"""
