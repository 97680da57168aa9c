"""Kismet for the terminal: the 1964 dice game and the 1997 card games, played over a network.

This package holds the rules engine (`kismet_tui.rules`, pure and standard-library only) and
the Textual client. Importing the package itself imports nothing heavy, so that the host and
headless bots can use the engine without Textual. The version is pyproject.toml's alone:
kismet_tui/version.py reads it for every command's `--version`.
"""
