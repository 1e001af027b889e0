"""Delivering the Notifications tab to Discord, each row exactly once.

The engine writes Notifications rows (Turn, Audience, Channel, Message); `sheets-engine notify`
posts every row not yet delivered to the webhook its audience is mapped to, and records delivery in
the engine-owned `Delivered` column.

Exactly once, across crashes: the rows about to be posted are first claimed in the sheet
(`Delivered` = `sending RUN`, one guarded write), then posted, then recorded (`Delivered` = the UTC
time and the Discord message ids, a second write). A run that dies between the two writes leaves
its rows `sending ...`: later runs never post those again on their own (they may have reached
Discord); they list them as unconfirmed, for a GM to look at the channel and either clear the cell
(posted again next run) or run `notify --resend-unconfirmed`.

The webhooks file (TOML) maps audiences to webhook URLs: `public`, `gm`, `clan:NAME`,
`character:NAME`, optionally narrowed to one channel as `AUDIENCE/CHANNEL` (e.g.
`"public/graveyard"`). A character's private rows go only to a webhook of that character: never to
the clan's channel, where the rest of the clan would read them. URLs never appear in the sheet, in
output or in logs.
"""

from __future__ import annotations

import tomllib
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from sheets_engine.app import Run
from sheets_engine.core.grid import CellEdit
from sheets_engine.core.load import norm
from sheets_engine.core.ruleset import Outcome
from sheets_engine.discord import WebhookClient, WebhookFailed, WebhookGone, split_message
from sheets_engine.stores.base import RawTab, Store, StoreError

TAB = "Notifications"
DELIVERED = "Delivered"
COLUMNS = ("Turn", "Audience", "Channel", "Message")
SENDING = "sending"


class WebhooksFileError(StoreError):
    """The webhooks file cannot be used (exit 2: the GM fixes the file)."""


@dataclass(frozen=True)
class Webhooks:
    """Audience (or audience/channel) -> webhook URL, keys matched ignoring case."""

    routes: Mapping[str, str]

    @classmethod
    def load(cls, path: Path) -> Webhooks:
        """Read and check a webhooks file; errors name the key, never a URL."""
        try:
            data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise WebhooksFileError(f"no webhooks file at {path}") from None
        except (OSError, UnicodeDecodeError) as error:
            raise WebhooksFileError(f"cannot read the webhooks file {path}: {type(error).__name__}") from None
        except tomllib.TOMLDecodeError as error:
            raise WebhooksFileError(f"the webhooks file {path} is not valid TOML: {error}") from None
        routes: dict[str, str] = {}
        for key, url in data.items():
            if not isinstance(url, str) or not _is_webhook_url(url):
                raise WebhooksFileError(
                    f"the webhooks file {path}: '{key}' must be a webhook URL in quotes (https://...)"
                )
            routes[norm(key)] = url
        if not routes:
            raise WebhooksFileError(f"the webhooks file {path} maps no audience to a webhook")
        return cls(routes)

    def route(self, audience: str, channel: str) -> tuple[str, str] | None:
        """(label, URL) of the webhook for this row: `audience/channel` first, then `audience`."""
        for label in (f"{audience}/{channel}", audience):
            url = self.routes.get(norm(label))
            if url:
                return label, url
        return None


def _is_webhook_url(url: str) -> bool:
    parts = urlsplit(url)
    if parts.scheme == "https" and parts.netloc:
        return True
    return parts.scheme == "http" and parts.hostname in ("127.0.0.1", "localhost")  # local stand-ins only


@dataclass(frozen=True)
class Row:
    """One Notifications row as read."""

    row: int
    turn: Any
    audience: str
    channel: str
    message: str
    delivered: str


@dataclass
class NotifyReport:
    """What a notify run did."""

    posted: list[int] = field(default_factory=list)  # sheet rows delivered now
    messages: int = 0  # Discord messages sent (a long row is several)
    unroutable: dict[str, list[int]] = field(default_factory=dict)  # audience -> rows with no webhook
    unconfirmed: list[int] = field(default_factory=list)  # rows a dead run claimed
    gone: list[str] = field(default_factory=list)  # webhook labels that answered 404
    failed: dict[str, str] = field(default_factory=dict)  # label -> why (transient)
    dry_run: bool = False

    def summary(self) -> dict[str, Any]:
        """The counts, for the CLI."""
        return {
            "rows_posted": len(self.posted),
            "messages_sent": self.messages,
            "rows_without_webhook": sum(len(v) for v in self.unroutable.values()),
            "audiences_without_webhook": sorted(self.unroutable),
            "rows_unconfirmed": self.unconfirmed,
            "webhooks_gone": self.gone,
            "webhooks_failed": self.failed,
            "dry_run": self.dry_run,
        }


def read_rows(tab: RawTab) -> tuple[dict[str, int], list[Row]]:
    """The column positions (1-based) and every Notifications row with a message."""
    positions = {norm(h): i for i, h in enumerate(tab.header, start=1) if h not in (None, "")}
    columns: dict[str, int] = {}
    for name in (*COLUMNS, DELIVERED):
        if norm(name) in positions:
            columns[name] = positions[norm(name)]
    if DELIVERED not in columns:
        raise StoreError(
            f"the {tab.title} tab has no column headed '{DELIVERED}': add that header after 'Message' "
            "(the engine records there what it has posted)"
        )
    missing = [c for c in COLUMNS if c not in columns]
    if missing:
        raise StoreError(f"the {tab.title} tab has no column headed {', '.join(repr(c) for c in missing)}")

    def cell(cells: list[Any], column: str) -> Any:
        index = columns[column] - 1
        return cells[index] if index < len(cells) else None

    rows = []
    for number, cells in tab.rows:
        message = cell(cells, "Message")
        if message in (None, ""):
            continue
        rows.append(
            Row(
                number,
                cell(cells, "Turn"),
                str(cell(cells, "Audience") or "").strip(),
                str(cell(cells, "Channel") or "").strip(),
                str(message),
                str(cell(cells, DELIVERED) or "").strip(),
            )
        )
    return columns, rows


def content(row: Row) -> str:
    """What Discord shows: the turn and channel, then the message as the engine wrote it."""
    turn = f"Turn {row.turn}" if row.turn not in (None, "") else "Notice"
    return f"**{turn}** · {row.channel or 'news'}\n{row.message}"


def notify(
    store: Store,
    webhooks: Webhooks,
    client: WebhookClient | None = None,
    now: datetime | None = None,
    dry_run: bool = False,
    resend_unconfirmed: bool = False,
) -> NotifyReport:
    """Post every undelivered Notifications row to its webhook, once (see the module docstring)."""
    client = client or WebhookClient()
    report = NotifyReport(dry_run=dry_run)
    with Run(store, "notify", dry_run=dry_run, now=now, tabs=(TAB,)) as work:
        return _deliver(work, webhooks, client, report, resend_unconfirmed)


def _deliver(work: Run, webhooks: Webhooks, client: WebhookClient, report: NotifyReport, resend: bool) -> NotifyReport:
    """The delivery, inside the unit of work that holds the campaign's lock (its two writes are its commits)."""
    store, now, dry_run, resend_unconfirmed = work.store, work.now, work.dry_run, resend
    tab = work.tab(TAB)
    if tab is None:
        raise StoreError(f"{store.name} has no {TAB} tab (sheets-engine init lays every tab out)")
    columns, rows = read_rows(tab)
    due: list[tuple[Row, str, str]] = []
    for row in rows:
        if row.delivered.casefold().startswith(SENDING) and not resend_unconfirmed:
            report.unconfirmed.append(row.row)
            continue
        if row.delivered and not row.delivered.casefold().startswith(SENDING):
            continue  # delivered before
        target = webhooks.route(row.audience, row.channel)
        if target is None:
            report.unroutable.setdefault(row.audience or "(no audience)", []).append(row.row)
            continue
        due.append((row, *target))
    if dry_run or not due:
        report.posted = [r.row for r, _, _ in due] if dry_run else []
        return report
    moment = (now or datetime.now(UTC)).astimezone(UTC)
    run = uuid.uuid4().hex[:12]
    column = columns[DELIVERED]
    # 1. Claim: a run that dies after posting leaves these rows 'sending', never posted twice.
    claim = f"{SENDING} {run} {moment:%Y-%m-%d %H:%M:%S} UTC"
    work.commit(_marks(tab, column, {r.row: (r.delivered, claim) for r, _, _ in due}))
    # 2. Post, oldest row first; a gone or failing webhook is skipped for the rest of the run.
    outcome: dict[int, str] = {}
    for row, label, url in due:
        if label in report.gone or label in report.failed:
            outcome[row.row] = ""
            continue
        pieces = split_message(content(row))
        ids: list[str] = []
        try:
            for piece in pieces:
                ids.append(client.post(url, piece, label))
                report.messages += 1
        except WebhookGone:
            report.gone.append(label)
            outcome[row.row] = "" if not ids else claim
            continue
        except WebhookFailed as error:
            report.failed[label] = str(error)
            outcome[row.row] = "" if not ids else claim  # part of it reached Discord: unconfirmed
            continue
        outcome[row.row] = f"{moment:%Y-%m-%d %H:%M:%S} UTC: " + " ".join(ids)
        report.posted.append(row.row)
    # 3. Record: posted rows get their message ids; rows not posted are given back (blank).
    marks = {number: (claim, value) for number, value in outcome.items() if value != claim}
    if marks:
        work.commit(_marks(tab, column, marks))
    report.unconfirmed += [n for n, value in outcome.items() if value == claim]
    return report


def _marks(tab: RawTab, column: int, cells: dict[int, tuple[str, str]]) -> Outcome:
    """Delivered cells set (row -> (what it held, what it gets)): a log tab's own column, no History row."""
    edits = [CellEdit(TAB, tab.title, row, column, DELIVERED, old, new) for row, (old, new) in cells.items()]
    return Outcome.of_cells(edits, 0, {}, step="notify")
