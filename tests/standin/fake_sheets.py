"""A local stand-in for the parts of Google's Sheets API v4 (and OAuth token endpoint) the store uses.

Tests never reach Google. They replay cassettes; the cassettes are recorded against this stand-in
(`tests.standin.record`), and `tests/test_gsheets_standin.py` replays requests recorded
from the real API by gspread's maintainers against it and compares status codes, JSON shapes and
error bodies. Benchmarks count its requests and bytes (`FakeSheets.served`).

What it answers (paths as Google has them, host ignored):

    POST /token                                          service-account JWT grant -> access token
    GET  /v4/spreadsheets/{key}                          metadata (includeGridData=false)
    GET  /v4/spreadsheets/{key}/values/{range}           values.get
    PUT  /v4/spreadsheets/{key}/values/{range}           values.update (valueInputOption=RAW)
    POST /v4/spreadsheets/{key}/values/{range}:clear     values.clear
    GET  /v4/spreadsheets/{key}/values:batchGet          values.batchGet
    POST /v4/spreadsheets/{key}/values:batchGetByDataFilter   (a1Range filters)
    POST /v4/spreadsheets/{key}:batchUpdate              addSheet, deleteSheet, updateSheetProperties,
                                                         updateCells, appendDimension, insertDimension,
                                                         deleteDimension, repeatCell, setDataValidation,
                                                         pasteData (delimited text, parsed as typed:
                                                         see `typed`), copyPaste (values); all-or-nothing

`max_request` makes it refuse request bodies over a size, as the store's request limit is tested.

Values replies name their range as Google does: an open range (a whole tab, `1:1`, `A:A`) clamped
to the grid (`Sheet1!A1:A10` for `A:A` on a 10-row grid, as in gspread's recordings).

Known simplifications: formulas are stored, never computed (a formula cell reads back as its
text); dates are numbers; FORMATTED_VALUE renders numbers plainly; majorDimension is ROWS only;
replies are compact JSON where Google indents.
"""

from __future__ import annotations

import base64
import copy
import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, MutableMapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from sheets_engine.stores.guard import column_letter

SPREADSHEETS_SCOPES = {"https://www.googleapis.com/auth/spreadsheets", "https://www.googleapis.com/auth/drive"}
JWT_GRANT = "urn:ietf:params:oauth:grant-type:jwt-bearer"
DEVCONSOLE = "See https://developers.google.com/identity/sign-in/web/devconsole-project."

# Google's spreadsheet-wide defaults, as its metadata replies give them (from recorded traffic).
_WHITE = {"red": 1, "green": 1, "blue": 1}
DEFAULT_FORMAT = {
    "backgroundColor": _WHITE,
    "padding": {"top": 2, "right": 3, "bottom": 2, "left": 3},
    "verticalAlignment": "BOTTOM",
    "wrapStrategy": "OVERFLOW_CELL",
    "textFormat": {
        "foregroundColor": {},
        "fontFamily": "arial,sans,sans-serif",
        "fontSize": 10,
        "bold": False,
        "italic": False,
        "strikethrough": False,
        "underline": False,
        "foregroundColorStyle": {"rgbColor": {}},
    },
    "backgroundColorStyle": {"rgbColor": _WHITE},
}
THEME = {
    "primaryFontFamily": "Arial",
    "themeColors": [
        {"colorType": kind, "color": {"rgbColor": rgb}}
        for kind, rgb in (
            ("TEXT", {}),
            ("BACKGROUND", _WHITE),
            ("ACCENT1", {"red": 0.25882354, "green": 0.52156866, "blue": 0.95686275}),
            ("ACCENT2", {"red": 0.91764706, "green": 0.2627451, "blue": 0.20784314}),
            ("ACCENT3", {"red": 0.9843137, "green": 0.7372549, "blue": 0.015686275}),
            ("ACCENT4", {"red": 0.20392157, "green": 0.65882355, "blue": 0.3254902}),
            ("ACCENT5", {"red": 1, "green": 0.42745098, "blue": 0.003921569}),
            ("ACCENT6", {"red": 0.27450982, "green": 0.7411765, "blue": 0.7764706}),
            ("LINK", {"red": 0.06666667, "green": 0.33333334, "blue": 0.8}),
        )
    ],
}
# The error bodies Google sends for the failures the store meets (status code, status, message).
ERRORS = {
    404: ("NOT_FOUND", "Requested entity was not found."),
    403: ("PERMISSION_DENIED", "The caller does not have permission"),
    429: (
        "RESOURCE_EXHAUSTED",
        "Quota exceeded for quota metric 'Read requests' and limit 'Read requests per minute per user' of "
        "service 'sheets.googleapis.com' for consumer 'project_number:000000000000'.",
    ),
    500: ("INTERNAL", "Internal error encountered."),
    503: ("UNAVAILABLE", "The service is currently unavailable."),
}

Cell = tuple[str, Any]  # (kind, value); kind is string, number, bool or formula


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


def google_error(code: int) -> ApiError:
    """The error Google gives for this status code (404, 403, 429, 500, 503)."""
    status, message = ERRORS.get(code, ("UNKNOWN", "Injected failure."))
    return ApiError(code, message, status)


def bad_field(field_name: str, description: str) -> ApiError:
    """A 400 naming the offending field, with the BadRequest detail Google adds."""
    detail = {
        "@type": "type.googleapis.com/google.rpc.BadRequest",
        "fieldViolations": [{"field": field_name, "description": description}],
    }
    return ApiError(400, description, details=[detail])


@dataclass
class Sheet:
    """One tab: its properties as the API gives them, and its cells by 0-based (row, column)."""

    properties: dict[str, Any]
    cells: dict[tuple[int, int], Cell] = field(default_factory=dict)
    formats: list[tuple[dict[str, Any], dict[str, Any], str]] = field(default_factory=list)  # range, cell, fields
    validations: list[tuple[dict[str, Any], dict[str, Any] | None]] = field(default_factory=list)

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


@dataclass(frozen=True)
class Served:
    """One request the stand-in answered."""

    method: str
    path: str
    status: int
    received: int  # request body bytes
    sent: int  # reply body bytes


@dataclass
class Fault:
    """An injected failure: the next `times` requests for which `matches` holds get `status`."""

    status: int
    times: int
    matches: Callable[[str, str], bool]
    retry_after: float | None = None


class FakeSheets:
    """The stand-in: spreadsheets in memory, answering HTTP requests the way Google does."""

    def __init__(self) -> None:
        self.spreadsheets: dict[str, Spreadsheet] = {}
        self.tokens: dict[str, tuple[str, set[str]]] = {}  # access token -> (account, scopes)
        self.revoked: set[str] = set()  # service accounts whose keys Google no longer accepts
        self.faults: list[Fault] = []
        self.hooks: list[tuple[str, Callable[[FakeSheets], None]]] = []  # (endpoint, run once before it)
        self.served: list[Served] = []
        self.max_request: int | None = None  # refuse request bodies larger than this (tests of the store's limit)
        self._next_sheet_id = 1_000_000_000  # Google picks large ids; deterministic here
        self._retry_after: float | None = None  # Retry-After of the fault being answered

    # -- setting the scene ---------------------------------------------------------------------
    def add_spreadsheet(
        self, key: str, title: str = "Untitled spreadsheet", editors: Iterable[str] | None = None
    ) -> Spreadsheet:
        """A new spreadsheet with Google's default `Sheet1`, shared with these accounts (None: anyone)."""
        sheet = Sheet(_props(0, "Sheet1", 0, 1000, 26))
        book = Spreadsheet(key, title, [sheet], set(editors) if editors is not None else None)
        self.spreadsheets[key] = book
        return book

    def grant_token(self, token: str, account: str = "anyone", scopes: Iterable[str] = SPREADSHEETS_SCOPES) -> None:
        """Accept this access token (replaying recorded traffic whose token was filtered out)."""
        self.tokens[token] = (account, set(scopes))

    def put_values(self, key: str, a1: str, values: list[list[Any]]) -> None:
        """Set cells as a GM typing them would (RAW): the edits tests make behind the engine's back."""
        book = self.spreadsheets[key]
        sheet, r1, c1, _, _ = _locate(book, a1)
        _write_raw(sheet, r1, c1, values)

    def gm_update(self, key: str, *requests: dict[str, Any]) -> None:
        """Apply batchUpdate requests as a GM's browser would (insert a row, rename a tab...), unrecorded."""
        self._batch_update(self.spreadsheets[key], {"requests": list(requests)})

    def sheet_id(self, key: str, title: str) -> int:
        """The id of a tab."""
        sheet = self.spreadsheets[key].sheet(title)
        assert sheet is not None, title
        return int(sheet.properties["sheetId"])

    def values(self, key: str, title: str) -> list[list[Any]]:
        """A tab's unformatted values, rows trimmed as the API trims them."""
        sheet = self.spreadsheets[key].sheet(title)
        assert sheet is not None, title
        return _grid(sheet, 0, 0, sheet.rows - 1, sheet.columns - 1, "UNFORMATTED_VALUE")

    def cell(self, key: str, title: str, row: int, column: int) -> Cell | None:
        """(kind, value) of a cell (1-based), None when empty: says whether text went in as text."""
        sheet = self.spreadsheets[key].sheet(title)
        assert sheet is not None, title
        return sheet.cells.get((row - 1, column - 1))

    def fail(
        self, status: int, times: int = 1, endpoint: str = "", method: str = "", retry_after: float | None = None
    ) -> None:
        """The next `times` requests whose path ends with `endpoint` (e.g. `values:batchGet`, `:batchUpdate`,
        `/token`) and whose method is `method` (any if empty) fail with `status`, as Google says it."""
        self.faults.append(
            Fault(status, times, lambda m, p: p.endswith(endpoint) and (not method or m == method.upper()), retry_after)
        )

    def before(self, endpoint: str, action: Callable[[FakeSheets], None]) -> None:
        """Run `action` once, just before the next request whose path ends with `endpoint`."""
        self.hooks.append((endpoint, action))

    # -- HTTP ----------------------------------------------------------------------------------
    def handle(
        self, method: str, url: str, headers: Mapping[str, str] | None = None, body: bytes | str | None = None
    ) -> tuple[int, dict[str, str], bytes]:
        """Answer one request: (status, headers, body)."""
        method = method.upper()
        parts = urlsplit(url)
        path = unquote(parts.path)
        query = parse_qs(parts.query, keep_blank_values=True)
        raw = body.encode() if isinstance(body, str) else (body or b"")
        lowered = {k.lower(): v for k, v in (headers or {}).items()}
        for endpoint, action in list(self.hooks):
            if path.endswith(endpoint):
                self.hooks.remove((endpoint, action))
                action(self)
        try:
            if self.max_request is not None and len(raw) > self.max_request:
                raise ApiError(400, f"Request payload size exceeds the limit: {self.max_request} bytes.")
            status, reply = self._fault(method, path) or self._route(method, path, query, lowered, raw)
        except ApiError as error:
            status, reply = error.code, error.body()
        out = json.dumps(reply, ensure_ascii=False, separators=(",", ":")).encode()
        response_headers = {"Content-Type": "application/json; charset=UTF-8"}
        if self._retry_after is not None:
            response_headers["Retry-After"] = str(self._retry_after)
            self._retry_after = None
        self.served.append(Served(method, path, status, len(raw), len(out)))
        return status, response_headers, out

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
        """WSGI: serve the stand-in on a local port (see `tests.standin.server`)."""
        length = int(environ.get("CONTENT_LENGTH") or 0)
        body = environ["wsgi.input"].read(length) if length else b""
        path = environ.get("PATH_INFO", "").encode("latin-1").decode("utf-8")  # WSGI hands bytes as latin-1
        query = environ.get("QUERY_STRING", "")
        headers = {k[5:].replace("_", "-"): v for k, v in environ.items() if k.startswith("HTTP_")}
        status, reply_headers, out = self.handle(
            environ["REQUEST_METHOD"], f"http://stand-in{_quote_path(path)}?{query}", headers, body
        )
        start_response(f"{status} {_REASONS.get(status, 'Error')}", list(reply_headers.items()))
        return [out]

    def _fault(self, method: str, path: str) -> tuple[int, dict[str, Any]] | None:
        for fault in self.faults:
            if fault.times > 0 and fault.matches(method, path):
                fault.times -= 1
                self._retry_after = fault.retry_after
                return fault.status, google_error(fault.status).body()
        return None

    def _route(
        self, method: str, path: str, query: dict[str, list[str]], headers: dict[str, str], body: bytes
    ) -> tuple[int, dict[str, Any]]:
        if path.endswith("/token") and method == "POST":
            return self._token(body)
        match = re.fullmatch(r"/v4/spreadsheets/([^/:]+)(.*)", path)
        if not match:
            raise ApiError(404, "Requested entity was not found.", "NOT_FOUND")
        key, rest = match.groups()
        account = self._caller(headers)
        book = self.spreadsheets.get(key)
        if book is None:
            raise google_error(404)
        writing = method != "GET" and not rest.endswith(("batchGet", "batchGetByDataFilter"))
        if book.editors is not None and account not in book.editors and (writing or account not in book.readers):
            raise google_error(403)
        payload = json.loads(body) if body else {}
        if method == "GET" and rest == "":
            return 200, self._metadata(book)
        if method == "GET" and rest == "/values:batchGet":
            option = _one(query, "valueRenderOption", "FORMATTED_VALUE")
            ranges = [_value_range(book, a1, option) for a1 in query.get("ranges", [])]
            return 200, {"spreadsheetId": key, "valueRanges": ranges}
        if method == "POST" and rest == "/values:batchGetByDataFilter":
            return 200, self._by_filter(book, payload)
        if method == "POST" and rest == ":batchUpdate":
            return 200, self._batch_update(book, payload)
        if rest.startswith("/values/"):
            a1 = rest[len("/values/") :]
            if method == "GET":
                return 200, _value_range(book, a1, _one(query, "valueRenderOption", "FORMATTED_VALUE"))
            if method == "PUT":
                return 200, _update_values(book, a1, _one(query, "valueInputOption", ""), payload)
            if method == "POST" and a1.endswith(":clear"):
                sheet, r1, c1, r2, c2 = _locate(book, a1.removesuffix(":clear"))
                for cell in [c for c in sheet.cells if r1 <= c[0] <= r2 and c1 <= c[1] <= c2]:
                    del sheet.cells[cell]
                return 200, {"spreadsheetId": key, "clearedRange": _a1(sheet, r1, c1, r2, c2)}
        raise ApiError(404, "Requested entity was not found.", "NOT_FOUND")

    # -- endpoints -----------------------------------------------------------------------------
    def _token(self, body: bytes) -> tuple[int, dict[str, Any]]:
        form = {k: v[0] for k, v in parse_qs(body.decode()).items()}
        if form.get("grant_type") != JWT_GRANT:
            return 400, {"error": "unsupported_grant_type", "error_description": "Invalid grant_type: "}
        try:
            claims = json.loads(_b64(form["assertion"].split(".")[1]))
        except (KeyError, IndexError, ValueError):
            return 400, {"error": "invalid_grant", "error_description": "Invalid JWT: malformed assertion"}
        account = str(claims.get("iss", ""))
        if account in self.revoked:
            return 400, {"error": "invalid_grant", "error_description": "Invalid JWT Signature."}
        token = f"ya29.stand-in-{len(self.tokens) + 1}"
        self.tokens[token] = (account, set(str(claims.get("scope", "")).split()))
        return 200, {"access_token": token, "expires_in": 3599, "token_type": "Bearer"}

    def _caller(self, headers: Mapping[str, str]) -> str:
        auth = headers.get("authorization", "")
        if not auth:
            raise ApiError(
                401,
                "Request is missing required authentication credential. Expected OAuth 2 access token, login "
                f"cookie or other valid authentication credential. {DEVCONSOLE}",
                "UNAUTHENTICATED",
            )
        token = auth.removeprefix("Bearer ").strip()
        if token not in self.tokens:
            raise ApiError(
                401,
                "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or "
                f"other valid authentication credential. {DEVCONSOLE}",
                "UNAUTHENTICATED",
            )
        account, scopes = self.tokens[token]
        if not scopes & SPREADSHEETS_SCOPES:
            raise ApiError(403, "Request had insufficient authentication scopes.", "PERMISSION_DENIED")
        return account

    def _metadata(self, book: Spreadsheet) -> dict[str, Any]:
        properties = {
            "title": book.title,
            "locale": "en_US",
            "autoRecalc": "ON_CHANGE",
            "timeZone": "Etc/GMT",
            "defaultFormat": copy.deepcopy(DEFAULT_FORMAT),
            "spreadsheetTheme": copy.deepcopy(THEME),
        }
        sheets = [{"properties": copy.deepcopy(s.properties)} for s in sorted(book.sheets, key=_index)]
        return {
            "spreadsheetId": book.key,
            "properties": properties,
            "sheets": sheets,
            "spreadsheetUrl": f"https://docs.google.com/spreadsheets/d/{book.key}/edit",
        }

    def _by_filter(self, book: Spreadsheet, payload: dict[str, Any]) -> dict[str, Any]:
        option = payload.get("valueRenderOption", "FORMATTED_VALUE")
        matched = []
        for i, data_filter in enumerate(payload.get("dataFilters", [])):
            if "a1Range" not in data_filter:
                raise bad_field(f"data_filters[{i}]", "The stand-in answers a1Range data filters only.")
            matched.append(
                {"valueRange": _value_range(book, data_filter["a1Range"], option), "dataFilters": [data_filter]}
            )
        return {"spreadsheetId": book.key, "valueRanges": matched}

    def _batch_update(self, book: Spreadsheet, payload: dict[str, Any]) -> dict[str, Any]:
        requests = payload.get("requests") or []
        if not requests:
            raise ApiError(400, "Must specify at least one request.")
        draft = copy.copy(book)
        # all-or-nothing: work on a draft whose cells remember what they held (a journal, not a copy:
        # appending to a 400,000-row History must not cost a copy of it on every write)
        journals = [_Journal(s.cells) for s in book.sheets]
        draft.sheets = [_copy_sheet(s, False) for s in book.sheets]
        for sheet, journal in zip(draft.sheets, journals, strict=True):
            sheet.cells = journal  # type: ignore[assignment]
        replies = []
        try:
            for i, request in enumerate(requests):
                (kind, body), *more = request.items()
                handler = getattr(self, f"_do_{kind}", None)
                if handler is None or more:
                    name = kind if handler is None else more[0][0]
                    raise bad_field(
                        f"requests[{i}]",
                        f"Invalid JSON payload received. Unknown name \"{name}\" at 'requests[{i}]': "
                        "Cannot find field.",
                    )
                try:
                    replies.append(handler(draft, body))
                except ApiError as error:
                    raise ApiError(400, f"Invalid requests[{i}].{kind}: {error.message}") from None
        except Exception:
            for journal in journals:
                journal.undo()
            raise
        for sheet in draft.sheets:
            if isinstance(sheet.cells, _Journal):
                sheet.cells = sheet.cells.cells
        book.sheets = draft.sheets
        return {"spreadsheetId": book.key, "replies": replies}

    # -- batchUpdate requests: each gets the draft spreadsheet and its body, returns its reply -----
    def _do_addSheet(self, book: Spreadsheet, body: dict[str, Any]) -> dict[str, Any]:
        given = body.get("properties", {})
        title = given.get("title") or f"Sheet{len(book.sheets) + 1}"
        if book.sheet(title) is not None:
            raise ApiError(400, f'A sheet with the name "{title}" already exists. Please enter another name.')
        sheet_id = given.get("sheetId")
        if sheet_id is None:
            sheet_id, self._next_sheet_id = self._next_sheet_id, self._next_sheet_id + 7919
        elif any(s.properties["sheetId"] == sheet_id for s in book.sheets):
            raise ApiError(400, f"Sheet with id {sheet_id} already exists.")
        grid = given.get("gridProperties", {})
        index = min(int(given.get("index", len(book.sheets))), len(book.sheets))
        props = _props(sheet_id, title, index, grid.get("rowCount", 1000), grid.get("columnCount", 26))
        for name in ("frozenRowCount", "frozenColumnCount"):
            if grid.get(name):
                props["gridProperties"][name] = grid[name]
        if given.get("hidden"):
            props["hidden"] = True
        for sheet in book.sheets:
            if sheet.properties["index"] >= index:
                sheet.properties["index"] += 1
        book.sheets.append(Sheet(props))
        return {"addSheet": {"properties": copy.deepcopy(props)}}

    def _do_deleteSheet(self, book: Spreadsheet, body: dict[str, Any]) -> dict[str, Any]:
        sheet = _by_id(book, body.get("sheetId"))
        if len(book.sheets) == 1:
            raise ApiError(400, "You can't remove all the sheets in a document.")
        book.sheets.remove(sheet)
        for other in book.sheets:
            if other.properties["index"] > sheet.properties["index"]:
                other.properties["index"] -= 1
        return {}

    def _do_updateSheetProperties(self, book: Spreadsheet, body: dict[str, Any]) -> dict[str, Any]:
        given = body.get("properties", {})
        sheet = _by_id(book, given.get("sheetId"))
        for path in _field_paths(body.get("fields", "")):
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
        visible = [s for s in book.sheets if not s.properties.get("hidden")]
        if not visible:
            raise ApiError(400, "You can't hide all the sheets in a document.")
        sheet.cells = {(r, c): v for (r, c), v in sheet.cells.items() if r < sheet.rows and c < sheet.columns}
        return {}

    def _do_updateCells(self, book: Spreadsheet, body: dict[str, Any]) -> dict[str, Any]:
        if body.get("fields") not in ("userEnteredValue", "*"):
            raise ApiError(400, "The stand-in writes userEnteredValue only.")
        rows = body.get("rows", [])
        if "start" in body:
            start = body["start"]
            sheet = _by_id(book, start.get("sheetId"))
            r0, c0 = start.get("rowIndex", 0), start.get("columnIndex", 0)
            r1 = r0 + max(len(rows), 1) - 1
            c1 = c0 + max((len(r.get("values", [])) for r in rows), default=1) - 1
        else:
            grid = body.get("range", {})
            sheet = _by_id(book, grid.get("sheetId"))
            r0, r1, c0, c1 = _bounds(sheet, grid)
            if not rows:  # no data under the mask: clear the range
                for cell in [c for c in sheet.cells if r0 <= c[0] <= r1 and c0 <= c[1] <= c1]:
                    del sheet.cells[cell]
                return {}
        if r1 >= sheet.rows or c1 >= sheet.columns:
            raise ApiError(
                400,
                f"Range ({_a1(sheet, r0, c0, r1, c1)}) exceeds grid limits. Max rows: {sheet.rows}, "
                f"max columns: {sheet.columns}",
            )
        for i, row in enumerate(rows):
            for j, data in enumerate(row.get("values", [])):
                value = _from_cell_data(data)
                if value is None:
                    sheet.cells.pop((r0 + i, c0 + j), None)
                else:
                    sheet.cells[(r0 + i, c0 + j)] = value
        return {}

    def _do_appendDimension(self, book: Spreadsheet, body: dict[str, Any]) -> dict[str, Any]:
        sheet = _by_id(book, body.get("sheetId"))
        length = int(body.get("length", 0))
        if length <= 0:
            raise ApiError(400, "length must be greater than 0")
        name = {"ROWS": "rowCount", "COLUMNS": "columnCount"}.get(body.get("dimension", ""))
        if name is None:
            raise ApiError(400, "dimension must be ROWS or COLUMNS")
        sheet.properties["gridProperties"][name] += length
        return {}

    def _do_insertDimension(self, book: Spreadsheet, body: dict[str, Any]) -> dict[str, Any]:
        sheet, axis, start, end = _dimension_range(book, body.get("range", {}))
        if start > (sheet.rows if axis == 0 else sheet.columns):
            raise ApiError(400, f"Invalid requests: startIndex {start} is after the last {_AXES[axis]}.")
        length = end - start
        sheet.properties["gridProperties"]["rowCount" if axis == 0 else "columnCount"] += length
        sheet.cells = {_shifted(cell, axis, start, length): value for cell, value in sheet.cells.items()}
        return {}

    def _do_deleteDimension(self, book: Spreadsheet, body: dict[str, Any]) -> dict[str, Any]:
        sheet, axis, start, end = _dimension_range(book, body.get("range", {}))
        size = sheet.rows if axis == 0 else sheet.columns
        if end > size:
            raise ApiError(400, f"Invalid requests: endIndex {end} is after the last {_AXES[axis]} ({size}).")
        if start == 0 and end == size:
            raise ApiError(400, f"You can't delete all the {_AXES[axis]}s on the sheet.")
        length = end - start
        sheet.properties["gridProperties"]["rowCount" if axis == 0 else "columnCount"] -= length
        kept = {cell: value for cell, value in sheet.cells.items() if not start <= cell[axis] < end}
        sheet.cells = {_shifted(cell, axis, end, -length): value for cell, value in kept.items()}
        return {}

    def _do_pasteData(self, book: Spreadsheet, body: dict[str, Any]) -> dict[str, Any]:
        """Delimited text pasted as a GM's paste would land: every field parsed as if typed (`typed`)."""
        if body.get("html"):
            raise ApiError(400, "The stand-in pastes delimited text only.")
        if body.get("type", "PASTE_NORMAL") != "PASTE_VALUES":
            raise ApiError(400, "The stand-in pastes values only (type PASTE_VALUES).")
        delimiter = body.get("delimiter")
        if not delimiter:
            raise ApiError(400, "The stand-in needs a delimiter.")
        start = body.get("coordinate", {})
        sheet = _by_id(book, start.get("sheetId"))
        r0, c0 = start.get("rowIndex", 0), start.get("columnIndex", 0)
        lines = [line.split(delimiter) for line in str(body.get("data", "")).replace("\r\n", "\n").split("\n")]
        width = max(len(fields) for fields in lines)
        r1, c1 = r0 + len(lines) - 1, c0 + width - 1
        if r1 >= sheet.rows or c1 >= sheet.columns:
            raise ApiError(
                400,
                f"Range ({_a1(sheet, r0, c0, r1, c1)}) exceeds grid limits. Max rows: {sheet.rows}, "
                f"max columns: {sheet.columns}",
            )
        for i, fields in enumerate(lines):
            for j in range(width):  # the pasted rectangle is overwritten: a missing or empty field clears
                value = typed(fields[j]) if j < len(fields) else None
                if value is None:
                    sheet.cells.pop((r0 + i, c0 + j), None)
                else:
                    sheet.cells[(r0 + i, c0 + j)] = value
        return {}

    def _do_copyPaste(self, book: Spreadsheet, body: dict[str, Any]) -> dict[str, Any]:
        """Values copied from one range to another (an empty source cell empties its target)."""
        kind, orientation = body.get("pasteType", "PASTE_NORMAL"), body.get("pasteOrientation", "NORMAL")
        if kind != "PASTE_VALUES" or orientation != "NORMAL":
            raise ApiError(400, "The stand-in copies values only (pasteType PASTE_VALUES, NORMAL orientation).")
        source, target = body.get("source", {}), body.get("destination", {})
        origin, to = _by_id(book, source.get("sheetId")), _by_id(book, target.get("sheetId"))
        r0, r1, c0, c1 = _bounds(origin, source)
        t0, u0 = target.get("startRowIndex", 0), target.get("startColumnIndex", 0)
        t1, u1 = t0 + r1 - r0, u0 + c1 - c0
        if r1 >= origin.rows or c1 >= origin.columns or t1 >= to.rows or u1 >= to.columns:
            raise ApiError(400, f"Range ({_a1(to, t0, u0, t1, u1)}) exceeds grid limits.")
        found = {(r, c): v for (r, c), v in origin.cells.items() if r0 <= r <= r1 and c0 <= c <= c1}
        for r in range(r0, r1 + 1):
            for c in range(c0, c1 + 1):
                value = found.get((r, c))
                if value is None:
                    to.cells.pop((t0 + r - r0, u0 + c - c0), None)
                else:
                    to.cells[(t0 + r - r0, u0 + c - c0)] = value
        return {}

    def _do_repeatCell(self, book: Spreadsheet, body: dict[str, Any]) -> dict[str, Any]:
        grid = body.get("range", {})
        _by_id(book, grid.get("sheetId")).formats.append((grid, body.get("cell", {}), body.get("fields", "")))
        return {}

    def _do_setDataValidation(self, book: Spreadsheet, body: dict[str, Any]) -> dict[str, Any]:
        grid = body.get("range", {})
        _by_id(book, grid.get("sheetId")).validations.append((grid, body.get("rule")))
        return {}


# -- cells and ranges ------------------------------------------------------------------------------
_REASONS = {200: "OK", 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found",
            429: "Too Many Requests", 500: "Internal Server Error", 503: "Service Unavailable"}  # fmt: skip
_A1 = re.compile(r"^(?:(?P<sheet>'(?:[^']|'')+'|[^!]+)!)?(?P<ref>.*)$")
_REF = re.compile(r"^([A-Z]*)(\d*)(?::([A-Z]*)(\d*))?$")


_AXES = ("row", "column")


def _dimension_range(book: Spreadsheet, grid: dict[str, Any]) -> tuple[Sheet, int, int, int]:
    """The sheet, axis (0 rows, 1 columns) and [start, end) of a DimensionRange."""
    sheet = _by_id(book, grid.get("sheetId"))
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


def _props(sheet_id: int, title: str, index: int, rows: int, columns: int) -> dict[str, Any]:
    return {
        "sheetId": sheet_id,
        "title": title,
        "index": index,
        "sheetType": "GRID",
        "gridProperties": {"rowCount": rows, "columnCount": columns},
    }


def _index(sheet: Sheet) -> int:
    return int(sheet.properties["index"])


def _copy_sheet(sheet: Sheet, cells: bool = True) -> Sheet:
    return Sheet(
        copy.deepcopy(sheet.properties),
        dict(sheet.cells) if cells else sheet.cells,
        list(sheet.formats),
        list(sheet.validations),
    )


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


def _by_id(book: Spreadsheet, sheet_id: Any) -> Sheet:
    for sheet in book.sheets:
        if sheet.properties["sheetId"] == (sheet_id or 0):
            return sheet
    raise ApiError(400, f"No grid with id: {sheet_id}")


def _one(query: dict[str, list[str]], name: str, default: str) -> str:
    return query.get(name, [default])[0]


def _b64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _quote_path(path: str) -> str:
    from urllib.parse import quote

    return quote(path, safe="/:'!$,")


def _field_paths(fields: str) -> list[list[str]]:
    """`gridProperties/rowCount,hidden` or `gridProperties.rowCount` -> [[gridProperties, rowCount], [hidden]]."""
    return [re.split(r"[./]", f.strip()) for f in fields.split(",") if f.strip()]


def _column_number(letters: str) -> int:
    number = 0
    for letter in letters:
        number = number * 26 + ord(letter) - 64
    return number


def _locate(book: Spreadsheet, a1: str) -> tuple[Sheet, int, int, int, int]:
    """The sheet and 0-based inclusive bounds (clamped to the grid) an A1 range names."""
    match = _A1.match(a1)
    assert match is not None
    name, ref = match.group("sheet"), match.group("ref")
    whole = a1[1:-1].replace("''", "'") if a1.startswith("'") and a1.endswith("'") else a1
    if name is None and book.sheet(whole) is not None:  # a tab's title alone: the whole tab
        name, ref = "'" + whole.replace("'", "''") + "'", ""
    if name is None:
        sheet: Sheet | None = sorted(book.sheets, key=_index)[0]
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
    c1 = _column_number(col1) - 1 if col1 else 0
    r2 = int(row2) - 1 if row2 else sheet.rows - 1
    c2 = _column_number(col2) - 1 if col2 else sheet.columns - 1
    if r1 >= sheet.rows or c1 >= sheet.columns:
        raise ApiError(
            400,
            f"Range ({_a1(sheet, r1, c1, r1, c1)}) exceeds grid limits. Max rows: {sheet.rows}, "
            f"max columns: {sheet.columns}",
        )
    return sheet, r1, c1, min(r2, sheet.rows - 1), min(c2, sheet.columns - 1)


def _bounds(sheet: Sheet, grid: dict[str, Any]) -> tuple[int, int, int, int]:
    r0, c0 = grid.get("startRowIndex", 0), grid.get("startColumnIndex", 0)
    r1 = grid.get("endRowIndex", sheet.rows) - 1
    c1 = grid.get("endColumnIndex", sheet.columns) - 1
    return r0, r1, c0, c1


def _a1(sheet: Sheet, r1: int, c1: int, r2: int, c2: int) -> str:
    """How Google names a range in replies: the title quoted only when it must be."""
    title = sheet.title
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", title) or re.fullmatch(r"[A-Za-z]{1,3}\d+", title):
        title = "'" + title.replace("'", "''") + "'"
    start, end = f"{column_letter(c1 + 1)}{r1 + 1}", f"{column_letter(c2 + 1)}{r2 + 1}"
    return f"{title}!{start}" + ("" if start == end else f":{end}")


def _render(cell: Cell, option: str) -> Any:
    kind, value = cell
    if kind == "number" and isinstance(value, float) and value.is_integer():
        value = int(value)
    if option == "FORMATTED_VALUE":
        if kind == "bool":
            return "TRUE" if value else "FALSE"
        return str(value)
    return value


def _grid(sheet: Sheet, r1: int, c1: int, r2: int, c2: int, option: str) -> list[list[Any]]:
    """The values in a range as the API lists them: trailing empty cells and rows left out."""
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
    if not rows:
        return []
    out = []
    for r in range(r1, max(rows) + 1):
        found = rows.get(r, {})
        out.append([_render(found[c], option) if c in found else "" for c in range(c1, max(found, default=c1 - 1) + 1)])
    return out


def _value_range(book: Spreadsheet, a1: str, option: str) -> dict[str, Any]:
    sheet, r1, c1, r2, c2 = _locate(book, a1)
    reply: dict[str, Any] = {"range": _a1(sheet, r1, c1, r2, c2), "majorDimension": "ROWS"}
    values = _grid(sheet, r1, c1, r2, c2, option)
    if values:
        reply["values"] = values
    return reply


def _write_raw(sheet: Sheet, r1: int, c1: int, values: list[list[Any]]) -> int:
    """Write RAW values (None leaves a cell alone, "" empties it); returns how many cells were set."""
    count = 0
    for i, row in enumerate(values):
        for j, value in enumerate(row):
            if value is None:
                continue
            count += 1
            if value == "":
                sheet.cells.pop((r1 + i, c1 + j), None)
            elif isinstance(value, bool):
                sheet.cells[(r1 + i, c1 + j)] = ("bool", value)
            elif isinstance(value, int | float):
                sheet.cells[(r1 + i, c1 + j)] = ("number", value)
            else:
                sheet.cells[(r1 + i, c1 + j)] = ("string", str(value))
    return count


def _update_values(book: Spreadsheet, a1: str, option: str, payload: dict[str, Any]) -> dict[str, Any]:
    values = payload.get("values")
    if not isinstance(values, list) or not all(isinstance(r, list) for r in values):
        shown = json.dumps(values)
        raise bad_field(
            "data.values", f"Invalid value at 'data.values' (type.googleapis.com/google.protobuf.ListValue), {shown}"
        )
    if option != "RAW":
        raise ApiError(400, "The stand-in accepts valueInputOption=RAW only.")
    sheet, r1, c1, _, _ = _locate(book, a1)
    width = max((len(r) for r in values), default=1)
    r2, c2 = r1 + max(len(values), 1) - 1, c1 + width - 1
    if r2 >= sheet.rows or c2 >= sheet.columns:
        raise ApiError(
            400,
            f"Range ({_a1(sheet, r1, c1, r2, c2)}) exceeds grid limits. Max rows: {sheet.rows}, "
            f"max columns: {sheet.columns}",
        )
    cells = _write_raw(sheet, r1, c1, values)
    rows = sum(1 for r in values if any(v is not None for v in r))
    columns = sum(1 for j in range(width) if any(j < len(r) and r[j] is not None for r in values))
    return {
        "spreadsheetId": book.key,
        "updatedRange": _a1(sheet, r1, c1, r2, c2),
        "updatedRows": rows,
        "updatedColumns": columns,
        "updatedCells": cells,
    }


def _from_cell_data(data: dict[str, Any]) -> Cell | None:
    entered = data.get("userEnteredValue")
    if not entered:
        return None
    (kind, value), *_ = entered.items()
    kinds = {"stringValue": "string", "numberValue": "number", "boolValue": "bool", "formulaValue": "formula"}
    if kind not in kinds:
        raise ApiError(400, f"Unsupported value type: {kind}")
    if kinds[kind] == "string" and value == "":
        return None
    return kinds[kind], value


# -- how Sheets reads typed or pasted text (en_US), as far as the tests need it ----------------------
_NUMBER = re.compile(r"^[+-]?\$?(?:\d{1,3}(?:,\d{3})+|\d+)?(?:\.\d+)?(?:[eE][+-]?\d+)?%?$")


def typed(text: str) -> Cell | None:
    """The cell a GM gets by typing (or pasting) this text in an en_US spreadsheet.

    A leading apostrophe makes the rest text (a quote prefix, not part of the value). Otherwise
    `=` starts a formula, and so do `+`, `-` and `@` before something that is not a number; TRUE
    and FALSE are booleans; numbers (with commas, $, %, exponents) and anything that reads as a
    date or a time become numbers; a field in double quotes loses them. The real parser accepts
    more dates than this; what matters here is that text sent unprotected does not stay text.
    """
    if text == "":
        return None
    if text.startswith("'"):
        return ("string", text[1:]) if len(text) > 1 else None
    if text.startswith('"') and text.endswith('"') and len(text) > 1:
        text = text[1:-1].replace('""', '"')
        return ("string", text) if text else None
    stripped = text.strip()
    if stripped.startswith("="):
        return ("formula", stripped)
    if stripped.upper() in ("TRUE", "FALSE"):
        return ("bool", stripped.upper() == "TRUE")
    if stripped and _NUMBER.match(stripped) and any(ch.isdigit() for ch in stripped):
        number = float(stripped.replace(",", "").replace("$", "").rstrip("%"))
        number = number / 100 if stripped.endswith("%") else number
        return ("number", int(number) if number.is_integer() and "." not in stripped else number)
    if stripped[:1] in ("+", "-", "@") and len(stripped) > 1:
        return ("formula", "=" + stripped)
    if any(ch.isdigit() for ch in stripped) and _reads_as_date(stripped):
        return ("number", _serial(stripped))
    return ("string", text)


def _reads_as_date(text: str) -> bool:
    from dateutil import parser

    try:
        parser.parse(text, fuzzy=False)
    except (ValueError, OverflowError):
        return False
    return True


def _serial(text: str) -> float:
    """The spreadsheet serial number of a date or time (days since 1899-12-30)."""
    from datetime import datetime

    from dateutil import parser

    moment = parser.parse(text, default=datetime(1899, 12, 30))
    return (moment - datetime(1899, 12, 30)).total_seconds() / 86400
