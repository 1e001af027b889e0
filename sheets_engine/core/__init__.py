"""Ruleset-independent pieces: cell values, changes, dice, problems, tables."""
