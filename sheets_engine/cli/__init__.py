"""The `sheets-engine` command: parses, calls the service layer, formats. No rules here.

Exit codes: 0 done; 2 bad input (every problem listed) or a setup fault that lasts (a read-only
workbook, a full disk: the message says what to do); 1 unexpected failure or a passing one (the
network, a 5xx); 3 the spreadsheet changed while the engine worked (nothing written: run again);
4 another run is working on the campaign, or the workbook is open in Excel or LibreOffice (nothing
written: run again later).
"""

from __future__ import annotations

import atexit
import gc
import os
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

import click

from sheets_engine.core.lifecycle import RunStatus
from sheets_engine.output import (
    JsonMode,
    emit_json,
    json_option,
    payload,
    print_table,
    print_text,
    snake,
    table_format_option,
    visible,
)

EXIT_OK, EXIT_FAILURE, EXIT_BAD_INPUT = 0, 1, 2
EXIT_CONFLICT = 3  # a GM edited cells the run was about to overwrite; nothing was written
EXIT_BUSY = 4  # another run holds the campaign's lock, or Excel/LibreOffice has it open; nothing was written


_OVERWRITE_HELP = (
    "Replace a GM's formula with the value the rules give when a cell the engine writes holds one "
    "(without it the run stops, exit 2, naming every such cell)."
)


class BadInput(click.ClickException):
    """Bad input: exit 2 with a one-line message."""

    exit_code = EXIT_BAD_INPUT


PROBLEM_COLUMNS = ("Tab", "Row", "Column", "Value", "Expected", "Severity")
HISTORY_COLUMNS = ("Turn", "Tab", "Key", "Column", "Old", "New", "Cause", "Roll")
CHANGE_COLUMNS = ("Tab", "Key", "Column", "Old", "New", "Cause")


def _problem_row(p: Any) -> list[Any]:
    return [p.tab, "" if p.row is None else p.row, p.column, p.value, p.expected, p.severity.value]


def _print_problems(problems: list[Any], table_format: str | None = None) -> None:
    title = f"{len(problems)} problem(s)"
    print_table(PROBLEM_COLUMNS, (_problem_row(p) for p in problems), title, table_format)


def _print_changes(report: Any, title: str) -> None:
    print_table(CHANGE_COLUMNS, ([row[c] for c in CHANGE_COLUMNS] for row in report.history), title)


def _counts(report: Any) -> dict[str, Any]:
    """The counts every writing command reports."""
    return {
        "dry_run": report.dry_run,
        "cells_changed": len(report.changes),
        "history_rows": len(report.history),
        "cells_written": 0 if report.dry_run else report.cells_written,
    }


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="sheets-engine")
@click.option("--debug", is_flag=True, help="Show the full traceback of an unexpected failure.")
@click.option(
    "--credentials",
    metavar="KEY.json",
    help="Service-account key file for Google Sheets (default: $GOOGLE_APPLICATION_CREDENTIALS).",
)
@click.pass_context
def cli(ctx: click.Context, debug: bool, credentials: str | None) -> None:
    """Resolve turns of a strategy campaign kept in a spreadsheet.

    SOURCE is a campaign workbook (.xlsx) or a Google Sheet (its URL, or gsheet:KEY; the
    Google Sheets set-up guide is docs/google-sheets.md in the sheets-engine repository).

    Exit codes: 0 done, 2 bad input (every problem is listed) or a setup fault to fix (a
    read-only workbook, a full disk), 1 unexpected failure, 3 the spreadsheet changed during
    the run (nothing written), 4 another run is working on the campaign or the workbook is open
    in Excel or LibreOffice (nothing written: run again later). A usage error (an unknown
    option, a missing argument) exits 2 as well, with click's message. With --json, every
    command prints exactly one JSON object on stdout, whatever the exit.

    Example: sheets-engine init camp.xlsx --demo && sheets-engine resolve camp.xlsx
    """
    ctx.obj = {"debug": debug, "credentials": credentials}
    JsonMode.on = False  # set again by the command's --json (parsed after this)


def _store(source: str) -> Any:
    """The store for SOURCE, with the --credentials given to the command group."""
    from sheets_engine.stores import open_store

    options = click.get_current_context().find_root().obj or {}
    return open_store(source, credentials=options.get("credentials"))


@cli.command()
@click.argument("path")
@click.option("--demo", is_flag=True, help="Fill it with the ruleset's demo campaign (Sengoku: 32 provinces, 5 clans).")
@click.option("--force", is_flag=True, help="Replace a workbook that is already there.")
@click.option(
    "--ruleset",
    default="sengoku",
    show_default=True,
    metavar="NAME",
    help="The game the campaign is played under (an unknown name is refused with the list of known ones).",
)
@click.option("--houses", type=int, help="The Art of War: how many houses (2 to 6).")
@click.option("--people", type=int, help="The Art of War: how many of the houses people play (the rest are bots).")
@click.option("--temper", help="The Art of War: the bots' temper (cautious, steady or ruthless).")
@click.option("--seed", help="The Art of War: the words or number the board is made from (same seed, same board).")
@json_option()
def init(
    path: str,
    demo: bool,
    force: bool,
    ruleset: str,
    houses: int | None,
    people: int | None,
    temper: str | None,
    seed: str | None,
    as_json: bool,
) -> None:
    """Create a new campaign at PATH from the templates: a workbook, or the tabs of a Google Sheet.

    Example: sheets-engine init campaign.xlsx --demo
    """
    from sheets_engine import app
    from sheets_engine.core.ruleset import SetupError

    options = {"houses": houses, "people": people, "temper": temper, "seed": seed}
    try:
        tabs = app.init(_store(path), demo=demo, force=force, ruleset=ruleset.strip().casefold(), options=options)
    except KeyError as error:
        raise BadInput(str(error.args[0])) from error
    except SetupError as error:
        raise BadInput(str(error)) from error
    if as_json:
        emit_json(payload("ok", EXIT_OK, path=path, demo=demo, ruleset=ruleset, tabs=tabs))
        return
    print_text(f"Created {path}" + (" with the demo campaign" if demo else ""))


@cli.command()
@click.argument("source")
@json_option("Print one JSON object: status, exit, the counts and every problem.")
@table_format_option
def validate(source: str, as_json: bool, table_format: str | None) -> None:
    """List every problem in the campaign: tab, row, column, value, what was expected.

    Exits 2 if there is any error (warnings alone exit 0).

    Example: sheets-engine validate campaign.xlsx
    """
    from sheets_engine import app

    problems = app.validate(_store(source))
    errors = [p for p in problems if p.severity.value == "error"]
    code = EXIT_BAD_INPUT if errors else EXIT_OK
    if as_json:
        emit_json(
            payload(
                "invalid" if errors else "ok",
                code,
                errors=len(errors),
                warnings=len(problems) - len(errors),
                problems=[p.as_dict() for p in problems],
            )
        )
    elif problems or table_format:
        _print_problems(problems, table_format)
    else:
        click.echo("No problems found.")
    if code:
        sys.exit(code)


@cli.command()
@click.argument("source")
@click.option("--dry-run", is_flag=True, help="Print what would change and write nothing.")
@click.option("--overwrite-formulas", is_flag=True, help=_OVERWRITE_HELP)
@json_option()
def recalc(source: str, dry_run: bool, overwrite_formulas: bool, as_json: bool) -> None:
    """Recompute the derived columns (guide Section 11) and write the cells that changed.

    Example: sheets-engine recalc campaign.xlsx --dry-run
    """
    from sheets_engine import app

    report = app.recalc(_store(source), dry_run=dry_run, overwrite_formulas=overwrite_formulas)
    if as_json:
        emit_json(payload("ok", EXIT_OK, **_counts(report)))
        return
    if dry_run:
        _print_changes(report, f"{len(report.changes)} cell(s) would change (dry run: nothing written)")
    else:
        click.echo(f"{len(report.changes)} cell(s) changed, {len(report.history)} History row(s) added.")


@cli.command()
@click.argument("source")
@click.option("--turn", type=int, help="Only this turn's changes.")
@click.option("--tab", help="Only changes to this tab (any case).")
@click.option("--key", help="Only changes to the row of this name (a province, army, character...).")
@click.option("--cause", help="Only changes whose cause contains these words (any case).")
@json_option("Print one JSON object whose `rows` are the History rows.")
@table_format_option
def history(
    source: str,
    turn: int | None,
    tab: str | None,
    key: str | None,
    cause: str | None,
    as_json: bool,
    table_format: str | None,
) -> None:
    """Print the changelog (the History tab): every change, its old and new value and cause.

    Example: sheets-engine history campaign.xlsx --turn 3 --tab Armies --cause battle
    """
    from sheets_engine.history import read_history

    rows = read_history(_store(source), turn=turn, tab=tab, key=key, cause=cause)
    if as_json:
        emit_json(payload("ok", EXIT_OK, count=len(rows), rows=rows))
        return
    _print_history(rows, f"History: {len(rows)} change(s)", table_format)


def _print_history(rows: list[dict[str, Any]], title: str, table_format: str | None = None) -> None:
    print_table(HISTORY_COLUMNS, ([row.get(c) for c in HISTORY_COLUMNS] for row in rows), title, table_format)


@cli.command()
@click.argument("source")
@click.argument("key")
@click.option("--turn", type=int, help="Only this turn's changes.")
@json_option("Print one JSON object whose `rows` are the History rows, each with `About`.")
@table_format_option
def explain(source: str, key: str, turn: int | None, as_json: bool, table_format: str | None) -> None:
    """Why did it change? Every change to one province, army, character or clan, with its cause and dice.

    KEY is a name as the sheet spells it (any case). Lists the History rows of KEY's own row, those
    whose old or new value is KEY (an army losing its leader), and those whose cause names KEY (the
    orders a character gave, a battle at a province).

    Example: sheets-engine explain campaign.xlsx "Oda Main Host" --turn 3
    """
    from sheets_engine.audit import explain as about
    from sheets_engine.audit import suggest
    from sheets_engine.history import read_history

    rows = read_history(_store(source), turn=turn)
    found = about(rows, key)
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
    _print_history([e.row for e in found], f"{key}: {len(found)} change(s)", table_format)


@cli.command()
@click.argument("source")
@click.option(
    "--turn", type=click.IntRange(min=1), required=True, metavar="N", help="The turn to undo, with every turn after it."
)
@click.option("--dry-run", is_flag=True, help="Print every cell that would be restored and write nothing.")
@json_option()
def rollback(source: str, turn: int, dry_run: bool, as_json: bool) -> None:
    """Put the campaign back as it was before turn N resolved, from History's old values.

    Turn N and every later turn are undone, newest first: Game turn becomes N and
    last_resolved_turn N-1; rows those turns added (orders copied from the form, new armies,
    letters) are cleared, and so are their Battles and Notifications rows. The rollback is
    recorded in History (cause "rollback to before turn N"). Resolving again gives the same result.

    Example: sheets-engine rollback campaign.xlsx --turn 3 --dry-run
    """
    from sheets_engine import app
    from sheets_engine.rollback import RollbackError

    try:
        report = app.rollback(_store(source), turn, dry_run=dry_run)
    except RollbackError as error:
        raise BadInput(f"cannot roll back to before turn {turn}: {error}") from error
    summary = dict(report.summary)
    edited = summary.pop("edited", [])
    if as_json:
        fields = {snake(k): v for k, v in summary.items()} | _counts(report)
        emit_json(payload("ok", EXIT_OK, **fields, edited=edited))
        return
    if dry_run:
        _print_changes(report, f"{len(report.changes)} cell(s) would be restored (dry run: nothing written)")
    cleared = ", ".join(f"{v} {k}" for k, v in summary.items() if k.endswith("rows cleared") and v)
    done = "Would roll back" if dry_run else "Rolled back"
    click.echo(
        f"{done} to before turn {turn}: {summary['runs undone']} run(s) undone, "
        f"{summary['cells restored']} cell(s) restored"
        + (f", {cleared}" if cleared else "")
        + f"; Game turn is {turn}."
    )
    if edited:
        shown = "; ".join(edited[:5]) + (f" and {len(edited) - 5} more" if len(edited) > 5 else "")
        click.echo(
            visible(f"Warning: {len(edited)} cell(s) edited since the engine wrote them were restored too: {shown}"),
            err=True,
        )


@cli.command()
@click.argument("source")
@click.option("--dry-run", is_flag=True, help="Print every change the turn would make and write nothing.")
@json_option()
@click.option(
    "--force",
    is_flag=True,
    help="Resolve now, before the deadline (or min_hours_between_turns); orders sent by now join the turn.",
)
@click.option(
    "--now",
    "at",
    metavar="TIME",
    help="Run as if at TIME (YYYY-MM-DD HH:MM[:SS], in the campaign's time_zone unless it ends in +HH:MM or Z).",
)
@click.option("--overwrite-formulas", is_flag=True, help=_OVERWRITE_HELP)
def resolve(source: str, dry_run: bool, as_json: bool, force: bool, at: str | None, overwrite_formulas: bool) -> None:
    """Resolve the Game tab's turn: every order, in the rules' fixed sequence, in one write.

    A turn that was already resolved, or is not due yet (its deadline has not passed), is left
    alone (exit 0), so cron may run this every few minutes: each turn resolves once, at its deadline.

    Example: sheets-engine resolve campaign.xlsx --dry-run
    """
    from sheets_engine import app

    now = _moment(at) if at else None
    store = _store(source)
    report = _with_progress(
        lambda: app.resolve(
            store, dry_run=dry_run, now=now, force=force, overwrite_formulas=overwrite_formulas, forms=_forms(store)
        ),
        as_json,
    )
    _print_resolution(report, as_json)


def _forms(store: Any) -> Any:
    """Makes the Forms client when one is needed: the Google Sheet's own session (its credentials carry
    the forms.body scope), else the --credentials key file. $SHEETS_ENGINE_FORMS_API moves it to a stand-in."""

    def make() -> Any:
        import os

        from sheets_engine.stores.gforms import FORMS_ROOT_ENV, FormsClient, forms_client
        from sheets_engine.stores.gsheets import load_credentials

        root = os.environ.get(FORMS_ROOT_ENV) or None
        client = getattr(store, "client", None)
        if getattr(client, "session", None) is not None and hasattr(store, "account"):
            return FormsClient(client.session, client.retry, root, store.account)
        options = click.get_current_context().find_root().obj or {}
        return forms_client(load_credentials(options.get("credentials")), api_root=root)

    return make


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
    """Set the Form's Character, Order and Target dropdowns from the sheet, in one update.

    Character gets the living characters, Order the order names (Missions), Target every province,
    army, clan and living character. The first run finds the questions by title and keeps their
    ids in the Game tab (form_character_item, form_order_item, form_target_item); later runs use
    the ids. Warns when the Form is not linked to this spreadsheet or does not collect Verified
    emails. Exits 3 if a GM edited the Form meanwhile (nothing changed: run again).

    Example: sheets-engine form sync gsheet:KEY --form 1FAIpQLSf...
    """
    from sheets_engine import app
    from sheets_engine.forms import sync

    store = _store(source)
    with app.exclusive(store, "form sync", dry_run):
        report = sync(store, _forms(store)(), form_id, dry_run=dry_run)
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


def _moment(text: str) -> datetime:
    """--now's time: ISO 8601; without a zone it is left naive (the campaign's time_zone)."""
    try:
        return datetime.fromisoformat(text.strip())
    except ValueError as error:
        raise BadInput(f"--now '{text}' is not a time (YYYY-MM-DD HH:MM:SS, optionally +HH:MM or Z)") from error


def _with_progress(work: Any, quiet: bool) -> Any:
    if quiet or not sys.stderr.isatty():
        return work()
    from rich.console import Console

    with Console(stderr=True).status("Resolving the turn..."):
        return work()


def _resolution_payload(report: Any, **extra: Any) -> dict[str, Any]:
    summary = {snake(k): v for k, v in report.summary.items()}
    counts = {
        **_counts(report),
        "resolution": report.resolution if report.history else "",
        "notifications": len(report.logs.get("Notifications", [])),
        "battles": len(report.logs.get("Battles", [])),
        **({"form": report.form} if report.form else {}),
        **extra,
    }
    # The summary's counts come first; the rows actually written win a clash of names.
    status = {RunStatus.NOTHING: "nothing_to_do", RunStatus.PAUSED: "paused"}.get(report.status, "ok")
    return payload(status, EXIT_OK, **(summary | counts), headline=report.headline)


def _print_resolution(report: Any, as_json: bool) -> None:
    summary = dict(report.summary)
    if as_json:
        emit_json(_resolution_payload(report))
        return
    if report.status is RunStatus.NOTHING:
        print_text(report.headline)
        return
    if report.dry_run:
        _print_changes(
            report,
            f"Turn {summary.get('turn')}: {len(report.changes)} cell(s) would change (dry run: nothing written)",
        )
    lines = [[name, value] for name, value in summary.items() if name not in ("resolved", "turn", "year", "winter")]
    lines.append(["cells changed", len(report.changes)])
    lines.append(["notifications", len(report.logs.get("Notifications", []))])
    if report.form:
        done = [w for w, ok in (("closed", report.form.get("closed")), ("reopened", report.form.get("reopened"))) if ok]
        lines.append(["form", " and ".join(done) if done else "not closed"])
    print_table(("", ""), lines, report.headline)  # the ruleset's words, as given


@cli.command()
@click.argument("source")
@json_option()
def check(source: str, as_json: bool) -> None:
    """Before the deadline: copy new form responses into Orders and preview every Pending order's Result.

    Each Pending order of the current turn gets a Result starting "Check: " (valid now, will fail
    and why, or what it depends on: the dice, other clans' orders); its Status stays Pending and
    no game state changes. `resolve` later writes the real Result over it. Safe from cron: a run
    with nothing new writes nothing.

    Example: sheets-engine check campaign.xlsx
    """
    from sheets_engine.sengoku.check import check as run_check

    report = run_check(_store(source))
    summary = dict(report.summary)
    if as_json:
        fields = {snake(k): v for k, v in summary.items()}
        fields |= {"cells_written": report.cells_written, "history_rows": len(report.history)}
        emit_json(payload("ok" if summary.get("checked") else "nothing_to_do", EXIT_OK, **fields))
        return
    if not summary.get("checked"):
        print_text(f"Nothing to do: {summary.get('reason')}.")
        return
    counts = ", ".join(f"{summary[k]} {k}" for k in ("valid now", "will fail", "will not count") if summary[k])
    depends = summary["depend on dice or other clans"]
    print_text(
        f"Turn {summary['turn']}: {summary['form responses copied']} form response(s) copied, "
        f"{summary['orders checked']} order(s) checked"
        + (
            f" ({counts}" + (f", {depends} depend on dice or other clans" if depends else "") + ")"
            if counts or depends
            else ""
        )
        + f"; {report.cells_written} cell(s) written."
    )


@cli.command()
@click.argument("source")
@click.option("--out", "out", required=True, metavar="DIR", help="The folder the reports are written to.")
@click.option("--turn", type=click.IntRange(min=0), metavar="N", help="The turn reported (default: the last resolved).")
@json_option("Also write each report's content as JSON beside it; print one JSON object naming the files.")
def report(source: str, out: str, turn: int | None, as_json: bool) -> None:
    """Write one private report per clan (its own file, named after it) and one for the GMs (gm.html).

    Each is one self-contained HTML page, readable on a phone, with the map inside: what that clan
    may know after the turn, and nothing that belongs to another clan alone. The GMs' has everything.

    Example: sheets-engine report campaign.xlsx --out reports/
    """
    from sheets_engine.sengoku.report import write_reports

    written = write_reports(_store(source), Path(out), turn, as_json=as_json)
    if as_json:
        files = {reader: str(path) for reader, path in written.items()}
        emit_json(payload("ok", EXIT_OK, reports=len(written), files=files))
        return
    print_text(f"Wrote {len(written)} report(s) to {out}: " + ", ".join(p.name for p in written.values()))


@cli.command(name="map")
@click.argument("source")
@click.option("--out", "out", metavar="FILE.png", help="Where to write the picture (PNG).")
@click.option("--clan", help="Draw this clan's own view (only the armies it may see).")
@click.option("--turn", type=click.IntRange(min=0), metavar="N", help="The turn drawn (default: the last resolved).")
@click.option(
    "--save-layout",
    is_flag=True,
    help="Write the computed places of provinces without Map X/Map Y into those Provinces columns (History rows).",
)
@json_option()
def map_command(
    source: str, out: str | None, clan: str | None, turn: int | None, save_layout: bool, as_json: bool
) -> None:
    """Draw the map: provinces in their controller's colour, capitals, armies, marches, battles, sieges.

    Provinces stand where the Provinces columns Map X (east) and Map Y (north) put them; the
    others are placed by a seeded layout, the same every time, which --save-layout writes into
    those columns for the GM to keep and adjust. The same sheet gives the same PNG bytes.

    Example: sheets-engine map campaign.xlsx --out map.png --clan Oda
    """
    from sheets_engine.art_of_war.hexmap import ReadOnce, board_picture, board_state
    from sheets_engine.sengoku.mapping import picture
    from sheets_engine.sengoku.mapping import save_layout as keep_layout
    from sheets_engine.sengoku.report import read

    if not out and not save_layout:
        raise click.UsageError("give --out FILE.png, --save-layout, or both")
    store = ReadOnce(_store(source))
    board = board_state(store)  # an Art of War campaign draws its hex board
    if board is not None:
        if clan is not None:
            raise BadInput("The Art of War hides nothing: every house sees the whole board (drop --clan)")
        if save_layout:
            raise BadInput("The Art of War's hexes stand where their q,r put them: --save-layout is for Sengoku maps")
        assert out is not None
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        Path(out).write_bytes(board_picture(board, turn))
        if as_json:
            emit_json(payload("ok", EXIT_OK, out=out, clan=None, provinces_placed=0))
        else:
            print_text(f"Map written to {out}")
        return
    saved = 0
    if save_layout:
        saved = keep_layout(_store(source))
        if not as_json:
            print_text(f"Saved the places of {saved} province(s) in the Provinces columns Map X and Map Y.")
    if out:
        campaign = read(_store(source) if save_layout else store)  # after --save-layout, the sheet as it is now
        clans = [str(c) for c in campaign.state.frame("Clans").index]
        if clan is not None and clan not in clans:
            raise BadInput(f"there is no clan '{clan}' in the Clans tab (clans: {', '.join(clans)})")
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        Path(out).write_bytes(picture(campaign.state, clan, turn, campaign.logs["Battles"]))
        if not as_json:
            print_text(f"Map written to {out}" + (f" (the {clan} clan's view)" if clan else ""))
    if as_json:
        emit_json(payload("ok", EXIT_OK, out=out, clan=clan, provinces_placed=saved))


@cli.command()
@click.argument("directory", default="sengoku-demo", required=False)
@json_option()
def demo(directory: str, as_json: bool) -> None:
    """Create the demo campaign in DIRECTORY (default ./sengoku-demo) and run the main job on it.

    Example: sheets-engine demo /tmp/demo
    """
    from sheets_engine import app

    path = Path(directory) / "demo.xlsx"
    app.init(str(path), demo=True, force=True)
    if not as_json:
        print_text(f"Demo campaign written to {path}; resolving turn 1.")
    report = app.resolve(str(path))
    from sheets_engine.sengoku.mapping import picture
    from sheets_engine.sengoku.report import read, write_reports

    folder = Path(directory) / "reports"
    written = write_reports(str(path), folder)
    picture_path = Path(directory) / "map.png"
    campaign = read(str(path))
    picture_path.write_bytes(picture(campaign.state, battles=campaign.logs["Battles"]))
    if as_json:
        pages = sorted(str(p) for p in written.values())
        emit_json(_resolution_payload(report, path=str(path), map=str(picture_path), reports=pages))
        return
    _print_resolution(report, as_json=False)
    print_text(f"Read the results in {path}: the Orders, Notifications and History tabs.")
    print_text(
        f"The turn's map is {picture_path}; each clan's private report and the GMs' are in {folder}/ "
        f"({', '.join(p.name for p in written.values())}): open them in a browser."
    )


@cli.command()
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
    from sheets_engine.generate import generate as make
    from sheets_engine.stores import open_store

    tabs = make(count, clans, seed)
    open_store(path).create(tabs, overwrite=force)
    if as_json:
        clan_count = len(tabs["Clans"]) - 1
        emit_json(payload("ok", EXIT_OK, path=path, provinces=count, clans=clan_count, seed=seed, tabs=len(tabs)))
        return
    print_text(f"Created {path} with {count} provinces")


@cli.command()
@click.argument("path")
@click.argument("target")
@click.option("--force", is_flag=True, help="Replace the contents of campaign tabs that hold data.")
@json_option()
def push(path: str, target: str, force: bool, as_json: bool) -> None:
    """Copy the campaign in the workbook PATH to the Google Sheet TARGET (values, not formatting).

    Example: sheets-engine push campaign.xlsx gsheet:1AbC...xyz
    """
    from sheets_engine import app
    from sheets_engine.stores.transfer import copy_campaign

    tabs = copy_campaign(_store(path), _store(target), overwrite=force, choices=app.ruleset_choices)
    if as_json:
        emit_json(payload("ok", EXIT_OK, source=path, target=target, tabs=tabs))
        return
    print_text(f"Copied {tabs} tab(s) from {path} to {target}")


@cli.command()
@click.argument("source")
@click.argument("path")
@click.option("--force", is_flag=True, help="Replace a workbook that is already there.")
@json_option()
def pull(source: str, path: str, force: bool, as_json: bool) -> None:
    """Copy the campaign in the Google Sheet SOURCE to the workbook PATH (values, not formatting).

    Example: sheets-engine pull gsheet:1AbC...xyz backup.xlsx
    """
    from sheets_engine import app
    from sheets_engine.stores.transfer import copy_campaign

    tabs = copy_campaign(_store(source), _store(path), overwrite=force, choices=app.ruleset_choices)
    if as_json:
        emit_json(payload("ok", EXIT_OK, source=source, target=path, tabs=tabs))
        return
    print_text(f"Copied {tabs} tab(s) from {source} to {path}")


@cli.command()
@click.argument("source")
@click.option(
    "--webhooks",
    "webhooks_file",
    required=True,
    type=click.Path(dir_okay=False),
    metavar="FILE",
    help="TOML file mapping audiences (public, gm, clan:NAME, character:NAME[/CHANNEL]) to webhook URLs.",
)
@click.option("--dry-run", is_flag=True, help="Say which rows would be posted, and post nothing.")
@click.option(
    "--resend-unconfirmed", is_flag=True, help="Post again the rows a run that died had claimed ('sending ...')."
)
@json_option()
def notify(source: str, webhooks_file: str, dry_run: bool, resend_unconfirmed: bool, as_json: bool) -> None:
    """Post every Notifications row not yet delivered to its Discord webhook, once.

    Delivery is recorded in the Notifications tab's Delivered column; a second run posts nothing.
    Rows whose audience has no webhook in FILE are listed and left for later. Exits 2 if a
    webhook no longer exists (fix FILE), 1 if Discord could not be reached (run again later).

    Example: sheets-engine notify campaign.xlsx --webhooks webhooks.toml
    """
    from sheets_engine import app
    from sheets_engine.notify import Webhooks
    from sheets_engine.notify import notify as deliver

    webhooks = Webhooks.load(Path(webhooks_file))
    store = _store(source)
    with app.exclusive(store, "notify", dry_run):
        report = deliver(store, webhooks, dry_run=dry_run, resend_unconfirmed=resend_unconfirmed)
    code = EXIT_BAD_INPUT if report.gone else EXIT_FAILURE if report.failed else EXIT_OK
    status = "ok" if code == EXIT_OK else "webhook_gone" if report.gone else "unavailable"
    if as_json:
        emit_json(payload(status, code, **report.summary()))
    else:
        verb = "Would post" if dry_run else "Posted"
        print_text(f"{verb} {len(report.posted)} notification(s) in {report.messages} Discord message(s).")
        for audience, rows in sorted(report.unroutable.items()):
            print_text(f"Warning: no webhook for {audience}: {len(rows)} row(s) left undelivered (rows {_rows(rows)}).")
        if report.unconfirmed:
            print_text(
                f"Warning: rows {_rows(report.unconfirmed)} were being sent by a run that stopped: they may have "
                "reached Discord. Look at the channel, then clear their Delivered cell or use --resend-unconfirmed."
            )
    for label in report.gone:
        click.echo(
            f"Error: the {label} webhook no longer exists (404): make a new one and update {webhooks_file}", err=True
        )
    for why in report.failed.values():
        click.echo(f"Error: {why}; its rows stay undelivered: run again later", err=True)
    if code:
        sys.exit(code)


@cli.command()
@click.argument("source")
@click.option("--webhooks", "webhooks_file", required=True, type=click.Path(dir_okay=False), metavar="FILE",
              help="TOML file mapping clan:NAME (or clan:NAME/orders) to webhook URLs, as for notify.")  # fmt: skip
@click.option("--before", "hours", required=True, type=click.FloatRange(min=0, min_open=True), metavar="HOURS",
              help="Remind once the deadline is less than this many hours away.")  # fmt: skip
@click.option("--now", "at", metavar="TIME", help="Run as if at TIME (as for resolve --now).")
@click.option("--dry-run", is_flag=True, help="Say whom it would remind, and post and write nothing.")
@json_option()
def remind(source: str, webhooks_file: str, hours: float, at: str | None, dry_run: bool, as_json: bool) -> None:
    """Before the deadline, tell each clan which of its living characters have not ordered yet.

    Once per turn, when the turn's deadline is less than HOURS away: each clan's webhook gets the
    names of its characters with no form response and no Orders row for the turn. The Game key
    reminded_turn records it (with a History row) before anything is posted, so a clan is never
    reminded twice. Run it hourly from cron.

    Example: sheets-engine remind campaign.xlsx --webhooks webhooks.toml --before 6
    """
    from sheets_engine.notify import Webhooks
    from sheets_engine.remind import remind as run_remind

    webhooks = Webhooks.load(Path(webhooks_file))
    report = run_remind(_store(source), webhooks, hours, now=_moment(at) if at else None, dry_run=dry_run)
    code = EXIT_BAD_INPUT if report.gone else EXIT_FAILURE if report.failed else EXIT_OK
    if as_json:
        status = "nothing_to_do" if report.reason else "ok" if code == EXIT_OK else "webhook_failed"
        emit_json(payload(status, code, **report.summary()))
    elif report.reason:
        print_text(f"Nothing to do: {report.reason}.")
    else:
        verb = "Would remind" if dry_run else "Reminded"
        named = sum(len(v) for v in report.reminded.values())
        print_text(
            f"{verb} {len(report.reminded)} clan(s) of {named} character(s) without an order for turn {report.turn}."
        )
        for clan in report.no_webhook:
            print_text(f"Warning: no webhook for clan:{clan}: its players were not reminded.")
    for clan, why in report.failed.items():
        click.echo(f"Error: the {clan} clan was not reminded: {visible(why)}", err=True)
    if code:
        sys.exit(code)


def _rows(numbers: list[int]) -> str:
    return ", ".join(str(n) for n in numbers[:10]) + (f" and {len(numbers) - 10} more" if len(numbers) > 10 else "")


def _show_warnings() -> None:
    """The library's warnings (a stale lock taken over) as `Warning: ...` lines on stderr."""
    import logging

    class Echo(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            click.echo(f"Warning: {record.getMessage()}", err=True)  # whatever stderr is now

    engine = logging.getLogger("sheets_engine")
    if not any(type(h).__name__ == "Echo" for h in engine.handlers):
        engine.addHandler(Echo(logging.WARNING))
        engine.setLevel(logging.WARNING)


def _fail(code: int, status: str, message: str, problems: list[Any] | None = None) -> None:
    """One error line on stderr (and with --json, one JSON object on stdout), then exit."""
    if JsonMode.on:
        body = payload(status, code, error=message)
        if problems is not None:
            body["problems"] = [p.as_dict() for p in problems]
        emit_json(body)
    elif problems:
        _print_problems(problems)
    click.echo(f"Error: {visible(message)}", err=True)
    sys.exit(code)


def main() -> None:
    """Entry point: map failures to exit codes and one clear line (a JSON object with --json)."""
    # A run is one short process that builds its state and keeps it to the end. With the collector's
    # default thresholds (a collection every 700 new objects, 160 of them a 1,000-province turn, 100
    # in pandas' import alone) it spent 0.07-0.1 s of a 0.85 s run walking objects all still alive.
    # Set first, before the imports below; cycles are still collected, every 200,000 new objects (none in
    # a 1,000-province turn, where 100,000 still cost one 0.02 s collection; memory the same at 10,000).
    gc.set_threshold(200_000, 20, 20)
    # At exit the interpreter collects again while it tears the run's state down, walking every object
    # still alive (some 0.055 s of a 1,000-province turn's 0.75 s). Frozen objects are left out of those
    # collections (they are still freed); done at exit, so a caller that runs main() in-process keeps
    # its collector as it was until then.
    atexit.unregister(gc.freeze)  # once, however often main() runs in one process
    atexit.register(gc.freeze)
    # numpy's OpenBLAS starts a thread a core when it loads, and they spin: some 0.05 s of CPU at import
    # and more after each call, for a run that does no linear algebra worth a second thread (0.13 s of a
    # 10,000-province turn's 1.26 s). One thread unless the machine's owner asked for more; read when
    # numpy loads, which is below (not when this module is imported).
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    from sheets_engine.core.problems import InvalidCampaign
    from sheets_engine.stores.base import StoreError, StoreUnavailable
    from sheets_engine.stores.guard import ConflictError
    from sheets_engine.stores.lock import CampaignBusy
    from sheets_engine.templates import TemplateError

    _show_warnings()
    debug = "--debug" in sys.argv[1:]
    JsonMode.on = False
    try:
        cli.main(standalone_mode=False)
    except click.exceptions.Exit as done:
        sys.exit(done.exit_code)
    except click.Abort:
        _fail(EXIT_FAILURE, "aborted", "Aborted.")
    except click.UsageError as error:  # click's own exit 2, with its usage line
        if JsonMode.on or "--json" in sys.argv[1:]:
            JsonMode.on = True
            emit_json(payload("usage", error.exit_code, error=error.format_message()))
        error.show()
        sys.exit(error.exit_code)
    except click.ClickException as error:
        _fail(error.exit_code, "bad_input", error.format_message())
    except InvalidCampaign as error:
        _fail(EXIT_BAD_INPUT, "invalid", str(error), error.problems)
    except ConflictError as error:
        _fail(EXIT_CONFLICT, "conflict", str(error))
    except CampaignBusy as error:
        _fail(EXIT_BUSY, "busy", str(error))
    except StoreError as error:
        _fail(EXIT_BAD_INPUT, "bad_input", str(error))
    except StoreUnavailable as error:  # Google kept failing within the bounded retries: try later
        _fail(EXIT_FAILURE, "unavailable", str(error))
    except TemplateError as error:  # the installed package itself is broken
        _fail(EXIT_FAILURE, "failed", f"{error}: reinstall sheets-engine")
    except Exception as error:  # the last line of defence: one line, no traceback
        if debug:
            raise
        _fail(
            EXIT_FAILURE,
            "failed",
            f"unexpected failure: {type(error).__name__}: {error} (run with --debug for details)",
        )


@cli.command()
@click.argument("source")
@click.option(
    "--keep-turns", type=click.IntRange(min=1), required=True, metavar="N", help="Keep the History of the last N turns."
)
@click.option(
    "--to",
    "target",
    metavar="ARCHIVE",
    help="The archive: a Google Sheet shared with the service account, or a workbook "
    "(default for a workbook SOURCE: NAME-archive.xlsx beside it). Its History tab gets the rows.",
)
@json_option()
def archive(source: str, keep_turns: int, target: str | None, as_json: bool) -> None:
    """Move the History rows of turns older than the last N to an archive, so History stays bounded.

    Google Sheets holds 10,000,000 cells a spreadsheet, and History grows every turn. Run it again
    after a failure: it appends only what the archive lacks. Rollback works for every turn kept.

    Example: sheets-engine archive gsheet:1AbC...xyz --keep-turns 20 --to gsheet:1XyZ...abc
    """
    from sheets_engine.app import exclusive
    from sheets_engine.archive import archive_history
    from sheets_engine.rollback import RollbackError
    from sheets_engine.stores.gsheets import is_google_source

    if target is None:
        if is_google_source(source):
            raise BadInput(
                "give the archive with --to (a Google Sheet shared with the service account): a tab of the same "
                "spreadsheet would count against the same 10,000,000-cell limit"
            )
        path = Path(source)
        target = str(path.with_name(f"{path.stem}-archive{path.suffix}"))
    store, into = _store(source), _store(target)
    if into.name == store.name:
        raise BadInput("the archive must be another spreadsheet or workbook than the campaign")
    try:
        with exclusive(store, "archive"):
            done = archive_history(store, into, keep_turns)
    except RollbackError as error:  # a History row whose Turn is not a number
        raise BadInput(str(error)) from None
    if as_json:
        emit_json(
            payload(
                "ok",
                EXIT_OK,
                source=source,
                archive=target,
                **{k.replace(" ", "_"): v for k, v in done.summary.items()},
            )
        )
        return
    if not done.moved:
        print_text(f"Nothing to archive: History holds {done.kept} row(s), all of the last {keep_turns} turn(s).")
        return
    first, last = done.turns or (0, 0)
    again = done.moved - done.appended
    print_text(
        f"Moved {done.moved} History row(s) of turns {first}-{last} to {target}"
        + (f" ({again} of them were there already from a run that stopped)" if again else "")
        + f". History keeps {done.kept} row(s), from turn {done.oldest_kept}: the oldest turn a rollback can undo."
    )


@cli.command()
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
