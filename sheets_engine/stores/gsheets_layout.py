"""The batchUpdate requests the Google Sheets store sends, built as plain data. No I/O here.

Each builder returns the JSON of one request of the Sheets API v4, and only requests whose meaning
the reference states are built (docs/google-sheets.md, "What the engine relies on"):
- a value goes in as a typed `userEnteredValue`: text a `stringValue` whatever it looks like (`=1+1`,
  `007`, `TRUE` stay text), numbers a `numberValue`, booleans a `boolValue`;
- cells are written by `updateCells` from a start coordinate and `repeatCell` (one value over a
  range), and emptied by `updateCells` over a range with no rows (the reference: the cells of the
  range its rows do not cover are cleared); values only, so no format, note or validation of a GM's
  is touched;
- a new campaign's tabs get a bold, frozen header row and dropdowns for the closed columns.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from datetime import date, datetime
from typing import Any

from sheets_engine.core.store import Choice
from sheets_engine.stores.gsheets_http import body_bytes
from sheets_engine.stores.gsheets_read import quote_title
from sheets_engine.stores.guard import column_letter

VALUE_FIELDS = "userEnteredValue"
DEFAULT_ROWS, DEFAULT_COLUMNS = 1000, 26  # what Google gives a new tab
# Google recommends at most 2 MB a request ("To speed up requests, we recommend a 2 MB maximum payload",
# developers.google.com/sheets/api/limits); a larger write is staged (gsheets_plan).
MAX_REQUEST_BYTES = 2_000_000
# The hidden tab a write too large for one request is staged in; a run that died left it behind and
# the next write deletes it. Never read, never part of the campaign.
STAGING_TITLE = "sheets-engine staging"


def a1_range(title: str, row1: int, col1: int, row2: int, col2: int) -> str:
    """`'Tab'!B2:C9` (1-based, inclusive); a single cell is `'Tab'!B2`."""
    start, end = f"{column_letter(col1)}{row1}", f"{column_letter(col2)}{row2}"
    return f"{quote_title(title)}!{start}" + ("" if start == end else f":{end}")


def extended_value(value: Any) -> dict[str, Any] | None:
    """The `userEnteredValue` for a Python value; None for an empty cell.

    Text is a stringValue whatever it looks like: a letter starting with `=` stays that text.
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
    """A CellData for a value; `{}` for an empty one, written only where the cell is empty already."""
    entered = extended_value(value)
    return {} if entered is None else {"userEnteredValue": entered}


def grid_range(sheet_id: int, row0: int, column0: int, rows: int, columns: int) -> dict[str, Any]:
    """A GridRange: `rows` x `columns` cells from a 0-based (row0, column0)."""
    return {"sheetId": sheet_id, "startRowIndex": row0, "endRowIndex": row0 + rows,
            "startColumnIndex": column0, "endColumnIndex": column0 + columns}  # fmt: skip


def update_cells(sheet_id: int, row0: int, column0: int, rows: Sequence[Sequence[Any]]) -> dict[str, Any]:
    """updateCells from a 0-based start coordinate, values only: each row's cells written from the start
    column ("any number of rows and columns, including a different number of columns per row")."""
    return update_cell_data(sheet_id, row0, column0, [[cell_data(v) for v in row] for row in rows])


def update_cell_data(sheet_id: int, row0: int, column0: int, rows: Sequence[list[dict[str, Any]]]) -> dict[str, Any]:
    """As `update_cells`, the rows' CellData built already."""
    return {
        "updateCells": {
            "start": {"sheetId": sheet_id, "rowIndex": row0, "columnIndex": column0},
            "rows": [{"values": row} for row in rows],
            "fields": VALUE_FIELDS,
        }
    }


def clear_cells(sheet_id: int, row0: int, column0: int, rows: int, columns: int) -> dict[str, Any]:
    """updateCells over a range with no rows: every value in it cleared (formats stay)."""
    return {"updateCells": {"range": grid_range(sheet_id, row0, column0, rows, columns), "fields": VALUE_FIELDS}}


def repeat_value(sheet_id: int, row0: int, column0: int, rows: int, columns: int, value: Any) -> dict[str, Any]:
    """repeatCell: one value in every cell of a range (values only)."""
    return {
        "repeatCell": {
            "range": grid_range(sheet_id, row0, column0, rows, columns),
            "cell": cell_data(value),
            "fields": VALUE_FIELDS,
        }
    }


def clear_values(sheet_id: int) -> dict[str, Any]:
    """Empty every cell of a tab (values only: formats and the tab itself stay)."""
    return {"updateCells": {"range": {"sheetId": sheet_id}, "fields": VALUE_FIELDS}}


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
    """A new tab with a frozen header row, big enough for its rows and one more (a frozen row must leave
    one unfrozen); with `exact`, as wide as its header (History: Google counts every cell of a grid
    against its limit, and History grows every turn)."""
    return {
        "addSheet": {
            "properties": {
                "sheetId": sheet_id,
                "title": title,
                "index": index,
                "sheetType": "GRID",
                "gridProperties": {
                    "rowCount": max(DEFAULT_ROWS, rows, 2),
                    "columnCount": max(columns, 1) if exact else max(DEFAULT_COLUMNS, columns),
                    "frozenRowCount": 1,
                },
            }
        }
    }


def freeze_header(sheet_id: int) -> dict[str, Any]:
    """Freeze row 1 of an existing tab (its grid must have a second row: see `grow`)."""
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


def update_rows(sheet_id: int, rows: list[list[Any]], budget: int) -> list[dict[str, Any]]:
    """updateCells requests laying a tab's rows out from A1 into an empty tab, each at most about
    `budget` bytes (typed values, text as stringValue)."""
    requests: list[dict[str, Any]] = []
    top, size = 0, 0
    for i, row in enumerate(rows):
        cost = len(body_bytes({"values": [cell_data(v) for v in row]})) + 1
        if i > top and size + cost > budget:
            requests.append(update_cells(sheet_id, top, 0, rows[top:i]))
            top, size = i, 0
        size += cost
    if rows:
        requests.append(update_cells(sheet_id, top, 0, rows[top:]))
    return requests


def request_size(request: dict[str, Any]) -> int:
    """Bytes one request adds to a batchUpdate body (its JSON and a comma)."""
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
    """A copyPaste of values only (PASTE_VALUES): `source` (sheetId, row0, column0, rows, columns) to
    `target`'s (sheetId, row0, column0), the destination exactly the source's size. Used only where
    every cell of the destination is empty or is given a value (gsheets_plan)."""
    sheet, r0, c0, rows, columns = source
    to, t0, u0 = target
    return {
        "copyPaste": {
            "source": grid_range(sheet, r0, c0, rows, columns),
            "destination": grid_range(to, t0, u0, rows, columns),
            "pasteType": "PASTE_VALUES",
            "pasteOrientation": "NORMAL",
        }
    }


def add_staging(sheet_id: int, rows: int, columns: int) -> dict[str, Any]:
    """The hidden staging tab, as large as the cells staged in it."""
    grid = {"rowCount": max(rows, 1), "columnCount": max(columns, 1)}
    return {"addSheet": {"properties": {"sheetId": sheet_id, "title": STAGING_TITLE, "hidden": True,
                                        "gridProperties": grid}}}  # fmt: skip


def is_staging(title: str) -> bool:
    """True for the engine's staging tab (never read as part of the campaign)."""
    return title.strip().casefold().startswith(STAGING_TITLE)
