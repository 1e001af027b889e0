"""A stand-in for Discord's webhook endpoint, served on 127.0.0.1, for the notify tests.

It answers as Discord's documentation describes "Execute Webhook": `POST /api/webhooks/{id}/{token}`
with a JSON body whose `content` is at most 2,000 characters; with `?wait=true` the reply is the
created message object (its `id` a snowflake string). A 429 carries `retry_after` (seconds) in
the body and a Retry-After header; an unknown webhook answers 404 with code 10015. Mentions are
resolved as Discord resolves them: without `allowed_mentions`, `@everyone` and `<@id>` in the
content ping; with `{"parse": []}` nothing does. Faults are queued per webhook by the tests.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from tests.standin.server import serve

PATH = re.compile(r"^/api/webhooks/(\d+)/([A-Za-z0-9_-]+)$")
PARSE_WORDS = {"everyone", "users", "roles"}


@dataclass
class Posted:
    """One message the stand-in accepted."""

    webhook: str
    content: str
    wait: bool
    mention_everyone: bool
    user_pings: list[str]
    body: dict[str, Any]


@dataclass
class FakeDiscord:
    """The webhooks that exist, what was posted to each, and faults to answer with next."""

    webhooks: set[str] = field(default_factory=set)  # "id/token"
    posted: list[Posted] = field(default_factory=list)
    faults: dict[str, list[tuple[int, dict[str, Any]]]] = field(default_factory=dict)
    requests: int = 0
    _ids: Iterator[int] = field(default_factory=lambda: itertools.count(1_180_000_000_000_000_001))

    def add(self, webhook: str) -> None:
        """Create a webhook `id/token`."""
        self.webhooks.add(webhook)

    def rate_limit(self, webhook: str, retry_after: float, times: int = 1) -> None:
        """The next `times` posts to this webhook get a 429 asking to wait `retry_after` seconds."""
        body = {"message": "You are being rate limited.", "retry_after": retry_after, "global": False}
        self.faults.setdefault(webhook, []).extend([(429, body)] * times)

    def __call__(self, environ: dict[str, Any], start_response: Any) -> list[bytes]:
        self.requests += 1
        match = PATH.match(environ.get("PATH_INFO", ""))
        if environ["REQUEST_METHOD"] != "POST" or match is None:
            return _reply(start_response, 405, {"message": "405: Method Not Allowed", "code": 0})
        webhook = f"{match.group(1)}/{match.group(2)}"
        if webhook not in self.webhooks:
            return _reply(start_response, 404, {"message": "Unknown Webhook", "code": 10015})
        queued = self.faults.get(webhook)
        if queued:
            status, body = queued.pop(0)
            headers = [("Retry-After", str(body.get("retry_after", 1)))] if status == 429 else []
            return _reply(start_response, status, body, headers)
        length = int(environ.get("CONTENT_LENGTH") or 0)
        try:
            body = json.loads(environ["wsgi.input"].read(length) or b"{}")
        except ValueError:
            return _reply(start_response, 400, {"message": "The request body contains invalid JSON.", "code": 50109})
        problem = _invalid(body)
        if problem:
            return _reply(start_response, 400, {"message": "Invalid Form Body", "code": 50035, "errors": problem})
        content = body.get("content", "")
        everyone, users = _pings(content, body.get("allowed_mentions"))
        wait = parse_qs(environ.get("QUERY_STRING", "")).get("wait", ["false"])[0] == "true"
        self.posted.append(Posted(webhook, content, wait, everyone, users, body))
        if not wait:
            return _reply(start_response, 204, None)
        message = {
            "id": str(next(self._ids)),
            "type": 0,
            "content": content,
            "channel_id": "1100000000000000001",
            "webhook_id": webhook.split("/")[0],
            "mention_everyone": everyone,
            "mentions": [{"id": u} for u in users],
            "attachments": [],
            "embeds": [],
        }
        return _reply(start_response, 200, message)


def _invalid(body: Any) -> str:
    if not isinstance(body, dict):
        return "the body must be an object"
    content = body.get("content")
    if not content and not body.get("embeds"):
        return "content: Cannot send an empty message"
    if content is not None and (not isinstance(content, str) or len(content) > 2000):
        return "content: Must be 2000 or fewer in length."
    mentions = body.get("allowed_mentions")
    if mentions is not None:
        if not isinstance(mentions, dict) or not set(mentions) <= {"parse", "users", "roles", "replied_user"}:
            return "allowed_mentions: invalid"
        if not set(mentions.get("parse", [])) <= PARSE_WORDS:
            return "allowed_mentions.parse: invalid"
    return ""


def _pings(content: str, allowed: dict[str, Any] | None) -> tuple[bool, list[str]]:
    parse = PARSE_WORDS if allowed is None else set(allowed.get("parse", []))
    everyone = "everyone" in parse and ("@everyone" in content or "@here" in content)
    users = re.findall(r"<@!?(\d+)>", content) if "users" in parse else []
    return everyone, users


def _reply(start_response: Any, status: int, body: Any, headers: list[tuple[str, str]] | None = None) -> list[bytes]:
    reasons = {200: "OK", 204: "No Content", 400: "Bad Request", 404: "Not Found", 405: "Method Not Allowed"}
    reasons[429] = "Too Many Requests"
    data = b"" if body is None else json.dumps(body).encode()
    start_response(
        f"{status} {reasons.get(status, 'Error')}",
        [("Content-Type", "application/json"), ("Content-Length", str(len(data))), *(headers or [])],
    )
    return [data]


@contextmanager
def serve_discord(fake: FakeDiscord) -> Iterator[str]:
    """Run the stand-in on a free port of 127.0.0.1; yields its webhook base URL."""
    with serve(fake) as root:
        yield f"{root}/api/webhooks"


def write_webhooks(path: Path, fake: FakeDiscord, base: str, audiences: tuple[str, ...]) -> Path:
    """A webhooks file mapping each audience to a new webhook of the stand-in (ids 1, 2, ...)."""
    lines = []
    for number, audience in enumerate(audiences, start=1):
        fake.add(f"{number}/token{number}")
        lines.append(f'"{audience}" = "{base}/{number}/token{number}"')
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
