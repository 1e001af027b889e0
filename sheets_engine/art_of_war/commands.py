"""The Art of War's own command: `sheets-engine tournament` (registered by the package's registry entry)."""

from __future__ import annotations

import click

from sheets_engine.output import emit_json, json_option, payload, print_table

EXIT_OK = 0


class BadTempersOption(click.ClickException):
    """A --tempers the tournament cannot seat: exit 2 with the one-line reason (as every bad input)."""

    exit_code = 2


@click.command()
@click.option("--games", type=click.IntRange(min=1), default=30, show_default=True, help="How many games.")
@click.option("--seed", default="1", show_default=True, help="The words or number the boards are made from.")
@click.option("--houses", type=click.IntRange(2, 6), default=4, show_default=True, help="Houses in each game.")
@click.option("--tempers", default="cautious,steady,ruthless", show_default=True, help="The seats' tempers, in turn.")
@json_option()
def tournament(games: int, seed: str, houses: int, tempers: str, as_json: bool) -> None:
    """The Art of War: play bot-only games on fresh boards and print the wins by temper and seat.

    The seats rotate over the tempers in rounds played on one board each, so every temper sits in
    every seat of the same boards. The same seed plays the same games. Nothing is written. Each win
    rate is printed with its 95% (Wilson) interval.

    Example: sheets-engine tournament --games 30 --seed 1 --tempers steady,hard --houses 2
    """
    from sheets_engine.art_of_war import tournament as aow

    try:
        standings = aow.tournament(games, seed, houses, tempers=aow.parse_tempers(tempers))
    except aow.BadTempers as error:
        raise BadTempersOption(str(error)) from error
    if as_json:
        emit_json(payload("ok", EXIT_OK, **aow.summary(standings, seed)))
        return
    for title, header, rows in aow.tables(standings, seed):
        print_table(header, rows, title)
