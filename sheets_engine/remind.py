"""Deadline reminders: each clan's Discord channel hears who of its characters has not ordered yet.

`sheets-engine remind SOURCE --webhooks FILE --before HOURS` runs from cron (hourly). Once the
turn's deadline is less than HOURS away (and not yet past), it posts to each clan's webhook
(`clan:NAME/orders`, else `clan:NAME`, as `notify` routes) the names of its living characters
with no order for the current turn, once per turn: the Game key `reminded_turn` and one
Notifications row per clan are written first (one guarded write, with its History row), then those
rows are delivered as `notify` delivers every row (`deliver_reminders`): each claimed, posted and
recorded in turn, so after a crash at most the clan being posted to is unconfirmed, and the others'
reminders go out with the next `notify` (or are there already).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sheets_engine import app
from sheets_engine.core.deadlines import local_text
from sheets_engine.core.ruleset import Outcome
from sheets_engine.core.store import Store, StoreError
from sheets_engine.core.tables import Draft
from sheets_engine.discord import WebhookClient
from sheets_engine.notify import DELIVERED, Row, Webhooks, notify
from sheets_engine.sengoku.game import read_settings
from sheets_engine.sengoku.reminders import without_orders

CAUSE = "deadline reminder"


@dataclass
class RemindReport:
    """What a remind run did, or why it did nothing."""

    turn: int = 0
    reason: str = ""  # why nothing was posted ("" when reminders went out)
    reminded: dict[str, list[str]] = field(default_factory=dict)  # clan -> characters named
    no_webhook: list[str] = field(default_factory=list)  # clans with missing orders but no webhook
    failed: dict[str, str] = field(default_factory=dict)  # clan -> why its post failed
    gone: list[str] = field(default_factory=list)  # webhook labels that answered 404
    unconfirmed: list[str] = field(default_factory=list)  # clans whose reminder may or may not have been posted
    dry_run: bool = False

    def summary(self) -> dict[str, Any]:
        """The counts and names, for the CLI."""
        return {
            "turn": self.turn,
            "reason": self.reason,
            "clans_reminded": sorted(self.reminded),
            "characters_without_orders": sum(len(v) for v in self.reminded.values()),
            "clans_without_webhook": self.no_webhook,
            "clans_failed": self.failed,
            "webhooks_gone": self.gone,
            "clans_unconfirmed": self.unconfirmed,
            "dry_run": self.dry_run,
        }


def message(deadline: datetime, zone: str, now: datetime, names: list[str]) -> str:
    """The reminder as a clan reads it (notify puts the turn and channel before it)."""
    left = max(0, int((deadline - now).total_seconds() // 60))
    hours, minutes = divmod(left, 60)
    when = f"{hours} h {minutes:02d} min" if hours else f"{minutes} min"
    listed = ", ".join(names)
    return (
        f"The deadline is {local_text(deadline, deadline.tzinfo or UTC)} ({zone}), in {when}. "
        f"No order yet from: {listed}."
    )


def remind(
    store: Store,
    webhooks: Webhooks,
    before_hours: float,
    now: datetime | None = None,
    client: WebhookClient | None = None,
    dry_run: bool = False,
) -> RemindReport:
    """Remind each clan of its characters without an order, once per turn (see the module docstring)."""
    client = client or WebhookClient()
    with app.exclusive(store, "remind", dry_run):
        campaign = app._checked(store)
        if campaign.ruleset.name != "sengoku":
            raise StoreError(f"remind knows Sengoku Jidai campaigns only; this one is {campaign.ruleset.title}")
        settings = read_settings(campaign.state)
        plan = settings.schedule()
        moment = now or datetime.now(UTC)
        if moment.tzinfo is None:  # --now without a zone: the campaign's time
            moment = moment.replace(tzinfo=plan.zone)
        moment = moment.astimezone(UTC)
        report = RemindReport(turn=settings.turn, dry_run=dry_run)
        deadline = plan.recorded() or plan.deadline
        if deadline is None:
            report.reason = "no deadline is set (the Game key deadline)"
            return report
        if moment >= deadline:
            report.reason = f"turn {settings.turn}'s deadline has passed: resolve is next"
            return report
        if (deadline - moment).total_seconds() > before_hours * 3600:
            report.reason = f"turn {settings.turn}'s deadline is more than {before_hours:g} hour(s) away"
            return report
        if settings.reminded_turn >= settings.turn:
            report.reason = f"the clans were reminded for turn {settings.turn} already"
            return report
        missing = without_orders(campaign.state, settings.turn, deadline)
        targets = {}
        for clan, names in sorted(missing.items()):
            route = webhooks.route(f"clan:{clan}", "orders")
            if route is None:
                report.no_webhook.append(clan)
            else:
                targets[clan] = (route, names)
        if dry_run:
            report.reminded = {clan: names for clan, (_, names) in targets.items()}
            return report
        if targets and DELIVERED not in campaign.state.layouts["Notifications"].columns:
            raise StoreError(
                "the Notifications tab has no column headed 'Delivered': add that header after 'Message' "
                "(reminders are delivered, and recorded there, as notify delivers every row)"
            )
        # The turn and each clan's reminder are written first: a run that dies while posting never
        # reminds twice, and a clan it did not reach yet hears with the next notify.
        zone = settings.time_zone or "UTC"
        texts = {clan: message(deadline, zone, moment, names) for clan, (_, names) in targets.items()}
        draft = Draft(campaign.state)
        game = campaign.state.frame("Game")
        if "reminded_turn" in game.index:
            draft.set("Game", "reminded_turn", "Value", settings.turn, CAUSE)
        else:
            draft.add_row("Game", {"Key": "reminded_turn", "Value": settings.turn}, CAUSE)
        for clan, text in texts.items():
            draft.notify(settings.turn, f"clan:{clan}", "orders", text)
        outcome = Outcome(draft.finish(), draft.changes, dict(draft.logs), settings.turn, {}, step="remind")
        app._commit(campaign, outcome, False, moment)
        names = {clan: listed for clan, (_, listed) in targets.items()}
        deliver_reminders(store, webhooks, settings.turn, texts, names, client, report)
    return report


def deliver_reminders(
    store: Store,
    webhooks: Webhooks,
    turn: int,
    texts: dict[str, str],
    names: dict[str, list[str]],
    client: WebhookClient,
    report: RemindReport,
) -> None:
    """Post the reminder rows just written (clan -> its text), as notify posts any row: claimed, posted
    and recorded in turn. Each clan is reminded, or unconfirmed (its post's answer was lost), or failed."""
    wanted = {(f"clan:{clan}".casefold(), text): clan for clan, text in texts.items()}
    clan_of: dict[int, str] = {}

    def reminder(row: Row) -> bool:
        clan = wanted.get((row.audience.casefold(), row.message))
        if clan is None or str(row.turn) != str(turn) or row.channel.casefold() != "orders":
            return False
        clan_of[row.row] = clan
        return True

    delivery = notify(store, webhooks, client, select=reminder)
    report.gone += delivery.gone
    for number in delivery.posted:
        report.reminded[clan_of[number]] = names[clan_of[number]]
    report.unconfirmed += [clan_of[number] for number in delivery.unconfirmed if number in clan_of]
    for clan in texts:
        if clan in report.reminded:
            continue
        route = webhooks.route(f"clan:{clan}", "orders")
        label = route.label if route is not None else f"clan:{clan}"
        gone = label in delivery.gone
        why = f"the {label} webhook no longer exists" if gone else delivery.failed.get(label, "not sent")
        if clan in report.unconfirmed:  # named as failed (exit 1), so that a GM looks at the channel
            why += "; the reminder may have been posted: its Notifications row stays unconfirmed"
        report.failed[clan] = why
