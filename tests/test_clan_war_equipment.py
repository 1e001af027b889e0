"""Clan War special items, spells and equipment on personalities: a newly purchased special item goes to a
personality who did not battle this turn (never to the Stockpile, which would stop every later resolve)."""

from __future__ import annotations

from datetime import UTC, datetime

from sheets_engine.clan_war import new_forces, phases, purchases, start
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
    start.orders(turn)
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


def started(people: list[dict], *rows: dict, **tabs: list[dict]) -> object:
    turn = make_turn(state(personalities=people, purchases=list(rows), **tabs))
    start.orders(turn)
    return turn


STOCK = [{"Faction": "Crab", "Item": "Yari", "Count": 2, "Library": ""},
         {"Faction": "Crab", "Item": "Fires of Purity", "Count": 1, "Library": "Kuni"}]  # fmt: skip


def test_mundane_equipment_is_assigned_from_the_stockpile_and_returned_to_it() -> None:
    people = [*default_people(), person("Hida Aki", "Crab", "Hida Bushi", "Kuni")]
    turn = started(people, order("assign", "Yari", "Hida Aki"), order("assign", "Yari", "Hida Kisada"),
                   order("assign", "Yari", "Hida Aki"), order("return", "Yari", From="Hida Aki"),
                   order("assign", "No-dachi", "Hida Aki"), stockpile=STOCK)  # fmt: skip
    assert results(turn, "Purchases") == [
        ("Resolved", "Hida Aki takes Yari from the stockpile"),
        ("Resolved", "Hida Kisada takes Yari from the stockpile"),
        ("Rejected", "Crab's stockpile holds no Yari"),
        ("Resolved", "Hida Aki puts Yari back in the stockpile"),
        ("Rejected", "Crab's stockpile holds no No-dachi"),
    ]
    assert (cell(turn, "Personalities", "Hida Aki", "Items"), cell(turn, "Stockpile", 2, "Count")) == ("", 1)


def test_spells_are_swapped_into_and_out_of_a_library_by_shugenja_at_the_library() -> None:
    people = [
        *default_people(),
        person("Kuni Yori", "Crab", "Kuni Shugenja", "Kuni"),
        person("Kuni Ko", "Crab", "Kuni Shugenja", "Hida"),
        person("Hida Aki", "Crab", "Hida Bushi", "Kuni"),
    ]
    fires = "Fires of Purity"
    turn = started(people, order("assign", fires, "Kuni Ko"), order("assign", fires, "Hida Aki"),
                   order("assign", fires, "Kuni Yori"), order("return", fires, From="Kuni Yori"),
                   stockpile=STOCK)  # fmt: skip
    assert results(turn, "Purchases") == [
        ("Rejected", "Kuni Ko is at Hida, which has no library: spells are swapped at a library"),
        ("Rejected", "Hida Aki is not a shugenja: spells are traded among shugenja"),
        ("Resolved", "Kuni Yori takes Fires of Purity from the library at Kuni"),
        ("Resolved", "Kuni Yori puts Fires of Purity into the library at Kuni"),
    ]
    assert cell(turn, "Stockpile", 3, "Count") == 1


def test_special_items_and_spells_move_between_personalities_at_the_same_province_tattoos_never() -> None:
    people = [person("Hida Kisada", "Crab", "Hida Kisada", "Hida", Unique=True, Items=f"{HAMMER}, Dragon Tattoo"),
              default_people()[1], person("Hida Aki", "Crab", "Hida Bushi", "Hida"),
              person("Kuni Yori", "Crab", "Kuni Shugenja", "Kuni", Items="Earth Becomes Sky")]  # fmt: skip
    turn = started(people, order("swap", HAMMER, "Kuni Yori", From="Hida Kisada"),
                   order("swap", HAMMER, "Hida Aki", From="Hida Kisada"),
                   order("swap", "Dragon Tattoo", "Hida Aki", From="Hida Kisada"),
                   order("swap", "Earth Becomes Sky", "Hida Aki", From="Kuni Yori"),
                   order("return", HAMMER, From="Hida Aki"))  # fmt: skip
    assert results(turn, "Purchases") == [
        ("Rejected", "Hida Kisada is at Hida and Kuni Yori at Kuni: items change hands at the same province"),
        ("Resolved", f"{HAMMER} passes from Hida Kisada to Hida Aki"),
        ("Rejected", "Dragon Tattoo is a tattoo: tattoos may not be traded"),
        ("Rejected", "Hida Aki is not a shugenja: spells are traded among shugenja"),
        ("Rejected", f"{HAMMER} is a special item: it must stay with a personality (swap it to another)"),
    ]
    assert (cell(turn, "Personalities", "Hida Kisada", "Items"), cell(turn, "Personalities", "Hida Aki", "Items")) == (
        "Dragon Tattoo", HAMMER,
    )  # fmt: skip


def test_spells_on_shugenja_are_not_captured_with_the_library() -> None:
    from sheets_engine.clan_war import battles
    from tests.clan_war_support import unit

    people = [*default_people(), person("Kuni Yori", "Crab", "Kuni Shugenja", "Kuni", Items="Earth Becomes Sky")]
    turn = make_turn(state(personalities=people, stockpile=STOCK,
                           units=[unit("Goblins", "Shadowlands", "Goblin Rabble", "Kuni", 10, "Gunso")]))  # fmt: skip
    battles.occupy(turn, [])
    assert (cell(turn, "Stockpile", 3, "Faction"), cell(turn, "Personalities", "Kuni Yori", "Items")) == (
        "Shadowlands", "Earth Becomes Sky",
    )  # fmt: skip
