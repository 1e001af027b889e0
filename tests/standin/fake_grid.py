"""The Sheets stand-in's spreadsheets: tabs, cells, A1 ranges, and how Google renders them.

A cell is (kind, value), kind one of string, number, bool, formula; a formula cell's calculated
value (or error) is kept beside it in `Sheet.results`, as a GM's spreadsheet would have computed it
(the stand-in does not calculate). Replies are rendered as Google renders them: values (the values
API) or CellData (spreadsheets.get with grid data), narrowed by a field mask.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from sheets_engine.stores.guard import column_letter

Cell = tuple[str, Any]  # (kind, value)


class ApiError(Exception):
    """A reply in Google's error format."""

    def __init__(self, code: int, message: str, status: str = "INVALID_ARGUMENT", details: list[Any] | None = None):
        super().__init__(message)
        self.code, self.message, self.status, self.details = code, message, status, details

    def body(self) -> dict[str, Any]:
        """Google's JSON error object."""
        error: dict[str, Any] = {"code": self.code, "message": self.message, "status": self.status}
        if self.details:
            error["details"] = self.details
        return {"error": error}


@dataclass
class Sheet:
    """One tab: its properties as the API gives them, and its cells by 0-based (row, column)."""

    properties: dict[str, Any]
    cells: dict[tuple[int, int], Cell] = field(default_factory=dict)
    formats: list[tuple[dict[str, Any], dict[str, Any], str]] = field(default_factory=list)  # range, cell, fields
    validations: list[tuple[dict[str, Any], dict[str, Any] | None]] = field(default_factory=list)
    results: dict[tuple[int, int], Cell] = field(
        default_factory=dict
    )  # a formula's value: (kind, value) or ("error", type)

    @property
    def title(self) -> str:
        """The tab's title."""
        return str(self.properties["title"])

    @property
    def rows(self) -> int:
        """Rows in the grid."""
        return int(self.properties["gridProperties"]["rowCount"])

    @property
    def columns(self) -> int:
        """Columns in the grid."""
        return int(self.properties["gridProperties"]["columnCount"])


@dataclass
class Spreadsheet:
    """A spreadsheet and who may open it (None: anyone with a valid token)."""

    key: str
    title: str
    sheets: list[Sheet]
    editors: set[str] | None = None
    readers: set[str] = field(default_factory=set)

    def sheet(self, title: str) -> Sheet | None:
        """The tab with this title (exact, else ignoring case)."""
        for sheet in self.sheets:
            if sheet.title == title:
                return sheet
        return next((s for s in self.sheets if s.title.casefold() == title.casefold()), None)


def props(sheet_id: int, title: str, index: int, rows: int, columns: int) -> dict[str, Any]:
    """A new tab's properties."""
    return {
        "sheetId": sheet_id,
        "title": title,
        "index": index,
        "sheetType": "GRID",
        "gridProperties": {"rowCount": rows, "columnCount": columns},
    }


def by_id(book: Spreadsheet, sheet_id: Any) -> Sheet:
    """The tab with this id (0 when absent, as Google reads a missing sheetId)."""
    for sheet in book.sheets:
        if sheet.properties["sheetId"] == (sheet_id or 0):
            return sheet
    raise ApiError(400, f"No grid with id: {sheet_id}")


# -- A1 ranges -------------------------------------------------------------------------------------
_A1 = re.compile(r"^(?:(?P<sheet>'(?:[^']|'')+'|[^!]+)!)?(?P<ref>.*)$")
_REF = re.compile(r"^([A-Z]*)(\d*)(?::([A-Z]*)(\d*))?$")


def column_number(letters: str) -> int:
    """AA -> 27."""
    number = 0
    for letter in letters:
        number = number * 26 + ord(letter) - 64
    return number


def locate(book: Spreadsheet, a1: str) -> tuple[Sheet, int, int, int, int]:
    """The sheet and 0-based inclusive bounds (clamped to the grid) an A1 range names."""
    match = _A1.match(a1)
    assert match is not None
    name, ref = match.group("sheet"), match.group("ref")
    whole = a1[1:-1].replace("''", "'") if a1.startswith("'") and a1.endswith("'") else a1
    if name is None and book.sheet(whole) is not None:  # a tab's title alone: the whole tab
        name, ref = "'" + whole.replace("'", "''") + "'", ""
    if name is None:
        sheet: Sheet | None = sorted(book.sheets, key=lambda s: int(s.properties["index"]))[0]
    else:
        title = name[1:-1].replace("''", "'") if name.startswith("'") else name
        sheet = book.sheet(title)
    parts = _REF.match(ref.upper())
    if sheet is None or parts is None:
        raise ApiError(400, f"Unable to parse range: {a1}")
    col1, row1, col2, row2 = parts.groups()
    if ref and ":" not in ref:
        col2, row2 = col1, row1
    r1 = int(row1) - 1 if row1 else 0
    c1 = column_number(col1) - 1 if col1 else 0
    r2 = int(row2) - 1 if row2 else sheet.rows - 1
    c2 = column_number(col2) - 1 if col2 else sheet.columns - 1
    if r1 >= sheet.rows or c1 >= sheet.columns:
        raise ApiError(
            400,
            f"Range ({a1_name(sheet, r1, c1, r1, c1)}) exceeds grid limits. Max rows: {sheet.rows}, "
            f"max columns: {sheet.columns}",
        )
    return sheet, r1, c1, min(r2, sheet.rows - 1), min(c2, sheet.columns - 1)


def bounds(sheet: Sheet, grid: dict[str, Any]) -> tuple[int, int, int, int]:
    """(row0, row1, column0, column1), 0-based inclusive, of a GridRange (open ends: the grid's)."""
    r0, c0 = grid.get("startRowIndex", 0), grid.get("startColumnIndex", 0)
    r1 = grid.get("endRowIndex", sheet.rows) - 1
    c1 = grid.get("endColumnIndex", sheet.columns) - 1
    return r0, r1, c0, c1


def a1_name(sheet: Sheet, r1: int, c1: int, r2: int, c2: int) -> str:
    """How Google names a range in replies: the title quoted only when it must be."""
    title = sheet.title
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", title) or re.fullmatch(r"[A-Za-z]{1,3}\d+", title):
        title = "'" + title.replace("'", "''") + "'"
    start, end = f"{column_letter(c1 + 1)}{r1 + 1}", f"{column_letter(c2 + 1)}{r2 + 1}"
    return f"{title}!{start}" + ("" if start == end else f":{end}")


def exceeds(sheet: Sheet, r0: int, c0: int, r1: int, c1: int) -> ApiError:
    """Google's refusal of a range past the grid."""
    return ApiError(
        400,
        f"Range ({a1_name(sheet, r0, c0, r1, c1)}) exceeds grid limits. Max rows: {sheet.rows}, "
        f"max columns: {sheet.columns}",
    )


# -- values (the values API) -------------------------------------------------------------------------
def render(sheet: Sheet, where: tuple[int, int], cell: Cell, option: str) -> Any:
    """A cell as a values reply gives it: a formula as its text (FORMULA) or its value."""
    kind, value = cell
    if kind == "formula" and option != "FORMULA":
        result = sheet.results.get(where)
        if result is None:
            return value  # no value given for it: the stand-in does not calculate
        kind, value = result
        if kind == "error":
            return ERROR_SHOWN.get(value, "#ERROR!")
    if kind == "number" and isinstance(value, float) and value.is_integer():
        value = int(value)
    if option == "FORMATTED_VALUE":
        if kind == "bool":
            return "TRUE" if value else "FALSE"
        return str(value)
    return value


ERROR_SHOWN = {"DIVIDE_BY_ZERO": "#DIV/0!", "REF": "#REF!", "N_A": "#N/A", "VALUE": "#VALUE!", "NAME": "#NAME?",
               "NUM": "#NUM!", "NULL_VALUE": "#NULL!", "ERROR": "#ERROR!", "LOADING": "Loading..."}  # fmt: skip


def grid_values(sheet: Sheet, r1: int, c1: int, r2: int, c2: int, option: str) -> list[list[Any]]:
    """The values in a range as the API lists them: trailing empty cells and rows left out."""
    rows = cells_in(sheet, r1, c1, r2, c2)
    if not rows:
        return []
    out = []
    for r in range(r1, max(rows) + 1):
        found = rows.get(r, {})
        out.append(
            [
                render(sheet, (r, c), found[c], option) if c in found else ""
                for c in range(c1, max(found, default=c1 - 1) + 1)
            ]
        )
    return out


def cells_in(sheet: Sheet, r1: int, c1: int, r2: int, c2: int) -> dict[int, dict[int, Cell]]:
    """The cells of a range (0-based, inclusive), by row then column: looked up one by one in a small
    range, found by a pass over the tab in a large one."""
    rows: dict[int, dict[int, Cell]] = {}
    if (r2 - r1 + 1) * (c2 - c1 + 1) < len(sheet.cells):  # a small range: look its cells up
        for r in range(r1, r2 + 1):
            for c in range(c1, c2 + 1):
                if (r, c) in sheet.cells:
                    rows.setdefault(r, {})[c] = sheet.cells[(r, c)]
    else:
        for (r, c), cell in sheet.cells.items():
            if r1 <= r <= r2 and c1 <= c <= c2:
                rows.setdefault(r, {})[c] = cell
    return rows


def value_range(book: Spreadsheet, a1: str, option: str) -> dict[str, Any]:
    """A ValueRange reply: an open range named clamped to the grid, as in gspread's recordings."""
    sheet, r1, c1, r2, c2 = locate(book, a1)
    reply: dict[str, Any] = {"range": a1_name(sheet, r1, c1, r2, c2), "majorDimension": "ROWS"}
    values = grid_values(sheet, r1, c1, r2, c2, option)
    if values:
        reply["values"] = values
    return reply


# -- grid data (spreadsheets.get) --------------------------------------------------------------------
_KINDS = {"string": "stringValue", "number": "numberValue", "bool": "boolValue", "formula": "formulaValue"}


def cell_data(sheet: Sheet, where: tuple[int, int], cell: Cell) -> dict[str, Any]:
    """A CellData: `userEnteredValue` as typed, `effectiveValue` the value (a formula's result)."""
    kind, value = cell
    data: dict[str, Any] = {"userEnteredValue": {_KINDS[kind]: value}}
    effective = sheet.results.get(where) if kind == "formula" else cell
    if effective is not None:
        if effective[0] == "error":
            data["effectiveValue"] = {"errorValue": {"type": effective[1], "message": "Error in the stand-in."}}
        else:
            data["effectiveValue"] = {_KINDS[effective[0]]: effective[1]}
    return data


def grid_data(sheet: Sheet, r1: int, c1: int, r2: int, c2: int, cell_mask: Any) -> dict[str, Any]:
    """A GridData of a range: rows from its first, each up to its last non-empty cell (empty cells and
    rows in between as `{}`), trailing empty rows left out; zero-valued starts left out, as proto3 JSON
    does. `cell_mask` narrows each CellData (see `masked`)."""
    data: dict[str, Any] = {}
    if r1:
        data["startRow"] = r1
    if c1:
        data["startColumn"] = c1
    rows = cells_in(sheet, r1, c1, r2, c2)
    out = []
    for r in range(r1, max(rows, default=r1 - 1) + 1):
        found = rows.get(r, {})
        values = []
        for c in range(c1, max(found, default=c1 - 1) + 1):
            values.append(masked(cell_data(sheet, (r, c), found[c]), cell_mask) if c in found else {})
        out.append({"values": values} if values else {})
    if out:
        data["rowData"] = out
    return data


# -- field masks -------------------------------------------------------------------------------------
def parse_mask(text: str) -> dict[str, Any]:
    """`a.b(c,d),e` -> {"a": {"b": {"c": None, "d": None}}, "e": None} (None: the whole field)."""
    tree: dict[str, Any] = {}
    for item in _split(text):
        name, _, rest = item.partition("(")
        _add(tree, [p for p in name.strip().split(".") if p], parse_mask(rest[:-1]) if rest else None)
    return tree


def _add(tree: dict[str, Any], parts: list[str], sub: dict[str, Any] | None) -> None:
    node = tree
    for part in parts[:-1]:
        if part in node and node[part] is None:
            return  # the whole field is asked for already
        node = node.setdefault(part, {})
    last = parts[-1]
    if sub is None:
        node[last] = None
    elif not (last in node and node[last] is None):
        into = node.setdefault(last, {})
        for key, value in sub.items():
            _add(into, [key], value)


def _split(text: str) -> list[str]:
    items, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            items.append(text[start:i])
            start = i + 1
    items.append(text[start:])
    return [i for i in (x.strip() for x in items) if i]


def masked(value: Any, mask: Any) -> Any:
    """The value narrowed to the mask (None: all of it); an object left with nothing is left out."""
    if mask is None:
        return value
    if isinstance(value, list):
        return [masked(v, mask) for v in value]
    if not isinstance(value, dict):
        return value
    out = {}
    for key, sub in mask.items():
        if key in value:
            kept = masked(value[key], sub)
            if kept != {} or sub is None:
                out[key] = kept
    return out
