"""Posting to Discord webhooks as Discord documents them: split to its limit, no pings, paced to its
rate-limit headers, 429s waited out, and a post whose answer is lost told apart from one refused.

Edge code: it knows HTTP and Discord, no rule and no spreadsheet. A webhook URL is a credential (it
is all anyone needs to post to the channel), so no message this module raises contains one: errors
name the webhook by the label the caller gives (its audience), never by its URL.

What it relies on (docs/discord.md, "What the engine relies on", has each with Discord's words):
Execute Webhook with `?wait=true` returns the created message (its id, and its channel's: a new
forum thread's id); `thread_id` posts into a thread, `thread_name` (forum and media channels) starts
one; `allowed_mentions` with no `parse` pings nobody; the `X-RateLimit-Remaining` and
`X-RateLimit-Reset-After` headers say when a webhook's bucket is spent and for how long; a 429 says to
wait `retry_after` seconds; a 404 means the webhook is gone for good.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import requests

CONTENT_LIMIT = 2000  # Discord refuses a message whose content is longer
NO_PINGS: dict[str, Any] = {"parse": []}  # player text may say @everyone or <@id>: never notify anyone


class WebhookGone(Exception):
    """The webhook answered 404 (deleted): Discord says never to use it again."""


class WebhookFailed(Exception):
    """The message was not posted, and Discord said so or could not have received it: a refusal (400,
    401, 403), 429s for longer than the bounds, a connection that was never made. Nothing to confirm."""


class DeliveryUncertain(Exception):
    """The post was sent and no usable answer came back (a timeout, a dropped connection, a 5xx): the
    message may be in the channel. Its row stays unconfirmed; it is never posted again on a guess."""


@dataclass(frozen=True)
class Target:
    """Where a row goes: a webhook (its URL), named by its label, optionally into a thread."""

    label: str
    url: str
    thread_id: str | None = None  # an existing thread (or forum post) of the webhook's channel
    thread_name: str | None = None  # a forum or media channel: each row starts a thread of this name


@dataclass(frozen=True)
class Posted:
    """A message Discord saved: its id and the id of the channel (or thread) it is in."""

    id: str
    channel_id: str


@dataclass
class WebhookClient:
    """Posts messages; paces each webhook to its rate-limit headers and waits out 429s for at most
    `max_wait` seconds in all a message, over `attempts` tries."""

    session: requests.Session = field(default_factory=requests.Session)
    attempts: int = 5
    max_wait: float = 60.0
    timeout: tuple[float, float] = (10.0, 20.0)  # (connect, read) seconds
    sleep: Callable[[float], None] = time.sleep
    clock: Callable[[], float] = time.monotonic
    _ready: dict[str, float] = field(default_factory=dict)  # webhook id -> when its bucket has requests again

    def post(
        self, url: str, content: str, label: str, thread_id: str | None = None, thread_name: str | None = None
    ) -> Posted:
        """Post one message (at most CONTENT_LIMIT characters), into a thread if given; what Discord saved."""
        if len(content) > CONTENT_LIMIT:
            raise ValueError(f"a message of {len(content)} characters is over Discord's {CONTENT_LIMIT}")
        body: dict[str, Any] = {"content": content, "allowed_mentions": NO_PINGS}
        params = {"wait": "true"}
        if thread_id:
            params["thread_id"] = thread_id
        elif thread_name:
            body["thread_name"] = thread_name
        webhook = webhook_id(url)
        waited = 0.0
        for _ in range(self.attempts):
            pause = self._ready.get(webhook, 0.0) - self.clock()
            if pause > 0:  # the bucket is spent: wait for its reset rather than be refused
                self.sleep(pause)
            try:
                reply = self.session.post(url, params=params, json=body, timeout=self.timeout)
            except requests.ConnectTimeout:  # never connected: nothing was sent
                raise WebhookFailed(f"the {label} webhook could not be reached (ConnectTimeout)") from None
            except requests.RequestException as error:  # its text holds the URL: say only what kind
                raise DeliveryUncertain(
                    f"the {label} webhook's answer was lost ({type(error).__name__}): the message may have been posted"
                ) from None
            self._pace(webhook, reply)
            if reply.status_code == 404:
                raise WebhookGone(f"the {label} webhook no longer exists (404): make a new one and update the file")
            if reply.status_code == 429:
                pause = _retry_after(reply)
                if reply.headers.get("X-RateLimit-Global", "").lower() == "true":
                    self._ready = {key: max(until, self.clock() + pause) for key, until in self._ready.items()}
                if waited + pause > self.max_wait:
                    break
                self.sleep(pause)
                waited += pause
                continue
            if reply.status_code >= 500:
                raise DeliveryUncertain(
                    f"the {label} webhook answered {reply.status_code}: the message may have been posted"
                )
            if reply.status_code >= 400:
                raise WebhookFailed(f"the {label} webhook refused the message ({reply.status_code})")
            message = reply.json()
            return Posted(str(message.get("id", "")), str(message.get("channel_id", "")))
        raise WebhookFailed(f"the {label} webhook kept answering 429 (rate limited) for over {self.max_wait:.0f} s")

    def _pace(self, webhook: str, reply: requests.Response) -> None:
        """Remember when the webhook's bucket is spent until (X-RateLimit-Remaining 0, Reset-After s)."""
        remaining, reset = reply.headers.get("X-RateLimit-Remaining"), reply.headers.get("X-RateLimit-Reset-After")
        try:
            if remaining is not None and reset is not None and int(float(remaining)) <= 0:
                self._ready[webhook] = self.clock() + max(0.0, float(reset))
        except ValueError:
            pass  # a header that is no number is no guidance: the 429s, if any, still are


def webhook_id(url: str) -> str:
    """The webhook's id in its URL (.../webhooks/ID/TOKEN): its rate limits are its own."""
    parts = [p for p in url.split("?")[0].split("/") if p]
    return parts[-2] if len(parts) >= 2 else url


def _retry_after(reply: requests.Response) -> float:
    """Discord's wait in seconds: the body's `retry_after`, else the Retry-After header, else 1."""
    try:
        return max(0.0, float(reply.json()["retry_after"]))
    except (ValueError, KeyError, TypeError):
        pass
    try:
        return max(0.0, float(reply.headers.get("Retry-After", "1")))
    except ValueError:
        return 1.0


def split_message(text: str, limit: int = CONTENT_LIMIT) -> list[str]:
    """Text in pieces of at most `limit` characters, cut at a line break or a space where one is near."""
    pieces = []
    rest = text
    while len(rest) > limit:
        cut = rest.rfind("\n", limit // 2, limit + 1)
        if cut < 0:
            cut = rest.rfind(" ", limit // 2, limit + 1)
        if cut < 0:
            cut = limit
        pieces.append(rest[:cut].rstrip())
        rest = rest[cut:].lstrip()
    if rest or not pieces:
        pieces.append(rest)
    return pieces
