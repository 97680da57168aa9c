"""The rules of each game in the project's own words (dice.md, race.md, knock.md), shown on ? or F1."""
