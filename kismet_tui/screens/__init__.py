"""The screens of the Kismet client: lobby, new table, the three games, end of game, help."""
