"""The Art of War's own command: `sheets-engine tournament` (registered by the package's registry entry)."""

from __future__ import annotations

import click

from sheets_engine.output import emit_json, json_option, payload, print_table

EXIT_OK = 0


@click.command()
@click.option("--games", type=click.IntRange(min=1), default=30, show_default=True, help="How many games.")
@click.option("--seed", default="1", show_default=True, help="The words or number the boards are made from.")
@click.option("--houses", type=click.IntRange(2, 6), default=4, show_default=True, help="Houses in each game.")
@json_option()
def tournament(games: int, seed: str, houses: int, as_json: bool) -> None:
    """The Art of War: play bot-only games on fresh boards and print the wins by temper and seat.

    Each game's seats get the tempers in turn (cautious, steady, ruthless), shifted by one each game,
    so every temper sits in every seat. The same seed plays the same games. Nothing is written.

    Example: sheets-engine tournament --games 30 --seed 1
    """
    import time

    from sheets_engine.art_of_war.tournament import TEMPERS
    from sheets_engine.art_of_war.tournament import tournament as play

    started = time.perf_counter()
    standings = play(games, seed, houses)
    seconds = round(time.perf_counter() - started, 2)
    seats = range(1, houses + 1)
    if as_json:
        table = {t.value: {str(s): standings.wins.get((t.value, s), 0) for s in seats} for t in TEMPERS}
        emit_json(payload("ok", EXIT_OK, games=games, seed=seed, houses=houses, wins=table,
                          conquests=standings.conquests, seasons=standings.seasons, seconds=seconds))  # fmt: skip
        return
    rows = []
    for temper in TEMPERS:
        cells = [
            f"{standings.wins.get((temper.value, s), 0)}/{standings.played.get((temper.value, s), 0)}" for s in seats
        ]
        total = sum(standings.wins.get((temper.value, s), 0) for s in seats)
        played = sum(standings.played.get((temper.value, s), 0) for s in seats)
        rows.append([temper.value, *cells, f"{total}/{played}"])
    title = (
        f"{games} game(s) of {houses} houses, seed {seed}: wins/games by temper and seat "
        f"({standings.conquests} won by conquest, the rest on the mandate after season 60; {seconds} s)"
    )
    print_table(("temper", *[f"seat {s}" for s in seats], "all seats"), rows, title)
