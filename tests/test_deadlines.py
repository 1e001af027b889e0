"""Turn deadlines (issue 14): a cron line every few minutes resolves each turn once, at its deadline.

The demo campaign with `deadline` 2026-11-28 20:00:00, `time_zone` Asia/Tokyo and `turn_hours` 24:
form timestamps are Tokyo time, as Google writes them in a sheet set to that zone.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from click.testing import CliRunner

from sheets_engine import app, cli
from sheets_engine.core.deadlines import schedule
from sheets_engine.core.problems import InvalidCampaign
from sheets_engine.stores.memory import MemoryStore
from tests.support import store as campaign

TOKYO = ZoneInfo("Asia/Tokyo")
FIRST = datetime(2026, 11, 28, 20, 0, tzinfo=TOKYO)
DEADLINE = {"deadline": "2026-11-28 20:00:00", "time_zone": "Asia/Tokyo", "turn_hours": 24}


def game(store: MemoryStore) -> dict[str, Any]:
    return {r["Key"]: r["Value"] for r in store.records("Game")}


def respond(store: MemoryStore, when: datetime, character: str, email: str, order: str, target: str) -> None:
    """A form response, timestamped in the sheet's time zone as Google writes it."""
    stamp = when.astimezone(TOKYO).strftime("%Y-%m-%d %H:%M:%S")
    store.tabs["Form Responses 1"].append([stamp, email, character, order, target, None, None])


def orders_of(store: MemoryStore, submitted: datetime) -> list[dict[str, Any]]:
    stamp = submitted.astimezone(TOKYO).strftime("%Y-%m-%d %H:%M:%S")
    return [r for r in store.records("Orders") if r["Submitted"] == stamp]


@pytest.fixture(scope="module")
def week() -> tuple[MemoryStore, list[tuple[datetime, dict[str, Any]]]]:
    """`resolve --now` every 10 minutes for a week (hourly away from the deadlines); a response one minute
    after each deadline and one at it."""
    store = campaign(game=DEADLINE, demo=True)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(cli.common, "store_for", lambda source: store)
        return _week(store)


def _week(store: MemoryStore) -> tuple[MemoryStore, list[tuple[datetime, dict[str, Any]]]]:
    runner = CliRunner()
    arriving = []
    for day in range(7):
        deadline = FIRST + timedelta(days=day)
        arriving.append((deadline, "Niwa Nagahide", "rice.steward@example.com", "tax-province", "Mino"))
        arriving.append((deadline + timedelta(minutes=1), "Shibata Katsuie", "oni.shibata@example.com",
                         "tax-province", "Owari"))  # fmt: skip
    resolved = []
    start = datetime(2026, 11, 28, 12, 5, tzinfo=TOKYO)
    deadlines = [FIRST + timedelta(days=day) for day in range(7)]
    for tick in range(7 * 24 * 6):
        now = start + timedelta(minutes=10 * tick)
        # Away from a deadline every run finds nothing due, the same way: of those, one an hour is run
        # (each costs a whole read and check); within 70 minutes of one, every run is.
        if tick % 6 and all(abs(now - d) > timedelta(minutes=70) for d in deadlines):
            continue
        while arriving and arriving[0][0] <= now:  # Google appends a response when it is sent
            respond(store, *arriving.pop(0))
        result = runner.invoke(cli.cli, ["resolve", "memory", "--json", "--now", now.isoformat()])
        assert result.exit_code == 0, result.output
        summary = json.loads(result.output)
        if summary["resolved"]:
            resolved.append((now, summary))
    return store, resolved


def _text(moment: datetime) -> str:
    return moment.astimezone(TOKYO).strftime("%Y-%m-%d %H:%M:%S")


def test_a_week_of_cron_runs_resolves_seven_turns_each_at_its_deadline(
    week: tuple[MemoryStore, list[tuple[datetime, dict[str, Any]]]],
) -> None:
    store, resolved = week
    assert [s["turn"] for _, s in resolved] == [1, 2, 3, 4, 5, 6, 7]
    deadlines = [FIRST + timedelta(days=n) for n in range(7)]
    # the first cron run after each deadline (every 10 minutes, at :05) resolves it, with the deadline as cutoff
    assert [now for now, _ in resolved] == [d + timedelta(minutes=5) for d in deadlines]
    assert [s["orders_sent_by"] for _, s in resolved] == [_text(d) for d in deadlines]
    assert [s["next_deadline"] for _, s in resolved] == [_text(d + timedelta(days=1)) for d in deadlines]
    values = game(store)
    assert (values["turn"], values["last_resolved_turn"], values["deadline"]) == (8, 7, "2026-12-05 20:00:00")
    assert values["cutoffs"] in (None, "")  # no turn was forced


def test_a_response_one_minute_after_a_deadline_lands_in_the_next_turn(
    week: tuple[MemoryStore, list[tuple[datetime, dict[str, Any]]]],
) -> None:
    store, _ = week
    for day in range(7):
        deadline = FIRST + timedelta(days=day)
        at = orders_of(store, deadline)
        assert [(r["Turn"], r["Character"]) for r in at] == [(day + 1, "Niwa Nagahide")]
        late = orders_of(store, deadline + timedelta(minutes=1))
        if day < 6:
            assert [(r["Turn"], r["Character"]) for r in late] == [(day + 2, "Shibata Katsuie")]
        else:  # turn 8 is not resolved yet: the response waits in the form
            assert late == []
    # the demo's own response sent at 20:02, after turn 1's deadline, was taken by turn 2
    assert [r["Turn"] for r in store.records("Orders") if r["Submitted"] == "2026-11-28 20:02:00"] == [2]


def test_a_turn_before_its_deadline_is_left_alone() -> None:
    store = campaign(game=DEADLINE, demo=True)
    report = app.resolve(store, now=FIRST - timedelta(seconds=1))
    assert report.summary == {
        "resolved": False,
        "reason": "turn 1 is due at its deadline 2026-11-28 20:00:00 (Asia/Tokyo); use --force to resolve it now",
    }
    assert report.cells_written == 0


def test_force_resolves_now_with_the_cutoff_at_that_moment() -> None:
    store = campaign(game=DEADLINE, demo=True)
    report = app.resolve(store, now=datetime(2026, 11, 28, 10, 0, tzinfo=UTC), force=True)  # 19:00 in Tokyo
    assert report.summary["orders sent by"] == "2026-11-28 19:00:00"
    assert report.summary["form responses waiting for a later turn"] == 4  # 19:08, 19:25, 19:40 and 20:02
    values = game(store)
    # the next deadline is the deadline plus the turn length, not the forced moment plus it
    assert (values["turn"], values["deadline"]) == (2, "2026-11-29 20:00:00")
    assert values["cutoffs"] == "1: 2026-11-28 19:00:00"
    assert [r["Turn"] for r in store.records("Orders")][-1] == 1
    assert "2026-11-28 19:25:00" not in [r["Submitted"] for r in store.records("Orders")]


def test_without_a_deadline_every_response_joins_the_turn() -> None:
    store = campaign(demo=True)
    report = app.resolve(store, now=datetime(2026, 11, 28, 12, 0, tzinfo=UTC), force=True)
    assert "form responses waiting for a later turn" not in report.summary
    assert "orders sent by" not in report.summary
    assert [r["Turn"] for r in store.records("Orders") if r["Submitted"] == "2026-11-28 20:02:00"] == [1]
    assert game(store)["deadline"] in (None, "")


def test_a_time_without_a_zone_is_the_campaigns(monkeypatch: pytest.MonkeyPatch) -> None:
    store = campaign(game=DEADLINE, demo=True)
    monkeypatch.setattr(cli.common, "store_for", lambda source: store)
    early = CliRunner().invoke(cli.cli, ["resolve", "memory", "--now", "2026-11-28 19:59"])
    assert early.exit_code == 0, early.output
    assert early.output.startswith(
        "Nothing to do: turn 1 is due at its deadline 2026-11-28 20:00:00 (Asia/Tokyo); use --force"
    )
    due = json.loads(CliRunner().invoke(cli.cli, ["resolve", "memory", "--json", "--now", "2026-11-28 20:00"]).output)
    assert (due["turn"], due["status"], due["headline"]) == (1, "ok", "Turn 1 (year 1) resolved")


def test_now_that_is_not_a_time_is_refused() -> None:
    result = CliRunner().invoke(cli.cli, ["resolve", "x.xlsx", "--now", "tomorrow"])
    assert result.exit_code == 2
    assert "Error: --now 'tomorrow' is not a time (YYYY-MM-DD HH:MM:SS, optionally +HH:MM or Z)" in result.output


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("time_zone", "Mars/Olympus", "'Mars/Olympus' is not a time zone (an IANA name such as Europe/London"),
        ("deadline", "next Friday", "expected a date and time such as 2026-03-14 09:30"),
        ("cutoffs", "1 at noon", "'1 at noon' is not 'TURN: YYYY-MM-DD HH:MM:SS'"),
    ],
)
def test_a_deadline_key_that_cannot_be_read_is_named(key: str, value: str, message: str) -> None:
    store = campaign(game={**DEADLINE, key: value}, demo=True)
    with pytest.raises(InvalidCampaign) as caught:
        app.resolve(store, now=FIRST)
    problems = [p for p in caught.value.problems if p.tab == "Game"]
    assert [(p.column, p.value) for p in problems] == [("Value", value)]
    assert message in problems[0].expected


def test_deadlines_follow_the_wall_clock_across_summer_time() -> None:
    plan = schedule(1, "2026-03-07 20:00:00", 24, "America/New_York", "")
    # clocks go forward on 8 March 2026: the deadline stays 20:00, 23 hours later
    assert plan.deadline_of(2) == datetime(2026, 3, 8, 20, 0, tzinfo=ZoneInfo("America/New_York"))
    first, second = (plan.deadline_of(n).astimezone(UTC) for n in (1, 2))  # type: ignore[union-attr]
    assert second - first == timedelta(hours=23)
