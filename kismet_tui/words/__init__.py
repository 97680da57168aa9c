"""The move log in words: each engine note as a sentence, one module per game.

kismet_tui/words/log.py is the one way in (`event_lines`, `history_lines`); dice.py,
race.py and knock.py each say their own game's notes, common.py what the games share.
"""
