"""The Google Sheets store: the GMs' canonical spreadsheet, behind the same interface as the workbook.

A run makes five requests when its write fits one request: the service account's token, the
spreadsheet's metadata (tab titles, ids, grid sizes), one read of every tab's cells (their values,
and which hold a formula or an error: gsheets_read), the lost-update guard's re-read, and one
`spreadsheets.batchUpdate` that Google applies all-or-nothing (gsheets_plan builds it; a larger
write is staged). The guard re-reads everything the write relies on (gsheets_check); a write whose
answer is lost is read back, never sent again blindly (gsheets_landing). Every request goes through
gspread's HTTP client with timeouts and bounded retries (gsheets_http, gsheets_session);
docs/google-sheets.md lists every behaviour of Google's the store relies on, with its source.

SOURCE is a spreadsheet URL (`https://docs.google.com/spreadsheets/d/KEY/edit`) or `gsheet:KEY`.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Collection, Sequence
from typing import Any

from sheets_engine.stores.base import Choice, RawTab, StoreError, TabsRead, Write, as_cells
from sheets_engine.stores.gsheets_check import guard, send_guarded, snapshot
from sheets_engine.stores.gsheets_http import AnswerLost, SheetsUnavailable
from sheets_engine.stores.gsheets_landing import Expected
from sheets_engine.stores.gsheets_layout import MAX_REQUEST_BYTES, grow, pack, request_size
from sheets_engine.stores.gsheets_plan import Plan, block_requests, clear_requests, plan_staging, plan_write
from sheets_engine.stores.gsheets_read import formulas_of
from sheets_engine.stores.gsheets_session import Seen, SheetsSession, blank, header_of, last_row, refused_with, size_of
from sheets_engine.stores.gsheets_setup import lay_out, norm
from sheets_engine.stores.gsheets_source import is_google_source, load_credentials, spreadsheet_key
from sheets_engine.stores.guard import Cell, ConflictError, find_reshapes

__all__ = ["GoogleSheetsStore", "is_google_source", "load_credentials", "spreadsheet_key"]


class GoogleSheetsStore:
    """A campaign in a Google Sheet."""

    cell_limit = 50_000  # characters in a cell: Google refuses the whole write for one longer cell
    request_limit = MAX_REQUEST_BYTES  # bytes in a request body; a larger write is staged

    def __init__(self, key: str, credentials: Any, **options: Any) -> None:
        self.session = SheetsSession(key, credentials, **options)
        self.key, self.name, self.account = self.session.key, self.session.name, self.session.account
        self.client = self.session.client
        self.seen = Seen()

    @classmethod
    def open(cls, source: str, credentials: str | os.PathLike[str] | None = None, **options: Any) -> GoogleSheetsStore:
        """The store for a SOURCE (URL or gsheet:KEY), authenticated with a service-account key file."""
        return cls(spreadsheet_key(source), load_credentials(credentials), **options)

    @property
    def exchanges(self) -> list[Any]:
        """Every Sheets API request made so far (the token request is the session's own)."""
        return self.client.exchanges

    def exists(self) -> bool:
        """True if the spreadsheet is there and shared with the service account."""
        try:
            self._fetch_sheets()
        except StoreError as error:
            if refused_with(error, 404):
                return False
            raise
        return True

    def read(self, headers_only: Collection[str] = (), only: Collection[str] | None = None) -> dict[str, RawTab]:
        """Every tab (with `only`, those named: a GM's own tabs are not read), in one read; remembered
        for the lost-update guard. Each tab comes with its formula cells and error cells, as a
        workbook's do. A tab in `headers_only` (History) comes as its header and last row only: the
        end of its column A is read, at the same cost at 10,000 rows as at 400,000.
        """
        sheets = self._fetch_sheets()
        wanted = None if only is None else {norm(t) for t in only}
        titles = [t for t in sheets if wanted is None or norm(t) in wanted]
        light = [t for t in titles if norm(t) in {norm(name) for name in headers_only}]
        try:
            grids, windows = self.session.read_grids(sheets, titles, light)
        except StoreError as error:
            if not refused_with(error, 400):
                raise
            # a range past a grid that shrank since the metadata came: the metadata again, once
            sheets = self._fetch_sheets()
            titles, light = [t for t in titles if t in sheets], [t for t in light if t in sheets]
            grids, windows = self.session.read_grids(sheets, titles, light)
        self.seen.grids, self.seen.windows = grids, windows
        tabs: dict[str, RawTab] = {}
        for title, grid in grids.items():
            sheets[title] = grid.properties  # the read's own view: the metadata came a moment earlier
            if title in windows:
                tabs[title] = RawTab(title, _trimmed(header_of(grid)), [], last_row(grid, light=True))
                continue
            rows = grid.rows()
            data = [(n, list(r)) for n, r in enumerate(rows[1:], start=2) if any(not blank(v) for v in r)]
            header = _trimmed(list(rows[0])) if rows else []
            tabs[title] = RawTab(title, header, data, len(rows), dict(grid.errors), formulas_of(grid))
        return TabsRead(tabs, sheets)  # every tab's title, from the metadata, for a missing tab's nearest

    def write(self, cells: Sequence[Write]) -> None:
        """Write these cells in one all-or-nothing batchUpdate, unless the sheet changed since the read.

        Raises ConflictError (nothing written) if any cell about to be overwritten no longer holds
        what the last read() found (its value, or whether it holds a formula), or a tab written changed
        shape: its id or title, its grid's size (a row or column inserted, deleted or added), its
        header row or its column A (a row moved).
        """
        if not cells:
            return
        if self.seen.sheets is None:
            self.read()  # a write needs the tab ids and the values to guard
        sheets = self.seen.sheets
        assert sheets is not None
        wanted: dict[Cell, Any] = {}
        for cell in as_cells(cells):
            if cell.tab not in sheets:
                raise StoreError(f"{self.name} has no tab named '{cell.tab}' (sheets-engine init lays every tab out)")
            if cell.tab not in self.seen.grids:
                raise StoreError(f"{self.name}: the tab '{cell.tab}' was not read, so it cannot be written")
            wanted[(cell.tab, cell.row, cell.column)] = cell.value
        plan = plan_write(wanted, self.seen.last_rows())
        ids = {title: props["sheetId"] for title, props in sheets.items()}
        before = {t: size_of(sheets[t]) for t in sorted({b.tab for b in plan.blocks} | {c[0] for c in plan.clears})}
        after = dict(before)
        growth: list[dict[str, Any]] = []
        for title in sorted({b.tab for b in plan.blocks}):
            rows = max(b.bottom for b in plan.blocks if b.tab == title)
            columns = max(b.right for b in plan.blocks if b.tab == title)
            growth += grow(ids[title], sheets[title].get("gridProperties", {}), rows, columns)
            after[title] = (max(before[title][0], rows), max(before[title][1], columns))
        direct = [block_requests(ids[b.tab], b, self.request_limit - 4096) for b in plan.blocks]
        leftovers = [{"deleteSheet": {"sheetId": i}} for i in self.seen.leftovers]
        first = growth + clear_requests(ids, plan.clears)
        whole = leftovers + first + [r for requests in direct for r in requests]
        if request_size({"requests": whole}) <= self.request_limit:
            guard(self.session, self.seen, list(plan.targets))
            expected = Expected(plan.targets, self.seen.known, before, after, self.seen.leftovers)
            send_guarded(self.session, self.seen, whole, expected)
        else:
            self._write_staged(plan, direct, first, leftovers, Expected(plan.targets, self.seen.known, before, after))
        self.seen.leftovers = []
        self.seen.remember(plan.targets, after)

    def _write_staged(
        self, plan: Plan, direct: list[list[dict[str, Any]]], first: list[Any], leftovers: list[Any], expected: Expected
    ) -> None:
        """A write too large for one request, still all-or-nothing as the visible tabs go (gsheets_plan).

        A run that dies before the final request leaves only the hidden staging tab, which the next
        write deletes.
        """
        sheets = self.seen.sheets or {}
        ids = {title: props["sheetId"] for title, props in sheets.items()}
        staging = max([p["sheetId"] for p in sheets.values()] + self.seen.leftovers + [0]) + 1
        stages = plan_staging(plan.blocks, direct, ids, first, staging, self.request_limit - 4096, leftovers)
        needed = request_size({"requests": stages.final})
        if needed > self.request_limit:
            raise StoreError(
                f"This write to {self.name} is {len(plan.targets):,} cells in {len(plan.blocks) + len(plan.clears):,} "
                f"separate ranges: even staged, its last request would be {needed:,} bytes, over the "
                f"{self.request_limit:,}-byte limit of a request. Nothing was written. Resolve in smaller steps "
                "(a paused turn) or write to a workbook."
            )
        for batch in pack(stages.staged, self.request_limit):
            try:
                self.session.call("stage", functools.partial(self.client.send_write, self.key, {"requests": batch}))
            except AnswerLost as lost:
                raise SheetsUnavailable(
                    f"Google's answer to staging a write to {self.name} was lost ({lost.failure}). Nothing visible "
                    "was written (the next run deletes the hidden staging tab). Run the command again."
                ) from lost
        try:
            guard(self.session, self.seen, list(plan.targets))
        except ConflictError:
            self.seen.leftovers = [staging]  # nothing visible was written; the staging tab goes now or next run
            try:
                self.client.send_write(self.key, {"requests": [{"deleteSheet": {"sheetId": staging}}]})
                self.seen.leftovers = []
            except Exception:  # the next write deletes it; the conflict is what the GM must hear of
                pass
            raise
        expected.deleted = [staging]
        send_guarded(self.session, self.seen, stages.final, expected)

    def remove_rows(self, tab: str, first: int, last: int, width: int | None = None) -> None:
        """Delete rows first..last (1-based) of a tab as the last read() saw it, in one guarded batchUpdate.

        With `width` (the header's), the tab's empty columns past it go too: Google counts every cell
        of a grid against its 10,000,000-cell limit, and a new tab comes 26 columns wide. Raises
        ConflictError (nothing deleted) if the tab changed shape since the read.
        """
        sheets = self.seen.sheets
        assert sheets is not None and tab in sheets
        _, shapes = snapshot(self.session, self.seen, [], [tab])
        found = find_reshapes(self.seen.shape(tab), shapes.get(tab))
        if found:
            raise ConflictError(found, self.name)
        sheet_id, (rows, columns) = sheets[tab]["sheetId"], size_of(sheets[tab])
        requests: list[dict[str, Any]] = []
        kept = rows - (last - first + 1)
        if last >= rows:  # a tab keeps a row below its frozen header
            requests.append({"appendDimension": {"sheetId": sheet_id, "dimension": "ROWS", "length": 1}})
            kept += 1
        requests.append(
            {"deleteDimension": {"range": {"sheetId": sheet_id, "dimension": "ROWS", "startIndex": first - 1,
                                           "endIndex": last}}}
        )  # fmt: skip
        grid = self.seen.grids.get(tab)
        used = max((c for (_, c), v in grid.cells.items() if not blank(v)), default=0) if grid else 0
        narrow = columns
        if width and columns > max(width, used):
            narrow = max(width, used)
            extra = {"sheetId": sheet_id, "dimension": "COLUMNS", "startIndex": narrow, "endIndex": columns}
            requests.append({"deleteDimension": {"range": extra}})
        expected = Expected({}, self.seen.known, {tab: (rows, columns)}, {tab: (kept, narrow)})
        send_guarded(self.session, self.seen, requests, expected)
        self.seen.sheets = None  # grids changed: a later write reads again

    def cell_count(self) -> int:
        """Cells in every tab's grid, as the last read saw them (Google's limit counts these)."""
        sheets = self.seen.sheets if self.seen.sheets is not None else self._fetch_sheets()
        return sum(rows * columns for rows, columns in (size_of(p) for p in sheets.values()))

    def create(self, tabs: dict[str, list[list[Any]]], overwrite: bool = False, choices: Sequence[Choice] = ()) -> None:
        """Lay the campaign's tabs out in the (existing, shared) spreadsheet (gsheets_setup)."""
        lay_out(self.session, tabs, overwrite, choices, self.request_limit)
        self.seen = Seen()  # ids and sizes changed: the next read fetches them again

    def _fetch_sheets(self) -> dict[str, dict[str, Any]]:
        self.seen.sheets, self.seen.leftovers = self.session.properties()
        return self.seen.sheets


def _trimmed(row: list[Any]) -> list[Any]:
    while row and blank(row[-1]):
        row.pop()
    return row
