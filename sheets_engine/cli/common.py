"""What every command of the CLI shares: the exit codes, the store a SOURCE names, the clock of --now, and
how a run's problems, changes and counts are shown."""

from __future__ import annotations

import sys
from collections.abc import Callable
from datetime import datetime
from typing import Any, TypeVar

import click

from sheets_engine.output import print_records, print_table

EXIT_OK, EXIT_FAILURE, EXIT_BAD_INPUT = 0, 1, 2
EXIT_CONFLICT = 3  # a GM edited cells the run was about to overwrite; nothing was written
EXIT_BUSY = 4  # another run holds the campaign's lock, or Excel/LibreOffice has it open; nothing was written

OVERWRITE_HELP = (
    "Replace a GM's formula with the value the rules give when a cell the engine writes holds one "
    "(without it the run stops, exit 2, naming every such cell)."
)
PROBLEM_COLUMNS = ("Tab", "Row", "Column", "Value", "Expected", "Severity")
CHANGE_COLUMNS = ("Tab", "Key", "Column", "Old", "New", "Cause")

T = TypeVar("T")


class BadInput(click.ClickException):
    """Bad input: exit 2 with a one-line message."""

    exit_code = EXIT_BAD_INPUT


def store_for(source: str) -> Any:
    """The store for SOURCE, with the --credentials given to the command group (tests put a stand-in here)."""
    from sheets_engine.stores import open_store

    options = click.get_current_context().find_root().obj or {}
    return open_store(source, credentials=options.get("credentials"))


def credentials() -> str | None:
    """The --credentials key file given to the command group, if any."""
    options = click.get_current_context().find_root().obj or {}
    given = options.get("credentials")
    return str(given) if given else None


def moment(text: str) -> datetime:
    """--now's time: ISO 8601; without a zone it is left naive (the campaign's time_zone)."""
    try:
        return datetime.fromisoformat(text.strip())
    except ValueError as error:
        raise BadInput(f"--now '{text}' is not a time (YYYY-MM-DD HH:MM:SS, optionally +HH:MM or Z)") from error


def problem_row(p: Any) -> list[Any]:
    """A problem as a table row."""
    return [p.tab, p.row_text, p.column, p.value, p.expected, p.severity.value]


def print_problems(problems: list[Any], table_format: str | None = None) -> None:
    """Every problem as one table."""
    from sheets_engine.core.problems import tally

    title = tally(problems)
    print_table(PROBLEM_COLUMNS, (problem_row(p) for p in problems), title, table_format)


def print_changes(report: Any, title: str, table_format: str | None = None) -> None:
    """A run's History rows as the changes it made (or would make); with 'nl' each History row whole."""
    if table_format == "nl":
        print_records(report.history)
        return
    print_table(CHANGE_COLUMNS, ([row[c] for c in CHANGE_COLUMNS] for row in report.history), title, table_format)


def print_history(rows: list[dict[str, Any]], title: str, table_format: str | None = None) -> None:
    """History rows as `history` and `explain` show them; with 'nl' each row whole, as --json's `rows` holds it."""
    from sheets_engine.core.history import PRINTED

    if table_format == "nl":
        print_records(rows)
        return
    print_table(PRINTED, ([row.get(c) for c in PRINTED] for row in rows), title, table_format)


def counts(report: Any) -> dict[str, Any]:
    """The counts every writing command reports."""
    return {
        "dry_run": report.dry_run,
        "cells_changed": len(report.changes),
        "history_rows": len(report.history),
        "cells_written": 0 if report.dry_run else report.cells_written,
    }


def with_progress(work: Callable[[], T], quiet: bool) -> T:
    """Run `work`, with a spinner on a terminal."""
    if quiet or not sys.stderr.isatty():
        return work()
    from rich.console import Console

    with Console(stderr=True).status("Resolving the turn..."):
        return work()


def rows_text(numbers: list[int]) -> str:
    """Sheet rows as a short list ("4, 5, 9 and 3 more")."""
    return ", ".join(str(n) for n in numbers[:10]) + (f" and {len(numbers) - 10} more" if len(numbers) > 10 else "")
