"""The Google Sheets store: the GMs' canonical spreadsheet, behind the same interface as the workbook.

A run makes at most five requests, whatever the campaign's size: the service account's token, the
spreadsheet's metadata (tab titles, ids, grid sizes), one values batch-get of every tab
(unformatted values), the lost-update guard's re-read, and one `spreadsheets.batchUpdate` that
Google applies all-or-nothing. The guard's one request re-reads everything the write relies on:
the cells it overwrites, and of each tab it writes the header row, column A (each row's key) and,
from the ranges Google names in its reply, the grid's size and the tab's title. All of it goes
through gspread's HTTP client (`gsheets_http.SheetsClient`), with timeouts and bounded retries.

SOURCE is a spreadsheet URL (`https://docs.google.com/spreadsheets/d/KEY/edit`) or `gsheet:KEY`.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from sheets_engine.stores.base import Choice, RawTab, StoreError, Write, as_cells
from sheets_engine.stores.gsheets_layout import (
    MAX_REQUEST_BYTES,
    Block,
    a1_range,
    add_sheet,
    add_staging,
    bold_header,
    cell_requests,
    clear_values,
    copy_paste,
    dropdowns,
    freeze_header,
    grow,
    is_staging,
    pack,
    plan_write,
    quote_title,
    rectangles,
    reply_range,
    request_size,
    update_rows,
)
from sheets_engine.stores.guard import (
    Cell,
    Conflict,
    ConflictError,
    Reshaped,
    Shape,
    find_conflicts,
    find_reshapes,
)

# Spreadsheets, and the Forms a GM shares (form sync, closing the Form at the deadline): no Drive access.
SCOPES = ("https://www.googleapis.com/auth/spreadsheets", "https://www.googleapis.com/auth/forms.body")
PREFIX = "gsheet:"
CREDENTIALS_ENV = "GOOGLE_APPLICATION_CREDENTIALS"
# Named as a user finds it: a wheel install has no docs folder, the repository and its site do.
DOCS = "the Google Sheets set-up guide (docs/google-sheets.md in the sheets-engine repository)"
READ_OPTIONS: dict[str, str | int | bool | float | list[str] | None] = {
    "valueRenderOption": "UNFORMATTED_VALUE",
    "dateTimeRenderOption": "SERIAL_NUMBER",
}
_URL = re.compile(r"^https?://docs\.google\.com/spreadsheets/(?:u/\d+/)?d/([A-Za-z0-9_-]+)")
_KEY = re.compile(r"^[A-Za-z0-9_-]+$")
T = TypeVar("T")
# Rows at the end of a log tab's grid whose column A a run reads (History: its length, never its contents)
LOG_WINDOW = 1000


def is_google_source(source: str) -> bool:
    """True for `gsheet:KEY` and Google Sheets URLs."""
    return source.startswith(PREFIX) or _URL.match(source) is not None


def spreadsheet_key(source: str) -> str:
    """The spreadsheet key in a `gsheet:KEY` or a spreadsheet URL."""
    match = _URL.match(source)
    key = match.group(1) if match else source.removeprefix(PREFIX).strip()
    if not _KEY.match(key):
        raise StoreError(
            f"{source}: expected gsheet:KEY or https://docs.google.com/spreadsheets/d/KEY/edit "
            "(KEY is the long id in the spreadsheet's URL)"
        )
    return key


def load_credentials(path: str | os.PathLike[str] | None = None) -> Any:
    """The service-account credentials in a key file (`path`, else $GOOGLE_APPLICATION_CREDENTIALS).

    Errors say what is wrong and what to do; they never quote the file's contents.
    """
    from google.oauth2 import service_account

    where = path or os.environ.get(CREDENTIALS_ENV)
    if not where:
        raise StoreError(
            f"No Google credentials: pass --credentials KEY.json or set {CREDENTIALS_ENV} to the service "
            f"account's key file (how to make one: {DOCS})"
        )
    file = Path(where).expanduser()
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise StoreError(
            f"The credentials file {file} does not exist. Download a JSON key for the service account "
            f"(Google Cloud console, IAM > Service accounts > Keys) and point --credentials at it; see {DOCS}"
        ) from None
    except (OSError, UnicodeDecodeError) as error:
        reason = getattr(error, "strerror", None) or type(error).__name__
        raise StoreError(
            f"Cannot read the credentials file {file} ({reason}). Check the path and that this user may read it."
        ) from None
    try:
        info = json.loads(text)
    except ValueError:
        info = None
    if not isinstance(info, dict) or info.get("type") != "service_account":
        raise StoreError(
            f'{file} is not a service-account key file (a JSON file with "type": "service_account", '
            f'"client_email" and "private_key"). OAuth client files do not work for cron jobs; see {DOCS}'
        )
    missing = [name for name in ("client_email", "private_key", "token_uri") if not info.get(name)]
    if missing:
        raise StoreError(f"The key file {file} has no {', '.join(missing)}: download a new key for the service account")
    try:
        return service_account.Credentials.from_service_account_info(info, scopes=list(SCOPES))
    except Exception:  # whatever the parser says may quote the key: say only where the file is
        raise StoreError(
            f"The private key in {file} cannot be read (truncated or edited?). Create a new key for "
            f"{info.get('client_email')} and download it again."
        ) from None


class GoogleSheetsStore:
    """A campaign in a Google Sheet, read and written through gspread."""

    cell_limit = 50_000  # characters in a cell: Google refuses the whole write for one longer cell
    request_limit = MAX_REQUEST_BYTES  # bytes in a request body; a larger write is staged (see _write_staged)

    def __init__(
        self,
        key: str,
        credentials: Any,
        *,
        retry: Any = None,
        api_root: str | None = None,
        session: Any = None,
    ) -> None:
        from google.auth.transport.requests import AuthorizedSession

        from sheets_engine.stores.gsheets_http import RetryPolicy, SheetsClient

        policy = retry or RetryPolicy()
        self.key = key
        self.name = f"{PREFIX}{key}"
        self.account = getattr(credentials, "service_account_email", None) or "the service account"
        if session is None:
            # refresh_timeout bounds the token request, which the session makes on its own.
            session = AuthorizedSession(credentials, refresh_timeout=policy.timeout[1])
        self.client = SheetsClient(session, policy, api_root)
        self._sheets: dict[str, dict[str, Any]] | None = None  # title -> sheet properties, as last read
        self._values: dict[str, list[list[Any]]] = {}  # title -> the rows the last read() found
        self._grids: dict[str, tuple[int, int]] = {}  # title -> (rows, columns) of the grid the last read() saw
        self._leftovers: list[int] = []  # ids of staging tabs a run that died left behind: the next write deletes them
        self._windows: dict[str, int] = {}  # title -> first row of column A read, for a tab read as its header only

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
        from gspread.exceptions import APIError

        try:
            self._fetch_sheets()
        except StoreError as error:
            if isinstance(error.__cause__, APIError) and error.__cause__.code == 404:
                return False
            raise
        return True

    def read(self, headers_only: Collection[str] = (), only: Collection[str] | None = None) -> dict[str, RawTab]:
        """Every tab's unformatted values, in one batch-get; remembered for the lost-update guard.

        `only` is not used: Google sends values, not a dense grid, and the guard keeps every tab.

        A tab in `headers_only` is asked for as its header row and the end of its column A only (its
        last LOG_WINDOW grid rows): that gives its last row (the engine writes column A of every History
        row) without its contents, at the same cost at 10,000 rows as at 400,000. Only when the window
        is empty (a GM added that many blank rows below History) is the whole column asked for, in a
        second request.
        """
        sheets = self._fetch_sheets()
        light = {name.strip().casefold() for name in headers_only}
        self._windows = {}
        values, grids = self._batch_get(list(sheets), [t for t in sheets if t.strip().casefold() in light])
        self._values, self._grids = values, grids
        for title, (height, width) in grids.items():  # the read's own view: the metadata came a moment earlier
            sheets[title].setdefault("gridProperties", {}).update(rowCount=height, columnCount=width)
        return {
            title: RawTab(title, _raw_tab(title, rows[:1]).header, [], len(rows))
            if title.strip().casefold() in light
            else _raw_tab(title, rows)
            for title, rows in values.items()
        }

    def write(self, cells: Sequence[Write]) -> None:
        """Write these cells in one all-or-nothing batchUpdate, unless the sheet changed since the read.

        Raises ConflictError (nothing written) if any cell about to be overwritten no longer holds
        the value the last read() found, or a tab written changed shape: its title, its grid's size
        (a row or column inserted, deleted or added), its header row or its column A (a row moved).
        """
        if not cells:
            return
        if self._sheets is None:
            self.read()  # a write needs the tab ids and the values to guard
        assert self._sheets is not None
        wanted: dict[Cell, Any] = {}
        for cell in as_cells(cells):
            if cell.tab not in self._sheets:
                raise StoreError(f"{self.name} has no tab named '{cell.tab}' (sheets-engine init lays every tab out)")
            wanted[(cell.tab, cell.row, cell.column)] = cell.value
        last_rows = {title: len(rows) for title, rows in self._values.items()}
        targets, blocks = plan_write(wanted, last_rows)
        sizes: dict[str, tuple[int, int]] = {}
        growth: list[dict[str, Any]] = []
        for title in sorted({b.tab for b in blocks}):
            props = self._sheets[title]
            tab_blocks = [b for b in blocks if b.tab == title]
            sizes[title] = (max(b.bottom for b in tab_blocks), max(b.right for b in tab_blocks))
            growth += grow(props["sheetId"], props.get("gridProperties", {}), *sizes[title])
        leftovers = [{"deleteSheet": {"sheetId": sheet_id}} for sheet_id in self._leftovers]
        direct = [
            cell_requests(
                self._sheets[b.tab]["sheetId"],
                b.row - 1,
                b.column - 1,
                b.values,
                b.row <= last_rows.get(b.tab, 0),  # cells of rows that existed may need clearing; new rows are empty
                self.request_limit - 4096,
            )
            for b in blocks
        ]
        whole = leftovers + growth + [r for requests in direct for r in requests]
        if request_size({"requests": whole}) <= self.request_limit:
            self._guard(targets)
            self._call("write", lambda: self.client.batch_update(self.key, {"requests": whole}))
        else:
            self._write_staged(targets, blocks, direct, leftovers, growth)
        self._leftovers = []
        self._remember(targets, sizes)

    def _guard(self, targets: Mapping[Cell, Any]) -> None:
        """The lost-update guard: raise ConflictError if the sheet is no longer the one read."""
        expected = {cell: self._known(cell) for cell in targets}
        tabs = sorted({cell[0] for cell in targets})
        current, shapes = self._reread(list(targets), tabs)
        found: dict[Any, Conflict | Reshaped] = {}
        for tab in tabs:
            for change in find_reshapes(self._shape(tab), shapes.get(tab)):
                found[(change.tab, change.row, change.column) if isinstance(change, Conflict) else change] = change
        if not any(isinstance(c, Reshaped) and c.what.startswith("no tab") for c in found.values()):
            for conflict in find_conflicts(expected, current):
                found.setdefault((conflict.tab, conflict.row, conflict.column), conflict)
        if found:
            raise ConflictError(sorted(found.values(), key=_in_sheet_order), self.name)

    def _write_staged(
        self,
        targets: Mapping[Cell, Any],
        blocks: Sequence[Block],
        direct: Sequence[list[dict[str, Any]]],
        leftovers: list[dict[str, Any]],
        growth: list[dict[str, Any]],
    ) -> None:
        """A write too large for one request, still all-or-nothing as the visible tabs go.

        The large blocks are pasted into a new hidden staging tab, in as many requests as they need
        (nothing visible changes). Then the guard re-reads, and one final batchUpdate grows the tabs,
        writes the small blocks directly, copies each staged block into place and deletes the staging
        tab. A run that dies before the final request leaves only the staging tab, which the next
        write deletes. A block is staged when moving it costs fewer bytes than writing it: the final
        request then holds one copyPaste per staged block and the small blocks' own cells.
        """
        assert self._sheets is not None
        staging = max([p["sheetId"] for p in self._sheets.values()] + self._leftovers + [0]) + 1
        final: list[dict[str, Any]] = list(growth)
        staged: list[dict[str, Any]] = [*leftovers, {}]  # {}: the staging tab's addSheet, once its size is known
        top = width = 0
        for b, requests in zip(blocks, direct, strict=True):
            rows, columns = len(b.values), b.right - b.column + 1
            into = (self._sheets[b.tab]["sheetId"], b.row - 1, b.column - 1)
            move = copy_paste((staging, top, 0, rows, columns), into)
            if sum(request_size(r) for r in requests) <= request_size(move):
                final += requests
                continue
            final.append(move)
            staged += cell_requests(staging, top, 0, b.values, False, self.request_limit - 4096)
            top, width = top + rows, max(width, columns)
        final.append({"deleteSheet": {"sheetId": staging}})
        staged[len(leftovers)] = add_staging(staging, top, width)
        needed = request_size({"requests": final})
        if needed > self.request_limit:
            raise StoreError(
                f"This write to {self.name} is {len(targets):,} cells in {len(blocks):,} separate ranges: even "
                f"staged, its last request would be {needed:,} bytes, over the {self.request_limit:,}-byte limit "
                "of a request. Nothing was written. Resolve in smaller steps (a paused turn) or write to a workbook."
            )
        for batch in pack(staged, self.request_limit):
            self._call("stage", lambda batch=batch: self.client.batch_update(self.key, {"requests": batch}))
        try:
            self._guard(targets)
        except ConflictError:
            self._leftovers = [staging]  # nothing visible was written; the staging tab goes now or next run
            try:
                self.client.batch_update(self.key, {"requests": [{"deleteSheet": {"sheetId": staging}}]})
                self._leftovers = []
            except Exception:  # the next write deletes it; the conflict is what the GM must hear of
                pass
            raise
        self._call("write", lambda: self.client.batch_update(self.key, {"requests": final}))

    def remove_rows(self, tab: str, first: int, last: int, width: int | None = None) -> None:
        """Delete rows first..last (1-based) of a tab as the last read() saw it, in one guarded batchUpdate.

        With `width` (the header's), the tab's empty columns past it go too: Google counts every cell
        of a grid against its 10,000,000-cell limit, and a new tab comes 26 columns wide. Raises
        ConflictError (nothing deleted) if the tab changed shape since the read.
        """
        assert self._sheets is not None and tab in self._sheets
        _, shapes = self._reread([], [tab])
        changes = find_reshapes(self._shape(tab), shapes.get(tab))
        if changes:
            raise ConflictError(changes, self.name)
        props = self._sheets[tab]
        sheet_id, grid = props["sheetId"], props.get("gridProperties", {})
        rows, columns = grid.get("rowCount", last), grid.get("columnCount", 1)
        requests: list[dict[str, Any]] = []
        if last >= rows:  # a tab keeps a row below its frozen header
            requests.append({"appendDimension": {"sheetId": sheet_id, "dimension": "ROWS", "length": 1}})
        dimension = {"sheetId": sheet_id, "dimension": "ROWS", "startIndex": first - 1, "endIndex": last}
        requests.append({"deleteDimension": {"range": dimension}})
        used = max((len(row) for row in self._values.get(tab, [])), default=0)
        if width and columns > max(width, used):
            extra = {"sheetId": sheet_id, "dimension": "COLUMNS", "startIndex": max(width, used), "endIndex": columns}
            requests.append({"deleteDimension": {"range": extra}})
        self._call("archive rows of", lambda: self.client.batch_update(self.key, {"requests": requests}))
        self._sheets = None  # grids changed: a later write reads again

    def cell_count(self) -> int:
        """Cells in every tab's grid, as the last read saw them (Google's limit counts these)."""
        sheets = self._sheets if self._sheets is not None else self._fetch_sheets()
        return sum(
            p.get("gridProperties", {}).get("rowCount", 0) * p.get("gridProperties", {}).get("columnCount", 0)
            for p in sheets.values()
        )

    def create(self, tabs: dict[str, list[list[Any]]], overwrite: bool = False, choices: Sequence[Choice] = ()) -> None:
        """Lay the campaign's tabs out in the (existing, shared) spreadsheet, in one batchUpdate.

        Each tab gets its rows, a bold frozen header and, for the closed columns, a dropdown. A tab
        that already holds data is replaced only with `overwrite`; one that already has these
        headers and is given no rows (a linked Google Form's `Form Responses 1`) is left alone.
        Tabs that are not the campaign's are never touched, except an empty `Sheet1` (the tab
        a new spreadsheet comes with), which is removed.
        """
        sheets = self._fetch_sheets()
        by_name = {_norm(title): props for title, props in sheets.items()}
        existing = {tab: by_name[_norm(tab)] for tab in tabs if _norm(tab) in by_name}
        default = [by_name["sheet1"]["title"]] if "sheet1" in by_name and "sheet1" not in map(_norm, tabs) else []
        current, _ = self._batch_get([p["title"] for p in existing.values()] + default)
        keep, taken = set(), []
        for tab, props in existing.items():
            rows = current.get(props["title"], [])
            if not _holds_data(rows):
                continue
            if len(tabs[tab]) <= 1 and rows and _covers(rows[0], tabs[tab][0] if tabs[tab] else []):
                keep.add(tab)
            elif not overwrite:
                taken.append(props["title"])
        if taken:
            raise StoreError(
                f"{self.name} already has tab(s) holding data: {', '.join(taken)}. Add --force to replace "
                "their contents (tabs that are not the campaign's are never touched)."
            )
        requests: list[dict[str, Any]] = []
        next_id = max([p["sheetId"] for p in sheets.values()] + self._leftovers, default=0) + 1
        ids: dict[str, int] = {}
        for index, (tab, rows) in enumerate(tabs.items(), start=len(sheets)):
            width = max((len(r) for r in rows), default=1)
            if tab in keep:
                continue
            if tab in existing:
                props = existing[tab]
                ids[tab] = props["sheetId"]
                requests += [clear_values(ids[tab]), freeze_header(ids[tab])]
                requests += grow(ids[tab], props.get("gridProperties", {}), len(rows), width)
            else:
                ids[tab], next_id = next_id, next_id + 1
                requests.append(add_sheet(ids[tab], tab, index, len(rows), width, exact=_norm(tab) == "history"))
            if rows:
                requests += update_rows(ids[tab], rows, self.request_limit - 4096)
                requests.append(bold_header(ids[tab], len(rows[0])))
        requests += dropdowns({t: r for t, r in tabs.items() if t in ids}, ids, choices)
        if default and not _holds_data(current.get(default[0], [])) and ids:
            requests.append({"deleteSheet": {"sheetId": sheets[default[0]]["sheetId"]}})
        # One request when the campaign fits (2,000,000 bytes); a larger one in several, in order: a set-up
        # that fails half-way is run again with --force
        for batch in pack(requests, self.request_limit) if requests else []:
            self._call("lay out", lambda batch=batch: self.client.batch_update(self.key, {"requests": batch}))
        self._sheets = None  # ids and sizes changed: the next read fetches them again

    # -- requests ------------------------------------------------------------------------------
    def _fetch_sheets(self) -> dict[str, dict[str, Any]]:
        meta = self._call("open", lambda: self.client.fetch_sheet_metadata(self.key))
        sheets = {}
        self._leftovers = []
        for sheet in meta.get("sheets", []):
            props = sheet.get("properties", {})
            if is_staging(str(props.get("title", ""))):
                self._leftovers.append(props["sheetId"])  # the engine's, never the campaign's
            elif props.get("sheetType", "GRID") == "GRID":
                sheets[props["title"]] = props
        self._sheets = sheets
        return sheets

    def _batch_get(
        self, titles: list[str], light: list[str] | None = None
    ) -> tuple[dict[str, list[list[Any]]], dict[str, tuple[int, int]]]:
        """Every tab in one values batch-get; a `light` tab as two ranges, its header row and column A.

        Also each tab's grid (rows, columns), as the ranges Google names in its reply give it.
        """
        if not titles:
            return {}, {}
        light = light or []
        asked: list[str] = []
        for title in titles:
            if title in light:
                height = (self._sheets or {}).get(title, {}).get("gridProperties", {}).get("rowCount", 0)
                self._windows[title] = max(1, height - LOG_WINDOW + 1)
                asked += [f"{quote_title(title)}!1:1", f"{quote_title(title)}!{self._column_a(title)}"]
            else:
                asked.append(quote_title(title))
        reply = self._call(
            "read",
            lambda: self.client.values_batch_get(self.key, asked, params={**READ_OPTIONS, "majorDimension": "ROWS"}),
        )
        ranges = reply.get("valueRanges", [])
        if len(ranges) != len(asked):
            raise StoreError(f"Google's reply to reading {self.name} had {len(ranges)} range(s) for {len(asked)} asked")
        found = iter(ranges)
        values: dict[str, list[list[Any]]] = {}
        grids: dict[str, tuple[int, int]] = {}
        for title in titles:
            whole = next(found)
            rows = whole.get("values", [])
            end = reply_range(whole.get("range", ""))
            if title in light:
                column = next(found)
                column_a = column.get("values", [])  # one cell a row: its length is the tab's last used row
                start = self._windows[title]
                if start > 1 and not column_a:  # the last row is above the window: read the whole column
                    self._windows[title] = start = 1
                    whole_column = self._call(
                        "read",
                        lambda t=title: self.client.values_get(self.key, f"{quote_title(t)}!A:A", params=READ_OPTIONS),
                    )
                    column_a = whole_column.get("values", [])
                # rows above the window stand as empty lists: only the tab's length matters
                rows = (rows[:1] or [[]]) + ([[]] * (start - 2) + column_a if start > 1 else column_a[1:])
                bottom = reply_range(column.get("range", ""))
                if end is not None and bottom is not None:
                    grids[title] = (bottom[1], end[2])
            elif end is not None:
                grids[title] = (end[1], end[2])
            values[title] = rows
        return values, grids

    def _reread(self, cells: list[Cell], tabs: list[str]) -> tuple[dict[Cell, Any], dict[str, Shape | None]]:
        """The guard's re-read, in one batch-get: the current values of these cells, and the shape of
        each of these tabs (None for a tab no longer there under its title)."""
        from gspread.exceptions import APIError
        from gspread.urls import SPREADSHEETS_API_V4_BASE_URL

        # Cells past a tab's grid are empty (rows the write will add): Google refuses a range that
        # leaves the grid, so only cells inside it are asked for. (A GM who adds rows to type below
        # it changes the grid's size, which the shape shows.)
        grids = {title: props.get("gridProperties", {}) for title, props in (self._sheets or {}).items()}
        inside = [
            cell
            for cell in cells
            if cell[1] <= grids.get(cell[0], {}).get("rowCount", cell[1])
            and cell[2] <= grids.get(cell[0], {}).get("columnCount", cell[2])
        ]
        boxes = {a1_range(*box): box for box in rectangles(inside)}
        # Open ranges: Google names them in its reply clamped to the grid, so they say its size
        headers = {f"{quote_title(tab)}!1:1": tab for tab in tabs}
        keys = {f"{quote_title(tab)}!{self._column_a(tab)}": tab for tab in tabs}
        asked = [*headers, *keys, *boxes]
        body = {"dataFilters": [{"a1Range": a1} for a1 in asked], "majorDimension": "ROWS", **READ_OPTIONS}
        url = f"{SPREADSHEETS_API_V4_BASE_URL}/{self.key}/values:batchGetByDataFilter"
        try:
            reply = self.client.request("post", url, json=body).json()
        except APIError as error:
            message = str(error.error.get("message", "")) if isinstance(error.error, dict) else ""
            # A range naming a tab no longer there under that title (renamed, deleted) fails to parse
            gone = [tab for tab in tabs if error.code == 400 and "Unable to parse range" in message and tab in message]
            if not gone:
                raise StoreError(self._explain("re-read", error)) from error
            return {}, {tab: None for tab in gone}  # renamed or deleted: nothing else matters
        matched: dict[str, dict[str, Any]] = {}
        for item in reply.get("valueRanges", []):
            for data_filter in item.get("dataFilters", []):
                matched[data_filter.get("a1Range", "")] = item.get("valueRange", {})
        current: dict[Cell, Any] = {}
        for a1, box in boxes.items():
            if a1 not in matched:
                if box[0] in tabs and any(keys_a1 not in matched for keys_a1, tab in keys.items() if tab == box[0]):
                    continue  # the tab is gone: its shape says so
                raise StoreError(f"Google's reply to re-reading {self.name} left out some ranges; nothing was written")
            tab, row1, col1, _, _ = box
            for i, row in enumerate(matched[a1].get("values", [])):
                for j, value in enumerate(row):
                    current[(tab, row1 + i, col1 + j)] = value
        shapes: dict[str, Shape | None] = {}
        for (header_a1, tab), keys_a1 in zip(headers.items(), keys, strict=True):
            header, column = matched.get(header_a1), matched.get(keys_a1)
            across = reply_range(header.get("range", "")) if header else None
            down = reply_range(column.get("range", "")) if column else None
            if header is None or column is None or across is None or down is None:
                shapes[tab] = None
                continue
            first = header.get("values", [])
            shapes[tab] = Shape(
                across[0],
                down[1],
                across[2],
                tuple(first[0]) if first else (),
                tuple(row[0] if row else None for row in column.get("values", [])),
                self._windows.get(tab, 1),
            )
        return current, shapes

    def _column_a(self, title: str) -> str:
        """Column A as the read asked for it: whole, or from the first row of a log tab's window."""
        start = self._windows.get(title, 1)
        return "A:A" if start == 1 else f"A{start}:A"

    def _shape(self, tab: str) -> Shape:
        """A tab's shape as the last read() saw it (and the writes since, which grow it)."""
        rows = self._values.get(tab, [])
        grid = (self._sheets or {}).get(tab, {}).get("gridProperties", {})
        height, width = self._grids.get(tab, (grid.get("rowCount", 0), grid.get("columnCount", 0)))
        start = self._windows.get(tab, 1)
        keys = tuple(row[0] if row else None for row in rows[start - 1 :])
        return Shape(tab, height, width, tuple(rows[0]) if rows else (), keys, start)

    def _call(self, doing: str, request: Callable[[], T]) -> T:
        """Run one request, turning Google's refusals into StoreErrors that say what to do."""
        from google.auth.exceptions import RefreshError
        from gspread.exceptions import APIError

        try:
            return request()
        except APIError as error:
            raise StoreError(self._explain(doing, error)) from error
        except RefreshError as error:
            reason = str(error.args[0])[:200] if error.args else "no reason given"
            raise StoreError(
                f"Google refused the service account's key ({reason}). The key may have been deleted or the "
                f"account disabled: create a new key for {self.account}; see {DOCS}"
            ) from None

    def _explain(self, doing: str, error: Any) -> str:
        message = str(error.error.get("message", "")) if isinstance(error.error, dict) else ""
        code = error.code
        if code == 404:
            return (
                f"No spreadsheet with key {self.key} (Google answered 404 Not Found). Check the key: it is the "
                "long id between /d/ and /edit in the spreadsheet's URL."
            )
        if code == 403:
            if "scope" in message.casefold():
                return f"Google refused to {doing} {self.name}: the credentials lack the spreadsheets scope ({message})"
            if "has not been used" in message or "disabled" in message.casefold():
                return (
                    f"The Google Sheets API is not enabled for the service account's project: enable it in the "
                    f"Google Cloud console (APIs & Services), wait a minute, then run again. ({message})"
                )
            return (
                f"Google refused to {doing} {self.name} (403 permission denied): share the spreadsheet with "
                f"{self.account} as Editor (the Share button in Google Sheets), then run again."
            )
        if code == 401:
            return f"Google did not accept the credentials of {self.account} (401): {message}. See {DOCS}"
        return f"Google refused to {doing} {self.name} (HTTP {code}): {message}"

    # -- the remembered read -------------------------------------------------------------------
    def _known(self, cell: Cell) -> Any:
        rows = self._values.get(cell[0], [])
        row = rows[cell[1] - 1] if cell[1] <= len(rows) else []
        return row[cell[2] - 1] if cell[2] <= len(row) else None

    def _remember(self, written: Mapping[Cell, Any], sizes: Mapping[str, tuple[int, int]]) -> None:
        """After a write, remember the written values and grown grids (a later write builds on them)."""
        assert self._sheets is not None
        for title, (height, width) in sizes.items():
            grid = self._sheets[title].setdefault("gridProperties", {})
            grid["rowCount"] = max(grid.get("rowCount", 0), height)
            grid["columnCount"] = max(grid.get("columnCount", 0), width)
            if title in self._grids:
                self._grids[title] = (grid["rowCount"], grid["columnCount"])
        for (tab, r, c), value in written.items():
            rows = self._values.setdefault(tab, [])
            while len(rows) < r:
                rows.append([])
            row = rows[r - 1]
            while len(row) < c:
                row.append("")
            row[c - 1] = "" if value is None else value


def _raw_tab(title: str, rows: list[list[Any]]) -> RawTab:
    header = list(rows[0]) if rows else []
    while header and (header[-1] is None or header[-1] == ""):
        header.pop()
    data = [(n, list(r)) for n, r in enumerate(rows[1:], start=2) if any(v is not None and v != "" for v in r)]
    return RawTab(title, header, data, len(rows))


def _in_sheet_order(change: Conflict | Reshaped) -> tuple[str, int, int, str]:
    """Changes sorted by tab, the tab's own changes (its title, its grid) first, then cells in order."""
    if isinstance(change, Reshaped):
        return change.tab, 0, 0, change.what
    return change.tab, change.row, change.column, ""


def _holds_data(rows: list[list[Any]]) -> bool:
    return any(v is not None and v != "" for r in rows for v in r)


def _covers(found: list[Any], wanted: list[Any]) -> bool:
    have = {_norm(h) for h in found}
    return all(_norm(h) in have for h in wanted if _norm(h))


def _norm(text: Any) -> str:
    return "" if text is None else str(text).strip().casefold()
