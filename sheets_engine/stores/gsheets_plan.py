"""How a set of cells becomes batchUpdate requests, in one request or staged. No I/O here.

- Cells in rows that existed when read are written exactly: runs along a row, a run repeated on the
  rows below joined in one block, each block one `updateCells` with every cell given a value; cells
  being emptied go in `updateCells` requests of their own that carry no rows (the range cleared).
- Rows past a tab's last row are new: each tab's new rows are one block, the cells between given
  ones left empty (they are empty, and the guard checks they still are). There a value repeated down a
  column (History's turn, run id, time, step; the tab and cause of many rows) goes in one `repeatCell`
  when that costs fewer bytes than writing each cell.
- A write over the request limit is staged: blocks that cost more to write than to move go first, in
  as many requests as they need, into a hidden staging tab; then one final request grows the tabs,
  writes the rest directly, copies each staged block into place (`copyPaste` of values, its
  destination empty or fully given) and deletes the staging tab.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sheets_engine.stores.gsheets_http import body_bytes
from sheets_engine.stores.gsheets_layout import (
    add_staging,
    cell_data,
    clear_cells,
    copy_paste,
    repeat_value,
    request_size,
    update_cell_data,
)
from sheets_engine.stores.guard import Cell

Box = tuple[str, int, int, int, int]  # (tab, row1, column1, row2, column2), 1-based, inclusive


@dataclass(frozen=True)
class Block:
    """A rectangle of cells written together; `new` when its rows were past the tab's last row (its
    cells are empty: None there is a cell left empty, never one emptied)."""

    tab: str
    row: int  # 1-based top row
    column: int  # 1-based left column
    values: tuple[tuple[Any, ...], ...]
    new: bool = False

    @property
    def bottom(self) -> int:
        """The last row the block covers."""
        return self.row + len(self.values) - 1

    @property
    def right(self) -> int:
        """The last column the block covers."""
        return self.column + max((len(r) for r in self.values), default=1) - 1


@dataclass
class Plan:
    """A write: every cell it relies on (gaps of new rows included), the blocks and the cells emptied."""

    targets: dict[Cell, Any]
    blocks: list[Block]
    clears: list[Box] = field(default_factory=list)


def plan_write(cells: Mapping[Cell, Any], last_rows: Mapping[str, int]) -> Plan:
    """The blocks that write these cells (see the module docstring)."""
    targets = dict(cells)
    by_tab: dict[str, dict[Cell, Any]] = defaultdict(dict)
    for cell, value in cells.items():
        by_tab[cell[0]][cell] = value
    blocks: list[Block] = []
    clears: list[Box] = []
    for tab in sorted(by_tab):
        tab_cells = by_tab[tab]
        last = last_rows.get(tab, 0)
        new = {c: v for c, v in tab_cells.items() if c[1] > last}
        old = {c: v for c, v in tab_cells.items() if c[1] <= last}
        blocks += _row_runs(tab, {c: v for c, v in old.items() if not _empty(v)})
        clears += rectangles(c for c, v in old.items() if _empty(v))
        if new:
            top, bottom = min(c[1] for c in new), max(c[1] for c in new)
            left, right = min(c[2] for c in new), max(c[2] for c in new)
            rows = []
            for r in range(top, bottom + 1):
                row = []
                for col in range(left, right + 1):
                    targets.setdefault((tab, r, col), None)
                    value = new.get((tab, r, col))
                    row.append(None if _empty(value) else value)
                rows.append(tuple(row))
            blocks.append(Block(tab, top, left, tuple(rows), new=True))
    return Plan(targets, blocks, clears)


def _empty(value: Any) -> bool:
    return value is None or (isinstance(value, str) and value == "")


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


def rectangles(cells: Iterable[Cell]) -> list[Box]:
    """Few rectangles (tab, row1, col1, row2, col2) covering exactly these cells.

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


def clear_requests(sheet_ids: Mapping[str, int], boxes: Sequence[Box]) -> list[dict[str, Any]]:
    """One range-only updateCells per rectangle of cells being emptied."""
    return [clear_cells(sheet_ids[tab], r1 - 1, c1 - 1, r2 - r1 + 1, c2 - c1 + 1) for tab, r1, c1, r2, c2 in boxes]


def block_requests(sheet_id: int, block: Block, budget: int, at: tuple[int, int] | None = None) -> list[dict[str, Any]]:
    """The requests writing a block at its place, or at a 0-based (row0, column0) of `sheet_id` (`at`,
    the staging tab); each updateCells at most about `budget` bytes. updateCells come first, then the
    repeatCells over cells they leave empty: a batch's requests are applied in order."""
    row0, column0 = at if at is not None else (block.row - 1, block.column - 1)
    rows = [list(r) for r in block.values]
    repeats: list[dict[str, Any]] = []
    if block.new and len(rows) > 1:
        for j, i0, i1, value in _repeated(rows):
            repeats.append(repeat_value(sheet_id, row0 + i0, column0 + j, i1 - i0 + 1, 1, value))
            for i in range(i0, i1 + 1):
                rows[i][j] = None
    if block.new:  # empty cells need not be written: trim what is left empty around the values
        filled = [i for i, r in enumerate(rows) if any(v is not None for v in r)]
        if not filled:
            return repeats
        lead = min(next(j for j, v in enumerate(rows[i]) if v is not None) for i in filled)
        rows = [_trimmed(r[lead:]) for r in rows[filled[0] : filled[-1] + 1]]
        row0, column0 = row0 + filled[0], column0 + lead
    requests: list[dict[str, Any]] = []
    data = [[cell_data(v) for v in row] for row in rows]
    top, size = 0, 0
    for i, row in enumerate(data):
        cost = len(body_bytes(row)) + 12  # {"values":...},
        if i > top and size + cost > budget:
            requests.append(update_cell_data(sheet_id, row0 + top, column0, data[top:i]))
            top, size = i, 0
        size += cost
    requests.append(update_cell_data(sheet_id, row0 + top, column0, data[top:]))
    return requests + repeats


def _trimmed(row: list[Any]) -> list[Any]:
    end = len(row)
    while end and row[end - 1] is None:
        end -= 1
    return row[:end]


def _repeated(rows: list[list[Any]]) -> list[tuple[int, int, int, Any]]:
    """(column offset, first row offset, last row offset, value) of every run of one value down a
    column that costs fewer bytes as one repeatCell than as its cells."""
    found = []
    costs: dict[tuple[str, Any], int] = {}
    # a repeatCell's bytes besides its value, with indexes as long as a large campaign's
    overhead = request_size(repeat_value(2_000_000_000, 400_000, 20, 400_000, 1, 0)) - len(body_bytes(cell_data(0)))
    width = max((len(r) for r in rows), default=0)
    for j in range(width):
        column = [r[j] if j < len(r) else None for r in rows]
        i = 0
        while i < len(column):
            value = column[i]
            end = i
            while end + 1 < len(column) and _same(column[end + 1], value):
                end += 1
            if value is not None and end > i:
                key = (type(value).__name__, value)
                if key not in costs:
                    costs[key] = len(body_bytes(cell_data(value)))
                # each cell costs its CellData and a comma, and leaves `{},` behind
                if (end - i + 1) * (costs[key] - 2) > costs[key] + overhead:
                    found.append((j, i, end, value))
            i = end + 1
    return found


def _same(a: Any, b: Any) -> bool:
    return a is not None and type(a) is type(b) and a == b


@dataclass
class Staged:
    """A write in stages: the requests filling the hidden staging tab, then the final request."""

    staged: list[dict[str, Any]]
    final: list[dict[str, Any]]


def plan_staging(
    blocks: Sequence[Block],
    direct: Sequence[list[dict[str, Any]]],
    sheet_ids: Mapping[str, int],
    first: list[dict[str, Any]],
    staging: int,
    budget: int,
    leftovers: Sequence[dict[str, Any]] = (),
) -> Staged:
    """Each block staged when moving it costs fewer bytes than writing it directly (`direct`, the
    block's own requests); `first` (growth, clears) opens the final request, which ends by deleting
    the staging tab. `leftovers` (deleting the staging tabs of a run that died, whose title the new
    one takes) open the first staging request."""
    final: list[dict[str, Any]] = list(first)
    staged: list[dict[str, Any]] = [*leftovers, {}]  # {}: the staging tab's addSheet, once its size is known
    top = width = 0
    for block, requests in zip(blocks, direct, strict=True):
        rows, columns = len(block.values), block.right - block.column + 1
        move = copy_paste((staging, top, 0, rows, columns), (sheet_ids[block.tab], block.row - 1, block.column - 1))
        if sum(request_size(r) for r in requests) <= request_size(move):
            final += requests
            continue
        final.append(move)
        staged += block_requests(staging, block, budget, at=(top, 0))
        top, width = top + rows, max(width, columns)
    final.append({"deleteSheet": {"sheetId": staging}})
    staged[len(leftovers)] = add_staging(staging, top, width)
    return Staged(staged, final)
