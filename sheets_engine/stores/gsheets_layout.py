"""What the Google Sheets store sends, built as plain data: ranges, cell values, batchUpdate requests.

No I/O here. Every function takes values and returns the JSON the Sheets API v4 expects, so the
requests can be read and tested without a network:
- text always goes in as a `stringValue` (never a `formulaValue`), so a letter starting with `=`
  stays text;
- writes address exact cells (`updateCells` at a start coordinate), so sending the same write twice
  changes nothing: a retry after a lost reply is safe;
- a new campaign's tabs get a bold, frozen header row and dropdowns for the closed columns.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from gspread.utils import a1_to_rowcol, absolute_range_name, rowcol_to_a1

from sheets_engine.core.store import Choice
from sheets_engine.stores.guard import Cell, column_letter

VALUE_FIELDS = "userEnteredValue"
DEFAULT_ROWS, DEFAULT_COLUMNS = 1000, 26  # what Google gives a new tab


def quote_title(title: str) -> str:
    """A tab title as A1 notation wants it: in single quotes, inner quotes doubled."""
    return absolute_range_name(title)


def a1_range(title: str, row1: int, col1: int, row2: int, col2: int) -> str:
    """`'Tab'!B2:C9` (1-based, inclusive); a single cell is `'Tab'!B2`."""
    start, end = rowcol_to_a1(row1, col1), rowcol_to_a1(row2, col2)
    return absolute_range_name(title, start if start == end else f"{start}:{end}")


_REPLY_RANGE = re.compile(r"^(?P<title>'(?:[^']|'')*'|[^!]*)!(?P<c1>[A-Z]+)(?P<r1>\d+)(?::(?P<c2>[A-Z]+)(?P<r2>\d+))?$")


def reply_range(a1: str) -> tuple[str, int, int] | None:
    """(title, last row, last column) of the range a values reply names: `'My Tab'!A1:Z1000` ->
    ('My Tab', 1000, 26). Google clamps an open range (a whole tab, `1:1`, `A:A`) to the grid, so
    the last row of `A:A` is the grid's rowCount and the last column of `1:1` its columnCount."""
    match = _REPLY_RANGE.match(a1)
    if match is None:
        return None
    title = match["title"]
    if title.startswith("'") and title.endswith("'"):
        title = title[1:-1].replace("''", "'")
    letters, row = (match["c2"], match["r2"]) if match["c2"] else (match["c1"], match["r1"])
    return title, *a1_to_rowcol(f"{letters}{row}")


def extended_value(value: Any) -> dict[str, Any] | None:
    """The `userEnteredValue` for a Python value; None for an empty cell.

    Text is a stringValue whatever it looks like: this is the RAW input that keeps `=...` text.
    """
    if value is None or (isinstance(value, str) and value == ""):
        return None
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int | float):
        if isinstance(value, float) and not math.isfinite(value):
            return {"stringValue": str(value)}
        return {"numberValue": value}
    if isinstance(value, datetime):
        return {"stringValue": value.strftime("%Y-%m-%d %H:%M:%S")}
    if isinstance(value, date):
        return {"stringValue": value.isoformat()}
    return {"stringValue": str(value)}


def cell_data(value: Any) -> dict[str, Any]:
    """A CellData; `{}` under the `userEnteredValue` mask clears the cell."""
    entered = extended_value(value)
    return {} if entered is None else {"userEnteredValue": entered}


@dataclass(frozen=True)
class Block:
    """A rectangle of cells written by one updateCells request (None clears a cell)."""

    tab: str
    row: int  # 1-based top row
    column: int  # 1-based left column
    values: tuple[tuple[Any, ...], ...]

    @property
    def bottom(self) -> int:
        """The last row the block covers."""
        return self.row + len(self.values) - 1

    @property
    def right(self) -> int:
        """The last column the block covers."""
        return self.column + max((len(r) for r in self.values), default=1) - 1


def plan_write(cells: Mapping[Cell, Any], last_rows: Mapping[str, int]) -> tuple[dict[Cell, Any], list[Block]]:
    """The cells to write (gaps of appended rows included) and the blocks that write them.

    Rows past a tab's last used row are new: each tab's new rows are written as one rectangle,
    the cells between given ones written empty (they were empty when read, and the guard checks
    they still are). Cells in rows that existed are written exactly, in runs along a row, and a
    run repeated on the rows below joins them in one block.
    """
    targets = dict(cells)
    by_tab: dict[str, dict[Cell, Any]] = defaultdict(dict)
    for cell, value in cells.items():
        by_tab[cell[0]][cell] = value
    blocks: list[Block] = []
    for tab in sorted(by_tab):
        tab_cells = by_tab[tab]
        last = last_rows.get(tab, 0)
        new = {c: v for c, v in tab_cells.items() if c[1] > last}
        old = {c: v for c, v in tab_cells.items() if c[1] <= last}
        blocks += _row_runs(tab, old)
        if new:
            top, bottom = min(c[1] for c in new), max(c[1] for c in new)
            left, right = min(c[2] for c in new), max(c[2] for c in new)
            rows = []
            for r in range(top, bottom + 1):
                row = []
                for col in range(left, right + 1):
                    targets.setdefault((tab, r, col), None)
                    row.append(new.get((tab, r, col)))
                rows.append(tuple(row))
            blocks.append(Block(tab, top, left, tuple(rows)))
    return targets, blocks


def _row_runs(tab: str, cells: Mapping[Cell, Any]) -> list[Block]:
    rows: dict[int, list[int]] = defaultdict(list)
    for _, r, c in cells:
        rows[r].append(c)
    runs: list[tuple[int, int, int]] = []  # (row, first column, last column)
    for r in sorted(rows):
        columns = sorted(rows[r])
        start = prev = columns[0]
        for c in columns[1:]:
            if c != prev + 1:
                runs.append((r, start, prev))
                start = c
            prev = c
        runs.append((r, start, prev))
    blocks: list[Block] = []
    open_blocks: dict[tuple[int, int], tuple[int, list[tuple[Any, ...]]]] = {}  # span -> (top, rows)
    for r, c1, c2 in runs:
        values = tuple(cells[(tab, r, c)] for c in range(c1, c2 + 1))
        top, stacked = open_blocks.get((c1, c2), (r, []))
        if stacked and top + len(stacked) == r:
            stacked.append(values)
            continue
        if stacked:
            blocks.append(Block(tab, top, c1, tuple(stacked)))
        open_blocks[(c1, c2)] = (r, [values])
    for (c1, _), (top, stacked) in open_blocks.items():
        blocks.append(Block(tab, top, c1, tuple(stacked)))
    return sorted(blocks, key=lambda b: (b.row, b.column))


def rectangles(cells: Iterable[Cell]) -> list[tuple[str, int, int, int, int]]:
    """Few A1 rectangles (tab, row1, col1, row2, col2) covering exactly these cells.

    Runs down each column, then side-by-side columns with the same run merged: the guard's re-read
    names a handful of ranges, not one per cell.
    """
    columns: dict[tuple[str, int], list[int]] = defaultdict(list)
    for tab, r, c in cells:
        columns[(tab, c)].append(r)
    spans: dict[tuple[str, int, int], list[int]] = defaultdict(list)  # (tab, r1, r2) -> columns
    for (tab, c), rows in columns.items():
        rows.sort()
        start = prev = rows[0]
        for r in rows[1:]:
            if r != prev + 1:
                spans[(tab, start, prev)].append(c)
                start = r
            prev = r
        spans[(tab, start, prev)].append(c)
    found = []
    for (tab, r1, r2), cols in spans.items():
        cols.sort()
        start = prev = cols[0]
        for c in cols[1:]:
            if c != prev + 1:
                found.append((tab, r1, start, r2, prev))
                start = c
            prev = c
        found.append((tab, r1, start, r2, prev))
    return sorted(found)


def update_cells(sheet_id: int, block: Block) -> dict[str, Any]:
    """The updateCells request writing one block's values (and nothing else: no formats)."""
    return {
        "updateCells": {
            "start": {"sheetId": sheet_id, "rowIndex": block.row - 1, "columnIndex": block.column - 1},
            "rows": [{"values": [cell_data(v) for v in row]} for row in block.values],
            "fields": VALUE_FIELDS,
        }
    }


def append_dimension(sheet_id: int, dimension: str, length: int) -> dict[str, Any]:
    """Grow a tab by `length` rows or columns (a write past the grid's end fails otherwise)."""
    return {"appendDimension": {"sheetId": sheet_id, "dimension": dimension, "length": length}}


def grow(sheet_id: int, grid: Mapping[str, int], rows: int, columns: int) -> list[dict[str, Any]]:
    """The appendDimension requests that make a tab at least rows x columns."""
    requests = []
    if rows > grid.get("rowCount", 0):
        requests.append(append_dimension(sheet_id, "ROWS", rows - grid.get("rowCount", 0)))
    if columns > grid.get("columnCount", 0):
        requests.append(append_dimension(sheet_id, "COLUMNS", columns - grid.get("columnCount", 0)))
    return requests


def add_sheet(sheet_id: int, title: str, index: int, rows: int, columns: int, exact: bool = False) -> dict[str, Any]:
    """A new tab with a frozen header row, big enough for its rows; with `exact`, as wide as its header
    (History: Google counts every cell of a grid against its limit, and History grows every turn)."""
    return {
        "addSheet": {
            "properties": {
                "sheetId": sheet_id,
                "title": title,
                "index": index,
                "sheetType": "GRID",
                "gridProperties": {
                    "rowCount": max(DEFAULT_ROWS, rows),
                    "columnCount": max(columns, 1) if exact else max(DEFAULT_COLUMNS, columns),
                    "frozenRowCount": 1,
                },
            }
        }
    }


def freeze_header(sheet_id: int) -> dict[str, Any]:
    """Freeze row 1 of an existing tab."""
    return {
        "updateSheetProperties": {
            "properties": {"sheetId": sheet_id, "gridProperties": {"frozenRowCount": 1}},
            "fields": "gridProperties.frozenRowCount",
        }
    }


def bold_header(sheet_id: int, width: int) -> dict[str, Any]:
    """Row 1 in bold, only the bold flag touched."""
    return {
        "repeatCell": {
            "range": {"sheetId": sheet_id, "startRowIndex": 0, "endRowIndex": 1, "startColumnIndex": 0,
                      "endColumnIndex": max(width, 1)},
            "cell": {"userEnteredFormat": {"textFormat": {"bold": True}}},
            "fields": "userEnteredFormat.textFormat.bold",
        }
    }  # fmt: skip


def clear_values(sheet_id: int) -> dict[str, Any]:
    """Empty every cell of a tab (values only: formats and the tab itself stay)."""
    return {"updateCells": {"range": {"sheetId": sheet_id}, "fields": VALUE_FIELDS}}


def dropdowns(
    tabs: Mapping[str, list[list[Any]]], sheet_ids: Mapping[str, int], choices: Iterable[Choice] = ()
) -> list[dict[str, Any]]:
    """setDataValidation requests for the closed columns (the ruleset's `choices`) of the tabs being laid out.

    A choice read from a (tab, column) is a range, so that a GM who adds a Terrain or Building row
    gets it in the dropdown without touching the validation."""
    requests = []
    for choice in choices:
        rows = tabs.get(choice.tab)
        if not rows or choice.tab not in sheet_ids:
            continue
        condition = _condition(tabs, choice)
        if condition is None:
            continue
        header = [str(h or "").strip().casefold() for h in rows[0]]
        for column in choice.columns:
            if column.casefold() not in header:
                continue
            index = header.index(column.casefold())
            requests.append(
                {
                    "setDataValidation": {
                        "range": {"sheetId": sheet_ids[choice.tab], "startRowIndex": 1, "startColumnIndex": index,
                                  "endColumnIndex": index + 1},
                        "rule": {"condition": condition, "strict": True, "showCustomUi": True},
                    }
                }
            )  # fmt: skip
    return requests


def _condition(tabs: Mapping[str, list[list[Any]]], choice: Choice) -> dict[str, Any] | None:
    if choice.source is not None:
        tab, column = choice.source
        rows = tabs.get(tab)
        if not rows:
            return None
        header = [str(h or "").strip().casefold() for h in rows[0]]
        if column.casefold() not in header:
            return None
        letter = column_letter(header.index(column.casefold()) + 1)
        return {"type": "ONE_OF_RANGE", "values": [{"userEnteredValue": f"={quote_title(tab)}!${letter}$2:${letter}"}]}
    return {"type": "ONE_OF_LIST", "values": [{"userEnteredValue": word} for word in choice.words]}


# -- compact writes: pasted text, request limit, staging ---------------------------------------------
# Google recommends at most 2 MB a request ("Usage limits" of the Sheets API) and cuts a request off
# after 180 s: 2 MB keeps a request well inside that on a slow uplink, and it is the size Google names.
MAX_REQUEST_BYTES = 2_000_000
# The hidden tab a write too large for one request is staged in; a run that died left it behind and
# the next write deletes it. Never read, never part of the campaign.
STAGING_TITLE = "sheets-engine staging"
PASTE_DELIMITER = "\t"
# Text Sheets could read as something else when pasted goes in as a typed updateCells value instead:
# a tab or line break would split the cell, a double quote opens a quoted field, and edge spaces may
# be trimmed. Everything else is pasted behind an apostrophe, which Sheets keeps as a quote prefix
# (the cell is text; the apostrophe is not part of its value).
_NOT_PASTED = re.compile(r"[\t\n\r\"]|^\s|\s$")
_EXACT = 10**15  # integers pasted as digits up to here (a double holds them exactly)


def paste_field(value: Any) -> str | None:
    """The text a pasteData field gives for a value, or None when it must go as a typed value.

    Text always gets a leading apostrophe (so `=`, `+`, `-`, `@`, `'`, numbers, dates and TRUE stay
    text); whole numbers go as plain digits (the same in every locale). Fractions and booleans are
    written typed: how Sheets parses `0.5` or `TRUE` depends on the spreadsheet's locale.
    """
    if value is None or (isinstance(value, str) and value == ""):
        return ""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return str(value) if abs(value) < _EXACT else None
    if isinstance(value, float):
        if math.isfinite(value) and value.is_integer() and abs(value) < _EXACT:
            return str(int(value))
        return None
    entered = extended_value(value)
    text = "" if entered is None else str(entered.get("stringValue", ""))
    if _NOT_PASTED.search(text):
        return None
    return "'" + text


def paste_data(sheet_id: int, row0: int, column0: int, lines: list[str]) -> dict[str, Any]:
    """A pasteData request: tab-separated lines at a 0-based coordinate, values only (formats stay)."""
    return {
        "pasteData": {
            "coordinate": {"sheetId": sheet_id, "rowIndex": row0, "columnIndex": column0},
            "data": "\n".join(lines),
            "type": "PASTE_VALUES",
            "delimiter": PASTE_DELIMITER,
        }
    }


def cell_requests(
    sheet_id: int, row0: int, column0: int, values: tuple[tuple[Any, ...], ...], clear_empty: bool, budget: int
) -> list[dict[str, Any]]:
    """The requests that write a rectangle of values at a 0-based (row0, column0).

    Pasted lines, in pasteData requests of at most `budget` bytes of data each; then updateCells for
    the cells that cannot be pasted, and, with `clear_empty`, for the empty ones (cells that held
    something and are cleared: a paste of an empty field is not relied on to clear a cell). Without
    it, the target is known empty (new rows, the staging tab) and empty fields are simply left out.
    """
    typed: list[tuple[int, int, list[Any]]] = []  # (row offset, column offset, values) runs
    lines: list[str] = []
    for i, row in enumerate(values):
        fields: list[str] = []
        run: list[Any] = []
        for j, value in enumerate(row):
            field = paste_field(value)
            if field is None or (clear_empty and field == ""):
                if not run:
                    typed.append((i, j, run))
                run.append(value)
                field = ""
            else:
                run = []
            fields.append(field)
        while fields and fields[-1] == "":
            fields.pop()
        lines.append(PASTE_DELIMITER.join(fields))
    from sheets_engine.stores.gsheets_http import body_bytes

    pastes: list[dict[str, Any]] = []
    chunk: list[str] = []
    top = size = 0

    def flush() -> None:
        while chunk and not chunk[-1]:
            chunk.pop()
        if chunk:
            pastes.append(paste_data(sheet_id, row0 + top, column0, list(chunk)))
        chunk.clear()

    for i, line in enumerate(lines):
        cost = len(body_bytes(line)) if PASTE_DELIMITER in line else len(line.encode()) + 2  # as JSON, with its \\n
        if chunk and size + cost > budget:
            flush()
        if not chunk:
            if not line:
                continue  # a chunk starts at a line with something to paste
            top, size = i, 0
        chunk.append(line)
        size += cost
    flush()
    updates = [update_cells(sheet_id, Block("", row0 + i + 1, column0 + j + 1, (tuple(run),))) for i, j, run in typed]
    return pastes + updates


def request_size(request: dict[str, Any]) -> int:
    """Bytes one request adds to a batchUpdate body (its JSON and a comma)."""
    from sheets_engine.stores.gsheets_http import body_bytes

    return len(body_bytes(request)) + 1


def pack(requests: list[dict[str, Any]], limit: int) -> list[list[dict[str, Any]]]:
    """The requests in order, cut into batchUpdate bodies of at most `limit` bytes each."""
    batches: list[list[dict[str, Any]]] = []
    size = limit
    for request in requests:
        cost = request_size(request)
        if size + cost > limit:
            batches.append([])
            size = len(b'{"requests":[]}')
        batches[-1].append(request)
        size += cost
    return batches


def copy_paste(source: tuple[int, int, int, int, int], target: tuple[int, int, int]) -> dict[str, Any]:
    """A copyPaste of values only: `source` (sheetId, row0, column0, rows, columns) to `target`'s
    (sheetId, row0, column0); an empty source cell empties its target."""
    sheet, r0, c0, rows, columns = source
    to, t0, u0 = target
    return {
        "copyPaste": {
            "source": {"sheetId": sheet, "startRowIndex": r0, "endRowIndex": r0 + rows, "startColumnIndex": c0,
                       "endColumnIndex": c0 + columns},
            "destination": {"sheetId": to, "startRowIndex": t0, "endRowIndex": t0 + rows, "startColumnIndex": u0,
                            "endColumnIndex": u0 + columns},
            "pasteType": "PASTE_VALUES",
            "pasteOrientation": "NORMAL",
        }
    }  # fmt: skip


def add_staging(sheet_id: int, rows: int, columns: int) -> dict[str, Any]:
    """The hidden staging tab, as large as the cells staged in it."""
    grid = {"rowCount": max(rows, 1), "columnCount": max(columns, 1)}
    return {"addSheet": {"properties": {"sheetId": sheet_id, "title": STAGING_TITLE, "hidden": True,
                                        "gridProperties": grid}}}  # fmt: skip


def is_staging(title: str) -> bool:
    """True for the engine's staging tab (never read as part of the campaign)."""
    return title.strip().casefold().startswith(STAGING_TITLE)


def update_rows(sheet_id: int, rows: list[list[Any]], budget: int) -> list[dict[str, Any]]:
    """updateCells requests laying a tab's rows out from A1, each at most about `budget` bytes (typed
    values: setting a campaign up writes every cell as updateCells does, text as stringValue)."""
    from sheets_engine.stores.gsheets_http import body_bytes

    requests: list[dict[str, Any]] = []
    top, size = 0, 0
    for i, row in enumerate(rows):
        cost = len(body_bytes({"values": [cell_data(v) for v in row]})) + 1
        if i > top and size + cost > budget:
            requests.append(update_cells(sheet_id, Block("", top + 1, 1, tuple(tuple(r) for r in rows[top:i]))))
            top, size = i, 0
        size += cost
    if rows:
        requests.append(update_cells(sheet_id, Block("", top + 1, 1, tuple(tuple(r) for r in rows[top:]))))
    return requests
