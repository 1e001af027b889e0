"""Deadline reminders: each clan's Discord channel hears who of its characters has not ordered yet.

`sheets-engine remind SOURCE --webhooks FILE --before HOURS` runs from cron (hourly). Once the
turn's deadline is less than HOURS away (and not yet past), it posts to each clan's webhook
(`clan:NAME/orders`, else `clan:NAME`, as `notify` routes) the names of its characters with no
order for the current turn (who they are is the ruleset's: its record's `reminders`), once per
turn: the Game key `reminded_turn` is written (one guarded write, with its History row) before
anything is posted, so a run that dies while posting never reminds twice; a clan whose post failed
is named, and not reminded again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sheets_engine.app import Run
from sheets_engine.core.deadlines import local_text
from sheets_engine.core.history import whole
from sheets_engine.core.ruleset import Outcome
from sheets_engine.core.store import Store, StoreError
from sheets_engine.core.tables import Draft
from sheets_engine.discord import WebhookClient, WebhookFailed, WebhookGone, split_message
from sheets_engine.notify import Webhooks
from sheets_engine.rulesets import supporting

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
            "dry_run": self.dry_run,
        }


def message(turn: int, deadline: datetime, zone: str, now: datetime, names: list[str], unit: str = "turn") -> str:
    """The reminder as a clan reads it."""
    left = max(0, int((deadline - now).total_seconds() // 60))
    hours, minutes = divmod(left, 60)
    when = f"{hours} h {minutes:02d} min" if hours else f"{minutes} min"
    listed = ", ".join(names)
    at = local_text(deadline, deadline.tzinfo or UTC)
    head = f"**{unit.capitalize()} {turn}** · orders"
    return f"{head}\nThe deadline is {at} ({zone}), in {when}. No order yet from: {listed}."


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
        report = RemindReport(turn=period, dry_run=dry_run)
        deadline = plan.recorded() or plan.deadline
        if deadline is None:
            report.reason = "no deadline is set (the Game key deadline)"
            return report
        if moment >= deadline:
            report.reason = f"{unit} {period}'s deadline has passed: resolve is next"
            return report
        if (deadline - moment).total_seconds() > before_hours * 3600:
            report.reason = f"{unit} {period}'s deadline is more than {before_hours:g} hour(s) away"
            return report
        reminded = whole(state.game(reminders.key, 0)) or 0
        if reminded >= period:
            report.reason = f"the clans were reminded for {unit} {period} already"
            return report
        missing = reminders.missing(state, period, deadline)
        targets = {}
        for clan, names in sorted(missing.items()):
            route = webhooks.route(f"{reminders.audience}:{clan}", "orders")
            if route is None:
                report.no_webhook.append(clan)
            else:
                targets[clan] = (route, names)
        if dry_run:
            report.reminded = {clan: names for clan, (_, names) in targets.items()}
            return report
        # Claim the turn first: a run that dies while posting never reminds twice.
        draft = Draft(state)
        if draft.has("Game", reminders.key):
            draft.set("Game", reminders.key, "Value", period, CAUSE)
        else:
            draft.add_row("Game", {"Key": reminders.key, "Value": period}, CAUSE)
        run.commit(Outcome.of(draft, period, {}, step="remind"))
    zone = str(state.game("time_zone", "") or "").strip() or "UTC"
    for clan, ((label, url), names) in targets.items():
        if label in report.gone:
            report.failed[clan] = f"the {label} webhook no longer exists"
            continue
        try:
            for piece in split_message(message(period, deadline, zone, moment, names, unit)):
                client.post(url, piece, label)
        except WebhookGone as error:
            report.gone.append(label)
            report.failed[clan] = str(error)
            continue
        except WebhookFailed as error:
            report.failed[clan] = str(error)
            continue
        report.reminded[clan] = names
    return report
