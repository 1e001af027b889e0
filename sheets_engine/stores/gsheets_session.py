"""One spreadsheet and one service account: the requests the Google Sheets store makes, their errors
turned into messages that say what to do, and the read a write is guarded against.

Every read is a `spreadsheets.get` with a field mask (gsheets_read); every write goes through
`SheetsClient.send_write`, which never sends one twice on a guess (gsheets_http).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from sheets_engine.core.names import noun
from sheets_engine.stores.base import StoreError
from sheets_engine.stores.gsheets_http import describe, message_of, status_of
from sheets_engine.stores.gsheets_layout import is_staging
from sheets_engine.stores.gsheets_read import GRID_FIELDS, PROPERTIES_FIELDS, Grid, parse_grids, quote_title, ranges_for
from sheets_engine.stores.gsheets_source import DOCS, PREFIX
from sheets_engine.stores.guard import Cell, Shape

T = TypeVar("T")
# Rows at the end of a log tab's grid whose column A a run reads (History: its length, never its contents)
LOG_WINDOW = 1000


class SheetsSession:
    """The spreadsheet `key`, reached as the service account of `credentials`."""

    def __init__(
        self, key: str, credentials: Any, *, retry: Any = None, api_root: str | None = None, session: Any = None
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

    def get(self, ranges: list[str], fields: str = GRID_FIELDS, doing: str = "read") -> dict[str, Grid]:
        """One read with the field mask: each tab's properties and, for these A1 ranges, its cells.

        Without ranges, a spreadsheets.get; with them, a spreadsheets.getByDataFilter, whose ranges go
        in the body (a guard re-reading thousands of scattered cells names too many for a URL).
        """
        from gspread.urls import SPREADSHEET_URL

        url, params = SPREADSHEET_URL % self.key, {"fields": fields}
        if not ranges:
            reply = self.call(doing, lambda: self.client.request("get", url, params=params).json())
        else:
            body = {"dataFilters": [{"a1Range": a1} for a1 in ranges]}
            reply = self.call(
                doing, lambda: self.client.request("post", f"{url}:getByDataFilter", params=params, json=body).json()
            )
        return parse_grids(reply)

    def properties(self) -> tuple[dict[str, dict[str, Any]], list[int]]:
        """Every grid tab's properties by title, and the ids of staging tabs a run that died left behind."""
        sheets: dict[str, dict[str, Any]] = {}
        leftovers: list[int] = []
        for title, grid in self.get([], PROPERTIES_FIELDS, "open").items():
            if is_staging(title):
                leftovers.append(grid.properties["sheetId"])  # the engine's, never the campaign's
            elif grid.properties.get("sheetType", "GRID") == "GRID":
                sheets[title] = grid.properties
        return sheets, leftovers

    def read_grids(
        self, sheets: Mapping[str, Mapping[str, Any]], titles: list[str], light: list[str]
    ) -> tuple[dict[str, Grid], dict[str, int]]:
        """Every tab in one spreadsheets.get, and the first row of column A read of each `light` tab.

        A light tab is asked for as its header row and the last LOG_WINDOW rows of its column A; only
        when that window is empty is its whole column read, in one more request.
        """
        windows = {t: max(2, size_of(sheets.get(t, {}))[0] - LOG_WINDOW + 1) for t in light}
        if not titles:
            return {}, windows
        asked = {t: (start if size_of(sheets.get(t, {}))[0] >= 2 else None) for t, start in windows.items()}
        grids = self.get(ranges_for(titles, asked))
        for title in light:
            grid, start = grids.get(title), windows[title]
            if grid is not None and start > 2 and not any(c == 1 and r >= start for r, c in grid.cells):
                windows[title] = 2  # the last row is above the window: the whole column
                whole = self.get([f"{quote_title(title)}!A2:A"]).get(title)
                if whole is not None:
                    grid.cells.update({cell: v for cell, v in whole.cells.items() if cell[1] == 1})
        missing = [t for t in titles if t not in grids]
        if missing:
            raise StoreError(
                f"Google's reply to reading {self.name} left out the {noun(len(missing), 'tab')} {', '.join(missing)}"
            )
        return {t: grids[t] for t in titles}, windows

    def call(self, doing: str, request: Callable[[], T]) -> T:
        """Run one request, turning Google's refusals into StoreErrors that say what to do."""
        from google.auth.exceptions import RefreshError
        from gspread.exceptions import APIError

        try:
            return request()
        except APIError as error:
            raise StoreError(self.explain(doing, error)) from error
        except RefreshError as error:
            reason = str(error.args[0])[:200] if error.args else "no reason given"
            raise StoreError(
                f"Google refused the service account's key ({reason}). The key may have been deleted or the "
                f"account disabled: create a new key for {self.account}; see {DOCS}"
            ) from None

    def explain(self, doing: str, error: Any) -> str:
        """A refusal in words a GM or an operator can act on (Google's HTML error pages never quoted)."""
        message, code = message_of(error), status_of(error)
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
        return f"Google refused to {doing} {self.name} ({describe(error)})"


def refused_with(error: StoreError, status: int) -> bool:
    """True if this StoreError is Google's refusal with that HTTP status."""
    from gspread.exceptions import APIError

    return isinstance(error.__cause__, APIError) and status_of(error.__cause__) == status


@dataclass
class Seen:
    """The last read, as a write is guarded against: the tabs' properties, the cells read (and
    written since), the first row of column A read of each light tab, and leftover staging tabs."""

    sheets: dict[str, dict[str, Any]] | None = None
    grids: dict[str, Grid] = field(default_factory=dict)
    windows: dict[str, int] = field(default_factory=dict)
    leftovers: list[int] = field(default_factory=list)

    def known(self, cell: Cell) -> tuple[Any, str | None]:
        """(value, formula) of a cell as read; (None, None) for one not read."""
        grid = self.grids.get(cell[0])
        return grid.state((cell[1], cell[2])) if grid is not None else (None, None)

    def shape(self, tab: str) -> Shape:
        """A tab's shape as read (and as the writes since grew it)."""
        props = (self.sheets or {}).get(tab, {})
        grid = Grid(props, self.grids[tab].cells) if tab in self.grids else Grid(props)
        return shape_of(grid, self.windows.get(tab, 1))

    def last_rows(self) -> dict[str, int]:
        """Each tab's last row holding a value (a light tab's: its column A's)."""
        return {t: last_row(g, light=t in self.windows) for t, g in self.grids.items()}

    def remember(self, written: Mapping[Cell, Any], sizes: Mapping[str, tuple[int, int]]) -> None:
        """After a write: the written values and the grids' new sizes (a later write builds on them)."""
        assert self.sheets is not None
        for title, (height, width) in sizes.items():
            grid = self.sheets[title].setdefault("gridProperties", {})
            grid["rowCount"], grid["columnCount"] = height, width
        for (tab, r, c), value in written.items():
            grid = self.grids[tab]
            grid.cells[(r, c)] = None if value == "" else value
            if grid.formulas:
                grid.formulas.pop((r, c), None)
            if grid.errors:
                grid.errors.pop((r, c), None)


def shape_of(grid: Grid, keys_from: int) -> Shape:
    """A tab's shape: title, grid size, header row, column A from `keys_from` (to its last value), id."""
    rows, columns = grid.size
    filled = [r for (r, c), v in grid.cells.items() if c == 1 and r >= keys_from and v is not None and v != ""]
    keys = tuple(grid.cells.get((r, 1)) for r in range(keys_from, max(filled, default=keys_from - 1) + 1))
    return Shape(grid.title, rows, columns, tuple(header_of(grid)), keys, keys_from, grid.properties.get("sheetId"))


def header_of(grid: Grid) -> list[Any]:
    """Row 1 up to its last value."""
    width = max((c for (r, c), v in grid.cells.items() if r == 1 and v is not None and v != ""), default=0)
    return [grid.cells.get((1, c)) for c in range(1, width + 1)]


def last_row(grid: Grid, light: bool = False) -> int:
    """The last row holding a value (a tab read as its header only: the last of its column A, at least 1)."""
    cells = grid.cells.items()
    if light:
        return max((r for (r, c), v in cells if c == 1 and v is not None and v != ""), default=1)
    return max((r for (r, _), v in cells if v is not None and v != ""), default=0)


def size_of(props: Mapping[str, Any]) -> tuple[int, int]:
    """(rows, columns) of a tab's grid, from its properties."""
    grid = props.get("gridProperties", {})
    return int(grid.get("rowCount", 0)), int(grid.get("columnCount", 0))


def blank(value: Any) -> bool:
    """Empty, as a spreadsheet shows it."""
    return value is None or value == ""
