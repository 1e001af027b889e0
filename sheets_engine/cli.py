"""The `sheets-engine` command: parses, calls the service layer, formats. No rules here.

Exit codes: 0 done; 2 bad input (every problem listed); 1 unexpected failure; 3 the spreadsheet
changed while the engine worked (nothing written: run again); 4 another run is working on the
campaign (nothing read or written: run again later).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

EXIT_OK, EXIT_FAILURE, EXIT_BAD_INPUT = 0, 1, 2
EXIT_CONFLICT = 3  # a GM edited cells the run was about to overwrite; nothing was written
EXIT_BUSY = 4  # another run holds the campaign's lock; nothing was read or written


class BadInput(click.ClickException):
    """Bad input: exit 2 with a one-line message."""

    exit_code = EXIT_BAD_INPUT


def _console() -> Any:
    from rich.console import Console

    return Console(highlight=False, soft_wrap=True)


def _print_problems(problems: list[Any], as_json: bool) -> None:
    if as_json:
        click.echo(json.dumps([p.as_dict() for p in problems], indent=2, default=str))
        return
    from rich.table import Table

    table = Table("Tab", "Row", "Column", "Value", "Expected", "", title=f"{len(problems)} problem(s)")
    for p in problems:
        value = "" if p.value is None else str(p.value)
        table.add_row(
            p.tab,
            "" if p.row is None else str(p.row),
            p.column,
            value,
            p.expected,
            "warning" if p.severity.value == "warning" else "",
        )
    _console().print(table)


def _print_changes(report: Any, title: str) -> None:
    from rich.table import Table

    table = Table("Tab", "Key", "Column", "Old", "New", "Cause", title=title)
    for row in report.history:
        table.add_row(*(str(row[c]) for c in ("Tab", "Key", "Column", "Old", "New", "Cause")))
    _console().print(table)


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

    SOURCE is a campaign workbook (.xlsx) or a Google Sheet (its URL, or gsheet:KEY; see
    docs/google-sheets.md). Exit codes: 0 done, 2 bad input (every problem is listed),
    1 unexpected failure, 3 the spreadsheet changed during the run (nothing written),
    4 another run is working on the campaign (nothing written: run again later).

    Example: sheets-engine init camp.xlsx --demo && sheets-engine resolve camp.xlsx
    """
    ctx.obj = {"debug": debug, "credentials": credentials}


def _store(source: str) -> Any:
    """The store for SOURCE, with the --credentials given to the command group."""
    from sheets_engine.stores import open_store

    options = click.get_current_context().find_root().obj or {}
    return open_store(source, credentials=options.get("credentials"))


@cli.command()
@click.argument("path")
@click.option("--demo", is_flag=True, help="Fill it with the demo campaign (32 provinces, 5 clans).")
@click.option("--force", is_flag=True, help="Replace a workbook that is already there.")
def init(path: str, demo: bool, force: bool) -> None:
    """Create a new campaign at PATH from the templates: a workbook, or the tabs of a Google Sheet.

    Example: sheets-engine init campaign.xlsx --demo
    """
    from sheets_engine import app

    app.init(_store(path), demo=demo, force=force)
    click.echo(f"Created {path}" + (" with the demo campaign" if demo else ""))


@cli.command()
@click.argument("source")
@click.option("--json", "as_json", is_flag=True, help="Print the problems as JSON.")
def validate(source: str, as_json: bool) -> None:
    """List every problem in the campaign: tab, row, column, value, what was expected.

    Exits 2 if there is any error (warnings alone exit 0).

    Example: sheets-engine validate campaign.xlsx
    """
    from sheets_engine import app

    problems = app.validate(_store(source))
    errors = [p for p in problems if p.severity.value == "error"]
    if problems:
        _print_problems(problems, as_json)
    elif as_json:
        click.echo("[]")
    else:
        click.echo("No problems found.")
    if errors:
        sys.exit(EXIT_BAD_INPUT)


@cli.command()
@click.argument("source")
@click.option("--dry-run", is_flag=True, help="Print what would change and write nothing.")
def recalc(source: str, dry_run: bool) -> None:
    """Recompute the derived columns (guide Section 11) and write the cells that changed.

    Example: sheets-engine recalc campaign.xlsx --dry-run
    """
    from sheets_engine import app

    report = app.recalc(_store(source), dry_run=dry_run)
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
@click.option("--json", "as_json", is_flag=True, help="Print the rows as JSON.")
def history(source: str, turn: int | None, tab: str | None, key: str | None, cause: str | None, as_json: bool) -> None:
    """Print the changelog (the History tab): every change, its old and new value and cause.

    Example: sheets-engine history campaign.xlsx --turn 3 --tab Armies --cause battle
    """
    from sheets_engine.history import read_history

    rows = read_history(_store(source), turn=turn, tab=tab, key=key, cause=cause)
    if as_json:
        click.echo(json.dumps(rows, indent=2, default=str))
        return
    _print_history(rows, f"History: {len(rows)} change(s)")


def _print_history(rows: list[dict[str, Any]], title: str) -> None:
    from rich.table import Table

    columns = ("Turn", "Tab", "Key", "Column", "Old", "New", "Cause", "Roll")
    table = Table(*columns, title=title)
    for row in rows:
        table.add_row(*("" if row.get(c) is None else str(row.get(c)) for c in columns))
    _console().print(table)


@cli.command()
@click.argument("source")
@click.argument("key")
@click.option("--turn", type=int, help="Only this turn's changes.")
@click.option("--json", "as_json", is_flag=True, help="Print the rows as JSON.")
def explain(source: str, key: str, turn: int | None, as_json: bool) -> None:
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
    if as_json:
        payload = [{**e.row, "About": e.about} for e in found]
        click.echo(json.dumps(payload, indent=2, default=str))
        return
    if not found:
        close = suggest(rows, key)
        hint = f" (did you mean '{close}'?)" if close else ""
        when = f" in turn {turn}" if turn is not None else ""
        click.echo(f"History records no change to '{key}'{when}{hint}.")
        return
    _print_history([e.row for e in found], f"{key}: {len(found)} change(s)")


@cli.command()
@click.argument("source")
@click.option(
    "--turn", type=click.IntRange(min=1), required=True, metavar="N", help="The turn to undo, with every turn after it."
)
@click.option("--dry-run", is_flag=True, help="Print every cell that would be restored and write nothing.")
@click.option("--json", "as_json", is_flag=True, help="Print a machine-readable summary.")
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
        payload = {**summary, "dry_run": dry_run, "edited": edited, "history_rows": len(report.history)}
        click.echo(json.dumps(payload, indent=2, default=str))
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
            f"Warning: {len(edited)} cell(s) edited since the engine wrote them were restored too: {shown}", err=True
        )


@cli.command()
@click.argument("source")
@click.option("--dry-run", is_flag=True, help="Print every change the turn would make and write nothing.")
@click.option("--json", "as_json", is_flag=True, help="Print a machine-readable summary (for cron logs).")
@click.option("--force", is_flag=True, help="Resolve now even if min_hours_between_turns has not passed.")
def resolve(source: str, dry_run: bool, as_json: bool, force: bool) -> None:
    """Resolve the Game tab's turn: every order, in the rules' fixed sequence, in one write.

    A turn that was already resolved, or is not due yet, is left alone (exit 0), so cron may
    run this as often as it likes.

    Example: sheets-engine resolve campaign.xlsx --dry-run
    """
    from sheets_engine import app

    report = _with_progress(lambda: app.resolve(_store(source), dry_run=dry_run, force=force), as_json)
    _print_resolution(report, as_json)


def _with_progress(work: Any, quiet: bool) -> Any:
    if quiet or not sys.stderr.isatty():
        return work()
    from rich.console import Console

    with Console(stderr=True).status("Resolving the turn..."):
        return work()


def _print_resolution(report: Any, as_json: bool) -> None:
    summary = dict(report.summary)
    if as_json:
        payload = {
            **summary,
            "dry_run": report.dry_run,
            "resolution": report.resolution if report.history else "",
            "cells_changed": len(report.changes),
            "history_rows": len(report.history),
            "notifications": len(report.logs.get("Notifications", [])),
            "battles": len(report.logs.get("Battles", [])),
            "cells_written": 0 if report.dry_run else report.cells_written,
        }
        click.echo(json.dumps(payload, indent=2, default=str))
        return
    if not summary.get("resolved", True):
        click.echo(f"Nothing to do: {summary.get('reason')}.")
        return
    if report.dry_run:
        _print_changes(
            report,
            f"Turn {summary.get('turn')}: {len(report.changes)} cell(s) would change (dry run: nothing written)",
        )
    from rich.table import Table

    table = Table(
        "",
        "",
        show_header=False,
        title=f"Turn {summary.get('turn')} (year {summary.get('year')})"
        + (", Winter" if summary.get("winter") else "")
        + " resolved",
    )
    for name, value in summary.items():
        if name not in ("resolved", "turn", "year", "winter"):
            table.add_row(name, str(value))
    table.add_row("cells changed", str(len(report.changes)))
    table.add_row("notifications", str(len(report.logs.get("Notifications", []))))
    _console().print(table)


@cli.command()
@click.argument("source")
@click.option("--json", "as_json", is_flag=True, help="Print a machine-readable summary (for cron logs).")
def check(source: str, as_json: bool) -> None:
    """Before the deadline: copy new form responses into Orders and preview every Pending order's Result.

    Each Pending order of the current turn gets a Result starting "Check: " (valid now, will fail
    and why, or what it depends on: the dice, other clans' orders); its Status stays Pending and
    no game state changes. `resolve` later writes the real Result over it. Safe from cron: a run
    with nothing new writes nothing.

    Example: sheets-engine check campaign.xlsx
    """
    from sheets_engine.check import check as run_check

    report = run_check(_store(source))
    summary = dict(report.summary)
    if as_json:
        payload = {**summary, "cells_written": report.cells_written, "history_rows": len(report.history)}
        click.echo(json.dumps(payload, indent=2, default=str))
        return
    if not summary.get("checked"):
        click.echo(f"Nothing to do: {summary.get('reason')}.")
        return
    counts = ", ".join(f"{summary[k]} {k}" for k in ("valid now", "will fail", "will not count") if summary[k])
    depends = summary["depend on dice or other clans"]
    click.echo(
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
@click.option(
    "--json", "as_json", is_flag=True, help="Also write each report's content as JSON; print the files as JSON."
)
def report(source: str, out: str, turn: int | None, as_json: bool) -> None:
    """Write one private report per clan (its own file, named after it) and one for the GMs (gm.html).

    Each is one self-contained HTML page, readable on a phone, with the map inside: what that clan
    may know after the turn, and nothing that belongs to another clan alone. The GMs' has everything.

    Example: sheets-engine report campaign.xlsx --out reports/
    """
    from sheets_engine.report import write_reports

    written = write_reports(_store(source), Path(out), turn, as_json=as_json)
    if as_json:
        click.echo(json.dumps({reader: str(path) for reader, path in written.items()}, indent=2))
        return
    click.echo(f"Wrote {len(written)} report(s) to {out}: " + ", ".join(p.name for p in written.values()))


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
def map_command(source: str, out: str | None, clan: str | None, turn: int | None, save_layout: bool) -> None:
    """Draw the map: provinces in their controller's colour, capitals, armies, marches, battles, sieges.

    Provinces stand where the Provinces columns Map X (east) and Map Y (north) put them; the
    others are placed by a seeded layout, the same every time, which --save-layout writes into
    those columns for the GM to keep and adjust. The same sheet gives the same PNG bytes.

    Example: sheets-engine map campaign.xlsx --out map.png --clan Oda
    """
    from sheets_engine.mapping import picture
    from sheets_engine.mapping import save_layout as keep_layout
    from sheets_engine.report import read

    if not out and not save_layout:
        raise click.UsageError("give --out FILE.png, --save-layout, or both")
    if save_layout:
        saved = keep_layout(_store(source))
        click.echo(f"Saved the places of {saved} province(s) in the Provinces columns Map X and Map Y.")
    if out:
        campaign = read(_store(source))
        clans = [str(c) for c in campaign.state.frame("Clans").index]
        if clan is not None and clan not in clans:
            raise BadInput(f"there is no clan '{clan}' in the Clans tab (clans: {', '.join(clans)})")
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        Path(out).write_bytes(picture(campaign.state, clan, turn, campaign.logs["Battles"]))
        click.echo(f"Map written to {out}" + (f" (the {clan} clan's view)" if clan else ""))


@cli.command()
@click.argument("directory", default="sengoku-demo", required=False)
def demo(directory: str) -> None:
    """Create the demo campaign in DIRECTORY (default ./sengoku-demo) and run the main job on it.

    Example: sheets-engine demo /tmp/demo
    """
    from sheets_engine import app

    path = Path(directory) / "demo.xlsx"
    app.init(str(path), demo=True, force=True)
    click.echo(f"Demo campaign written to {path}; resolving turn 1.")
    report = app.resolve(str(path))
    _print_resolution(report, as_json=False)
    click.echo(f"Read the results in {path}: the Orders, Notifications and History tabs.")
    from sheets_engine.mapping import picture
    from sheets_engine.report import read, write_reports

    folder = Path(directory) / "reports"
    written = write_reports(str(path), folder)
    picture_path = Path(directory) / "map.png"
    campaign = read(str(path))
    picture_path.write_bytes(picture(campaign.state, battles=campaign.logs["Battles"]))
    click.echo(
        f"The turn's map is {picture_path}; each clan's private report and the GMs' are in {folder}/ "
        f"({', '.join(p.name for p in written.values())}): open them in a browser."
    )


@cli.command()
@click.argument("path")
@click.option("--provinces", "count", type=click.IntRange(min=2), required=True, help="How many provinces.")
@click.option("--clans", type=click.IntRange(min=1), help="How many clans (default: one per 12 provinces).")
@click.option("--seed", type=int, default=1, show_default=True, help="The same seed gives the same campaign.")
@click.option("--force", is_flag=True, help="Replace a workbook that is already there.")
def generate(path: str, count: int, clans: int | None, seed: int, force: bool) -> None:
    """Create a valid synthetic campaign of any size (for benchmarks and scale tests).

    Example: sheets-engine generate big.xlsx --provinces 10000 --seed 7
    """
    from sheets_engine.generate import generate as make
    from sheets_engine.stores import open_store

    open_store(path).create(make(count, clans, seed), overwrite=force)
    click.echo(f"Created {path} with {count} provinces")


@cli.command()
@click.argument("path")
@click.argument("target")
@click.option("--force", is_flag=True, help="Replace the contents of campaign tabs that hold data.")
def push(path: str, target: str, force: bool) -> None:
    """Copy the campaign in the workbook PATH to the Google Sheet TARGET (values, not formatting).

    Example: sheets-engine push campaign.xlsx gsheet:1AbC...xyz
    """
    from sheets_engine.stores.transfer import copy_campaign

    tabs = copy_campaign(_store(path), _store(target), overwrite=force)
    click.echo(f"Copied {tabs} tab(s) from {path} to {target}")


@cli.command()
@click.argument("source")
@click.argument("path")
@click.option("--force", is_flag=True, help="Replace a workbook that is already there.")
def pull(source: str, path: str, force: bool) -> None:
    """Copy the campaign in the Google Sheet SOURCE to the workbook PATH (values, not formatting).

    Example: sheets-engine pull gsheet:1AbC...xyz backup.xlsx
    """
    from sheets_engine.stores.transfer import copy_campaign

    tabs = copy_campaign(_store(source), _store(path), overwrite=force)
    click.echo(f"Copied {tabs} tab(s) from {source} to {path}")


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


def main() -> None:
    """Entry point: map failures to exit codes and one clear line."""
    from sheets_engine.core.problems import InvalidCampaign
    from sheets_engine.stores.base import StoreError, StoreUnavailable
    from sheets_engine.stores.guard import ConflictError
    from sheets_engine.stores.lock import CampaignBusy

    _show_warnings()
    debug = "--debug" in sys.argv[1:]
    try:
        cli.main(standalone_mode=False)
    except click.exceptions.Exit as done:
        sys.exit(done.exit_code)
    except click.Abort:
        click.echo("Aborted.", err=True)
        sys.exit(EXIT_FAILURE)
    except click.ClickException as error:
        error.show()
        sys.exit(error.exit_code)
    except InvalidCampaign as error:
        _print_problems(error.problems, as_json="--json" in sys.argv)
        click.echo(f"Error: {error}", err=True)
        sys.exit(EXIT_BAD_INPUT)
    except ConflictError as error:
        click.echo(f"Error: {error}", err=True)
        sys.exit(EXIT_CONFLICT)
    except CampaignBusy as error:
        click.echo(f"Error: {error}", err=True)
        sys.exit(EXIT_BUSY)
    except StoreError as error:
        click.echo(f"Error: {error}", err=True)
        sys.exit(EXIT_BAD_INPUT)
    except StoreUnavailable as error:  # Google kept failing within the bounded retries: try later
        click.echo(f"Error: {error}", err=True)
        sys.exit(EXIT_FAILURE)
    except Exception as error:  # the last line of defence: one line, no traceback
        if debug:
            raise
        click.echo(
            f"Error: unexpected failure: {type(error).__name__}: {error} (run with --debug for details)",
            err=True,
        )
        sys.exit(EXIT_FAILURE)
