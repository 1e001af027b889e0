"""The commands that read History back: history and explain."""

from __future__ import annotations

import click

from sheets_engine.cli import common
from sheets_engine.cli.common import EXIT_OK, print_history
from sheets_engine.cli.group import cli
from sheets_engine.core.names import match, plural
from sheets_engine.output import emit_json, json_option, nl_option, one_format, payload, print_text, table_format_option
from sheets_engine.progress import progress


@cli.command()
@click.argument("source")
@click.option("--turn", type=int, help="Only this turn's changes.")
@click.option("--tab", help="Only changes to this tab (any case).")
@click.option("--key", help="Only changes to the row of this name (a province, army, character...).")
@click.option("--cause", help="Only changes whose cause contains these words (any case).")
@json_option("Print one JSON object whose `rows` are the History rows.")
@table_format_option
@nl_option
def history(
    source: str,
    turn: int | None,
    tab: str | None,
    key: str | None,
    cause: str | None,
    as_json: bool,
    table_format: str | None,
    as_lines: bool,
) -> None:
    """Print the changelog (the History tab): every change, its old and new value and cause.

    Example: sheets-engine history campaign.xlsx --turn 3 --tab Armies --cause battle
    """
    from sheets_engine.history import read_history

    table_format = one_format(as_lines, as_json, table_format)
    with progress("Reading History", quiet=as_json or as_lines):
        rows = read_history(common.store_for(source), turn=turn, tab=tab, key=key, cause=cause)
    if as_json:
        emit_json(payload("ok", EXIT_OK, count=len(rows), rows=rows))
        return
    print_history(rows, f"History: {plural(len(rows), 'change')}", table_format)


@cli.command()
@click.argument("source")
@click.argument("key")
@click.option("--turn", type=int, help="Only this turn's changes.")
@json_option("Print one JSON object whose `rows` are the History rows, each with `About`.")
@table_format_option
@nl_option
def explain(source: str, key: str, turn: int | None, as_json: bool, table_format: str | None, as_lines: bool) -> None:
    """Why did it change? Every change to one province, army, character or clan, with its cause and dice.

    KEY is a name as the sheet spells it (any case). Lists the History rows of KEY's own row, those
    whose old or new value is KEY (an army losing its leader), and those whose cause names KEY (the
    orders a character gave, a battle at a province).

    Example: sheets-engine explain campaign.xlsx "Oda Main Host" --turn 3
    """
    from sheets_engine.audit import explain as about
    from sheets_engine.audit import suggest
    from sheets_engine.history import read_history

    table_format = one_format(as_lines, as_json, table_format)
    with progress("Reading History", quiet=as_json or as_lines):  # no KEY in it: rich would read its [markup]
        rows = read_history(common.store_for(source), turn=turn)
        found = about(rows, key)
        key = match(key, (row.get("Key") for row in rows)) or key.strip()  # as the sheet spells it
        close = suggest(rows, key) if not found else None
    if as_json:
        rows_about = [{**e.row, "About": e.about} for e in found]
        emit_json(payload("ok", EXIT_OK, key=key, count=len(found), rows=rows_about, did_you_mean=close))
        return
    if not found and not table_format:
        hint = f" (did you mean '{close}'?)" if close else ""
        when = f" in turn {turn}" if turn is not None else ""
        print_text(f"History records no change to '{key}'{when}{hint}.")
        return
    if table_format == "nl":  # each row as --json's `rows` holds it, with About
        print_history([{**e.row, "About": e.about} for e in found], "", "nl")
        return
    print_history([dict(e.row) for e in found], f"{key}: {plural(len(found), 'change')}", table_format)
