"""Clan War tattoos: Togashi Yokuni tattoos the unit he commands if it spends the entire turn in the Togashi
province; replacements for a Tattooed unit pay for its tattoos, and join Yokuni's work only at Togashi."""

from __future__ import annotations

from datetime import UTC, datetime

from sheets_engine.clan_war import new_forces, phases, start
from tests.clan_war_support import cell, default_people, factions, make_turn, person, provinces, results, state, unit

NOW = datetime(2026, 12, 1, 20, 0, tzinfo=UTC)
GAME = {"togashi_province": "Temple"}  # the small map's stand-in for the Togashi province


def dragon(*units: dict, **tabs: list[dict]) -> dict:
    rows = [*factions(), {"Faction": "Dragon", "Koku": 1000, "Daimyo": "Togashi Yokuni"}]
    people = [*default_people(), person("Togashi Yokuni", "Dragon", "Togashi Yokuni", "Temple", "Swords",
                                        Unique=True)]  # fmt: skip
    return {"factions": rows, "personalities": people, "provinces": provinces(Temple="Dragon"), "units": list(units),
            **tabs}  # fmt: skip


def order(action: str, item: str, target: str, count: int | None = None) -> dict:
    return {"Turn": 1, "Faction": "Dragon", "Action": action, "Item": item, "Target": target, "Count": count,
            "Status": "Pending"}  # fmt: skip


def swords(**values: object) -> dict:
    return unit("Swords", "Dragon", "Mirumoto Swordsmen", "Temple", 10, "Togashi Yokuni", **values)


def test_yokuni_tattoos_the_unit_he_commands_when_it_spends_the_whole_turn_at_togashi() -> None:
    rows = dragon(
        swords(),
        unit("Others", "Dragon", "Mirumoto Swordsmen", "Temple", 5, "Gunso"),
        purchases=[order("tattoo", "Dragon Tattoo", "Swords"), order("tattoo", "Tiger Tattoo", "Others")],
    )
    outcome = phases.resolve_turn(state(GAME, **rows), NOW, force=True)
    purchases = outcome.state.frame("Purchases")
    assert list(zip(purchases["Status"], purchases["Result"], strict=True)) == [
        ("Resolved", "Dragon Tattoo for the 10 models of Swords for 100 koku; tattooed in the recovery phase if it "
                     "stays at Temple. Placed: Swords is Tattooed with Dragon Tattoo"),
        ("Rejected", "only a unit Togashi Yokuni commands may be tattooed by him"),
    ]  # fmt: skip
    units = outcome.state.frame("Units")
    assert (units.at["Swords", "Tattooed"], units.at["Swords", "Tattoos"]) == (True, "Dragon Tattoo")


def test_a_unit_that_leaves_togashi_during_the_turn_is_tattooed_only_in_a_turn_it_stays() -> None:
    march = {"Turn": 1, "Phase": "primary", "Faction": "Dragon", "Mover": "Swords", "To": "Pass", "Status": "Pending"}
    rows = dragon(swords(), purchases=[order("tattoo", "Dragon Tattoo", "Swords")], moves=[march])
    outcome = phases.resolve_turn(state(GAME, **rows), NOW, force=True)
    purchases = outcome.state.frame("Purchases")
    assert (purchases.at[2, "Status"], purchases.at[2, "Result"].split(". ")[-1]) == (
        "Accepted", "Waits: Swords did not spend the whole turn at Temple: tattooed at the end of a turn it does",
    )  # fmt: skip
    assert not outcome.state.frame("Units").at["Swords", "Tattooed"]


def test_at_most_two_tattoos_a_unit() -> None:
    rows = dragon(
        swords(Tattooed=True, Tattoos="Dragon Tattoo"),
        purchases=[order("tattoo", "Tiger Tattoo", "Swords"), order("tattoo", "Phoenix Tattoo", "Swords")],
    )
    turn = make_turn(state(GAME, **rows))
    start.orders(turn)
    assert results(turn, "Purchases")[1] == (
        "Rejected", "a unit may be given 2 tattoos, and Swords has Dragon Tattoo, Tiger Tattoo",
    )  # fmt: skip


def test_replacements_for_a_tattooed_unit_pay_for_its_tattoos_and_yokunis_work_only_at_togashi() -> None:
    """Mirumoto Swordsmen are not tattooed by nature: their new troops join only at Togashi, and pay 18 a model
    for the two tattoos besides the troops' 15."""
    inked = {"Tattooed": True, "Tattoos": "Dragon Tattoo, Tiger Tattoo"}
    away = unit("Away", "Dragon", "Mirumoto Swordsmen", "Pass", 5, "Gunso", **inked)
    rows = dragon(
        swords(**inked),
        away,
        purchases=[
            order("replace", "Mirumoto Swordsmen", "Swords", 2),
            order("replace", "Mirumoto Swordsmen", "Away", 2),
        ],
    )
    rows["provinces"] = provinces(Temple="Dragon", Pass="Dragon")
    turn = make_turn(state(GAME, **rows))
    start.orders(turn)
    assert results(turn, "Purchases") == [
        ("Accepted", "bought 2 models for Swords for 66 koku (36 of it for their tattoos); they join it in the "
                     "recovery phase"),
        ("Rejected", "Away was tattooed by Togashi Yokuni: new troops join it only when the whole unit spends the "
                     "entire turn in the Togashi province (Temple)"),
    ]  # fmt: skip
    new_forces.place_new_forces(turn)
    assert cell(turn, "Units", "Swords", "Models") == 12


def test_replacements_for_a_unit_tattooed_by_nature_join_wherever_it_is() -> None:
    monks = unit("Monks", "Dragon", "Togashi Tattooed Monks", "Pass", 5, "Gunso", Tattooed=True,
                 Tattoos="Dragon Tattoo")  # fmt: skip
    rows = dragon(swords(), monks, purchases=[order("replace", "Togashi Tattooed Monks", "Monks", 2)])
    rows["provinces"] = provinces(Temple="Dragon", Pass="Dragon")
    turn = make_turn(state(GAME, **rows))
    start.orders(turn)
    new_forces.place_new_forces(turn)
    assert (cell(turn, "Units", "Monks", "Models"), cell(turn, "Factions", "Dragon", "Koku")) == (7, 1000 - 2 * 28)
