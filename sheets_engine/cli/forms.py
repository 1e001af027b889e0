"""The Google Form: form sync (its dropdowns set from the sheet)."""

from __future__ import annotations

import click

from sheets_engine.cli import common
from sheets_engine.cli.campaign import forms_client_of
from sheets_engine.cli.common import EXIT_OK
from sheets_engine.cli.group import cli
from sheets_engine.output import emit_json, json_option, payload, print_text, snake, visible


@cli.group()
def form() -> None:
    """The Google Form players send orders with: keep its dropdowns in step with the sheet.

    Example: sheets-engine form sync gsheet:KEY --form FORM_ID
    """


@form.command("sync")
@click.argument("source")
@click.option("--form", "form_id", metavar="FORM_ID", help="The Form's id (the long id in its edit URL); kept in Game.")
@click.option("--dry-run", is_flag=True, help="Say how many options each question would get, and change nothing.")
@json_option()
def form_sync(source: str, form_id: str | None, dry_run: bool, as_json: bool) -> None:
    """Set the Form's dropdowns from the sheet (Character, Order and Target), in one update.

    Character gets the living characters, Order the order names (Missions), Target every province,
    army, clan and living character. The first run finds the questions by title and keeps their
    ids in the Game tab (form_character_item, form_order_item, form_target_item); later runs use
    the ids. For Clan War: Faction, Order, Item, Province, Mover and To (the factions, the orders,
    the Catalogue, the provinces, the forces in play). Warns when the Form is not linked to this
    spreadsheet or does not collect Verified emails. Exits 3 if a GM edited the Form meanwhile
    (nothing changed: run again).

    Example: sheets-engine form sync gsheet:KEY --form 1FAIpQLSf...
    """
    from sheets_engine.forms import sync

    store = common.store_for(source)
    report = sync(store, forms_client_of(store)(), form_id, dry_run=dry_run)
    if as_json:
        emit_json(
            payload(
                "ok",
                EXIT_OK,
                form_id=report.form_id,
                dry_run=report.dry_run,
                linked_now=report.linked_now,
                options={snake(k): v for k, v in report.options.items()},
                warnings=report.warnings,
                cells_written=report.cells_written,
            )
        )
    else:
        verb = "Would set" if dry_run else "Set"
        counts = ", ".join(f"{name} {count}" for name, count in report.options.items())
        print_text(f"{verb} the Form's options ({counts}).")
        if report.linked_now:
            print_text("Linked: the questions' item ids are kept in the Game tab from now on.")
    for warning in report.warnings:
        click.echo(f"Warning: {visible(warning)}", err=True)
