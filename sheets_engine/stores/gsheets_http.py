"""How the Google Sheets store talks to Google: gspread's HTTP client, bounded and observable.

gspread's own BackOffHTTPClient retries a failing request forever and sets no timeout; a cron job
needs both bounds. `SheetsClient` keeps gspread's request methods and error type and adds:
- a timeout on every request (the token request gets its own, on the AuthorizedSession);
- retries with exponential backoff and jitter on 408, 429, 5xx and dropped connections, bounded in
  count (`RetryPolicy.attempts`) and in total time (`RetryPolicy.deadline`);
- a log of every request made (method, URL, status, bytes each way), for tests and benchmarks;
- `api_root`, which points the client at a stand-in server (tests recording cassettes,
  benchmarks); production leaves it unset and talks to sheets.googleapis.com.
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
from gspread.urls import SPREADSHEETS_API_V4_BASE_URL

from sheets_engine.stores.base import StoreUnavailable

GOOGLE_ROOT = SPREADSHEETS_API_V4_BASE_URL.removesuffix("/v4/spreadsheets")  # https://sheets.googleapis.com
RETRIED_STATUSES = frozenset({408, 429, 500, 502, 503, 504})


@dataclass(frozen=True)
class RetryPolicy:
    """How long to keep trying a request Google answered with a transient failure."""

    attempts: int = 5  # tries in all, the first included
    base_delay: float = 1.0  # seconds before the first retry; doubles each time
    max_delay: float = 20.0  # no single wait is longer
    deadline: float = 90.0  # no retry starts after this many seconds since the first try
    timeout: tuple[float, float] = (10.0, 120.0)  # (connect, read) seconds, every request
    sleep: Callable[[float], None] = field(default=time.sleep, compare=False, repr=False)

    def delay(self, retry: int, retry_after: float | None) -> float:
        """The wait before retry number `retry` (1-based): Retry-After if Google gave one, else backoff."""
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.max_delay)
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


class SheetsClient(HTTPClient):
    """gspread's HTTPClient with timeouts, bounded retries, a request log and a movable API root."""

    def __init__(self, session: requests.Session, retry: RetryPolicy | None = None, api_root: str | None = None):
        super().__init__(auth=None, session=session)  # type: ignore[arg-type]  # gspread: auth=None with a session
        self.retry = retry or RetryPolicy()
        self.api_root = api_root.rstrip("/") if api_root else None
        self.exchanges: list[Exchange] = []
        self.set_timeout(self.retry.timeout)

    def request(self, method: str, endpoint: str, *args: Any, **kwargs: Any) -> requests.Response:
        """One API call, retried on transient failures within the policy's bounds."""
        if self.api_root and endpoint.startswith(GOOGLE_ROOT):
            endpoint = self.api_root + endpoint[len(GOOGLE_ROOT) :]
        started = time.monotonic()
        attempt, waited = 0, 0.0
        while True:
            attempt += 1
            try:
                return self._once(method, endpoint, *args, **kwargs)
            except APIError as error:
                if error.code not in RETRIED_STATUSES:
                    raise
                failure: Exception = error
                retry_after = _retry_after(error.response)
            except (requests.ConnectionError, requests.Timeout, TransportError) as error:
                failure, retry_after = error, None
            wait = self.retry.delay(attempt, retry_after)
            spent = max(time.monotonic() - started, waited)  # the waits count even when sleep is a stub
            if attempt >= self.retry.attempts or spent + wait > self.retry.deadline:
                raise SheetsUnavailable(
                    f"Google Sheets is not answering ({_describe(failure)}) after {attempt} attempt(s) in "
                    f"{spent:.0f} s; nothing more was sent. Try again later."
                ) from failure
            self.retry.sleep(wait)
            waited += wait

    def batch_update(self, id: str, body: Any) -> Any:
        """spreadsheets.batchUpdate, its body sent as compact UTF-8 JSON (`body_bytes`): gspread's default
        JSON puts a space after every separator and escapes every non-ASCII character in six bytes."""
        from gspread.urls import SPREADSHEET_BATCH_UPDATE_URL

        headers = {"Content-Type": "application/json; charset=UTF-8"}
        return self.request("post", SPREADSHEET_BATCH_UPDATE_URL % id, data=body_bytes(body), headers=headers).json()

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


def _describe(error: Exception) -> str:
    if isinstance(error, APIError):
        return f"HTTP {error.code}: {error.error.get('message', '')}".rstrip(": ")
    return type(error).__name__
