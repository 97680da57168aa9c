"""What a player learns after a game, read from its log: the dice review against the optimal
player, race reaction times, knock's missed chances (docs/review.md)."""
