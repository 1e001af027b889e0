"""How the CLI shows things: one JSON object for scripts, whole tables for people and pipes.

Nothing here knows a rule. Every value reaches the terminal as text: rich markup in a cell or in a
player's order is never interpreted, and control characters are shown as escapes.
"""

from __future__ import annotations

import csv
import io
import json
import re
import sys
from collections.abc import Iterable, Sequence
from typing import Any

import click

# Every `--json` payload has these two keys first; the rest are snake_case counts and lists.
STATUS_OK = "ok"

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def visible(value: Any) -> str:
    """A value as text with control characters made visible (ESC shows as \\x1b, never acts)."""
    if value is None:
        return ""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", str(value))


def snake(name: str) -> str:
    """`cells restored` -> `cells_restored`: one spelling of keys in every JSON payload."""
    return re.sub(r"[^0-9a-z]+", "_", name.casefold()).strip("_")


def payload(status: str, exit_code: int, **fields: Any) -> dict[str, Any]:
    """A JSON payload: `status` and `exit` first, every other key in snake_case."""
    body: dict[str, Any] = {"status": status, "exit": exit_code}
    for key, value in fields.items():
        body[snake(key)] = value
    return body


def emit_json(body: dict[str, Any]) -> None:
    """Print exactly one JSON object on stdout."""
    click.echo(json.dumps(body, indent=2, default=str, ensure_ascii=False))


class JsonMode:
    """Whether the running command was asked for `--json`, so that main() answers in JSON too
    when the command fails before it could."""

    on = False


def json_option(help_text: str = "Print one JSON object (for scripts and cron logs).") -> Any:
    """The `--json` flag of every reporting command."""

    def remember(ctx: click.Context, param: click.Parameter, value: bool) -> bool:
        if value:
            JsonMode.on = True
        return value

    return click.option("--json", "as_json", is_flag=True, is_eager=True, callback=remember, help=help_text)


def table_format_option(command: Any) -> Any:
    """`--csv` / `--tsv`: the table as delimited text, every value whole."""
    command = click.option(
        "--tsv", "table_format", flag_value="tsv", help="Print the table as tab-separated values, every value whole."
    )(command)
    return click.option("--csv", "table_format", flag_value="csv", help="Print the table as CSV, every value whole.")(
        command
    )


def print_table(
    columns: Sequence[str], rows: Iterable[Sequence[Any]], title: str = "", table_format: str | None = None
) -> None:
    """A table: delimited text with `table_format` ('csv' or 'tsv'), else a drawn table.

    A drawn table is as wide as its longest values when stdout is not a terminal (a pipe or a
    file gets every value whole); on a terminal it fits the window and wraps, never cuts.
    """
    cells = [[visible(v) for v in row] for row in rows]
    if table_format in ("csv", "tsv"):
        buffer = io.StringIO()
        writer = csv.writer(buffer, delimiter="," if table_format == "csv" else "\t", lineterminator="\n")
        writer.writerow(columns)
        writer.writerows(cells)
        click.echo(buffer.getvalue(), nl=False)
        return
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    # a table of names and values has no header: an empty header row would only be a blank line boxed in
    header = any(str(c).strip() for c in columns)
    table = Table(*columns, title=Text(visible(title)) if title else None, show_header=header)
    for column in table.columns:
        column.overflow = "fold"  # wrap a long value onto more lines; never cut it with "…"
    for row in cells:
        table.add_row(*(Text(v) for v in row))
    terminal = sys.stdout.isatty()
    width = None
    if not terminal:
        widest = [len(c) for c in columns]
        for row in cells:
            widest = [
                max(w, max((len(line) for line in v.splitlines()), default=0)) for w, v in zip(widest, row, strict=True)
            ]
        width = max(80, sum(widest) + 3 * len(columns) + 1, len(title))
    Console(highlight=False, soft_wrap=not terminal, width=width, markup=False).print(table)


def print_text(message: str) -> None:
    """A line for a person, as text (markup in it is never interpreted)."""
    click.echo(visible(message))
