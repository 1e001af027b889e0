"""Delivering the Notifications tab to Discord, each row exactly once.

The engine writes Notifications rows (Turn, Audience, Channel, Message); `sheets-engine notify`
posts every row not yet delivered to the webhook its audience is mapped to, and records delivery in
the engine-owned `Delivered` column.

Exactly once, across crashes, one row at a time: a row is claimed in the sheet (`Delivered` =
`sending RUN TIME`, a guarded write), posted, and recorded (`Delivered` = the UTC time and the
Discord message ids) in the same write that claims the next row. So after a crash at most the row
that was being posted is `sending ...`: later runs deliver every other row, and never post a
`sending` row again on their own (it may have reached Discord); they list it as unconfirmed, for a
GM to look at the channel and either clear the cell (posted again next run) or run
`notify --resend-unconfirmed`. A post whose answer is lost (a timeout, a dropped connection, a 5xx)
leaves its row unconfirmed the same way; a post Discord refused is given back (blank) for the next run.

The webhooks file (TOML) maps audiences to webhooks: `public`, `gm`, `clan:NAME`, `character:NAME`,
optionally narrowed to one channel as `AUDIENCE/CHANNEL` (e.g. `"public/graveyard"`); a value is the
webhook's URL, or a table with `url` and, for a thread, `thread_id` (post into that thread) or
`thread_name` (a forum or media channel: each row starts a thread of that name, `{turn}` replaced by
its turn). A character's private rows go only to a webhook of that character: never to the clan's
channel, where the rest of the clan would read them. URLs never appear in the sheet, in output or in
logs.
"""

from __future__ import annotations

import tomllib
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from sheets_engine.app import Run
from sheets_engine.core.grid import CellEdit
from sheets_engine.core.load import norm
from sheets_engine.core.ruleset import Outcome
from sheets_engine.discord import DeliveryUncertain, Target, WebhookClient, WebhookFailed, WebhookGone, split_message
from sheets_engine.stores.base import RawTab, Store, StoreError

TAB = "Notifications"
DELIVERED = "Delivered"
COLUMNS = ("Turn", "Audience", "Channel", "Message")
SENDING = "sending"


class WebhooksFileError(StoreError):
    """The webhooks file cannot be used (exit 2: the GM fixes the file)."""


@dataclass(frozen=True)
class Webhooks:
    """Audience (or audience/channel) -> where its rows go, keys matched ignoring case."""

    routes: Mapping[str, Target]

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
        routes = {norm(key): _target(path, key, value) for key, value in data.items()}
        if not routes:
            raise WebhooksFileError(f"the webhooks file {path} maps no audience to a webhook")
        return cls(routes)

    def route(self, audience: str, channel: str) -> Target | None:
        """Where this row goes: `audience/channel` first, then `audience`."""
        for label in (f"{audience}/{channel}", audience):
            target = self.routes.get(norm(label))
            if target:
                return Target(label, target.url, target.thread_id, target.thread_name)
        return None


def _target(path: Path, key: str, value: Any) -> Target:
    """One entry of the webhooks file: a URL, or a table {url, thread_id | thread_name}."""
    if isinstance(value, str):
        value = {"url": value}
    if not isinstance(value, dict) or not isinstance(value.get("url"), str) or not _is_webhook_url(value["url"]):
        raise WebhooksFileError(f"the webhooks file {path}: '{key}' must be a webhook URL in quotes (https://...)")
    unknown = sorted(set(value) - {"url", "thread_id", "thread_name"})
    if unknown:
        raise WebhooksFileError(
            f"the webhooks file {path}: '{key}' has {', '.join(unknown)}: only url, thread_id or thread_name"
        )
    thread_id, thread_name = value.get("thread_id"), value.get("thread_name")
    if thread_id is not None and thread_name is not None:
        raise WebhooksFileError(f"the webhooks file {path}: '{key}' has both thread_id and thread_name: give one")
    if thread_id is not None and not str(thread_id).isdigit():
        raise WebhooksFileError(f"the webhooks file {path}: '{key}' thread_id must be the thread's number (its id)")
    if thread_name is not None and (not isinstance(thread_name, str) or not thread_name.strip()):
        raise WebhooksFileError(f"the webhooks file {path}: '{key}' thread_name must be a name in quotes")
    return Target(key, value["url"], None if thread_id is None else str(thread_id), thread_name)


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
    messages: int = 0  # Discord messages sent, or that a dry run would send (a long row is several)
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
    select: Callable[[Row], bool] = lambda row: True,
) -> NotifyReport:
    """Post every undelivered Notifications row (for which `select` holds) to its webhook, once (see
    the module docstring)."""
    client = client or WebhookClient()
    report = NotifyReport(dry_run=dry_run)
    with Run(store, "notify", dry_run=dry_run, now=now, tabs=(TAB,)) as work:
        return deliver(work, webhooks, client, report, resend_unconfirmed, select)


def deliver(
    work: Run,
    webhooks: Webhooks,
    client: WebhookClient,
    report: NotifyReport,
    resend_unconfirmed: bool = False,
    select: Callable[[Row], bool] = lambda row: True,
) -> NotifyReport:
    """The delivery, inside a unit of work that holds the campaign's lock (each write one of its commits)."""
    tab = work.tab(TAB)
    if tab is None:
        raise StoreError(f"{work.store.name} has no {TAB} tab (sheets-engine init lays every tab out)")
    columns, rows = read_rows(tab)
    due: list[tuple[Row, Target]] = []
    for row in rows:
        if not select(row):
            continue
        if row.delivered.casefold().startswith(SENDING) and not resend_unconfirmed:
            report.unconfirmed.append(row.row)
            continue
        if row.delivered and not row.delivered.casefold().startswith(SENDING):
            continue  # delivered before
        target = webhooks.route(row.audience, row.channel)
        if target is None:
            report.unroutable.setdefault(row.audience or "(no audience)", []).append(row.row)
            continue
        due.append((row, target))
    if work.dry_run or not due:
        report.posted = [r.row for r, _ in due] if work.dry_run else []
        # the messages a run would post: a long row is split as _post_each splits it
        report.messages = sum(len(split_message(content(r))) for r, _ in due) if work.dry_run else 0
        return report
    _post_each(work, tab, columns[DELIVERED], due, client, report)
    return report


def _post_each(
    work: Run, tab: RawTab, column: int, due: list[tuple[Row, Target]], client: WebhookClient, report: NotifyReport
) -> None:
    """Claim, post and record each row in turn, the record of one row in the write claiming the next;
    a gone or failing webhook is skipped for the rest of the run (its rows left as they were)."""
    moment = work.moment.astimezone(UTC)
    claim = f"{SENDING} {uuid.uuid4().hex[:12]} {moment:%Y-%m-%d %H:%M:%S} UTC"
    settled: dict[int, tuple[str, str]] = {}  # the last row's outcome, written with the next claim
    for row, target in due:
        if target.label in report.gone or target.label in report.failed:
            continue
        work.commit(_marks(tab, column, {**settled, row.row: (row.delivered, claim)}))
        settled = {}
        ids: list[str] = []
        try:
            thread = target.thread_id
            name = target.thread_name.replace("{turn}", str(row.turn or "")) if target.thread_name else None
            for piece in split_message(content(row)):
                posted = client.post(target.url, piece, target.label, thread_id=thread, thread_name=name)
                ids.append(posted.id)
                report.messages += 1
                if name and not thread:  # the thread its first piece started: the rest go into it
                    thread, name = posted.channel_id, None
        except (WebhookGone, WebhookFailed, DeliveryUncertain) as error:
            if isinstance(error, WebhookGone):
                report.gone.append(target.label)
            else:
                report.failed[target.label] = str(error)
            if ids or isinstance(error, DeliveryUncertain):  # some of it may be in the channel: unconfirmed
                report.unconfirmed.append(row.row)
            else:
                settled = {row.row: (claim, "")}  # refused: given back for the next run
            continue
        settled = {row.row: (claim, f"{moment:%Y-%m-%d %H:%M:%S} UTC: " + " ".join(ids))}
        report.posted.append(row.row)
    if settled:
        work.commit(_marks(tab, column, settled))


def _marks(tab: RawTab, column: int, cells: dict[int, tuple[str, str]]) -> Outcome:
    """Delivered cells set (row -> (what it held, what it gets)): a log tab's own column, no History row."""
    edits = [CellEdit(TAB, tab.title, row, column, DELIVERED, old, new) for row, (old, new) in cells.items()]
    return Outcome.of_cells(edits, 0, {}, step="notify")
