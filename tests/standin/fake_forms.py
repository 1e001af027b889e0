"""A stand-in for the Google Forms API v1, served on 127.0.0.1 only (never the network).

It answers the three calls the engine makes with the shapes of the Forms v1 discovery document:
- GET /v1/forms/{formId} -> Form {formId, info, items[] (itemId, title, questionItem.question
  {questionId, choiceQuestion {type, options[{value}]}}), revisionId, linkedSheetId,
  settings.emailCollectionType, publishSettings.publishState}; `fields=revisionId` gives only that;
- POST /v1/forms/{formId}:batchUpdate {requests[], writeControl{requiredRevisionId}}: all or none;
  an updateItem needs item, location.index in [0..N) and updateMask, and only the masked field
  changes; a requiredRevisionId that is not the latest revision -> 400; success moves the revision on;
- POST /v1/forms/{formId}:setPublishSettings {publishSettings{publishState{isPublished,
  isAcceptingResponses}}, updateMask "publish_state"}: accepting while unpublished -> 400.
An unknown Form -> 404, a Form not shared with the caller -> 403. Every call is logged, also into a
shared `events` list a test gives, so that the order of Sheets and Forms requests can be asserted.
"""

from __future__ import annotations

import copy
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import parse_qs

from tests.standin.server import serve

OPTIONS_MASK = "questionItem.question.choiceQuestion.options"
TOKEN = "ya29.forms-stand-in"


def question(item_id: str, question_id: str, title: str, kind: str = "DROP_DOWN", options: list[str] | None = None):
    """A choice question Item as forms.get returns it."""
    return {
        "itemId": item_id,
        "title": title,
        "questionItem": {
            "question": {
                "questionId": question_id,
                "required": title in ("Character", "Order"),
                "choiceQuestion": {"type": kind, "options": [{"value": v} for v in (options or ["(to fill)"])]},
            }
        },
    }


def text_question(item_id: str, question_id: str, title: str, paragraph: bool = False) -> dict[str, Any]:
    """A text question Item (Detail)."""
    return {
        "itemId": item_id,
        "title": title,
        "questionItem": {"question": {"questionId": question_id, "textQuestion": {"paragraph": paragraph}}},
    }


def order_form(form_id: str, linked_sheet: str, email: str = "VERIFIED") -> dict[str, Any]:
    """The order form of docs/form.md, as a GM made it (dropdown Character, Order and Target)."""
    return {
        "formId": form_id,
        "info": {"title": "Sengoku Jidai orders", "documentTitle": "Sengoku Jidai orders"},
        "revisionId": "00000001",
        "responderUri": f"https://docs.google.com/forms/d/e/{form_id}/viewform",
        "linkedSheetId": linked_sheet,
        "settings": {"emailCollectionType": email},
        "publishSettings": {"publishState": {"isPublished": True, "isAcceptingResponses": True}},
        "items": [
            question("1a2b3c01", "4d5e6f01", "Character"),
            question("1a2b3c02", "4d5e6f02", "Order"),
            question("1a2b3c03", "4d5e6f03", "Target"),
            text_question("1a2b3c04", "4d5e6f04", "Detail", paragraph=True),
            question("1a2b3c05", "4d5e6f05", "Secret", "RADIO", ["Make it public", "Keep it secret"]),
        ],
    }


def clan_war_form(form_id: str, linked_sheet: str, email: str = "VERIFIED") -> dict[str, Any]:
    """Clan War's order form of docs/clan-war.md: dropdown Faction, Order, Item, Province, Mover and To, and the
    text questions (Count, From, Target, Ally OK, Bid) between them."""
    titles = ("Faction", "Order", "Item", "Count", "From", "Target", "Province", "Ally OK", "Bid", "Mover", "To")
    dropdowns = {"Faction", "Order", "Item", "Province", "Mover", "To"}
    items = [
        question(f"c1a0{n:04d}", f"c2b0{n:04d}", title) if title in dropdowns else
        text_question(f"c1a0{n:04d}", f"c2b0{n:04d}", title)
        for n, title in enumerate(titles, start=1)
    ]  # fmt: skip
    form = order_form(form_id, linked_sheet, email)
    form["info"] = {"title": "Clan War orders", "documentTitle": "Clan War orders"}
    form["items"] = items
    return form


class FakeForms:
    """Forms by id; `unshared` ids answer 403; `gm_edit_after_get` makes a GM edit right after a get."""

    def __init__(self, events: list[str] | None = None) -> None:
        self.forms: dict[str, dict[str, Any]] = {}
        self.unshared: set[str] = set()
        self.calls: list[tuple[str, str, Any]] = []  # (method, path, body)
        self.events = events if events is not None else []
        self.gm_edit_after_get = False
        self.fail_publish: int | None = None  # a status every setPublishSettings answers with
        self.require_token = False  # True: every call must carry the token /token gave
        self._lock = threading.Lock()

    def add(self, form: dict[str, Any]) -> None:
        self.forms[form["formId"]] = copy.deepcopy(form)

    def gm_edits(self, form_id: str) -> None:
        """A GM changes the Form in the Forms editor (a question's title): the revision moves on."""
        form = self.forms[form_id]
        form["items"][3]["title"] = "Detail (a building, a destination, a letter)"
        form["revisionId"] = f"{int(form['revisionId']) + 1:08d}"

    def batch_updates(self) -> list[dict[str, Any]]:
        return [body for method, path, body in self.calls if path.endswith(":batchUpdate")]

    def __call__(self, environ: dict[str, Any], start_response: Any) -> list[bytes]:
        with self._lock:
            method = environ["REQUEST_METHOD"]
            path = environ.get("PATH_INFO", "")
            query = parse_qs(environ.get("QUERY_STRING", ""))
            size = int(environ.get("CONTENT_LENGTH") or 0)
            raw = environ["wsgi.input"].read(size) if size else b""
            if path == "/token" and method == "POST":  # the service account's token request
                return _reply(start_response, 200, {"access_token": TOKEN, "expires_in": 3600, "token_type": "Bearer"})
            try:
                body = json.loads(raw) if raw else None
            except ValueError:
                return _reply(start_response, 400, _error(400, "Invalid JSON payload received."))
            if self.require_token and environ.get("HTTP_AUTHORIZATION") != f"Bearer {TOKEN}":
                return _reply(start_response, 401, _error(401, "Missing credentials."))
            self.calls.append((method, path, body))
            status, reply = self._answer(method, path, query, body)
            verb = path.rsplit(":", 1)[1] if ":" in path else "get"
            self.events.append(f"forms.{verb}" + (f" {status}" if status >= 300 else ""))
            return _reply(start_response, status, reply)

    def _answer(self, method: str, path: str, query: dict[str, list[str]], body: Any) -> tuple[int, Any]:
        if not path.startswith("/v1/forms/"):
            return 404, _error(404, "Not found")
        rest = path.removeprefix("/v1/forms/")
        form_id, _, verb = rest.partition(":")
        if form_id not in self.forms:
            return 404, _error(404, "Requested entity was not found.")
        if form_id in self.unshared:
            return 403, _error(403, "The caller does not have permission")
        form = self.forms[form_id]
        if method == "GET" and not verb:
            reply = copy.deepcopy(form)
            if self.gm_edit_after_get:
                self.gm_edit_after_get = False
                self.gm_edits(form_id)
            if query.get("fields") == ["revisionId"]:
                return 200, {"revisionId": reply["revisionId"]}
            return 200, reply
        if method == "POST" and verb == "batchUpdate":
            return self._batch_update(form, body)
        if method == "POST" and verb == "setPublishSettings":
            return self._publish(form, body)
        return 404, _error(404, "Not found")

    def _batch_update(self, form: dict[str, Any], body: Any) -> tuple[int, Any]:
        if not isinstance(body, dict) or not isinstance(body.get("requests"), list):
            return 400, _error(400, "Invalid value at 'requests'")
        required = (body.get("writeControl") or {}).get("requiredRevisionId")
        if required is not None and required != form["revisionId"]:
            return 400, _error(400, "The revision ID does not match the latest revision.")
        staged = copy.deepcopy(form)
        for number, request in enumerate(body["requests"]):
            problem = _update_item(staged, request)
            if problem:
                return 400, _error(400, f"Invalid requests[{number}].updateItem: {problem}")
        staged["revisionId"] = f"{int(form['revisionId']) + 1:08d}"
        form.clear()
        form.update(staged)
        return 200, {
            "replies": [{} for _ in body["requests"]],
            "writeControl": {"requiredRevisionId": form["revisionId"]},
        }

    def _publish(self, form: dict[str, Any], body: Any) -> tuple[int, Any]:
        if self.fail_publish is not None:
            return self.fail_publish, _error(self.fail_publish, "Backend Error")
        if "publishSettings" not in form:
            return 400, _error(400, "Legacy forms aren't supported")
        if not isinstance(body, dict) or body.get("updateMask") != "publish_state":
            return 400, _error(400, "updateMask must be publish_state")
        state = (body.get("publishSettings") or {}).get("publishState")
        if not isinstance(state, dict) or not isinstance(state.get("isPublished"), bool):
            return 400, _error(400, "publishState.isPublished is required")
        if state.get("isAcceptingResponses") and not state["isPublished"]:
            return 400, _error(400, "An unpublished form cannot accept responses")
        form["publishSettings"] = {"publishState": dict(state)}
        return 200, {"formId": form["formId"], "publishSettings": form["publishSettings"]}


def _update_item(form: dict[str, Any], request: Any) -> str:
    update = request.get("updateItem") if isinstance(request, dict) else None
    if set(request or {}) != {"updateItem"} or not isinstance(update, dict):
        return "only updateItem requests are served by this stand-in"
    if not {"item", "location", "updateMask"} <= set(update):
        return "item, location and updateMask are all required"
    index = update["location"].get("index")
    if not isinstance(index, int) or not 0 <= index < len(form["items"]):
        return f"location.index {index!r} is not in [0..{len(form['items'])})"
    if update["updateMask"] != OPTIONS_MASK:
        return f"this stand-in serves the mask {OPTIONS_MASK} only"
    current = form["items"][index]
    item = update["item"]
    if item.get("itemId") not in ("", None, current["itemId"]):
        return f"item {item.get('itemId')} is not at index {index}"
    choice = item.get("questionItem", {}).get("question", {}).get("choiceQuestion")
    old = current.get("questionItem", {}).get("question", {}).get("choiceQuestion")
    if old is None or not isinstance(choice, dict):
        return "not a choice question"
    options = choice.get("options")
    if not isinstance(options, list) or not options:
        return "a choice question needs options"
    values = [o.get("value") for o in options if isinstance(o, dict)]
    if len(values) != len(options) or not all(isinstance(v, str) and v for v in values):
        return "every option needs a value"
    if len(set(values)) != len(values):
        return "option values must be unique"
    old["options"] = [{"value": v} for v in values]  # only the masked field changes
    return ""


def _error(code: int, message: str) -> dict[str, Any]:
    status = {400: "INVALID_ARGUMENT", 403: "PERMISSION_DENIED", 404: "NOT_FOUND"}.get(code, "INTERNAL")
    return {"error": {"code": code, "message": message, "status": status}}


def _reply(start_response: Any, status: int, body: Any) -> list[bytes]:
    data = json.dumps(body).encode()
    reason = {200: "OK", 400: "Bad Request", 403: "Forbidden", 404: "Not Found"}.get(status, "Error")
    start_response(f"{status} {reason}", [("Content-Type", "application/json"), ("Content-Length", str(len(data)))])
    return [data]


@contextmanager
def serve_forms(fake: FakeForms) -> Iterator[str]:
    """Run the stand-in on a free port of 127.0.0.1; yields its root URL."""
    with serve(fake) as root:
        yield root
