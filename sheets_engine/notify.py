"""Delivering the Notifications tab to Discord, each row exactly once.

The engine writes Notifications rows (Turn, Audience, Channel, Message); `sheets-engine notify`
posts every row not yet delivered to the webhook its audience is mapped to, and records delivery in
the engine-owned `Delivered` column.

Rows go out together: the rows of one turn bound for the same webhook make one Discord message (for
each channel its heading, the turn and the channel, then each row's message on a line of its own), up
to Discord's 2,000 characters; a row longer than that is a message of its own, in pieces.

Exactly once, across crashes, a few messages at a time: the rows of up to IN_FLIGHT messages, each to
a different webhook, are claimed in the sheet (`Delivered` = `sending RUN TIME`, one guarded write),
those messages are posted at once (side by side: each webhook has rate limits of its own), and their
rows are recorded (`Delivered` = the UTC time and the Discord message ids) in the same write that
claims the next messages. So after a crash at most the messages that were being posted are `sending
...`: later runs deliver every other row, and never post a `sending` row again on their own (it may
have reached Discord); they list it as unconfirmed, for a GM to look at the channel and either clear
the cell (posted again next run) or run `notify --resend-unconfirmed`. A post whose answer is lost (a
timeout, a dropped connection, a 5xx) leaves its rows unconfirmed the same way; a post Discord refused
is given back (blank) for the next run.

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
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from sheets_engine.app import Run
from sheets_engine.core.grid import CellEdit
from sheets_engine.core.load import norm
from sheets_engine.core.ruleset import Outcome
from sheets_engine.discord import (
    CONTENT_LIMIT,
    DeliveryUncertain,
    Target,
    WebhookClient,
    WebhookFailed,
    WebhookGone,
    split_message,
    webhook_id,
)
from sheets_engine.stores.base import RawTab, Store, StoreError

TAB = "Notifications"
DELIVERED = "Delivered"
COLUMNS = ("Turn", "Audience", "Channel", "Message")
SENDING = "sending"
# Messages claimed by one guarded write and posted at once, each to a different webhook: what a crash
# can leave unconfirmed. Small, so that a GM has few channels to look at; eight cut a 10,000-province
# turn's writes (one per message before) by as much again as putting rows together does.
IN_FLIGHT = 8


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
        # the messages a run would post: a webhook's rows combined, a long one split as a run splits it
        report.messages = sum(len(split_message(m.text)) for m in messages(due)) if work.dry_run else 0
        return report
    _post_batches(work, tab, columns[DELIVERED], messages(due), client, report)
    report.posted.sort()
    report.unconfirmed.sort()
    return report


@dataclass
class Message:
    """One Discord message (in pieces if it is longer than Discord's limit): rows for one target, of one
    turn, under a heading for each of their channels, in their order."""

    target: Target
    rows: list[Row]
    sections: dict[str, list[str]]  # each channel's heading (the turn and channel) -> its rows' messages
    length: int  # of the text

    @classmethod
    def of(cls, target: Target, row: Row) -> Message:
        """A message holding this row."""
        heading, text = content(row).split("\n", 1)
        return cls(target, [row], {heading: [text]}, len(heading) + 1 + len(text))

    def join(self, row: Row) -> bool:
        """Add this row (of the message's target and turn) if the message stays within Discord's limit."""
        heading, text = content(row).split("\n", 1)
        lines = self.sections.get(heading)
        grown = self.length + 1 + len(text) + (0 if lines is not None else len(heading) + 1)
        if grown > CONTENT_LIMIT:
            return False
        self.sections.setdefault(heading, []).append(text)
        self.rows.append(row)
        self.length = grown
        return True

    @property
    def text(self) -> str:
        """What Discord shows: each channel's heading, then its rows' messages a line each."""
        return "\n".join(heading + "\n" + "\n".join(lines) for heading, lines in self.sections.items())

    @property
    def thread_name(self) -> str | None:
        """The forum thread it starts (the target's thread_name with its turn), if any."""
        name = self.target.thread_name
        return name.replace("{turn}", str(self.rows[0].turn or "")) if name else None


def messages(due: list[tuple[Row, Target]]) -> list[Message]:
    """The rows as Discord messages: a row joins the last message of its target and turn while the whole
    stays within Discord's 2,000 characters (a row longer than that is a message of its own)."""
    out: list[Message] = []
    last: dict[tuple[Target, str], Message] = {}
    for row, target in due:
        key = (target, str(row.turn))
        joined = last.get(key)
        if joined is None or not joined.join(row):
            last[key] = Message.of(target, row)
            out.append(last[key])
    return out


def _batches(pending: list[Message], skip: Callable[[Message], bool]) -> Iterator[list[Message]]:
    """The messages in batches of at most IN_FLIGHT, no two to one webhook (its rate limit and its order
    are its own), each webhook's in their order; the webhooks with the most left go first (the fewest
    batches in all). `skip` (asked before each batch) drops a webhook's messages once it failed."""
    queues: dict[str, list[Message]] = {}
    for message in pending:
        queues.setdefault(webhook_id(message.target.url), []).append(message)
    for queue in queues.values():
        queue.reverse()  # popped from the end
    while True:
        for hook, queue in list(queues.items()):
            queue[:] = [m for m in queue if not skip(m)]
            if not queue:
                del queues[hook]
        if not queues:
            return
        chosen = sorted(queues, key=lambda hook: -len(queues[hook]))[:IN_FLIGHT]
        yield [queues[hook].pop() for hook in chosen]


def _post_batches(
    work: Run, tab: RawTab, column: int, pending: list[Message], client: WebhookClient, report: NotifyReport
) -> None:
    """Claim a batch of messages' rows, post the batch at once, and record it in the write claiming the
    next batch; a gone or failing webhook is skipped for the rest of the run (its rows left as they were)."""
    moment = work.moment.astimezone(UTC)
    claim = f"{SENDING} {uuid.uuid4().hex[:12]} {moment:%Y-%m-%d %H:%M:%S} UTC"
    settled: dict[int, tuple[str, str]] = {}  # the last batch's outcome, written with the next claim

    def skip(message: Message) -> bool:
        return message.target.label in report.gone or message.target.label in report.failed

    with ThreadPoolExecutor(max_workers=IN_FLIGHT) as pool:
        for batch in _batches(pending, skip):
            claims = {row.row: (row.delivered, claim) for message in batch for row in message.rows}
            work.commit(_marks(tab, column, {**settled, **claims}))
            settled = {}
            if len(batch) == 1:
                outcomes = [_send(client, batch[0])]
            else:
                futures = [pool.submit(_send, client, message) for message in batch]
                for future in futures:
                    future.exception()  # every post answered (or given up) before any is recorded
                outcomes = [future.result() for future in futures]
            for message, (ids, error) in zip(batch, outcomes, strict=True):
                report.messages += len(ids)
                rows = [r.row for r in message.rows]
                if error is None:
                    done = f"{moment:%Y-%m-%d %H:%M:%S} UTC: " + " ".join(ids)
                    settled.update({row: (claim, done) for row in rows})
                    report.posted += rows
                    continue
                if isinstance(error, WebhookGone):
                    report.gone.append(message.target.label)
                else:
                    report.failed[message.target.label] = str(error)
                if ids or isinstance(error, DeliveryUncertain):  # some of it may be in the channel: unconfirmed
                    report.unconfirmed += rows
                else:
                    settled.update({row: (claim, "") for row in rows})  # refused: given back for the next run
    if settled:
        work.commit(_marks(tab, column, settled))


def _send(client: WebhookClient, message: Message) -> tuple[list[str], Exception | None]:
    """Post one message, piece by piece (a long one's later pieces into the thread its first started):
    the ids Discord gave, and why it stopped, if it did."""
    target = message.target
    thread, name = target.thread_id, message.thread_name
    ids: list[str] = []
    try:
        for piece in split_message(message.text):
            posted = client.post(target.url, piece, target.label, thread_id=thread, thread_name=name)
            ids.append(posted.id)
            if name and not thread:  # the thread its first piece started: the rest go into it
                thread, name = posted.channel_id, None
    except (WebhookGone, WebhookFailed, DeliveryUncertain) as error:
        return ids, error
    return ids, None


def _marks(tab: RawTab, column: int, cells: dict[int, tuple[str, str]]) -> Outcome:
    """Delivered cells set (row -> (what it held, what it gets)): a log tab's own column, no History row."""
    edits = [CellEdit(TAB, tab.title, row, column, DELIVERED, old, new) for row, (old, new) in cells.items()]
    return Outcome.of_cells(edits, 0, {}, step="notify")
