"""Posting to Discord webhooks: split to Discord's limit, no pings, 429s waited out, bounded.

Edge code: it knows HTTP and Discord, no rule and no spreadsheet. A webhook URL is a credential (it
is all anyone needs to post to the channel), so no message this module raises contains one: errors
name the webhook by the label the caller gives (its audience), never by its URL.
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
    """The webhook could not be posted to within the bounds (network, 5xx, 401/403, too many 429s)."""


@dataclass
class WebhookClient:
    """Posts messages; waits out 429s for at most `max_wait` seconds in all, over `attempts` tries."""

    session: requests.Session = field(default_factory=requests.Session)
    attempts: int = 5
    max_wait: float = 60.0
    timeout: float = 20.0
    sleep: Callable[[float], None] = time.sleep

    def post(self, url: str, content: str, label: str) -> str:
        """Post one message (at most CONTENT_LIMIT characters); its Discord message id."""
        if len(content) > CONTENT_LIMIT:
            raise ValueError(f"a message of {len(content)} characters is over Discord's {CONTENT_LIMIT}")
        body: dict[str, Any] = {"content": content, "allowed_mentions": NO_PINGS}
        waited = 0.0
        for _ in range(self.attempts):
            try:
                reply = self.session.post(url, params={"wait": "true"}, json=body, timeout=self.timeout)
            except requests.RequestException as error:  # its text holds the URL: say only what kind
                raise WebhookFailed(f"the {label} webhook did not answer ({type(error).__name__})") from None
            if reply.status_code == 404:
                raise WebhookGone(f"the {label} webhook no longer exists (404): make a new one and update the file")
            if reply.status_code == 429:
                pause = _retry_after(reply)
                if waited + pause > self.max_wait:
                    break
                self.sleep(pause)
                waited += pause
                continue
            if reply.status_code >= 400:
                raise WebhookFailed(f"the {label} webhook refused the message ({reply.status_code})")
            return str(reply.json().get("id", ""))
        raise WebhookFailed(f"the {label} webhook kept answering 429 (rate limited) for over {self.max_wait:.0f} s")


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
