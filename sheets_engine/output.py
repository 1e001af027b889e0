"""How the CLI shows things: one JSON object for scripts, whole tables for people and pipes, one JSON
object a line (`--nl`) for rows at any size.

Nothing here knows a rule. Every value reaches the terminal as text: rich markup in a cell or in a
player's order is never interpreted, and control characters are shown as escapes.
"""

from __future__ import annotations

import csv
import json
import re
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from itertools import islice
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


PAGE = 1000
"""Rows a drawn table holds at most: a longer table is printed as plain aligned text, one page of rows at a
time (rich measures every row of a table before it prints one: minutes and gigabytes at 100,000 rows)."""

SEPARATOR = " │ "


def print_table(
    columns: Sequence[str], rows: Iterable[Sequence[Any]], title: str = "", table_format: str | None = None
) -> None:
    """A table: delimited text with `table_format` ('csv' or 'tsv'), one JSON object a line with 'nl', else a
    drawn table (plain aligned text, streamed a page at a time, past PAGE rows).

    A drawn table is as wide as its longest values when stdout is not a terminal (a pipe or a
    file gets every value whole); on a terminal it fits the window and wraps, never cuts.
    """
    if table_format == "nl":
        print_lines(columns, rows)
        return
    if table_format in ("csv", "tsv"):
        writer = csv.writer(sys.stdout, delimiter="," if table_format == "csv" else "\t", lineterminator="\n")
        writer.writerow(columns)
        for page in _pages(rows):
            writer.writerows(page)
        sys.stdout.flush()
        return
    pages = _pages(rows)
    first = next(pages, [])
    if len(first) < PAGE:
        _draw(columns, first, title)
        return
    _stream(columns, first, pages, title)


def _pages(rows: Iterable[Sequence[Any]]) -> Iterator[list[list[str]]]:
    """The rows as text, PAGE at a time (only one page is held)."""
    source = iter(rows)
    while page := [[visible(v) for v in row] for row in islice(source, PAGE)]:
        yield page


def _draw(columns: Sequence[str], cells: list[list[str]], title: str) -> None:
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


def _stream(columns: Sequence[str], first: list[list[str]], rest: Iterator[list[list[str]]], title: str) -> None:
    """A long table as plain text: the title, the header, then each row on one line, its values separated by
    " │ " and padded to the widest value seen so far (the first page sets the widths; a wider value later
    widens its column from its page on). A line break inside a value shows as \\n: one row, one line."""
    from rich.cells import cell_len

    out = sys.stdout
    widths = [cell_len(c) for c in columns]
    if title:
        out.write(visible(title) + "\n")
    page: list[list[str]] | None = first
    header = True
    while page is not None:
        for row in page:
            for i, value in enumerate(row):
                if "\n" in value or "\t" in value:
                    row[i] = value = value.replace("\n", "\\n").replace("\t", "\\t")
                size = len(value) if value.isascii() else cell_len(value)
                if size > widths[i]:
                    widths[i] = size
        if header:
            out.write(_line(list(columns), widths) + "\n")
            out.write("─┼─".join("─" * w for w in widths) + "\n")
            header = False
        out.write("".join(_line(row, widths) + "\n" for row in page))
        page = next(rest, None)
    out.flush()


def _line(values: list[str], widths: list[int]) -> str:
    from rich.cells import cell_len

    padded = [v + " " * (w - (len(v) if v.isascii() else cell_len(v))) for v, w in zip(values, widths, strict=True)]
    return SEPARATOR.join(padded).rstrip()


def print_lines(columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
    """`--nl`: each row as one JSON object on its own line, keyed by the columns."""
    names = list(columns)
    print_records(dict(zip(names, row, strict=True)) for row in rows)


def print_records(records: Iterable[Mapping[str, Any]]) -> None:
    """`--nl`: each record as one JSON object on its own line (as sqlite-utils prints rows), a page at a time.
    Values are kept as they are (numbers stay numbers, control characters are escaped by JSON); nothing else
    is printed."""
    out = sys.stdout
    source = iter(records)
    while page := list(islice(source, PAGE)):
        out.write("".join(json.dumps(dict(r), default=str, ensure_ascii=False) + "\n" for r in page))
    out.flush()


def nl_option(command: Any) -> Any:
    """`--nl`: every row as one JSON object a line (for scripts reading History at any size)."""
    return click.option(
        "--nl", "as_lines", is_flag=True, help="Print each row as one JSON object on its own line (nothing else)."
    )(command)


def one_format(as_lines: bool, as_json: bool = False, table_format: str | None = None) -> str | None:
    """The table format asked for, with `--nl` as 'nl'; --nl beside --json, --csv or --tsv is a usage error."""
    if not as_lines:
        return table_format
    other = "--json" if as_json else f"--{table_format}" if table_format else ""
    if other:
        raise click.UsageError(f"--nl and {other} cannot be used together: choose one output format")
    return "nl"


def print_text(message: str) -> None:
    """A line for a person, as text (markup in it is never interpreted)."""
    click.echo(visible(message))
