"""Guide Sections 2 and 4: stockpiles, tax-province, build, recruit-levies, hire and rally Samurai."""

from __future__ import annotations

from typing import Any

import pytest

from sheets_engine.rulesets import get_ruleset
from sheets_engine.sengoku import economy
from sheets_engine.sengoku.economy import building_cost
from sheets_engine.templates import template_records
from tests.campaigns import KATSUIE, provinces, small
from tests.rules import cell, result_of, run


def template_buildings(*extra: dict[str, Any]) -> list[dict[str, Any]]:
    """The template's Buildings rows, plus extra rows."""
    return [*template_records(get_ruleset("sengoku"), "Buildings"), *extra]


# Stockpiles (Section 2) ----------------------------------------------------------


@pytest.mark.parametrize(
    ("start", "expected"),
    [(1, 2), (2, 3), (3, 3)],
    ids=["below the cap", "reaching the cap", "at the cap"],
)
def test_stockpile_regenerates_by_regen_up_to_cap(start: int, expected: int) -> None:
    """Mino is Rural: Regen 1, Cap 3."""
    turn = run(small(provinces=provinces(Mino={"Tax Stockpile": start, "Manpower Stockpile": start})),
               economy.regenerate)  # fmt: skip
    assert cell(turn, "Provinces", "Mino", "Tax Stockpile") == expected
    assert cell(turn, "Provinces", "Mino", "Manpower Stockpile") == expected


def test_stockpile_overage_is_lost() -> None:
    """Owari is a City: Regen 2, Cap 4; 3 + 2 = 5 keeps only 4."""
    turn = run(small(provinces=provinces(Owari={"Tax Stockpile": 3})), economy.regenerate)
    assert cell(turn, "Provinces", "Owari", "Tax Stockpile") == 4


def test_stockpile_above_a_lowered_cap_is_cut_to_it() -> None:
    turn = run(small(provinces=provinces(Mino={"Tax Stockpile": 6})), economy.regenerate)
    assert cell(turn, "Provinces", "Mino", "Tax Stockpile") == 3


# tax-province ------------------------------------------------------------------------


def test_tax_province_collects_the_entire_stockpile_plus_mon_bonus() -> None:
    """Gold Mine: Mon Bonus +2. Treasury 10 + stockpile 2 + bonus 2 = 14; the stockpile resets to 0."""
    state = small(
        (KATSUIE, "Shibata Katsuie", "tax-province", "Owari", ""),
        provinces=provinces(Owari={"Resource": "Gold", "Building 1": "Gold Mine"}),
    )
    turn = run(state, economy.economy_missions)
    assert cell(turn, "Clans", "Oda", "Treasury") == 14
    assert cell(turn, "Provinces", "Owari", "Tax Stockpile") == 0
    assert result_of(turn, "tax-province") == (
        "Resolved",
        "Collected 4 Mon from Owari (Tax Stockpile 2 + Mon Bonus 2); Oda treasury now 14",
    )


def test_tax_province_is_for_the_controlling_clan_not_the_owner() -> None:
    state = small(
        (KATSUIE, "Shibata Katsuie", "tax-province", "Mino", ""),
        ("takeda.shingen@example.com", "Takeda Shingen", "tax-province", "Mino", ""),
        provinces=provinces(Mino={"Controlled By": "Takeda"}),
    )
    turn = run(state, economy.economy_missions)
    frame = turn.draft.frame("Orders")
    assert list(frame["Status"]) == ["Rejected", "Resolved"]
    assert frame["Result"].iloc[0] == "not your province: Mino is controlled by Takeda, not Oda"
    assert cell(turn, "Clans", "Takeda", "Treasury") == 11


def test_tax_province_rejects_an_unknown_province_with_a_hint() -> None:
    turn = run(small((KATSUIE, "Shibata Katsuie", "tax-province", "Owarri", "")), economy.economy_missions)
    assert result_of(turn, "tax-province") == ("Rejected", 'there is no province "Owarri" (did you mean Owari?)')


def test_a_province_is_taxed_once_a_turn() -> None:
    state = small(
        (KATSUIE, "Shibata Katsuie", "tax-province", "Owari", ""),
        ("oda.nobunaga@example.com", "Oda Nobunaga", "tax-province", "Owari", ""),
    )
    turn = run(state, economy.economy_missions)
    assert list(turn.draft.frame("Orders")["Status"]) == ["Resolved", "Rejected"]
    assert cell(turn, "Clans", "Oda", "Treasury") == 12


# build -------------------------------------------------------------------------------


@pytest.mark.parametrize(("base", "reduction", "cost"), [(3, 0, 3), (3, 1, 2), (4, 2, 2), (3, 3, 0), (2, 3, 0)])
def test_building_cost_is_cost_minus_reduction_floored_at_0(base: int, reduction: int, cost: int) -> None:
    assert building_cost(base, reduction) == cost


def test_build_pays_the_cost_and_fills_the_first_free_slot() -> None:
    state = small((KATSUIE, "Shibata Katsuie", "build", "Mino", "Dojo"),
                  provinces=provinces(Mino={"Building 1": "Fields"}))  # fmt: skip
    turn = run(state, economy.economy_missions)
    assert cell(turn, "Provinces", "Mino", "Building 2") == "Dojo"
    assert cell(turn, "Clans", "Oda", "Treasury") == 7
    assert cell(turn, "Characters", "Shibata Katsuie", "Authority") == 5  # Missions: build +1
    assert result_of(turn, "build") == (
        "Resolved",
        "Built Dojo in Mino (Building 2) for 3 Mon; Oda treasury now 7 (Authority +1)",
    )


def test_build_cost_expansion_1_takes_1() -> None:
    turn = run(small((KATSUIE, "Shibata Katsuie", "build", "Mino", "Dojo"), oda={"Expansion": 1}),
               economy.economy_missions)  # fmt: skip
    assert cell(turn, "Clans", "Oda", "Treasury") == 8


def test_build_cost_workshops_take_2_and_expansion_1_more() -> None:
    state = small((KATSUIE, "Shibata Katsuie", "build", "Mino", "Library"),
                  oda={"Expansion": 1},
                  provinces=provinces(Mino={"Type": "City", "Building 1": "Workshops"}))  # fmt: skip
    turn = run(state, economy.economy_missions)
    assert cell(turn, "Clans", "Oda", "Treasury") == 9  # Library 4 - 1 - 2 = 1


def test_build_cost_never_below_0() -> None:
    state = small((KATSUIE, "Shibata Katsuie", "build", "Mino", "Shrine"),
                  oda={"Expansion": 1},
                  provinces=provinces(Mino={"Building 1": "Workshops"}),
                  buildings=template_buildings({"Building": "Shrine", "Kind": "Universal", "Cost": "1"}))  # fmt: skip
    turn = run(state, economy.economy_missions)
    assert cell(turn, "Clans", "Oda", "Treasury") == 10
    assert result_of(turn, "build")[1].startswith("Built Shrine in Mino (Building 2) for 0 Mon (1 less 3 reduction)")


def test_build_rejects_a_city_building_in_a_rural_province() -> None:
    turn = run(small((KATSUIE, "Shibata Katsuie", "build", "Mino", "Treasury")), economy.economy_missions)
    assert result_of(turn, "build") == ("Rejected", "Treasury can only be built in a City; Mino is Rural")


def test_build_rejects_an_rgo_building_without_its_resource() -> None:
    turn = run(small((KATSUIE, "Shibata Katsuie", "build", "Mino", "Gold Mine")), economy.economy_missions)
    assert result_of(turn, "build") == ("Rejected", "Gold Mine needs the resource Gold; Mino has none")


def test_build_rejects_when_the_treasury_cannot_pay() -> None:
    turn = run(small((KATSUIE, "Shibata Katsuie", "build", "Mino", "Dojo"), oda={"Treasury": 2}),
               economy.economy_missions)  # fmt: skip
    assert result_of(turn, "build") == ("Rejected", "not enough Mon: Dojo costs 3 and the Oda treasury holds 2")


FULL = {"Building 1": "Dojo", "Building 2": "Fields", "Building 3": "Storehouse", "Building 4": "Temple"}


def test_build_rejects_when_the_4_slots_are_full() -> None:
    turn = run(small((KATSUIE, "Shibata Katsuie", "build", "Mino", "Barracks"), provinces=provinces(Mino=FULL)),
               economy.economy_missions)  # fmt: skip
    assert result_of(turn, "build") == ("Rejected", "no free slot in Mino (4 slots, all built)")


def test_the_5th_slot_unlocks_at_development_3() -> None:
    state = small((KATSUIE, "Shibata Katsuie", "build", "Mino", "Barracks"),
                  oda={"Development": 3}, provinces=provinces(Mino=FULL))  # fmt: skip
    turn = run(state, economy.economy_missions)
    assert cell(turn, "Provinces", "Mino", "Building 5") == "Barracks"


def test_build_rejects_a_building_the_province_already_has() -> None:
    turn = run(small((KATSUIE, "Shibata Katsuie", "build", "Mino", "Dojo"), provinces=provinces(Mino=FULL)),
               economy.economy_missions)  # fmt: skip
    assert result_of(turn, "build") == ("Rejected", "Mino already has Dojo")


def test_building_a_fortress_where_one_stands_raises_its_level() -> None:
    state = small((KATSUIE, "Shibata Katsuie", "build", "Mino", "Fortress"),
                  provinces=provinces(Mino={"Building 1": "Fortress", "Fortress Level": 1}))  # fmt: skip
    turn = run(state, economy.economy_missions)
    assert cell(turn, "Provinces", "Mino", "Fortress Level") == 2
    assert cell(turn, "Provinces", "Mino", "Building 2") == ""
    assert cell(turn, "Clans", "Oda", "Treasury") == 5


def test_a_new_fortress_takes_a_slot_at_level_1() -> None:
    turn = run(small((KATSUIE, "Shibata Katsuie", "build", "Mino", "Fortress")), economy.economy_missions)
    assert cell(turn, "Provinces", "Mino", "Building 1") == "Fortress"
    assert cell(turn, "Provinces", "Mino", "Fortress Level") == 1


# recruit-levies ----------------------------------------------------------------------


def test_recruit_levies_joins_the_clans_army_in_the_province() -> None:
    """Owari: Manpower Stockpile 1, Levy Bonus 0, no unit building: 1 Spear Levies."""
    turn = run(small((KATSUIE, "Shibata Katsuie", "recruit-levies", "Owari", "")), economy.economy_missions)
    assert cell(turn, "Armies", "Oda Main Host", "Spear") == 5
    assert cell(turn, "Provinces", "Owari", "Manpower Stockpile") == 0


def test_levy_unit_is_chosen_by_building_order_and_levy_bonus_adds_units() -> None:
    """Dojo comes before Archery Range in Buildings; Barracks +2 and Fields +1: 2 + 3 = 5 Sword Levies."""
    mino = {"Building 1": "Archery Range", "Building 2": "Dojo", "Building 3": "Barracks", "Building 4": "Fields"}
    turn = run(small((KATSUIE, "Shibata Katsuie", "recruit-levies", "Mino", ""), provinces=provinces(Mino=mino)),
               economy.economy_missions)  # fmt: skip
    assert cell(turn, "Armies", "Oda Levies of Mino", "Sword") == 5
    assert cell(turn, "Armies", "Oda Levies of Mino", "Clan") == "Oda"
    assert cell(turn, "Armies", "Oda Levies of Mino", "Status") == "Field"
    assert result_of(turn, "recruit-levies") == (
        "Resolved",
        "Recruited 5 Sword Levies in Mino (Manpower Stockpile 2 + Levy Bonus 3); formed a new army, Oda Levies of Mino",
    )


def test_recruit_levies_rejects_when_there_is_no_manpower() -> None:
    turn = run(small((KATSUIE, "Shibata Katsuie", "recruit-levies", "Mino", ""),
                     provinces=provinces(Mino={"Manpower Stockpile": 0})), economy.economy_missions)  # fmt: skip
    assert result_of(turn, "recruit-levies") == (
        "Rejected",
        "no manpower to recruit in Mino (Manpower Stockpile 0, Levy Bonus 0)",
    )


# hire-samurai and rally-samurai ----------------------------------------------------------


def test_hire_samurai_costs_7_mon_each() -> None:
    turn = run(small((KATSUIE, "Shibata Katsuie", "hire-samurai", "Oda Main Host", "2"), oda={"Treasury": 20}),
               economy.economy_missions)  # fmt: skip
    assert cell(turn, "Armies", "Oda Main Host", "Samurai") == 2
    assert cell(turn, "Clans", "Oda", "Treasury") == 6


def test_hire_samurai_rejects_when_the_treasury_cannot_pay() -> None:
    turn = run(small((KATSUIE, "Shibata Katsuie", "hire-samurai", "Oda Main Host", "2")), economy.economy_missions)
    assert result_of(turn, "hire-samurai") == (
        "Rejected",
        "not enough Mon: 2 Samurai cost 14 (7 each) and the treasury holds 10",
    )


def test_hire_samurai_rejects_another_clans_army_and_a_count_that_is_not_a_number() -> None:
    state = small(
        ("takeda.shingen@example.com", "Takeda Shingen", "hire-samurai", "Oda Main Host", ""),
        (KATSUIE, "Shibata Katsuie", "hire-samurai", "Oda Main Host", "two"),
    )
    turn = run(state, economy.economy_missions)
    assert list(turn.draft.frame("Orders")["Result"]) == [
        "not your army: Oda Main Host belongs to Oda",
        '"two" is not a number of Samurai (write a whole number such as 2)',
    ]


def test_rally_samurai_is_for_the_shoguns_clan_only() -> None:
    turn = run(small((KATSUIE, "Shibata Katsuie", "rally-samurai", "Oda Main Host", "1")), economy.economy_missions)
    assert result_of(turn, "rally-samurai") == ("Rejected", "only the Shogun's clan may rally Samurai")


def test_rally_samurai_recruits_up_to_5_at_6_mon_each() -> None:
    state = small((KATSUIE, "Shibata Katsuie", "rally-samurai", "Oda Main Host", "5"),
                  oda={"Treasury": 40}, game={"shogun_clan": "Oda"})  # fmt: skip
    turn = run(state, economy.economy_missions)
    assert cell(turn, "Armies", "Oda Main Host", "Samurai") == 5
    assert cell(turn, "Clans", "Oda", "Treasury") == 10


def test_rally_samurai_rejects_more_than_5() -> None:
    state = small((KATSUIE, "Shibata Katsuie", "rally-samurai", "Oda Main Host", "6"),
                  oda={"Treasury": 40}, game={"shogun_clan": "Oda"})  # fmt: skip
    turn = run(state, economy.economy_missions)
    assert result_of(turn, "rally-samurai") == ("Rejected", "at most 5 Samurai can be rallied in one order")


def test_tax_comes_before_build_in_the_same_turn() -> None:
    """Economy missions resolve tax first: Mon taxed this turn pays for a building ordered this turn."""
    state = small(
        ("oda.nobunaga@example.com", "Oda Nobunaga", "build", "Mino", "Dojo"),
        (KATSUIE, "Shibata Katsuie", "tax-province", "Owari", ""),
        oda={"Treasury": 1},
    )
    turn = run(state, economy.economy_missions)
    assert list(turn.draft.frame("Orders")["Status"]) == ["Resolved", "Resolved"]
    assert cell(turn, "Clans", "Oda", "Treasury") == 0
