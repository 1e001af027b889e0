"""The commands that make, check, resolve, undo and copy a campaign: init, validate, recalc, resolve,
rollback, archive, demo, push and pull."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from sheets_engine import rulesets
from sheets_engine.cli import common
from sheets_engine.cli.common import (
    EXIT_BAD_INPUT,
    EXIT_OK,
    OVERWRITE_HELP,
    BadInput,
    counts,
    print_changes,
    print_problems,
    with_progress,
)
from sheets_engine.cli.group import cli
from sheets_engine.core.lifecycle import RunStatus
from sheets_engine.core.names import plural
from sheets_engine.output import (
    emit_json,
    json_option,
    nl_option,
    one_format,
    payload,
    print_table,
    print_text,
    snake,
    table_format_option,
    visible,
)
from sheets_engine.progress import progress


def ruleset_options(command: Any) -> Any:
    """Every ruleset's own `init` options (--houses, --seed...), from the registry: no ruleset's rules imported."""
    for option in reversed(rulesets.init_options()):
        flag = "--" + option.name.replace("_", "-")
        command = click.option(flag, option.name, type=option.type, default=None, help=option.help)(command)
    return command


@cli.command()
@click.argument("path")
@click.option("--demo", is_flag=True, help="Fill it with the ruleset's demo campaign (Sengoku: 32 provinces, 5 clans).")
@click.option("--force", is_flag=True, help="Replace a workbook that is already there.")
@click.option(
    "--ruleset",
    default=rulesets.DEFAULT,
    show_default=True,
    metavar="NAME",
    help="The game the campaign is played under (an unknown name is refused with the list of known ones).",
)
@ruleset_options
@json_option()
def init(path: str, demo: bool, force: bool, ruleset: str, as_json: bool, **options: Any) -> None:
    """Create a new campaign at PATH from the templates: a workbook, or the tabs of a Google Sheet.

    Example: sheets-engine init campaign.xlsx --demo
    """
    from sheets_engine import app
    from sheets_engine.core.ruleset import SetupError

    store = common.store_for(path)
    try:
        tabs = app.init(store, demo=demo, force=force, ruleset=ruleset.strip().casefold(), options=options)
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

    problems = app.validate(common.store_for(source))
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
        print_problems(problems, table_format)
    else:
        click.echo("No problems found.")
    if code:
        sys.exit(code)


@cli.command()
@click.argument("source")
@click.option("--dry-run", is_flag=True, help="Print what would change and write nothing.")
@click.option("--overwrite-formulas", is_flag=True, help=OVERWRITE_HELP)
@json_option()
def recalc(source: str, dry_run: bool, overwrite_formulas: bool, as_json: bool) -> None:
    """Recompute the derived columns (guide Section 11) and write the cells that changed.

    Example: sheets-engine recalc campaign.xlsx --dry-run
    """
    from sheets_engine import app

    report = app.recalc(common.store_for(source), dry_run=dry_run, overwrite_formulas=overwrite_formulas)
    if as_json:
        emit_json(payload("ok", EXIT_OK, **counts(report)))
        return
    if dry_run:
        print_changes(report, f"{plural(len(report.changes), 'cell')} would change (dry run: nothing written)")
    else:
        click.echo(
            f"{plural(len(report.changes), 'cell')} changed, {plural(len(report.history), 'History row')} added."
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
    "--empty",
    is_flag=True,
    help="With --force: play the turn even though no order at all would be settled (without it: exit 2).",
)
@click.option(
    "--now",
    "at",
    metavar="TIME",
    help="Run as if at TIME (YYYY-MM-DD HH:MM[:SS], in the campaign's time_zone unless it ends in +HH:MM or Z).",
)
@click.option("--overwrite-formulas", is_flag=True, help=OVERWRITE_HELP)
@nl_option
def resolve(
    source: str,
    dry_run: bool,
    as_json: bool,
    force: bool,
    empty: bool,
    at: str | None,
    overwrite_formulas: bool,
    as_lines: bool,
) -> None:
    """Resolve the Game tab's turn: every order, in the rules' fixed sequence, in one write.

    A turn that was already resolved, or is not due yet (its deadline has not passed), is left
    alone (exit 0), so cron may run this every few minutes: each turn resolves once, at its deadline.
    A forced turn (--force) in which no order at all would be settled is refused (exit 2, nothing
    written) unless --empty is given too: a second --force by mistake never plays an empty turn.

    Example: sheets-engine resolve campaign.xlsx --dry-run
    """
    from sheets_engine import app
    from sheets_engine.core.turn import EmptyTurn

    table_format = dry_run_format(as_lines, as_json, dry_run)
    now = common.moment(at) if at else None
    store = common.store_for(source)
    try:
        report = with_progress(
            lambda: app.resolve(
                store,
                dry_run=dry_run,
                now=now,
                force=force,
                overwrite_formulas=overwrite_formulas,
                forms=forms_client_of(store),
                empty=empty,
            ),
            as_json or as_lines,
        )
    except EmptyTurn as error:
        raise BadInput(str(error)) from None
    print_resolution(report, as_json, table_format)


def forms_client_of(store: Any) -> Any:
    """Makes the Forms client when one is needed: the Google Sheet's own session (its credentials carry
    the forms.body scope), else the --credentials key file. $SHEETS_ENGINE_FORMS_API moves it to a stand-in."""

    def make() -> Any:
        import os

        from sheets_engine.stores.gforms import FORMS_ROOT_ENV, FormsClient, forms_client
        from sheets_engine.stores.gsheets import load_credentials

        root = os.environ.get(FORMS_ROOT_ENV) or None
        client: Any = getattr(store, "client", None)
        if getattr(client, "session", None) is not None and hasattr(store, "account"):
            return FormsClient(client.session, client.retry, root, store.account)
        return forms_client(load_credentials(common.credentials()), api_root=root)

    return make


def resolution_payload(report: Any, **extra: Any) -> dict[str, Any]:
    summary = {snake(k): v for k, v in report.summary.items()}
    written = {
        **counts(report),
        "resolution": report.resolution if report.history else "",
        "notifications": len(report.logs.get("Notifications", [])),
        "battles": len(report.logs.get("Battles", [])),
        **({"form": report.form} if report.form else {}),
        **extra,
    }
    # The summary's counts come first; the rows actually written win a clash of names.
    status = {RunStatus.NOTHING: "nothing_to_do", RunStatus.PAUSED: "paused"}.get(report.status, "ok")
    return payload(status, EXIT_OK, **(summary | written), headline=report.headline)


def dry_run_format(as_lines: bool, as_json: bool, dry_run: bool) -> str | None:
    """'nl' for --nl (a dry run's rows, one JSON object a line); --nl without --dry-run, or beside --json, is
    a usage error."""
    table_format = one_format(as_lines, as_json)
    if as_lines and not dry_run:
        raise click.UsageError("--nl prints the rows of a dry run: add --dry-run")
    return table_format


def print_resolution(report: Any, as_json: bool, table_format: str | None = None) -> None:
    summary = dict(report.summary)
    if as_json:
        emit_json(resolution_payload(report))
        return
    if table_format == "nl":  # the History rows the run would add, and nothing else
        print_changes(report, "", "nl")
        return
    if report.status is RunStatus.NOTHING:
        print_text(report.headline)
        return
    if report.dry_run:
        period = f"Season {summary['season']}" if "season" in summary else f"Turn {summary.get('turn')}"
        print_changes(
            report, f"{period}: {plural(len(report.changes), 'cell')} would change (dry run: nothing written)"
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
@click.option(
    "--turn", type=click.IntRange(min=1), required=True, metavar="N", help="The turn to undo, with every turn after it."
)
@click.option("--dry-run", is_flag=True, help="Print every cell that would be restored and write nothing.")
@json_option()
@nl_option
def rollback(source: str, turn: int, dry_run: bool, as_json: bool, as_lines: bool) -> None:
    """Put the campaign back as it was before turn N resolved, from History's old values.

    Turn N and every later turn are undone, newest first: Game turn becomes N and
    last_resolved_turn N-1; rows those turns added (orders copied from the form, new armies,
    letters) are cleared, and so are their Battles and Notifications rows. The rollback is
    recorded in History (cause "rollback to before turn N"). Resolving again gives the same result.

    Example: sheets-engine rollback campaign.xlsx --turn 3 --dry-run
    """
    from sheets_engine import app
    from sheets_engine.core.history import HistoryError

    table_format = dry_run_format(as_lines, as_json, dry_run)
    try:
        with progress(f"Rolling back to before turn {turn}", quiet=as_json or as_lines):
            report = app.rollback(common.store_for(source), turn, dry_run=dry_run)
    except HistoryError as error:
        raise BadInput(f"cannot roll back to before turn {turn}: {error}") from error
    summary = dict(report.summary)
    edited = summary.pop("edited", [])
    if as_json:
        fields = {snake(k): v for k, v in summary.items()} | counts(report)
        emit_json(payload("ok", EXIT_OK, **fields, edited=edited))
        return
    if table_format == "nl":  # the History rows the rollback would add, and nothing else
        print_changes(report, "", "nl")
        return
    if dry_run:
        print_changes(report, f"{plural(len(report.changes), 'cell')} would be restored (dry run: nothing written)")
    tail = " rows cleared"  # the summary's "Battles rows cleared": 3, said "3 Battles rows cleared"
    cleared = ", ".join(
        f"{plural(v, k.removesuffix(tail) + ' row')} cleared" for k, v in summary.items() if k.endswith(tail) and v
    )
    done = "Would roll back" if dry_run else "Rolled back"
    click.echo(
        f"{done} to before turn {turn}: {plural(summary['runs undone'], 'run')} undone, "
        f"{plural(summary['cells restored'], 'cell')} restored"
        + (f", {cleared}" if cleared else "")
        + f"; Game turn is {turn}."
    )
    if edited:
        shown = "; ".join(edited[:5]) + (f" and {len(edited) - 5} more" if len(edited) > 5 else "")
        click.echo(
            visible(
                f"Warning: {plural(len(edited), 'cell')} edited since the engine wrote "
                f"{'it was' if len(edited) == 1 else 'them were'} restored too: {shown}"
            ),
            err=True,
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
    from sheets_engine.archive import archive_history
    from sheets_engine.core.history import HistoryError
    from sheets_engine.stores.gsheets import is_google_source

    if target is None:
        if is_google_source(source):
            raise BadInput(
                "give the archive with --to (a Google Sheet shared with the service account): a tab of the same "
                "spreadsheet would count against the same 10,000,000-cell limit"
            )
        path = Path(source)
        target = str(path.with_name(f"{path.stem}-archive{path.suffix}"))
    store, into = common.store_for(source), common.store_for(target)
    if into.name == store.name:
        raise BadInput("the archive must be another spreadsheet or workbook than the campaign")
    try:
        done = archive_history(store, into, keep_turns)
    except HistoryError as error:  # a History row whose Turn is not a number
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
        print_text(
            f"Nothing to archive: History holds {plural(done.kept, 'row')}, "
            f"all of the last {plural(keep_turns, 'turn')}."
        )
        return
    first, last = done.turns or (0, 0)
    again = done.moved - done.appended
    print_text(
        f"Moved {plural(done.moved, 'History row')} of turns {first}-{last} to {target}"
        + (f" ({again} of them were there already from a run that stopped)" if again else "")
        + f". History keeps {plural(done.kept, 'row')}, from turn {done.oldest_kept}: "
        "the oldest turn a rollback can undo."
    )


@cli.command()
@click.argument("directory", default="sengoku-demo", required=False)
@click.option("--force", is_flag=True, help="Overwrite a DIRECTORY that already holds files (a demo played before).")
@json_option()
def demo(directory: str, force: bool, as_json: bool) -> None:
    """Create the demo campaign in DIRECTORY (default ./sengoku-demo) and run the main job on it.

    A DIRECTORY that already holds files is left alone (exit 2) unless --force: a second demo would
    overwrite the first one's workbook, map and reports, and whatever a GM tried in them.

    Example: sheets-engine demo /tmp/demo
    """
    from sheets_engine import app

    folder = Path(directory)
    if not force and folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise BadInput(f"{directory} exists already: pass --force to overwrite it, or remove it first")
    path = folder / "demo.xlsx"
    app.init(str(path), demo=True, force=True)
    if not as_json:
        print_text(f"Demo campaign written to {path}; resolving turn 1.")
    report = app.resolve(str(path))
    from sheets_engine.views import draw_map, write_reports

    folder = Path(directory) / "reports"
    written = write_reports(str(path), folder)
    picture_path = Path(directory) / "map.png"
    picture_path.write_bytes(draw_map(str(path)))
    if as_json:
        pages = sorted(str(p) for p in written.values())
        emit_json(resolution_payload(report, path=str(path), map=str(picture_path), reports=pages))
        return
    print_resolution(report, as_json=False)
    print_text(f"Read the results in {path}: the Orders, Notifications and History tabs.")
    print_text(
        f"The turn's map is {picture_path}; each clan's private report and the GMs' are in {folder}/ "
        f"({', '.join(p.name for p in written.values())}): open them in a browser."
    )


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

    tabs = copy_campaign(common.store_for(path), common.store_for(target), overwrite=force, choices=app.ruleset_choices)
    if as_json:
        emit_json(payload("ok", EXIT_OK, source=path, target=target, tabs=tabs))
        return
    print_text(f"Copied {plural(tabs, 'tab')} from {path} to {target}")


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

    tabs = copy_campaign(common.store_for(source), common.store_for(path), overwrite=force, choices=app.ruleset_choices)
    if as_json:
        emit_json(payload("ok", EXIT_OK, source=source, target=path, tabs=tabs))
        return
    print_text(f"Copied {plural(tabs, 'tab')} from {source} to {path}")
