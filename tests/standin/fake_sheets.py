"""A local stand-in for the parts of Google's Sheets API v4 (and OAuth token endpoint) the store uses.

Tests never reach Google. They replay cassettes; the cassettes are recorded against this stand-in
(`tests.standin.record`), and `tests/test_gsheets_standin.py` replays requests recorded from the
real API by gspread's maintainers against it and compares status codes, JSON shapes and error
bodies. Benchmarks count its requests and bytes (`FakeSheets.served`).

What it answers (paths as Google has them, host ignored):

    POST /token                                          service-account JWT grant -> access token
    GET  /v4/spreadsheets/{key}                          metadata (with `fields`: a field mask,
                                                         fake_grid.parse_mask; `ranges`: grid data)
    POST /v4/spreadsheets/{key}:getByDataFilter          grid data of a1Range filters, with `fields`
    POST /v4/spreadsheets/{key}:batchUpdate              all-or-nothing (fake_batch)
    GET  /v4/spreadsheets/{key}/values/{range}           values.get           } gspread's recordings only:
    PUT  /v4/spreadsheets/{key}/values/{range}           values.update (RAW)  } the store uses none of
    POST /v4/spreadsheets/{key}/values/{range}:clear     values.clear         } them, and the strict
    GET  /v4/spreadsheets/{key}/values:batchGet          values.batchGet      } stand-in refuses them
    POST /v4/spreadsheets/{key}/values:batchGetByDataFilter   (a1Range filters)

`strict` (the default) holds every request to the list of documented behaviours the store relies on
(fake_strict). Faults can be injected per endpoint (`fail`, `lose`): a JSON or an HTML error, after
the request was applied or not, answered late. `max_request` refuses request bodies over a size.

Known simplifications: formulas are never calculated (a test gives a formula's value with
`put_formula`); dates are numbers; FORMATTED_VALUE renders numbers plainly; majorDimension is ROWS
only; replies are compact JSON where Google indents.
"""

from __future__ import annotations

import base64
import copy
import json
import re
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, quote, unquote, urlsplit

from tests.standin.fake_batch import apply_batch
from tests.standin.fake_grid import (
    ApiError,
    Sheet,
    Spreadsheet,
    a1_name,
    grid_data,
    grid_values,
    locate,
    masked,
    parse_mask,
    props,
    value_range,
)
from tests.standin.fake_strict import check_get, check_get_by_filter, refuse

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


@dataclass(frozen=True)
class Served:
    """One request the stand-in answered."""

    method: str
    path: str
    status: int
    received: int  # request body bytes
    sent: int  # reply body bytes
    query: str = ""  # the query string, decoded

    @property
    def kind(self) -> str:
        """What the request was: token, metadata, grid (a read of cells), write, or the values API's."""
        if self.path.endswith("/token"):
            return "token"
        if self.path.endswith(":batchUpdate"):
            return "write"
        if self.path.endswith(":getByDataFilter"):
            return "grid"
        return "metadata" if self.method == "GET" and "/values" not in self.path else "values"


@dataclass
class Fault:
    """An injected failure: the next `times` requests for which `matches` holds get `status`.

    `applied`: the request is carried out first (its answer is what is lost); `after` runs then (a GM's
    edit in between); `delay` seconds pass before the answer; `html` sends a gateway's HTML page
    instead of Google's JSON error; `status` None answers normally (only late).
    """

    status: int | None
    times: int
    matches: Callable[[str, str], bool]
    retry_after: float | None = None
    html: bool = False
    applied: bool = False
    delay: float = 0.0
    after: Callable[[Any], None] | None = None


class FakeSheets:
    """The stand-in: spreadsheets in memory, answering HTTP requests the way Google does."""

    def __init__(self, strict: bool = True) -> None:
        self.strict = strict
        self.spreadsheets: dict[str, Spreadsheet] = {}
        self.tokens: dict[str, tuple[str, set[str]]] = {}  # access token -> (account, scopes)
        self.revoked: set[str] = set()  # service accounts whose keys Google no longer accepts
        self.faults: list[Fault] = []
        self.hooks: list[list[Any]] = []  # [endpoint, action, requests to let pass first]: run once before it
        self.served: list[Served] = []
        self.max_request: int | None = None  # refuse request bodies larger than this (tests of the store's limit)
        self._next_sheet_id = 1_000_000_000  # Google picks large ids; deterministic here

    # -- setting the scene ---------------------------------------------------------------------
    def add_spreadsheet(
        self, key: str, title: str = "Untitled spreadsheet", editors: Iterable[str] | None = None
    ) -> Spreadsheet:
        """A new spreadsheet with Google's default `Sheet1`, shared with these accounts (None: anyone)."""
        sheet = Sheet(props(0, "Sheet1", 0, 1000, 26))
        book = Spreadsheet(key, title, [sheet], set(editors) if editors is not None else None)
        self.spreadsheets[key] = book
        return book

    def grant_token(self, token: str, account: str = "anyone", scopes: Iterable[str] = SPREADSHEETS_SCOPES) -> None:
        """Accept this access token (replaying recorded traffic whose token was filtered out)."""
        self.tokens[token] = (account, set(scopes))

    def put_values(self, key: str, a1: str, values: list[list[Any]]) -> None:
        """Set cells as a GM typing them would (RAW): the edits tests make behind the engine's back."""
        sheet, r1, c1, _, _ = locate(self.spreadsheets[key], a1)
        _write_raw(sheet, r1, c1, values)

    def put_formula(self, key: str, a1: str, formula: str, value: Any = None, error: str | None = None) -> None:
        """A GM's formula in a cell, with the value Google computed for it (or an ErrorValue type, `REF`)."""
        sheet, r, c, _, _ = locate(self.spreadsheets[key], a1)
        sheet.cells[(r, c)] = ("formula", formula)
        sheet.results.pop((r, c), None)
        if error is not None:
            sheet.results[(r, c)] = ("error", error)
        elif value is not None:
            kind = "bool" if isinstance(value, bool) else "number" if isinstance(value, int | float) else "string"
            sheet.results[(r, c)] = (kind, value)

    def gm_update(self, key: str, *requests: dict[str, Any]) -> None:
        """Apply batchUpdate requests as a GM's browser would (insert a row, rename a tab...), unrecorded."""
        apply_batch(self.spreadsheets[key], {"requests": list(requests)}, False, self._new_id)

    def sheet_id(self, key: str, title: str) -> int:
        """The id of a tab."""
        sheet = self.spreadsheets[key].sheet(title)
        assert sheet is not None, title
        return int(sheet.properties["sheetId"])

    def values(self, key: str, title: str) -> list[list[Any]]:
        """A tab's unformatted values, rows trimmed as the API trims them."""
        sheet = self.spreadsheets[key].sheet(title)
        assert sheet is not None, title
        return grid_values(sheet, 0, 0, sheet.rows - 1, sheet.columns - 1, "UNFORMATTED_VALUE")

    def cell(self, key: str, title: str, row: int, column: int) -> tuple[str, Any] | None:
        """(kind, value) of a cell (1-based), None when empty: says whether text went in as text."""
        sheet = self.spreadsheets[key].sheet(title)
        assert sheet is not None, title
        return sheet.cells.get((row - 1, column - 1))

    def fail(
        self,
        status: int | None,
        times: int = 1,
        endpoint: str = "",
        method: str = "",
        retry_after: float | None = None,
        **how: Any,
    ) -> None:
        """The next `times` requests whose path ends with `endpoint` (e.g. `:batchUpdate`, `/token`, or ""
        for any) and whose method is `method` (any if empty) fail with `status`, as Google says it (see
        Fault for `html`, `applied`, `delay` and `after`)."""
        self.faults.append(
            Fault(
                status,
                times,
                lambda m, p: p.endswith(endpoint) and (not method or m == method.upper()),
                retry_after,
                **how,
            )
        )

    def before(self, endpoint: str, action: Callable[[FakeSheets], None], skip: int = 0) -> None:
        """Run `action` once, just before the next request (after `skip` of them) whose path ends with
        `endpoint` (GRID_READ: a read of cells, a getByDataFilter: after the store's read, its guard)."""
        self.hooks.append([endpoint, action, skip])

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
        for hook in list(self.hooks):
            endpoint, action, skip = hook
            if path.endswith(endpoint) or (endpoint == GRID_READ and path.endswith(":getByDataFilter")):
                if skip:
                    hook[2] -= 1
                    continue
                self.hooks.remove(hook)
                action(self)
        fault = self._fault(method, path)
        reply_headers = {"Content-Type": "application/json; charset=UTF-8"}
        try:
            if self.max_request is not None and len(raw) > self.max_request:
                raise ApiError(400, f"Request payload size exceeds the limit: {self.max_request} bytes.")
            if fault is not None and not fault.applied and fault.status is not None:
                raise google_error(fault.status)
            status, reply = self._route(method, path, query, lowered, raw)
            if fault is not None and fault.after is not None:
                fault.after(self)
            if fault is not None and fault.status is not None:
                raise google_error(fault.status)
        except ApiError as error:
            status, reply = error.code, error.body()
        out = json.dumps(reply, ensure_ascii=False, separators=(",", ":")).encode()
        if fault is not None:
            if fault.retry_after is not None:
                reply_headers["Retry-After"] = str(fault.retry_after)
            if fault.html and fault.status is not None:
                reply_headers["Content-Type"] = "text/html; charset=UTF-8"
                out = HTML_ERROR.format(status=fault.status).encode()
            if fault.delay:
                time.sleep(fault.delay)
        self.served.append(Served(method, path, status, len(raw), len(out), unquote(parts.query)))
        return status, reply_headers, out

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
        """WSGI: serve the stand-in on a local port (see `tests.standin.server`)."""
        length = int(environ.get("CONTENT_LENGTH") or 0)
        body = environ["wsgi.input"].read(length) if length else b""
        path = environ.get("PATH_INFO", "").encode("latin-1").decode("utf-8")  # WSGI hands bytes as latin-1
        query = environ.get("QUERY_STRING", "")
        headers = {k[5:].replace("_", "-"): v for k, v in environ.items() if k.startswith("HTTP_")}
        status, reply_headers, out = self.handle(
            environ["REQUEST_METHOD"], f"http://stand-in{quote(path, safe=_SAFE)}?{query}", headers, body
        )
        start_response(f"{status} {_REASONS.get(status, 'Error')}", list(reply_headers.items()))
        return [out]

    def _fault(self, method: str, path: str) -> Fault | None:
        for fault in self.faults:
            if fault.times > 0 and fault.matches(method, path):
                fault.times -= 1
                return fault
        return None

    def _new_id(self) -> int:
        self._next_sheet_id += 7919
        return self._next_sheet_id

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
        writing = method != "GET" and not rest.endswith(("batchGet", "batchGetByDataFilter", ":getByDataFilter"))
        if book.editors is not None and account not in book.editors and (writing or account not in book.readers):
            raise google_error(403)
        payload = json.loads(body) if body else {}
        if method == "GET" and rest == "":
            if self.strict:
                check_get(query)
            if "fields" in query:
                return 200, self._get(book, query.get("fields", [""])[0], query.get("ranges", []))
            return 200, self._metadata(book)
        if method == "POST" and rest == ":getByDataFilter":
            if self.strict:
                check_get_by_filter(query, payload)
            ranges = [f.get("a1Range", "") for f in payload.get("dataFilters", [])]
            return 200, self._get(book, query.get("fields", [""])[0], ranges)
        if method == "POST" and rest == ":batchUpdate":
            return 200, apply_batch(book, payload, self.strict, self._new_id)
        if self.strict:
            raise refuse(f"{method} {rest or '/'}")
        return self._values_api(book, method, rest, query, payload)

    def _values_api(
        self, book: Spreadsheet, method: str, rest: str, query: dict[str, list[str]], payload: dict[str, Any]
    ) -> tuple[int, dict[str, Any]]:
        """The values endpoints of gspread's recordings (never the store's)."""
        option = query.get("valueRenderOption", ["FORMATTED_VALUE"])[0]
        if method == "GET" and rest == "/values:batchGet":
            ranges = [value_range(book, a1, option) for a1 in query.get("ranges", [])]
            return 200, {"spreadsheetId": book.key, "valueRanges": ranges}
        if method == "POST" and rest == "/values:batchGetByDataFilter":
            option = payload.get("valueRenderOption", "FORMATTED_VALUE")
            matched = [{"valueRange": value_range(book, f["a1Range"], option), "dataFilters": [f]}
                       for f in payload.get("dataFilters", [])]  # fmt: skip
            return 200, {"spreadsheetId": book.key, "valueRanges": matched}
        if rest.startswith("/values/"):
            a1 = rest[len("/values/") :]
            if method == "GET":
                return 200, value_range(book, a1, option)
            if method == "PUT":
                return 200, _update_values(book, a1, query.get("valueInputOption", [""])[0], payload)
            if method == "POST" and a1.endswith(":clear"):
                sheet, r1, c1, r2, c2 = locate(book, a1.removesuffix(":clear"))
                for cell in [c for c in sheet.cells if r1 <= c[0] <= r2 and c1 <= c[1] <= c2]:
                    del sheet.cells[cell]
                return 200, {"spreadsheetId": book.key, "clearedRange": a1_name(sheet, r1, c1, r2, c2)}
        raise ApiError(404, "Requested entity was not found.", "NOT_FOUND")

    def _get(self, book: Spreadsheet, fields: str, ranges: list[str]) -> dict[str, Any]:
        """spreadsheets.get (or getByDataFilter) with a field mask: properties, and the grid data of `ranges`
        (only the tabs they name: "the portions of the spreadsheet that intersect the requested ranges")."""
        mask = parse_mask(fields)
        sheets_mask = mask.get("sheets", {}) or {}
        data_mask = sheets_mask.get("data")
        cell_mask = ((data_mask or {}).get("rowData") or {}).get("values") if data_mask is not None else None
        located = [locate(book, a1) for a1 in ranges]
        order = sorted(book.sheets, key=lambda s: int(s.properties["index"]))
        chosen = [s for s in order if any(found[0] is s for found in located)] if ranges else order
        sheets = []
        for sheet in chosen:
            entry: dict[str, Any] = {}
            if "properties" in sheets_mask:
                entry["properties"] = masked(copy.deepcopy(sheet.properties), sheets_mask["properties"])
            if data_mask is not None and ranges:
                inner = {k: (None if k == "rowData" else v) for k, v in (data_mask or {}).items()} or None
                entry["data"] = [masked(grid_data(s, r1, c1, r2, c2, cell_mask), inner)
                                 for s, r1, c1, r2, c2 in located if s is sheet]  # fmt: skip
            sheets.append(entry)
        return masked({"spreadsheetId": book.key, "sheets": sheets}, {k: None for k in mask} | {"sheets": None})

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
        sheets = [
            {"properties": copy.deepcopy(s.properties)}
            for s in sorted(book.sheets, key=lambda s: int(s.properties["index"]))
        ]
        return {
            "spreadsheetId": book.key,
            "properties": properties,
            "sheets": sheets,
            "spreadsheetUrl": f"https://docs.google.com/spreadsheets/d/{book.key}/edit",
        }


GRID_READ = "spreadsheets.get with ranges"
HTML_ERROR = (
    "<!DOCTYPE html><html lang=en><meta charset=utf-8><title>Error {status} (Server Error)!!1</title>"
    "<p><b>{status}.</b> <ins>That's an error.</ins><p>The server encountered a temporary error and could not "
    "complete your request.<p>Please try again in 30 seconds. <ins>That's all we know.</ins></html>"
)
_SAFE = "/:'!$,"
_REASONS = {200: "OK", 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found",
            429: "Too Many Requests", 500: "Internal Server Error", 502: "Bad Gateway",
            503: "Service Unavailable", 504: "Gateway Timeout"}  # fmt: skip


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


def _b64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


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
    sheet, r1, c1, _, _ = locate(book, a1)
    width = max((len(r) for r in values), default=1)
    r2, c2 = r1 + max(len(values), 1) - 1, c1 + width - 1
    if r2 >= sheet.rows or c2 >= sheet.columns:
        raise ApiError(
            400,
            f"Range ({a1_name(sheet, r1, c1, r2, c2)}) exceeds grid limits. Max rows: {sheet.rows}, "
            f"max columns: {sheet.columns}",
        )
    cells = _write_raw(sheet, r1, c1, values)
    rows = sum(1 for r in values if any(v is not None for v in r))
    columns = sum(1 for j in range(width) if any(j < len(r) and r[j] is not None for r in values))
    return {
        "spreadsheetId": book.key,
        "updatedRange": a1_name(sheet, r1, c1, r2, c2),
        "updatedRows": rows,
        "updatedColumns": columns,
        "updatedCells": cells,
    }
