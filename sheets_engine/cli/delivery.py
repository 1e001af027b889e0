"""Discord: notify (each Notifications row posted once) and remind (before the deadline)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from sheets_engine.cli import common
from sheets_engine.cli.common import EXIT_BAD_INPUT, EXIT_FAILURE, EXIT_OK, rows_text
from sheets_engine.cli.group import cli
from sheets_engine.core.names import noun, plural
from sheets_engine.output import emit_json, json_option, payload, print_text, visible


@cli.command()
@click.argument("source")
@click.option(
    "--webhooks",
    "webhooks_file",
    required=True,
    type=click.Path(dir_okay=False),
    metavar="FILE",
    help="TOML file mapping audiences (public, gm, clan:NAME, character:NAME[/CHANNEL]) to webhook URLs.",
)
@click.option("--dry-run", is_flag=True, help="Say which rows would be posted, and post nothing.")
@click.option(
    "--resend-unconfirmed", is_flag=True, help="Post again the rows a run that died had claimed ('sending ...')."
)
@json_option()
def notify(source: str, webhooks_file: str, dry_run: bool, resend_unconfirmed: bool, as_json: bool) -> None:
    """Post every Notifications row not yet delivered to its Discord webhook, once.

    Delivery is recorded in the Notifications tab's Delivered column; a second run posts nothing.
    Rows whose audience has no webhook in FILE are listed and left for later. Exits 2 if a
    webhook no longer exists (fix FILE), 1 if Discord could not be reached (run again later).

    Example: sheets-engine notify campaign.xlsx --webhooks webhooks.toml
    """
    from sheets_engine.notify import Webhooks
    from sheets_engine.notify import notify as deliver

    webhooks = Webhooks.load(Path(webhooks_file))
    report = deliver(common.store_for(source), webhooks, dry_run=dry_run, resend_unconfirmed=resend_unconfirmed)
    code = EXIT_BAD_INPUT if report.gone else EXIT_FAILURE if report.failed else EXIT_OK
    status = "ok" if code == EXIT_OK else "webhook_gone" if report.gone else "unavailable"
    if as_json:
        emit_json(payload(status, code, **report.summary()))
    else:
        verb = "Would post" if dry_run else "Posted"
        print_text(
            f"{verb} {plural(len(report.posted), 'notification')} in {plural(report.messages, 'Discord message')}."
        )
        for audience, rows in sorted(report.unroutable.items()):
            print_text(
                f"Warning: no webhook for {audience}: {plural(len(rows), 'row')} left undelivered "
                f"({noun(len(rows), 'row')} {rows_text(rows)})."
            )
        if report.unconfirmed:
            print_text(
                f"Warning: rows {rows_text(report.unconfirmed)} were being sent by a run that stopped: they may have "
                "reached Discord. Look at the channel, then clear their Delivered cell or use --resend-unconfirmed."
            )
    for label in report.gone:
        click.echo(
            f"Error: the {label} webhook no longer exists (404): make a new one and update {webhooks_file}", err=True
        )
    for why in report.failed.values():
        click.echo(f"Error: {why}; its rows stay undelivered: run again later", err=True)
    if code:
        sys.exit(code)


@cli.command()
@click.argument("source")
@click.option("--webhooks", "webhooks_file", required=True, type=click.Path(dir_okay=False), metavar="FILE",
              help="TOML file mapping clan:NAME (or clan:NAME/orders) to webhook URLs, as for notify.")  # fmt: skip
@click.option("--before", "hours", required=True, type=click.FloatRange(min=0, min_open=True), metavar="HOURS",
              help="Remind once the deadline is less than this many hours away.")  # fmt: skip
@click.option("--now", "at", metavar="TIME", help="Run as if at TIME (as for resolve --now).")
@click.option("--dry-run", is_flag=True, help="Say whom it would remind, and post and write nothing.")
@json_option()
def remind(source: str, webhooks_file: str, hours: float, at: str | None, dry_run: bool, as_json: bool) -> None:
    """Before the deadline, tell each clan which of its living characters have not ordered yet.

    Once per turn, when the turn's deadline is less than HOURS away: each clan's webhook gets the
    names of its characters with no form response and no Orders row for the turn. The Game key
    reminded_turn records it (with a History row) before anything is posted, so a clan is never
    reminded twice. Run it hourly from cron. For Clan War: each faction (faction:NAME) that has no
    Purchases, Bids or Moves row and no Form response for the turn.

    Example: sheets-engine remind campaign.xlsx --webhooks webhooks.toml --before 6
    """
    from sheets_engine.notify import Webhooks
    from sheets_engine.remind import remind as run_remind

    webhooks = Webhooks.load(Path(webhooks_file))
    report = run_remind(
        common.store_for(source), webhooks, hours, now=common.moment(at) if at else None, dry_run=dry_run
    )
    code = EXIT_BAD_INPUT if report.gone else EXIT_FAILURE if report.failed else EXIT_OK
    if as_json:
        status = "nothing_to_do" if report.reason else "ok" if code == EXIT_OK else "webhook_failed"
        emit_json(payload(status, code, **report.summary()))
    elif report.reason:
        print_text(f"Nothing to do: {report.reason}.")
    else:
        verb = "Would remind" if dry_run else "Reminded"
        named = sum(len(v) for v in report.reminded.values())
        group, member = report.group, report.member
        print_text(
            f"{verb} {plural(len(report.reminded), group)} of {plural(named, member)} without an order "
            f"for turn {report.turn}."
        )
        for clan in report.no_webhook:
            print_text(f"Warning: no webhook for {report.audience.get(clan, clan)}: its players were not reminded.")
    for clan, why in report.failed.items():
        click.echo(f"Error: the {clan} {report.group} was not reminded: {visible(why)}", err=True)
    if code:
        sys.exit(code)
