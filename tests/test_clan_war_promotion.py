"""Clan War promotion: a model to Nikutai, a Nikutai to Gunso, a Gunso to Chui; clan packages stay in their
family, generic ones may go to a family; Elemental Guardians are never promoted nor promoted to."""

from __future__ import annotations

from sheets_engine.clan_war import movement, start
from tests.clan_war_support import cell, factions, make_turn, results, state, unit


def promote(item: str, target: str, faction: str = "Crane") -> dict:
    return {"Turn": 1, "Faction": faction, "Action": "promote", "Item": item, "Target": target, "Status": "Pending"}


def promoted(*rows: dict, units: list[dict] | None = None, **tabs: list[dict]) -> object:
    units = units or [unit("Duelists", "Crane", "Kakita Duelists", "Doji", 10)]
    turn = make_turn(state(units=units, purchases=list(rows), **tabs))
    start.orders(turn)
    return turn


def test_a_model_is_promoted_to_nikutai_then_gunso_then_chui_one_step_at_a_time() -> None:
    turn = promoted(promote("Kakita Gunso", "Duelists"), promote("Kakita Nikutai", "Duelists"),
                    promote("Kakita Gunso", "Duelists"))  # fmt: skip
    assert results(turn, "Purchases") == [
        ("Rejected", "a model is promoted one step, to a rank 1 package: Kakita Gunso is rank 2"),
        ("Resolved", "a model of Duelists promoted to Kakita Nikutai for 10 koku"),
        ("Resolved", "Kakita Nikutai of Duelists promoted to Kakita Gunso for 22 koku"),
    ]
    assert cell(turn, "Units", "Duelists", "Package") == "Kakita Gunso"
    assert cell(turn, "Factions", "Crane", "Koku") == 1000 - 10 - 22


def test_clan_packages_stay_in_family_and_generic_ones_may_join_a_family() -> None:
    """A Kakita Family Nikutai may not be promoted to Daidoji Family Gunso; a generic Gunso to Doji Family Chui."""
    units = [unit("Duelists", "Crane", "Kakita Duelists", "Doji", 10, Package="Kakita Nikutai"),
             unit("Archers", "Crane", "Crane Ashigaru Archers", "Doji", 10, Package="Gunso")]  # fmt: skip
    turn = promoted(promote("Daidoji Gunso", "Duelists"), promote("Doji Chui", "Archers"), units=units)
    assert results(turn, "Purchases") == [
        ("Rejected", "Duelists's Kakita Nikutai is of the Kakita family: clan packages stay in their family "
                     "(Daidoji Gunso is of the Daidoji family)"),
        ("Resolved", "Gunso of Archers promoted to Doji Chui for 35 koku"),
    ]  # fmt: skip


def test_elemental_guardians_are_not_promoted_and_no_package_is_promoted_to_one() -> None:
    rows = factions()
    rows.append({"Faction": "Phoenix", "Koku": 1000, "Daimyo": "Shiba Ujimitsu"})
    from tests.clan_war_support import default_people, person

    people = [*default_people(), person("Shiba Ujimitsu", "Phoenix", "Shiba Ujimitsu", "Temple", Unique=True)]
    units = [unit("Guard", "Phoenix", "Shiba Guard", "Temple", 10, Package="Gunso"),
             unit("Fire", "Phoenix", "Shiba Guard", "Temple", 10, Package="Guardian of Fire"),
             unit("Fresh", "Phoenix", "Shiba Guard", "Temple", 10)]  # fmt: skip
    turn = promoted(promote("Guardian of Fire", "Guard", "Phoenix"), promote("Chui", "Fire", "Phoenix"),
                    promote("Guardian of Fire", "Fresh", "Phoenix"), units=units, factions=rows,
                    personalities=people)  # fmt: skip
    assert results(turn, "Purchases") == [
        ("Rejected", "Guard has Gunso: other leadership packages may not be promoted to Guardian status"),
        ("Rejected", "Fire's Guardian of Fire is an Elemental Guardian: Elemental Guardians may not be promoted"),
        ("Resolved", "a model of Fresh promoted to Guardian of Fire for 40 koku"),
    ]


def test_a_unit_led_by_a_personality_is_promoted_and_the_package_leads_when_the_personality_leaves() -> None:
    """The package stays with the unit whoever commands it (Units Package beside the Leader)."""
    from tests.clan_war_support import default_people, person

    units = [unit("Duelists", "Crane", "Kakita Duelists", "Doji", 10, "Kakita Tomo")]
    people = [*default_people(), person("Kakita Tomo", "Crane", "Kakita Bushi", "Doji", "Duelists")]
    leave = {"Turn": 1, "Faction": "Crane", "Action": "leave", "From": "Kakita Tomo", "Status": "Pending"}
    move = {"Turn": 1, "Phase": "primary", "Faction": "Crane", "Mover": "Duelists", "To": "Kakita", "Status": "Pending"}
    turn = promoted(promote("Kakita Nikutai", "Duelists"), leave, units=units, personalities=people, moves=[move])
    movement.primary(turn)
    assert (cell(turn, "Units", "Duelists", "Leader"), cell(turn, "Units", "Duelists", "Package")) == (
        "", "Kakita Nikutai",
    )  # fmt: skip
    assert results(turn, "Moves") == [("Resolved", "moved from Doji to Kakita")]
