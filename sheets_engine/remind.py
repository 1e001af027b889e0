"""Deadline reminders: each clan's Discord channel hears who of its characters has not ordered yet (a Clan
War faction's, that it has not: the groups, their names and the words are the ruleset's `reminders`).

`sheets-engine remind SOURCE --webhooks FILE --before HOURS` runs from cron (hourly). Once the
turn's deadline is less than HOURS away (and not yet past), it posts to each clan's webhook
(`clan:NAME/orders`, else `clan:NAME`, as `notify` routes) the names of its characters with no
order for the current turn (who they are is the ruleset's: its record's `reminders`), once per
turn: the Game key `reminded_turn` and one Notifications row per clan are written first (one
guarded write, with its History row), then those rows are delivered as `notify` delivers every row
(`notify.deliver`, in the same unit of work): claimed, posted and recorded a batch of webhooks at a
time (notify.IN_FLIGHT), so after a crash at most the clans being posted to are unconfirmed, and the
others' reminders go out with the next `notify` (or are there already).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sheets_engine.app import Run
from sheets_engine.core.capabilities import no_order_yet
from sheets_engine.core.deadlines import local_text
from sheets_engine.core.history import whole
from sheets_engine.core.names import noun
from sheets_engine.core.ruleset import Outcome
from sheets_engine.core.store import Store, StoreError
from sheets_engine.core.tables import Draft
from sheets_engine.discord import WebhookClient
from sheets_engine.notify import DELIVERED, NotifyReport, Row, Webhooks, deliver
from sheets_engine.rulesets import supporting

CAUSE = "deadline reminder"
CHANNEL = "orders"


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
    group: str = "clan"  # the ruleset's words for a group reminded and its names (core.capabilities.Reminders)
    member: str = "character"
    audience: dict[str, str] = field(default_factory=dict)  # group -> the webhook audience it is routed by

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


def message(
    deadline: datetime,
    zone: str,
    now: datetime,
    names: list[str],
    group: str = "",
    says: Callable[..., str] | None = None,
) -> str:
    """The reminder as a group reads it (notify puts the turn and channel before it); `says` is the ruleset's
    last sentence (core.capabilities.Reminders.sentence)."""
    left = max(0, int((deadline - now).total_seconds() // 60))
    hours, minutes = divmod(left, 60)
    when = f"{hours} h {minutes:02d} min" if hours else f"{minutes} min"
    last = (says or no_order_yet)(group, names)
    return f"The deadline is {local_text(deadline, deadline.tzinfo or UTC)} ({zone}), in {when}. {last}"


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
    with Run(store, "remind", dry_run=dry_run, now=now) as run:
        campaign = run.campaign()
        reminders = campaign.ruleset.reminders
        if reminders is None:
            known = " and ".join(supporting("reminders")) or "no"
            raise StoreError(f"remind knows {known} campaigns only; this one is {campaign.ruleset.title}")
        state = campaign.state
        ledger = campaign.ruleset.turn.ledger(state)
        plan, period, unit = ledger.schedule, ledger.period, ledger.unit
        moment = run.moment.astimezone(UTC)
        report = RemindReport(turn=period, dry_run=dry_run, group=reminders.group, member=reminders.member)
        deadline = plan.recorded() or plan.deadline
        if deadline is None:
            report.reason = "no deadline is set (the Game key deadline)"
            return report
        if moment >= deadline:
            report.reason = f"{unit} {period}'s deadline has passed: resolve is next"
            return report
        if (deadline - moment).total_seconds() > before_hours * 3600:
            report.reason = (
                f"{unit} {period}'s deadline is more than {before_hours:g} {noun(before_hours, 'hour')} away"
            )
            return report
        reminded = whole(state.game(reminders.key, 0)) or 0
        if reminded >= period:
            report.reason = f"the {reminders.group}s were reminded for {unit} {period} already"
            return report
        missing = reminders.missing(state, period, deadline)
        audience = {clan: f"{reminders.audience}:{clan}" for clan in missing}
        report.audience = dict(audience)
        targets = {}
        for clan, names in sorted(missing.items()):
            if webhooks.route(audience[clan], CHANNEL) is None:
                report.no_webhook.append(clan)
            else:
                targets[clan] = names
        if dry_run:
            report.reminded = dict(targets)
            return report
        if targets and DELIVERED not in state.layouts["Notifications"].columns:
            raise StoreError(
                "the Notifications tab has no column headed 'Delivered': add that header after 'Message' "
                "(reminders are delivered, and recorded there, as notify delivers every row)"
            )
        # The turn and each clan's reminder are written first: a run that dies while posting never
        # reminds twice, and a clan it did not reach yet hears with the next notify.
        zone = str(state.game("time_zone", "") or "").strip() or "UTC"
        texts = {
            clan: message(deadline, zone, moment, names, clan, reminders.sentence) for clan, names in targets.items()
        }
        draft = Draft(state)
        if draft.has("Game", reminders.key):
            draft.set("Game", reminders.key, "Value", period, CAUSE)
        else:
            draft.add_row("Game", {"Key": reminders.key, "Value": period}, CAUSE)
        for clan, text in texts.items():
            draft.notify(period, audience[clan], CHANNEL, text)
        run.commit(Outcome.of(draft, period, {}, step="remind"))
        if texts:
            run.read()  # the rows just written, with their row numbers, under the same lock
            _deliver(run, webhooks, period, texts, {c: audience[c] for c in texts}, targets, client, report)
    return report


def _deliver(
    run: Run,
    webhooks: Webhooks,
    period: int,
    texts: dict[str, str],
    audience: dict[str, str],
    names: dict[str, list[str]],
    client: WebhookClient,
    report: RemindReport,
) -> None:
    """Post the reminder rows just written (clan -> its text), as notify posts any row: claimed, posted
    and recorded a batch at a time. Each clan is reminded, or unconfirmed (its post's answer was lost), or failed."""
    wanted = {(audience[clan].casefold(), text): clan for clan, text in texts.items()}
    clan_of: dict[int, str] = {}

    def reminder(row: Row) -> bool:
        clan = wanted.get((row.audience.casefold(), row.message))
        if clan is None or str(row.turn) != str(period) or row.channel.casefold() != CHANNEL:
            return False
        clan_of[row.row] = clan
        return True

    delivery = deliver(run, webhooks, client, NotifyReport(), select=reminder)
    report.gone += delivery.gone
    for number in delivery.posted:
        report.reminded[clan_of[number]] = names[clan_of[number]]
    report.unconfirmed += [clan_of[number] for number in delivery.unconfirmed if number in clan_of]
    for clan in texts:
        if clan in report.reminded:
            continue
        route = webhooks.route(audience[clan], CHANNEL)
        label = route.label if route is not None else audience[clan]
        gone = label in delivery.gone
        why = f"the {label} webhook no longer exists" if gone else delivery.failed.get(label, "not sent")
        if clan in report.unconfirmed:  # named as failed (exit 1), so that a GM looks at the channel
            why += "; the reminder may have been posted: its Notifications row stays unconfirmed"
        report.failed[clan] = why
