"""A stand-in for Discord's webhook endpoint, served on 127.0.0.1, for the notify and remind tests.

It answers as Discord's documentation describes "Execute Webhook" (docs/discord.md quotes it), and
refuses what the engine does not rely on, as the Sheets stand-in does:
- `POST /api/webhooks/{id}/{token}`, query `wait` and `thread_id` only, and `wait=true` (the engine
  records the message id); a JSON body with `content` (at most 2,000 characters), `allowed_mentions`
  and `thread_name` only;
- with `?wait=true` the reply is the created message object (its `id` a snowflake string, its
  `channel_id` the thread's for a message in a thread);
- a webhook of a forum or media channel needs `thread_id` or `thread_name` ("you must provide
  either"), and `thread_name` on any other channel is refused; `thread_name` starts a new thread;
- each webhook has a bucket of requests per seconds of its clock (`bucket`: Discord's engineers have
  described 5 per 2 s; by default a generous one, so that tests of other things need not wait), told in
  the `X-RateLimit-*` headers of every reply; a request past it is a 429 with `retry_after` in the
  body and a Retry-After header (as is a 429 a test queues);
- an unknown webhook answers 404 with code 10015; mentions resolve as Discord resolves them: without
  `allowed_mentions`, `@everyone` and `<@id>` ping; with `{"parse": []}` nothing does.
Faults are queued per webhook by the tests (`rate_limit`, `lose`). The clock is the stand-in's own
(`Clock`), which the tests' client sleeps forward, so pacing is tested without waiting.
"""

from __future__ import annotations

import itertools
import json
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from tests.standin.server import serve

PATH = re.compile(r"^/api/webhooks/(\d+)/([A-Za-z0-9_-]+)$")
PARSE_WORDS = {"everyone", "users", "roles"}
DISCORDS = (5, 2.0)  # a webhook's bucket as Discord engineers have described it ("5 per 2")
QUERY = {"wait", "thread_id"}
BODY = {"content", "allowed_mentions", "thread_name"}


@dataclass
class Clock:
    """The stand-in's time: seconds that pass only when a test (its client sleeping) says so."""

    now: float = 1_000.0

    def time(self) -> float:
        """The current time."""
        return self.now

    def sleep(self, seconds: float) -> None:
        """Let time pass (the client's sleep, in tests)."""
        self.now += max(0.0, seconds)


@dataclass
class Posted:
    """One message the stand-in accepted."""

    webhook: str
    content: str
    wait: bool
    mention_everyone: bool
    user_pings: list[str]
    body: dict[str, Any]
    channel_id: str = ""
    thread_id: str | None = None


@dataclass
class FakeDiscord:
    """The webhooks that exist, what was posted to each, and faults to answer with next."""

    webhooks: set[str] = field(default_factory=set)  # "id/token"
    forums: set[str] = field(default_factory=set)  # webhooks of a forum or media channel
    threads: dict[str, str] = field(default_factory=dict)  # thread id -> webhook
    posted: list[Posted] = field(default_factory=list)
    faults: dict[str, list[tuple[int, dict[str, Any]]]] = field(default_factory=dict)
    lost: dict[str, int] = field(default_factory=dict)  # webhook -> posts whose answer is lost (saved, then late)
    late: float = 0.5  # seconds a lost answer comes after (longer than the tests' client waits)
    clock: Clock = field(default_factory=Clock)
    bucket: tuple[int, float] = (1000, 2.0)  # requests a webhook may make per seconds (DISCORDS: Discord's)
    requests: int = 0
    refused: list[str] = field(default_factory=list)  # why each refused request was refused
    _buckets: dict[str, list[float]] = field(default_factory=dict)  # webhook -> times of its recent requests
    _ids: Iterator[int] = field(default_factory=lambda: itertools.count(1_180_000_000_000_000_001))

    def add(self, webhook: str, forum: bool = False) -> None:
        """Create a webhook `id/token` (of a forum or media channel with `forum`)."""
        self.webhooks.add(webhook)
        if forum:
            self.forums.add(webhook)

    def rate_limit(self, webhook: str, retry_after: float, times: int = 1) -> None:
        """The next `times` posts to this webhook get a 429 asking to wait `retry_after` seconds."""
        body = {"message": "You are being rate limited.", "retry_after": retry_after, "global": False}
        self.faults.setdefault(webhook, []).extend([(429, body)] * times)

    def fail(self, webhook: str, status: int, times: int = 1) -> None:
        """The next `times` posts to this webhook get `status` (a 5xx: nothing saved)."""
        self.faults.setdefault(webhook, []).extend([(status, {"message": "Server error", "code": 0})] * times)

    def lose(self, webhook: str, times: int = 1) -> None:
        """The next `times` posts to this webhook are saved, and answered too late for the client."""
        self.lost[webhook] = self.lost.get(webhook, 0) + times

    def __call__(self, environ: dict[str, Any], start_response: Any) -> list[bytes]:
        self.requests += 1
        match = PATH.match(environ.get("PATH_INFO", ""))
        if environ["REQUEST_METHOD"] != "POST" or match is None:
            return _reply(start_response, 405, {"message": "405: Method Not Allowed", "code": 0})
        webhook = f"{match.group(1)}/{match.group(2)}"
        if webhook not in self.webhooks:
            return _reply(start_response, 404, {"message": "Unknown Webhook", "code": 10015})
        limit = self._spend(webhook)
        queued = self.faults.get(webhook)
        if queued or limit is None:
            status, body = queued.pop(0) if queued else (429, self._over(webhook))
            headers = [("Retry-After", str(body.get("retry_after", 1)))] if status == 429 else []
            return _reply(start_response, status, body, headers + self._headers(webhook))
        query = parse_qs(environ.get("QUERY_STRING", ""))
        length = int(environ.get("CONTENT_LENGTH") or 0)
        try:
            body = json.loads(environ["wsgi.input"].read(length) or b"{}")
        except ValueError:
            return _reply(start_response, 400, {"message": "The request body contains invalid JSON.", "code": 50109})
        problem = _invalid(body, query) or self._thread_problem(webhook, body, query)
        if problem:
            self.refused.append(problem)
            return _reply(start_response, 400, {"message": "Invalid Form Body", "code": 50035, "errors": problem})
        content = body.get("content", "")
        everyone, users = _pings(content, body.get("allowed_mentions"))
        thread = query.get("thread_id", [None])[0]
        if body.get("thread_name"):
            thread = str(next(self._ids))  # a new forum post: the message's channel is the thread
            self.threads[thread] = webhook
        channel = thread or "1100000000000000001"
        self.posted.append(Posted(webhook, content, True, everyone, users, body, channel, thread))
        message = {
            "id": str(next(self._ids)),
            "type": 0,
            "content": content,
            "channel_id": channel,
            "webhook_id": webhook.split("/")[0],
            "mention_everyone": everyone,
            "mentions": [{"id": u} for u in users],
            "attachments": [],
            "embeds": [],
        }
        if self.lost.get(webhook):
            self.lost[webhook] -= 1
            time.sleep(self.late)  # saved; the answer comes after the client stopped waiting
        return _reply(start_response, 200, message, self._headers(webhook))

    def _spend(self, webhook: str) -> int | None:
        """One request of the webhook's bucket (its requests in the last WINDOW seconds); None if spent."""
        now, (limit, window) = self.clock.time(), self.bucket
        recent = [t for t in self._buckets.get(webhook, []) if now - t < window]
        if len(recent) >= limit:
            self._buckets[webhook] = recent
            return None
        self._buckets[webhook] = [*recent, now]
        return limit - len(recent) - 1

    def _over(self, webhook: str) -> dict[str, Any]:
        self.refused.append("rate limited: the client did not wait for the bucket's reset")
        return {"message": "You are being rate limited.", "retry_after": self._reset_after(webhook), "global": False}

    def _reset_after(self, webhook: str) -> float:
        recent = [t for t in self._buckets.get(webhook, []) if self.clock.time() - t < self.bucket[1]]
        return round(max(0.0, min(recent) + self.bucket[1] - self.clock.time()), 3) if recent else 0.0

    def _headers(self, webhook: str) -> list[tuple[str, str]]:
        limit, window = self.bucket
        recent = [t for t in self._buckets.get(webhook, []) if self.clock.time() - t < window]
        reset = self._reset_after(webhook)
        return [
            ("X-RateLimit-Limit", str(limit)),
            ("X-RateLimit-Remaining", str(max(0, limit - len(recent)))),
            ("X-RateLimit-Reset", f"{self.clock.time() + reset:.3f}"),
            ("X-RateLimit-Reset-After", f"{reset:.3f}"),
            ("X-RateLimit-Bucket", f"bucket-{webhook.split('/')[0]}"),
        ]

    def _thread_problem(self, webhook: str, body: dict[str, Any], query: dict[str, list[str]]) -> str:
        thread_id, thread_name = query.get("thread_id", [None])[0], body.get("thread_name")
        if thread_id and thread_name:
            return "thread_name: cannot be given with thread_id"
        if thread_name and webhook not in self.forums:
            return "thread_name: requires the webhook channel to be a forum or media channel"
        if webhook in self.forums and not (thread_id or thread_name):
            return "Webhooks posted to forum channels must have a thread_name or thread_id"
        if thread_id and self.threads.get(thread_id) != webhook:
            return "thread_id: Unknown Channel"
        return ""


def _invalid(body: Any, query: dict[str, list[str]]) -> str:
    if set(query) - QUERY:
        return f"the stand-in refuses the query {sorted(set(query) - QUERY)}: not relied on (docs/discord.md)"
    if query.get("wait", [""])[0] != "true":
        return "the stand-in wants ?wait=true: without it Discord says nothing of a message not saved"
    if not isinstance(body, dict):
        return "the body must be an object"
    if set(body) - BODY:
        return f"the stand-in refuses the fields {sorted(set(body) - BODY)}: not relied on (docs/discord.md)"
    content = body.get("content")
    if not content:
        return "content: Cannot send an empty message"
    if not isinstance(content, str) or len(content) > 2000:
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
    reasons = {200: "OK", 204: "No Content", 400: "Bad Request", 404: "Not Found", 405: "Method Not Allowed",
               429: "Too Many Requests", 500: "Internal Server Error", 502: "Bad Gateway"}  # fmt: skip
    data = b"" if body is None else json.dumps(body).encode()
    start_response(
        f"{status} {reasons.get(status, 'Error')}",
        [("Content-Type", "application/json"), ("Content-Length", str(len(data))), *(headers or [])],
    )
    return [data]


@contextmanager
def serve_discord(fake: FakeDiscord) -> Iterator[str]:
    """Run the stand-in on a free port of 127.0.0.1; yields its webhook base URL."""
    with serve(fake, threaded=True) as root:
        yield f"{root}/api/webhooks"


def write_webhooks(path: Path, fake: FakeDiscord, base: str, audiences: tuple[str, ...]) -> Path:
    """A webhooks file mapping each audience to a new webhook of the stand-in (ids 1, 2, ...)."""
    lines = []
    for number, audience in enumerate(audiences, start=1):
        fake.add(f"{number}/token{number}")
        lines.append(f'"{audience}" = "{base}/{number}/token{number}"')
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
