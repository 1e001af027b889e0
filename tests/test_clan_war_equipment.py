"""Clan War special items, spells and equipment on personalities: a newly purchased special item goes to a
personality who did not battle this turn (never to the Stockpile, which would stop every later resolve)."""

from __future__ import annotations

from datetime import UTC, datetime

from sheets_engine.clan_war import new_forces, phases, purchases
from sheets_engine.clan_war.validate import check
from sheets_engine.core.problems import Severity
from tests.clan_war_support import cell, default_people, make_turn, person, results, state

NOW = datetime(2026, 12, 1, 20, 0, tzinfo=UTC)
HAMMER = "Ancestral Hammer of the Crab"


def order(action: str, item: str = "", target: str = "", **values: object) -> dict:
    return {"Turn": 1, "Faction": "Crab", "Action": action, "Item": item, "Target": target, "Status": "Pending",
            **{k.replace("_", " "): v for k, v in values.items()}}  # fmt: skip


def placed(people: list[dict], *rows: dict) -> object:
    """The start phase's purchases, then the recovery phase's new forces."""
    turn = make_turn(state(personalities=people, purchases=list(rows)))
    purchases.purchases(turn)
    new_forces.place_new_forces(turn)
    return turn


def test_a_special_item_goes_to_the_personality_named_when_it_did_not_battle() -> None:
    people = [*default_people(), person("Hida Aki", "Crab", "Hida Bushi", "Hida", Fought=True)]
    turn = placed(people, order("buy", HAMMER, "Hida Kisada"))
    assert cell(turn, "Personalities", "Hida Kisada", "Items") == HAMMER
    assert results(turn, "Purchases") == [
        ("Resolved", f"bought {HAMMER} for 40 koku; Hida Kisada receives it in the recovery phase. Placed: {HAMMER} "
                     "given to Hida Kisada"),
    ]  # fmt: skip


def test_a_special_item_for_a_personality_who_battled_goes_to_one_who_did_not_the_daimyo_first() -> None:
    people = [*default_people(), person("Hida Aki", "Crab", "Hida Bushi", "Hida", Fought=True),
              person("Kuni Yori", "Crab", "Kuni Shugenja", "Kuni")]  # fmt: skip
    turn = placed(people, order("buy", HAMMER, "Hida Aki"))
    assert (cell(turn, "Personalities", "Hida Aki", "Items"), cell(turn, "Personalities", "Hida Kisada", "Items")) == (
        "", HAMMER,
    )  # fmt: skip
    assert results(turn, "Purchases")[0][1].endswith(
        f"Placed: Hida Aki battled this turn, so {HAMMER} is given to Hida Kisada, who did not (a swap moves it on)"
    )
    people[0]["Fought"] = True  # the Daimyo battled too: the first other personality in the tab's order
    turn = placed(people, order("buy", HAMMER, "Hida Aki"))
    assert cell(turn, "Personalities", "Kuni Yori", "Items") == HAMMER


def test_a_special_item_nobody_may_receive_waits_paid_and_the_campaign_still_resolves() -> None:
    """Every Crab personality battled: the item waits (Accepted), validate finds nothing wrong, and the next
    recovery phase places it on the personality named, who did not battle that turn."""
    people = [person("Hida Kisada", "Crab", "Hida Kisada", "Hida", Unique=True, Fought=True), default_people()[1]]
    turn = placed(people, order("buy", HAMMER, "Hida Kisada"))
    assert results(turn, "Purchases") == [
        ("Accepted", f"bought {HAMMER} for 40 koku; Hida Kisada receives it in the recovery phase. Waits: Hida "
                     f"Kisada battled this turn, and no personality of Crab may receive {HAMMER} this turn (each "
                     "battled or is out of play): it is placed in a later recovery phase on one who did not battle"),
    ]  # fmt: skip
    after = turn.draft.finish()
    assert [str(p) for p in check(after) if p.severity is Severity.ERROR] == []
    assert (after.frame("Stockpile")["Item"] == HAMMER).sum() == 0
    again = phases.resolve_turn(after, NOW, force=True)  # a turn in which Kisada does not battle
    assert again.state.frame("Personalities").at["Hida Kisada", "Items"] == HAMMER
    assert again.state.frame("Purchases").at[2, "Status"] == "Resolved"


def test_a_waiting_unique_item_is_still_held_by_the_faction_that_paid_for_it() -> None:
    people = [person("Hida Kisada", "Crab", "Hida Kisada", "Hida", Unique=True, Fought=True), default_people()[1]]
    turn = placed(people, order("buy", HAMMER, "Hida Kisada"))
    assert purchases.in_play(turn, HAMMER) == ("Crab", False)
