"""What the Google Sheets store reads, and what it makes of Google's replies. No I/O here.

Every read is a `spreadsheets.get` with a field mask (docs/google-sheets.md, "What the engine relies
on"): the tabs' properties (title, id, grid size) and, with `ranges`, the grid data of those ranges,
each cell as its `effectiveValue` (the value, or a formula's calculated value) and, only for a formula,
its `userEnteredValue.formulaValue`. So one read gives the values the rules need, the GM formulas the
workbook store also reports (a player's text "=IMPORTXML(...)" stored as text has no formulaValue: it is
no formula) and the error cells (`effectiveValue.errorValue`), without a second request.

A cell missing from a reply is empty, whether Google leaves out empty cells and rows or sends them as
`{}`: nothing here relies on which.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from sheets_engine.core.store import Formula

# The documented example of a field mask (developers.google.com/sheets/api/guides/field-masks), verbatim.
PROPERTIES_FIELDS = "sheets.properties(sheetId,title,sheetType,gridProperties)"
CELL_FIELDS = ("effectiveValue", "userEnteredValue.formulaValue")
# Comma-separated, dot-separated paths: the mask syntax the same guide states.
GRID_FIELDS = ",".join(
    [PROPERTIES_FIELDS, "sheets.data.startRow", "sheets.data.startColumn"]
    + [f"sheets.data.rowData.values.{name}" for name in CELL_FIELDS]
)
# ErrorValue.type -> the text a cell shows (the reference: "Corresponds to the `#DIV/0` error", ...)
ERROR_TEXT = {
    "ERROR": "#ERROR!",
    "NULL_VALUE": "#NULL!",
    "DIVIDE_BY_ZERO": "#DIV/0!",
    "VALUE": "#VALUE!",
    "REF": "#REF!",
    "NAME": "#NAME?",
    "NUM": "#NUM!",
    "N_A": "#N/A",
    "LOADING": "Loading...",
}
_EXACT = 2**53  # a double holds every integer up to here: 5.0 read back is 5, as the values API gives it


@dataclass
class Grid:
    """One tab as a reply gave it: its properties, and the cells of the ranges asked for.

    `cells` maps (row, column), 1-based, to the cell's value; `formulas` and `errors` the cells that
    hold a formula (its text) or an error (the text a cell shows, `#REF!`); an error cell's value is None.
    """

    properties: dict[str, Any]
    cells: dict[tuple[int, int], Any] = field(default_factory=dict)
    formulas: dict[tuple[int, int], str] = field(default_factory=dict)
    errors: dict[tuple[int, int], str] = field(default_factory=dict)

    @property
    def title(self) -> str:
        """The tab's title."""
        return str(self.properties.get("title", ""))

    @property
    def size(self) -> tuple[int, int]:
        """(rows, columns) of the tab's grid."""
        grid = self.properties.get("gridProperties", {})
        return int(grid.get("rowCount", 0)), int(grid.get("columnCount", 0))

    def rows(self, first: int = 1) -> list[list[Any]]:
        """The values from row `first` down to the last row holding one, each row up to its last value
        (as Google's values replies list them); an empty row is []."""
        filled = [(r, c) for (r, c), v in self.cells.items() if r >= first and v is not None and v != ""]
        if not filled:
            return []
        bottom = max(r for r, _ in filled)
        widths: dict[int, int] = {}
        for r, c in filled:
            widths[r] = max(widths.get(r, 0), c)
        return [
            [self.cells.get((r, c)) for c in range(1, widths.get(r, 0) + 1)] for r in range(first, bottom + 1)
        ]  # fmt: skip

    def state(self, cell: tuple[int, int]) -> tuple[Any, str | None]:
        """(value, formula text or None) of a cell (1-based)."""
        return self.cells.get(cell), (self.formulas.get(cell) if self.formulas else None)


def quote_title(title: str) -> str:
    """A tab title as A1 notation wants it: in single quotes, inner quotes doubled."""
    return "'" + title.replace("'", "''") + "'"


def extended(value: Mapping[str, Any] | None) -> tuple[Any, str | None]:
    """(value, error text) of an ExtendedValue: its one member, a number back as an int when it is whole."""
    if not value:
        return None, None
    for kind, item in value.items():
        if kind == "numberValue":
            if isinstance(item, float) and item.is_integer() and abs(item) < _EXACT:
                return int(item), None
            return item, None
        if kind == "errorValue":
            error = item if isinstance(item, dict) else {}
            return None, ERROR_TEXT.get(str(error.get("type", "")), "#ERROR!")
        return item, None  # stringValue, boolValue
    return None, None


def parse_grids(reply: Mapping[str, Any]) -> dict[str, Grid]:
    """Every tab in a spreadsheets.get reply, by title, with the cells of every GridData it holds."""
    grids: dict[str, Grid] = {}
    for sheet in reply.get("sheets", []) or []:
        props = sheet.get("properties", {})
        grid = Grid(props)
        for data in sheet.get("data", []) or []:
            _place(grid, data)
        grids[grid.title] = grid
    return grids


def _place(grid: Grid, data: Mapping[str, Any]) -> None:
    top, left = int(data.get("startRow", 0)) + 1, int(data.get("startColumn", 0)) + 1
    cells, formulas, errors = grid.cells, grid.formulas, grid.errors
    for i, row in enumerate(data.get("rowData", []) or []):
        values = row.get("values") if row else None
        if not values:
            continue
        r = top + i
        for j, cell in enumerate(values):
            if not cell:
                continue
            where = (r, left + j)
            effective = cell.get("effectiveValue")
            if effective:
                value, error = extended(effective)
                cells[where] = value
                if error is not None:
                    errors[where] = error
            entered = cell.get("userEnteredValue")
            if entered and "formulaValue" in entered:
                formulas[where] = str(entered["formulaValue"])


def formulas_of(grid: Grid) -> dict[tuple[int, int], Formula]:
    """The tab's formula cells as the store protocol gives them (Google computes every formula)."""
    return {cell: Formula(text, True) for cell, text in grid.formulas.items()}


def ranges_for(titles: Iterable[str], windows: Mapping[str, int | None]) -> list[str]:
    """The A1 ranges of a read: a tab whole, or (a tab in `windows`) its header row and column A from
    the window's first row (None: the header alone, a grid of one row)."""
    asked: list[str] = []
    for title in titles:
        quoted = quote_title(title)
        if title not in windows:
            asked.append(quoted)
            continue
        asked.append(f"{quoted}!1:1")
        start = windows[title]
        if start is not None:
            asked.append(f"{quoted}!A{start}:A")
    return asked
