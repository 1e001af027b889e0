"""Sengoku Jidai's own command: `sheets-engine generate` (registered by the package's registry entry)."""

from __future__ import annotations

import click

from sheets_engine.output import emit_json, json_option, payload, print_text

EXIT_OK = 0


@click.command()
@click.argument("path")
@click.option("--provinces", "count", type=click.IntRange(min=2), required=True, help="How many provinces.")
@click.option("--clans", type=click.IntRange(min=1), help="How many clans (default: one per 12 provinces).")
@click.option("--seed", type=int, default=1, show_default=True, help="The same seed gives the same campaign.")
@click.option("--force", is_flag=True, help="Replace a workbook that is already there.")
@json_option()
def generate(path: str, count: int, clans: int | None, seed: int, force: bool, as_json: bool) -> None:
    """Create a valid synthetic campaign of any size (for benchmarks and scale tests).

    Example: sheets-engine generate big.xlsx --provinces 10000 --seed 7
    """
    from sheets_engine.sengoku.generate import generate as make
    from sheets_engine.stores import open_store

    tabs = make(count, clans, seed)
    open_store(path).create(tabs, overwrite=force)
    if as_json:
        clan_count = len(tabs["Clans"]) - 1
        emit_json(payload("ok", EXIT_OK, path=path, provinces=count, clans=clan_count, seed=seed, tabs=len(tabs)))
        return
    print_text(f"Created {path} with {count} provinces")
