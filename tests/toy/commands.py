"""Tally's own command: `sheets-engine tally-scores SOURCE`, registered by the package's entry."""

from __future__ import annotations

import click

from sheets_engine.output import print_text


@click.command("tally-scores")
@click.argument("source")
def tally_scores(source: str) -> None:
    """Print each player's score."""
    from sheets_engine.views import open_view

    players = open_view(source, ()).state.frame("Players")
    print_text(", ".join(f"{p} {players.at[p, 'Score']}" for p in players.index))
