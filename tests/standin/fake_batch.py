"""spreadsheets.batchUpdate in the Sheets stand-in: every request of a batch, all or nothing.

Each `_do_<kind>` gets the draft spreadsheet and the request's body and returns its reply. With
`strict` (the store's requests), a request whose effect Google's reference does not state is refused
with a 400, as fake_strict says; without it (a GM's browser, gspread's recordings) the stand-in is as
lenient as it needs to be to answer as Google did.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator, MutableMapping
from typing import Any

from tests.standin.fake_grid import ApiError, Cell, Sheet, Spreadsheet, bounds, by_id, cells_in, exceeds, props
from tests.standin.fake_strict import check_request

_KINDS = {"stringValue": "string", "numberValue": "number", "boolValue": "bool", "formulaValue": "formula"}
_AXES = ("row", "column")


def apply_batch(book: Spreadsheet, payload: dict[str, Any], strict: bool, new_id: Callable[[], int]) -> dict[str, Any]:
    """Apply a batchUpdate body to the spreadsheet, all or nothing; its reply."""
    requests = payload.get("requests") or []
    if not requests:
        raise ApiError(400, "Must specify at least one request.")
    draft = copy.copy(book)
    # all-or-nothing: work on a draft whose cells remember what they held (a journal, not a copy:
    # appending to a 400,000-row History must not cost a copy of it on every write)
    journals = [_Journal(s.cells) for s in book.sheets]
    draft.sheets = [_copy_sheet(s) for s in book.sheets]
    for sheet, journal in zip(draft.sheets, journals, strict=True):
        sheet.cells = journal  # type: ignore[assignment]
    batch = _Batch(draft, strict, new_id)
    replies = []
    try:
        for i, request in enumerate(requests):
            (kind, body), *more = request.items()
            if strict and not more:
                try:
                    check_request(kind, body)
                except ApiError as error:
                    raise ApiError(400, f"Invalid requests[{i}].{kind}: {error.message}") from None
            handler = getattr(batch, f"_do_{kind}", None)
            if handler is None or more:
                name = kind if handler is None else more[0][0]
                raise _bad_field(
                    f"requests[{i}]",
                    f"Invalid JSON payload received. Unknown name \"{name}\" at 'requests[{i}]': Cannot find field.",
                )
            try:
                replies.append(handler(body))
            except ApiError as error:
                raise ApiError(400, f"Invalid requests[{i}].{kind}: {error.message}") from None
        if batch.unsettled:
            raise ApiError(
                400,
                "the stand-in refuses a CellData without a value over a cell that holds one, unless a later request "
                "of the batch gives the cell a value: the engine empties a cell only by leaving it out of an "
                "updateCells range's rows (docs/google-sheets.md)",
            )
    except Exception:
        for journal in journals:
            journal.undo()
        raise
    for sheet in draft.sheets:
        if isinstance(sheet.cells, _Journal):
            sheet.cells = sheet.cells.cells
    book.sheets = draft.sheets
    return {"spreadsheetId": book.key, "replies": replies}


class _Batch:
    def __init__(self, book: Spreadsheet, strict: bool, new_id: Callable[[], int]) -> None:
        self.book, self.strict, self.new_id = book, strict, new_id
        # cells a `{}` CellData landed on while they held a value: what Google does there is not stated, so
        # (strict) a later request of the batch must give each a value, or the batch is refused
        self.unsettled: set[tuple[int, int, int]] = set()

    def _set(self, sheet: Sheet, where: tuple[int, int], value: Cell | None) -> None:
        key = (int(sheet.properties["sheetId"]), *where)
        if value is not None:
            self.unsettled.discard(key)
        _set(sheet, where, value)

    def _do_addSheet(self, body: dict[str, Any]) -> dict[str, Any]:
        book = self.book
        given = body.get("properties", {})
        title = given.get("title") or f"Sheet{len(book.sheets) + 1}"
        if book.sheet(title) is not None:
            raise ApiError(400, f'A sheet with the name "{title}" already exists. Please enter another name.')
        sheet_id = given.get("sheetId")
        if sheet_id is None:
            sheet_id = self.new_id()
        elif any(s.properties["sheetId"] == sheet_id for s in book.sheets):
            raise ApiError(400, f"Sheet with id {sheet_id} already exists.")
        grid = given.get("gridProperties", {})
        index = min(int(given.get("index", len(book.sheets))), len(book.sheets))
        new = props(sheet_id, title, index, grid.get("rowCount", 1000), grid.get("columnCount", 26))
        for name in ("frozenRowCount", "frozenColumnCount"):
            if grid.get(name):
                new["gridProperties"][name] = grid[name]
        _check_frozen(new)
        if given.get("hidden"):
            new["hidden"] = True
        for sheet in book.sheets:
            if sheet.properties["index"] >= index:
                sheet.properties["index"] += 1
        book.sheets.append(Sheet(new))
        return {"addSheet": {"properties": copy.deepcopy(new)}}

    def _do_deleteSheet(self, body: dict[str, Any]) -> dict[str, Any]:
        book = self.book
        sheet = by_id(book, body.get("sheetId"))
        if len(book.sheets) == 1:
            raise ApiError(400, "You can't remove all the sheets in a document.")
        book.sheets.remove(sheet)
        for other in book.sheets:
            if other.properties["index"] > sheet.properties["index"]:
                other.properties["index"] -= 1
        return {}

    def _do_updateSheetProperties(self, body: dict[str, Any]) -> dict[str, Any]:
        given = body.get("properties", {})
        sheet = by_id(self.book, given.get("sheetId"))
        for path in [f.strip().replace("/", ".").split(".") for f in body.get("fields", "").split(",") if f.strip()]:
            value: Any = given
            for part in path:
                value = value.get(part) if isinstance(value, dict) else None
            target = sheet.properties
            for part in path[:-1]:
                target = target.setdefault(part, {})
            if value in (None, False, 0) and path[-1] in ("hidden", "frozenRowCount", "frozenColumnCount"):
                target.pop(path[-1], None)
            elif value is not None:
                target[path[-1]] = value
        _check_frozen(sheet.properties)
        if not [s for s in self.book.sheets if not s.properties.get("hidden")]:
            raise ApiError(400, "You can't hide all the sheets in a document.")
        sheet.cells = {(r, c): v for (r, c), v in sheet.cells.items() if r < sheet.rows and c < sheet.columns}
        return {}

    def _do_updateCells(self, body: dict[str, Any]) -> dict[str, Any]:
        if body.get("fields") not in ("userEnteredValue", "*"):
            raise ApiError(400, "The stand-in writes userEnteredValue only.")
        rows = body.get("rows", [])
        if "start" in body:
            start = body["start"]
            sheet = by_id(self.book, start.get("sheetId"))
            r0, c0 = start.get("rowIndex", 0), start.get("columnIndex", 0)
            r1 = r0 + max(len(rows), 1) - 1
            c1 = c0 + max((len(r.get("values", [])) for r in rows), default=1) - 1
            covered = False
        else:
            sheet = by_id(self.book, body.get("range", {}).get("sheetId"))
            r0, r1, c0, c1 = bounds(sheet, body.get("range", {}))
            covered = True
        if r1 >= sheet.rows or c1 >= sheet.columns:
            raise exceeds(sheet, r0, c0, r1, c1)
        written: set[tuple[int, int]] = set()
        for i, row in enumerate(rows):
            for j, data in enumerate(row.get("values", [])):
                where = (r0 + i, c0 + j)
                if covered and (where[0] > r1 or where[1] > c1):
                    raise ApiError(400, "The rows given do not fit in the range.")
                value = _from_cell_data(data)
                if value is None and self.strict and where in sheet.cells:
                    self.unsettled.add((int(sheet.properties["sheetId"]), *where))
                written.add(where)
                self._set(sheet, where, value)
        if covered:  # "If the data in rows does not cover the entire requested range, the fields ... cleared"
            held = [(r, c) for r, row in cells_in(sheet, r0, c0, r1, c1).items() for c in row]
            for where in [w for w in held if w not in written]:
                self._set(sheet, where, None)
        return {}

    def _do_repeatCell(self, body: dict[str, Any]) -> dict[str, Any]:
        grid = body.get("range", {})
        sheet = by_id(self.book, grid.get("sheetId"))
        if body.get("fields") == "userEnteredValue":
            value = _from_cell_data(body.get("cell", {}))
            if value is None:
                raise ApiError(400, "the stand-in repeats a value only (a cell with no value is not relied on)")
            r0, r1, c0, c1 = bounds(sheet, grid)
            if r1 >= sheet.rows or c1 >= sheet.columns:
                raise exceeds(sheet, r0, c0, r1, c1)
            for r in range(r0, r1 + 1):
                for c in range(c0, c1 + 1):
                    self._set(sheet, (r, c), value)
            return {}
        sheet.formats.append((grid, body.get("cell", {}), body.get("fields", "")))
        return {}

    def _do_appendDimension(self, body: dict[str, Any]) -> dict[str, Any]:
        sheet = by_id(self.book, body.get("sheetId"))
        length = int(body.get("length", 0))
        if length <= 0:
            raise ApiError(400, "length must be greater than 0")
        name = {"ROWS": "rowCount", "COLUMNS": "columnCount"}.get(body.get("dimension", ""))
        if name is None:
            raise ApiError(400, "dimension must be ROWS or COLUMNS")
        sheet.properties["gridProperties"][name] += length
        return {}

    def _do_insertDimension(self, body: dict[str, Any]) -> dict[str, Any]:
        sheet, axis, start, end = _dimension_range(self.book, body.get("range", {}))
        if start > (sheet.rows if axis == 0 else sheet.columns):
            raise ApiError(400, f"Invalid requests: startIndex {start} is after the last {_AXES[axis]}.")
        length = end - start
        sheet.properties["gridProperties"]["rowCount" if axis == 0 else "columnCount"] += length
        sheet.cells = {_shifted(cell, axis, start, length): value for cell, value in sheet.cells.items()}
        sheet.results = {_shifted(cell, axis, start, length): value for cell, value in sheet.results.items()}
        return {}

    def _do_deleteDimension(self, body: dict[str, Any]) -> dict[str, Any]:
        sheet, axis, start, end = _dimension_range(self.book, body.get("range", {}))
        size = sheet.rows if axis == 0 else sheet.columns
        if end > size:
            raise ApiError(400, f"Invalid requests: endIndex {end} is after the last {_AXES[axis]} ({size}).")
        if start == 0 and end == size:
            raise ApiError(400, f"You can't delete all the {_AXES[axis]}s on the sheet.")
        length = end - start
        sheet.properties["gridProperties"]["rowCount" if axis == 0 else "columnCount"] -= length
        kept = {cell: value for cell, value in sheet.cells.items() if not start <= cell[axis] < end}
        sheet.cells = {_shifted(cell, axis, end, -length): value for cell, value in kept.items()}
        sheet.results = {
            _shifted(c, axis, end, -length): v for c, v in sheet.results.items() if not start <= c[axis] < end
        }
        _check_frozen(sheet.properties)
        return {}

    def _do_copyPaste(self, body: dict[str, Any]) -> dict[str, Any]:
        """Values copied from one range to another, as far as the reference states it (PASTE_VALUES)."""
        kind, orientation = body.get("pasteType", "PASTE_NORMAL"), body.get("pasteOrientation", "NORMAL")
        if kind != "PASTE_VALUES" or orientation != "NORMAL":
            raise ApiError(400, "The stand-in copies values only (pasteType PASTE_VALUES, NORMAL orientation).")
        source, target = body.get("source", {}), body.get("destination", {})
        origin, to = by_id(self.book, source.get("sheetId")), by_id(self.book, target.get("sheetId"))
        r0, r1, c0, c1 = bounds(origin, source)
        t0, t1, u0, u1 = bounds(to, target)
        if self.strict and (t1 - t0, u1 - u0) != (r1 - r0, c1 - c0):
            raise ApiError(400, "the stand-in copies into a destination of the source's size only")
        t1, u1 = t0 + r1 - r0, u0 + c1 - c0
        if r1 >= origin.rows or c1 >= origin.columns or t1 >= to.rows or u1 >= to.columns:
            raise exceeds(to, t0, u0, t1, u1)
        found = {(r, c): v for r, row in cells_in(origin, r0, c0, r1, c1).items() for c, v in row.items()}
        for r in range(r0, r1 + 1):
            for c in range(c0, c1 + 1):
                value, where = found.get((r, c)), (t0 + r - r0, u0 + c - c0)
                if value is None and self.strict and where in to.cells:
                    raise ApiError(
                        400,
                        "the stand-in refuses to copy an empty cell over one that holds a value: what PASTE_VALUES "
                        "does with an empty source cell is not stated",
                    )
                if value is not None and value[0] == "formula":
                    raise ApiError(400, "the stand-in copies values, and this source cell holds a formula")
                self._set(to, where, value)
        return {}

    def _do_setDataValidation(self, body: dict[str, Any]) -> dict[str, Any]:
        grid = body.get("range", {})
        by_id(self.book, grid.get("sheetId")).validations.append((grid, body.get("rule")))
        return {}


def _set(sheet: Sheet, where: tuple[int, int], value: Cell | None) -> None:
    if value is None:
        sheet.cells.pop(where, None)
    else:
        sheet.cells[where] = value
    sheet.results.pop(where, None)


def _check_frozen(properties: dict[str, Any]) -> None:
    grid = properties.get("gridProperties", {})
    if grid.get("frozenRowCount", 0) and grid["frozenRowCount"] >= grid.get("rowCount", 0):
        raise ApiError(400, "You can't freeze all visible rows on the sheet.")


def _from_cell_data(data: dict[str, Any]) -> Cell | None:
    entered = data.get("userEnteredValue")
    if not entered:
        return None
    (kind, value), *_ = entered.items()
    if kind not in _KINDS:
        raise ApiError(400, f"Unsupported value type: {kind}")
    if _KINDS[kind] == "string" and value == "":
        return None
    return _KINDS[kind], value


def _bad_field(field_name: str, description: str) -> ApiError:
    detail = {
        "@type": "type.googleapis.com/google.rpc.BadRequest",
        "fieldViolations": [{"field": field_name, "description": description}],
    }
    return ApiError(400, description, details=[detail])


def _dimension_range(book: Spreadsheet, grid: dict[str, Any]) -> tuple[Sheet, int, int, int]:
    """The sheet, axis (0 rows, 1 columns) and [start, end) of a DimensionRange."""
    sheet = by_id(book, grid.get("sheetId"))
    axis = {"ROWS": 0, "COLUMNS": 1}.get(grid.get("dimension", ""))
    if axis is None:
        raise ApiError(400, "dimension must be ROWS or COLUMNS")
    start, end = int(grid.get("startIndex", 0)), int(grid.get("endIndex", 0))
    if end <= start:
        raise ApiError(400, "Invalid requests: endIndex must be greater than startIndex.")
    return sheet, axis, start, end


def _shifted(cell: tuple[int, int], axis: int, at: int, by: int) -> tuple[int, int]:
    """The cell moved `by` along the axis if it is at or after `at`."""
    if cell[axis] < at:
        return cell
    return (cell[0] + by, cell[1]) if axis == 0 else (cell[0], cell[1] + by)


def _copy_sheet(sheet: Sheet) -> Sheet:
    return Sheet(copy.deepcopy(sheet.properties), sheet.cells, list(sheet.formats), list(sheet.validations),
                 dict(sheet.results))  # fmt: skip


class _Journal(MutableMapping[tuple[int, int], Cell]):
    """A tab's cells during a batchUpdate: changed in place, each change's old value kept until `undo`."""

    def __init__(self, cells: dict[tuple[int, int], Cell]) -> None:
        self.cells = cells
        self.before: dict[tuple[int, int], Cell | None] = {}

    def __getitem__(self, key: tuple[int, int]) -> Cell:
        return self.cells[key]

    def __setitem__(self, key: tuple[int, int], value: Cell) -> None:
        if key not in self.before:
            self.before[key] = self.cells.get(key)
        self.cells[key] = value

    def __delitem__(self, key: tuple[int, int]) -> None:
        if key not in self.before:
            self.before[key] = self.cells.get(key)
        del self.cells[key]

    def __iter__(self) -> Iterator[tuple[int, int]]:
        return iter(self.cells)

    def __len__(self) -> int:
        return len(self.cells)

    def __contains__(self, key: object) -> bool:
        return key in self.cells

    def items(self) -> Any:
        """The cells' items (the dict's own view: fast)."""
        return self.cells.items()

    def undo(self) -> None:
        """Put every cell back as it was before the batch."""
        for key, value in self.before.items():
            if value is None:
                self.cells.pop(key, None)
            else:
                self.cells[key] = value
