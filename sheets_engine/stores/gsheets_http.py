"""How the Google Sheets store talks to Google: gspread's HTTP client, bounded and observable.

gspread's own BackOffHTTPClient retries a failing request forever and sets no timeout; a cron job
needs both bounds, and a write must never be sent twice on a guess. `SheetsClient` keeps gspread's
request methods and error type and adds:
- a timeout on every request, its read part longer than the 180 s Google gives itself to process one
  (so that when it fires, Google has finished with the request, one way or the other);
- reads retried with exponential backoff and jitter on 408, 5xx (JSON or HTML) and dropped
  connections, and a minute after a 429 (a per-minute quota spent), bounded in count
  (`RetryPolicy.attempts`) and in total time (`RetryPolicy.deadline`);
- writes (`send_write`) retried only where nothing was applied: a 429 (Google's quota refused the
  request) or a connection that was never made. Any other failure (a timeout, a 5xx, a connection
  reset) raises `AnswerLost`: the write may have landed, and only a read says whether (the store's
  read-back, gsheets_landing);
- a log of every request made (method, URL, status, bytes each way), for tests and benchmarks;
- `api_root`, which points the client at a stand-in server (tests recording cassettes,
  benchmarks); production leaves it unset and talks to sheets.googleapis.com.
No message this module makes quotes an HTML error page: a gateway's 502 is "HTTP 502 (an HTML page)".
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import requests
from google.auth.exceptions import TransportError
from gspread.exceptions import APIError
from gspread.http_client import HTTPClient
from gspread.urls import SPREADSHEET_BATCH_UPDATE_URL, SPREADSHEETS_API_V4_BASE_URL

from sheets_engine.core.names import plural
from sheets_engine.stores.base import StoreUnavailable

GOOGLE_ROOT = SPREADSHEETS_API_V4_BASE_URL.removesuffix("/v4/spreadsheets")  # https://sheets.googleapis.com
RETRIED_STATUSES = frozenset({408, 429, 500, 502, 503, 504})
# "When Sheets processes a request for more than 180 seconds, the request returns a timeout error"
# (developers.google.com/sheets/api/limits): past this, Google is done with a request it received.
GOOGLE_PROCESSING_LIMIT = 180.0


@dataclass(frozen=True)
class RetryPolicy:
    """How long to keep trying a request Google answered with a transient failure."""

    attempts: int = 5  # tries in all, the first included
    base_delay: float = 1.0  # seconds before the first retry; doubles each time
    max_delay: float = 20.0  # no single wait is longer
    deadline: float = 90.0  # no retry starts after this many seconds since the first try
    timeout: tuple[float, float] = (10.0, GOOGLE_PROCESSING_LIMIT + 10.0)  # (connect, read) seconds, every request
    # A write whose connection dropped before any answer is read back only this long after it was sent:
    # by then Google has applied it or given up (its processing limit), so the read-back sees the outcome.
    settle: float = GOOGLE_PROCESSING_LIMIT + 5.0
    # A 429 is a per-minute quota spent: "After 1 minute, you can execute requests again" (the limits page).
    quota_wait: float = 60.0
    sleep: Callable[[float], None] = field(default=time.sleep, compare=False, repr=False)

    def delay(self, retry: int, retry_after: float | None, quota: bool = False) -> float:
        """The wait before retry number `retry` (1-based): Retry-After if Google gave one, a minute for a
        spent quota (a 429), else exponential backoff with jitter."""
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.quota_wait if quota else self.max_delay)
        if quota:
            return self.quota_wait
        ceiling = min(self.base_delay * 2 ** (retry - 1), self.max_delay)
        return random.uniform(ceiling / 2, ceiling)  # jitter: parallel jobs do not retry in step


@dataclass(frozen=True)
class Exchange:
    """One HTTP request the client made, as benchmarks and tests count them."""

    method: str
    url: str
    status: int  # 0 when no reply came
    sent: int  # request body bytes
    received: int  # reply body bytes
    seconds: float


def body_bytes(body: Any) -> bytes:
    """A request body as the store sends it (and as its size is counted against the request limit)."""
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()


class SheetsUnavailable(StoreUnavailable):
    """Google kept failing (quota, outage, network) after every allowed retry. Try again later."""


class AnswerLost(Exception):
    """A write was sent and no usable answer came back (a timeout, a 5xx, a dropped connection).

    Google may or may not have applied it. `replied` is True when Google (or a gateway) answered with
    an error, so it has finished with the request; False when the connection dropped, and the request
    may still be processing until `sent_at + RetryPolicy.settle`.
    """

    def __init__(self, failure: str, replied: bool, sent_at: float) -> None:
        super().__init__(failure)
        self.failure, self.replied, self.sent_at = failure, replied, sent_at


def status_of(error: APIError) -> int:
    """The HTTP status of a refusal (gspread says -1 when the body is not Google's JSON error)."""
    response = getattr(error, "response", None)
    return int(getattr(response, "status_code", 0) or error.code or 0)


def message_of(error: APIError) -> str:
    """Google's own message in a JSON error body; "" for anything else (an HTML page is never quoted)."""
    if error.code == -1 or not isinstance(error.error, dict):
        return ""
    return str(error.error.get("message", ""))


def describe(error: BaseException) -> str:
    """A failure in one short phrase: `HTTP 503: The service is currently unavailable.`, `HTTP 502 (an
    HTML page)`, `ReadTimeout`."""
    if isinstance(error, APIError):
        status, message = status_of(error), message_of(error)
        if message:
            return f"HTTP {status}: {message}"
        return f"HTTP {status} (an HTML page)" if _is_html(error) else f"HTTP {status}"
    return type(error).__name__


class SheetsClient(HTTPClient):
    """gspread's HTTPClient with timeouts, bounded retries, a request log and a movable API root."""

    def __init__(self, session: requests.Session, retry: RetryPolicy | None = None, api_root: str | None = None):
        super().__init__(auth=None, session=session)  # type: ignore[arg-type]  # gspread: auth=None with a session
        self.retry = retry or RetryPolicy()
        self.api_root = api_root.rstrip("/") if api_root else None
        self.exchanges: list[Exchange] = []
        self.set_timeout(self.retry.timeout)

    def request(self, method: str, endpoint: str, *args: Any, **kwargs: Any) -> requests.Response:
        """One read, retried on transient failures within the policy's bounds (a read changes nothing)."""
        endpoint = self._moved(endpoint)
        started = time.monotonic()
        attempt, waited = 0, 0.0
        while True:
            attempt += 1
            try:
                return self._once(method, endpoint, *args, **kwargs)
            except APIError as error:
                if status_of(error) not in RETRIED_STATUSES:
                    raise
                failure: Exception = error
                retry_after = _retry_after(error.response)
            except (requests.ConnectionError, requests.Timeout, TransportError) as error:
                failure, retry_after = error, None
            waited = self._wait_or_give_up(attempt, started, waited, failure, retry_after)

    def send_write(self, id: str, body: Any) -> Any:
        """spreadsheets.batchUpdate, sent as compact UTF-8 JSON (`body_bytes`), never sent twice on a guess.

        A 429 (the quota refused it: nothing applied) and a connection never made are retried within the
        policy's bounds; any other failure raises AnswerLost (see the module docstring).
        """
        endpoint = self._moved(SPREADSHEET_BATCH_UPDATE_URL % id)
        headers = {"Content-Type": "application/json; charset=UTF-8"}
        data = body_bytes(body)
        started = time.monotonic()
        attempt, waited = 0, 0.0
        while True:
            attempt += 1
            sent_at = time.monotonic()
            try:
                return self._once("post", endpoint, data=data, headers=headers).json()
            except APIError as error:
                status = status_of(error)
                if status not in RETRIED_STATUSES:
                    raise
                if status != 429:
                    raise AnswerLost(describe(error), True, sent_at) from error
                failure: Exception = error
                retry_after = _retry_after(error.response)
            except (requests.ConnectTimeout, TransportError) as error:  # nothing reached Google
                failure, retry_after = error, None
            except (requests.ConnectionError, requests.Timeout) as error:
                raise AnswerLost(type(error).__name__, isinstance(error, requests.ReadTimeout), sent_at) from error
            waited = self._wait_or_give_up(attempt, started, waited, failure, retry_after)

    def batch_update(self, id: str, body: Any) -> Any:
        """As `send_write`: gspread's name for spreadsheets.batchUpdate."""
        return self.send_write(id, body)

    def _wait_or_give_up(
        self, attempt: int, started: float, waited: float, failure: Exception, retry_after: float | None
    ) -> float:
        quota = isinstance(failure, APIError) and status_of(failure) == 429
        wait = self.retry.delay(attempt, retry_after, quota)
        spent = max(time.monotonic() - started, waited)  # the waits count even when sleep is a stub
        if attempt >= self.retry.attempts or spent + wait > self.retry.deadline:
            raise SheetsUnavailable(
                f"Google Sheets is not answering ({describe(failure)}) after {plural(attempt, 'attempt')} in "
                f"{spent:.0f} s; nothing more was sent. Try again later."
            ) from failure
        self.retry.sleep(wait)
        return waited + wait

    def _moved(self, endpoint: str) -> str:
        if self.api_root and endpoint.startswith(GOOGLE_ROOT):
            return self.api_root + endpoint[len(GOOGLE_ROOT) :]
        return endpoint

    def _once(self, method: str, endpoint: str, *args: Any, **kwargs: Any) -> requests.Response:
        started = time.monotonic()
        try:
            response = super().request(method, endpoint, *args, **kwargs)
        except APIError as error:
            self._log(method, endpoint, error.response, started)
            raise
        except Exception:
            self.exchanges.append(Exchange(method.upper(), endpoint, 0, 0, 0, time.monotonic() - started))
            raise
        self._log(method, endpoint, response, started)
        return response

    def _log(self, method: str, url: str, response: requests.Response, started: float) -> None:
        body = response.request.body if response.request is not None else None
        sent = len(body) if isinstance(body, bytes | str) else 0
        self.exchanges.append(
            Exchange(method.upper(), url, response.status_code, sent, len(response.content), time.monotonic() - started)
        )


def _retry_after(response: requests.Response) -> float | None:
    value = response.headers.get("Retry-After")
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def _is_html(error: APIError) -> bool:
    response = getattr(error, "response", None)
    kind = str(getattr(response, "headers", {}).get("Content-Type", "")) if response is not None else ""
    text = str(error.error.get("message", "")) if isinstance(error.error, dict) else ""
    return "html" in kind.casefold() or text.lstrip()[:1] == "<"
