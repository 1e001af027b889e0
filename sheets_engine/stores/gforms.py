"""How the engine talks to the Google Forms API v1: three calls over google-auth's AuthorizedSession.

No generated client: `forms.get`, `forms.batchUpdate` (with `writeControl.requiredRevisionId`, so a
GM's edit of the Form made between our get and our write is never overwritten) and
`forms.setPublishSettings` (open or close the Form to responses). Every request has the Sheets
client's timeouts and bounded retries (`RetryPolicy`) and is logged as an `Exchange`. `api_root`
points the client at a local stand-in (tests); production talks to forms.googleapis.com.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import requests
from google.auth.exceptions import TransportError

from sheets_engine.core.names import plural
from sheets_engine.stores.base import StoreError
from sheets_engine.stores.gsheets_http import RETRIED_STATUSES, Exchange, RetryPolicy, SheetsUnavailable
from sheets_engine.stores.guard import ConflictError

FORMS_ROOT = "https://forms.googleapis.com"
FORMS_SCOPE = "https://www.googleapis.com/auth/forms.body"
FORMS_ROOT_ENV = "SHEETS_ENGINE_FORMS_API"  # a local stand-in's root (tests); unset in production
log = logging.getLogger("sheets_engine")
DOCS = "the Google Sheets set-up guide (docs/google-sheets.md in the sheets-engine repository)"


class FormsUnavailable(SheetsUnavailable):
    """Google Forms kept failing (quota, outage, network) after every allowed retry."""


class FormEdited(ConflictError):
    """The Form changed between the engine's forms.get and its batchUpdate: nothing was changed. Exit 3."""

    def __init__(self, form_id: str) -> None:
        super().__init__(
            [],
            message=(
                f"The Form {form_id} was edited while the engine was updating it (its revision changed): "
                "Google refused the update and nothing was changed. Run `form sync` again: it will read the "
                "new Form."
            ),
        )


class FormsClient:
    """The three Forms API calls the engine makes, bounded and logged."""

    def __init__(
        self,
        session: requests.Session,
        retry: RetryPolicy | None = None,
        api_root: str | None = None,
        account: str = "the service account",
    ) -> None:
        self.session = session
        self.retry = retry or RetryPolicy()
        self.root = (api_root or FORMS_ROOT).rstrip("/")
        self.account = account
        self.exchanges: list[Exchange] = []

    def get(self, form_id: str) -> dict[str, Any]:
        """The Form (forms.get): items, revisionId, linkedSheetId, settings, publishSettings."""
        return self._call("GET", f"/v1/forms/{form_id}", form_id, "read the Form")

    def batch_update(self, form_id: str, requests_: list[dict[str, Any]], revision_id: str) -> dict[str, Any]:
        """All the requests or none (forms.batchUpdate), only if the Form is still at `revision_id`.

        A 400 whose Form has meanwhile moved to another revision raises FormEdited (exit 3).
        """
        body = {"requests": requests_, "writeControl": {"requiredRevisionId": revision_id}}
        try:
            return self._call("POST", f"/v1/forms/{form_id}:batchUpdate", form_id, "update the Form", body)
        except _BadRequest as error:
            # Google answers a stale requiredRevisionId with a plain 400: ask the Form which it was.
            now = self._call("GET", f"/v1/forms/{form_id}", form_id, "read the Form", params={"fields": "revisionId"})
            if now.get("revisionId") != revision_id:
                raise FormEdited(form_id) from None
            raise StoreError(f"Google Forms refused the update of Form {form_id}: {error.message}") from None

    def set_accepting(self, form_id: str, accepting: bool) -> dict[str, Any]:
        """Open (True) or close (False) the Form to responses (forms.setPublishSettings); it stays published."""
        body = {
            "publishSettings": {"publishState": {"isPublished": True, "isAcceptingResponses": accepting}},
            "updateMask": "publish_state",
        }
        doing = "open the Form to responses" if accepting else "close the Form to responses"
        return self._call("POST", f"/v1/forms/{form_id}:setPublishSettings", form_id, doing, body)

    # one call, retried ---------------------------------------------------------------------
    def _call(
        self,
        method: str,
        path: str,
        form_id: str,
        doing: str,
        body: dict[str, Any] | None = None,
        params: dict[str, str] | None = None,
    ) -> dict[str, Any]:
        started = time.monotonic()
        attempt, waited = 0, 0.0
        while True:
            attempt += 1
            retry_after: float | None = None
            try:
                response = self._once(method, self.root + path, body, params)
            except (requests.ConnectionError, requests.Timeout, TransportError) as error:
                failure = type(error).__name__
            else:
                if response.status_code < 300:
                    return response.json() if response.content else {}
                message = _message(response)
                if response.status_code not in RETRIED_STATUSES:
                    raise self._refused(response.status_code, message, form_id, doing)
                failure = f"HTTP {response.status_code}: {message}".rstrip(": ")
                header = response.headers.get("Retry-After")
                retry_after = float(header) if header and header.replace(".", "", 1).isdigit() else None
            wait = self.retry.delay(attempt, retry_after)
            spent = max(time.monotonic() - started, waited)
            if attempt >= self.retry.attempts or spent + wait > self.retry.deadline:
                raise FormsUnavailable(
                    f"Google Forms is not answering ({failure}) after {plural(attempt, 'attempt')} in {spent:.0f} s: "
                    f"could not {doing}. Try again later."
                )
            self.retry.sleep(wait)
            waited += wait

    def _once(
        self, method: str, url: str, body: dict[str, Any] | None, params: dict[str, str] | None
    ) -> requests.Response:
        started = time.monotonic()
        try:
            response = self.session.request(method, url, json=body, params=params, timeout=self.retry.timeout)
        except Exception:
            self.exchanges.append(Exchange(method, url, 0, 0, 0, time.monotonic() - started))
            raise
        sent = response.request.body if response.request is not None else None
        size = len(sent) if isinstance(sent, bytes | str) else 0
        self.exchanges.append(
            Exchange(method, url, response.status_code, size, len(response.content), time.monotonic() - started)
        )
        return response

    def _refused(self, status: int, message: str, form_id: str, doing: str) -> Exception:
        if status in (401, 403, 404):
            return StoreError(
                f"Google Forms answered {status} when the engine tried to {doing} (Form {form_id}): the Form "
                f"does not exist or is not shared with {self.account}. Open the Form, Share (or the three dots "
                f"> Add collaborators), add {self.account} as an editor, and check the Forms API is enabled "
                f"for the service account's project; see {DOCS}"
            )
        if status == 400:
            return _BadRequest(f"Google Forms refused to {doing} (Form {form_id}): HTTP 400: {message}", message)
        return StoreError(f"Google Forms refused to {doing} (Form {form_id}): HTTP {status}: {message}")


class _BadRequest(StoreError):
    """A 400: exit 2 with Google's words (batchUpdate first asks whether the revision moved on)."""

    def __init__(self, text: str, message: str) -> None:
        super().__init__(text)
        self.message = message


def _message(response: requests.Response) -> str:
    try:
        return str(response.json().get("error", {}).get("message", ""))
    except ValueError:
        return ""


def forms_client(credentials: Any, retry: RetryPolicy | None = None, api_root: str | None = None) -> FormsClient:
    """A client authenticated with service-account credentials (they carry the forms.body scope)."""
    from google.auth.transport.requests import AuthorizedSession

    policy = retry or RetryPolicy()
    session = AuthorizedSession(credentials, refresh_timeout=policy.timeout[1])
    account = getattr(credentials, "service_account_email", None) or "the service account"
    return FormsClient(session, policy, api_root, account)


@dataclass
class FormGate:
    """The Form closed to responses while a due turn resolves, and opened again after the write.

    A failure to close or reopen is recorded (and logged as a warning), never raised: the cutoff
    already keeps late answers out of the turn, so the resolution goes on either way.
    """

    form_id: str
    client_factory: Callable[[], Any] | None
    events: dict[str, Any] = field(default_factory=dict)
    _client: Any = None

    def close(self) -> bool:
        """Stop the Form accepting responses; True if Google did."""
        return self._set(False, "closed")

    def reopen(self) -> bool:
        """Let the Form accept responses again (only after a close that worked)."""
        if not self.events.get("closed"):
            self.events["reopened"] = False
            return False
        return self._set(True, "reopened")

    def _set(self, accepting: bool, what: str) -> bool:
        try:
            if self._client is None:
                if self.client_factory is None:
                    raise StoreError("no Google credentials were given for the Forms API")
                self._client = self.client_factory()
            self._client.set_accepting(self.form_id, accepting)
        except Exception as error:  # reported, never silent, never a stop: see the class docstring
            verb = "open" if accepting else "close"
            message = f"the Form {self.form_id} could not be {what} ({error})"
            if not accepting:
                message += ": late answers still wait for the next turn (the deadline is the cutoff)"
            else:
                message += f": {verb} it by hand (Form > Responses > Accepting responses)"
            self.events[what] = False
            self.events.setdefault("errors", []).append(message)
            log.warning(message)
            return False
        self.events[what] = True
        return True
