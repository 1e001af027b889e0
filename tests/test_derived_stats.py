"""Guide Section 11, "Summary of Derived Stats": one test per bullet, numbers worked out by hand.

Every expected value below is computed from the guide's formulas and the template Buildings tab
(templates/sengoku/Buildings.csv), never from the engine. Provinces have no buildings and clans
have tech level 0 unless a test says otherwise.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest

from sheets_engine.sengoku.derived import province_stats
from sheets_engine.sengoku.game import read_settings
from tests.support import clan, province, state, tabs

REGEN = ["Tax Regen", "Manpower Regen"]
CAPS = ["Tax Cap", "Manpower Cap"]


def stats(
    provinces: list[dict[str, Any]],
    clans: list[dict[str, Any]],
    game: dict[str, Any] | None = None,
    buildings: list[dict[str, Any]] | None = None,
) -> pd.DataFrame:
    """The derived columns of a small, valid campaign, indexed by province."""
    extra = {} if buildings is None else {"buildings": buildings}
    s = state(game, clans=clans, provinces=provinces, **extra)
    return province_stats(s.frame("Provinces"), s.frame("Clans"), s.frame("Buildings"), read_settings(s))


def owari(
    kind: str = "Rural", capital: bool = False, buildings: tuple[str, ...] = (), resource: str = "", **tech: Any
) -> pd.Series:
    """The derived row of Owari, an Oda province with these buildings and Oda tech levels."""
    slots = {f"Building {i}": name for i, name in enumerate(buildings, start=1)}
    provinces = [province("Owari", Type=kind, Resource=resource, **slots), province("Mino")]
    clans = [clan("Oda", Capital="Owari" if capital else "Mino", **tech)]
    return stats(provinces, clans).loc["Owari"]


def template_buildings() -> list[dict[str, Any]]:
    """The template Buildings tab as records (to add or reorder rows)."""
    header, *rows = tabs()["Buildings"]
    return [dict(zip(header, row, strict=True)) for row in rows]


# Tax / Manpower Regen ---------------------------------------------------------------------------


@pytest.mark.parametrize(("kind", "regen"), [("City", 2), ("Rural", 1)])
def test_tax_regen_base_city_is_2_rural_is_1(kind: str, regen: int) -> None:
    """Regen base: 2 (City) or 1 (rural); Tax and Manpower Regen alike."""
    row = owari(kind)
    assert row[REGEN].tolist() == [regen, regen]


@pytest.mark.parametrize(
    ("kind", "development", "regen"),
    [("City", 3, 2), ("City", 4, 3), ("City", 5, 3), ("Rural", 4, 1), ("Rural", 5, 1)],
)
def test_regen_plus_1_at_development_4_in_a_city_only(kind: str, development: int, regen: int) -> None:
    """+1 if Development >= 4 and the province is a City (not the capital here)."""
    row = owari(kind, Development=development)
    assert row[REGEN].tolist() == [regen, regen]


@pytest.mark.parametrize(
    ("kind", "development", "capital", "regen"),
    [
        ("Rural", 5, True, 1),
        ("Rural", 6, True, 2),
        ("Rural", 6, False, 1),
        ("City", 5, True, 3),
        ("City", 6, True, 4),
        ("City", 6, False, 3),
    ],
)
def test_regen_plus_1_at_development_6_in_the_capital_only(
    kind: str, development: int, capital: bool, regen: int
) -> None:
    """+1 if Development >= 6 and this is your capital (a City at 6 also has the City +1)."""
    row = owari(kind, capital=capital, Development=development)
    assert row[REGEN].tolist() == [regen, regen]


@pytest.mark.parametrize(
    ("kind", "development", "capital", "regen"),
    [("Rural", 0, False, 2), ("City", 0, False, 3), ("City", 6, True, 5)],
)
def test_large_fields_add_1_regen(kind: str, development: int, capital: bool, regen: int) -> None:
    """+1 if the province has Large Fields (an RGO building on Rice), on top of the other bonuses."""
    row = owari(kind, capital=capital, buildings=("Large Fields",), resource="Rice", Development=development)
    assert row[REGEN].tolist() == [regen, regen]


# Tax and Manpower Stockpile Caps ----------------------------------------------------------------


@pytest.mark.parametrize(("kind", "cap"), [("City", 4), ("Rural", 3)])
def test_tax_cap_base_4_city_3_rural(kind: str, cap: int) -> None:
    """Cap base: 4 (City) or 3 (rural), for the Tax and the Manpower Stockpile."""
    row = owari(kind)
    assert row[CAPS].tolist() == [cap, cap]


@pytest.mark.parametrize(
    ("kind", "expansion", "cap"),
    [("City", 4, 4), ("City", 5, 5), ("City", 6, 5), ("Rural", 4, 3), ("Rural", 5, 4)],
)
def test_caps_plus_1_at_expansion_5(kind: str, expansion: int, cap: int) -> None:
    """+1 to both caps if Expansion >= 5."""
    row = owari(kind, Expansion=expansion)
    assert row[CAPS].tolist() == [cap, cap]


@pytest.mark.parametrize(
    ("kind", "development", "capital", "cap"),
    [
        ("City", 4, True, 4),
        ("City", 5, True, 9),
        ("City", 6, True, 9),
        ("City", 5, False, 4),
        ("Rural", 5, True, 8),
        ("Rural", 6, False, 3),
    ],
)
def test_caps_plus_5_at_development_5_in_the_capital(kind: str, development: int, capital: bool, cap: int) -> None:
    """+5 to both caps if Development >= 5 and this is your capital."""
    row = owari(kind, capital=capital, Development=development)
    assert row[CAPS].tolist() == [cap, cap]


def test_caps_expansion_and_capital_bonuses_add_up() -> None:
    """Expansion 5 (+1) and a Development 5 capital (+5) on a City: 4 + 1 + 5 = 10."""
    row = owari("City", capital=True, Development=5, Expansion=5)
    assert row[CAPS].tolist() == [10, 10]


@pytest.mark.parametrize(
    ("kind", "resource", "buildings", "tax_cap"),
    [
        ("Rural", "Fish", ("Fishing Village",), 5),
        ("City", "", ("Treasury",), 6),
        ("Rural", "", ("Storehouse",), 4),
        ("City", "Fish", ("Fishing Village", "Treasury", "Storehouse"), 9),
    ],
)
def test_fishing_village_treasury_storehouse_tax_cap(
    kind: str, resource: str, buildings: tuple[str, ...], tax_cap: int
) -> None:
    """Tax Cap: +2 Fishing Village, +2 Treasury, +1 Storehouse (these leave Manpower Cap alone)."""
    row = owari(kind, buildings=buildings, resource=resource)
    assert row["Tax Cap"] == tax_cap
    assert row["Manpower Cap"] == (4 if kind == "City" else 3)


def test_manpower_cap_has_no_building_bonus_only_expansion_and_capital() -> None:
    """Manpower Cap: base 4 (City), +1 Expansion 5, +5 Development 5 capital = 10; the Tax Cap
    buildings (Fishing Village, Treasury, Storehouse) add 5 to Tax Cap only: 15."""
    row = owari(
        "City",
        capital=True,
        buildings=("Fishing Village", "Treasury", "Storehouse"),
        resource="Fish",
        Development=5,
        Expansion=5,
    )
    assert row["Manpower Cap"] == 10
    assert row["Tax Cap"] == 15


# Development 3 to 6, with and without the capital (City and Rural) -------------------------------

DEVELOPMENT_GRID = [
    # kind, Development, capital, regen, cap, slots
    ("City", 3, False, 2, 4, 5),
    ("City", 3, True, 2, 4, 5),
    ("City", 4, False, 3, 4, 5),
    ("City", 4, True, 3, 4, 5),
    ("City", 5, False, 3, 4, 5),
    ("City", 5, True, 3, 9, 5),
    ("City", 6, False, 3, 4, 5),
    ("City", 6, True, 4, 9, 5),
    ("Rural", 3, False, 1, 3, 5),
    ("Rural", 3, True, 1, 3, 5),
    ("Rural", 4, False, 1, 3, 5),
    ("Rural", 4, True, 1, 3, 5),
    ("Rural", 5, False, 1, 3, 5),
    ("Rural", 5, True, 1, 8, 5),
    ("Rural", 6, False, 1, 3, 5),
    ("Rural", 6, True, 2, 8, 5),
]


@pytest.mark.parametrize(("kind", "development", "capital", "regen", "cap", "slots"), DEVELOPMENT_GRID)
def test_development_3_to_6_with_and_without_the_capital(
    kind: str, development: int, capital: bool, regen: int, cap: int, slots: int
) -> None:
    """Every Development threshold of Section 11 (3 slots, 4 City regen, 5 capital caps, 6 capital
    regen) on both province types, in and out of the capital."""
    row = owari(kind, capital=capital, Development=development)
    assert row[[*REGEN, *CAPS, "Slots"]].tolist() == [regen, regen, cap, cap, slots]


# Mon Bonus --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("building", "resource", "mon"),
    [("Gold Mine", "Gold", 2), ("Silk Weavers", "Silk", 3), ("Mining Village", "Iron", 1), (None, "Gold", 0)],
)
def test_mon_bonus_gold_mine_silk_weavers_mining_village(building: str | None, resource: str, mon: int) -> None:
    """Mon Bonus: Gold Mine +2, Silk Weavers +3, Mining Village +1; no building, no bonus."""
    row = owari("Rural", buildings=(building,) if building else (), resource=resource)
    assert row["Mon Bonus"] == mon


def test_court_mon_bonus_counts_provinces_the_clan_owns() -> None:
    """Court: +1 per province your clan owns. "Owns" is Province Owner, not Controlled By; the
    clan is the one controlling the Court's province.

    Oda owns Owari, Mino and Mikawa (3) but controls only Owari and Mino (2); Imagawa owns
    Suruga and Totomi (2) and controls those and Mikawa (3).
    """
    provinces = [
        province("Owari", Type="City", Building_1="Court"),
        province("Mino"),
        province("Mikawa", Type="City", Controlled_By="Imagawa", Building_1="Court"),
        province("Suruga", Type="City", Province_Owner="Imagawa", Building_1="Court"),
        province("Totomi", Province_Owner="Imagawa"),
    ]
    clans = [clan("Oda", Capital="Owari"), clan("Imagawa", Capital="Suruga")]
    mon = stats(provinces, clans)["Mon Bonus"]
    assert mon.to_dict() == {"Owari": 3, "Mino": 0, "Mikawa": 2, "Suruga": 2, "Totomi": 0}


def test_court_mon_bonus_adds_to_the_gold_mine() -> None:
    """Gold Mine (+2) and Court (+1 x 4 provinces owned) in one City: Mon Bonus 6."""
    provinces = [
        province("Suruga", Type="City", Resource="Gold", Building_1="Gold Mine", Building_2="Court"),
        *(province(name) for name in ("Totomi", "Izu", "Sagami")),
    ]
    assert stats(provinces, [clan("Oda", Capital="Suruga")]).at["Suruga", "Mon Bonus"] == 6


def test_court_in_an_unowned_province_gives_no_mon_bonus() -> None:
    """Court: +1 per province *your clan* owns; with no clan there is nothing to count."""
    provinces = [
        province("Owari", Type="City"),
        province("Sakai", Type="City", Province_Owner="", Building_1="Court"),
        province("Tamba", Province_Owner=""),
        province("Harima", Province_Owner=""),
    ]
    assert stats(provinces, [clan("Oda", Capital="Owari")]).at["Sakai", "Mon Bonus"] == 0


# Levy Bonus, Build Cost Reduction, Slots, Levy Unit -----------------------------------------------


@pytest.mark.parametrize(
    ("buildings", "levy"),
    [((), 0), (("Fields",), 1), (("Barracks",), 2), (("Fields", "Barracks"), 3)],
)
def test_levy_bonus_fields_and_barracks(buildings: tuple[str, ...], levy: int) -> None:
    """Levy Bonus: Fields +1, Barracks +2."""
    assert owari(buildings=buildings)["Levy Bonus"] == levy


@pytest.mark.parametrize(
    ("expansion", "buildings", "reduction"),
    [(0, (), 0), (1, (), 1), (5, (), 1), (0, ("Workshops",), 2), (1, ("Workshops",), 3)],
)
def test_build_cost_reduction_expansion_1_and_workshops(
    expansion: int, buildings: tuple[str, ...], reduction: int
) -> None:
    """Building Cost Reduction: Expansion >= 1: -1 (once, not per level); Workshops: -2."""
    assert owari(buildings=buildings, Expansion=expansion)["Build Cost Reduction"] == reduction


@pytest.mark.parametrize(
    ("expansion", "buildings", "reduction"),
    [
        (0, ("Crumbling Kilns",), 0),
        (1, ("Crumbling Kilns",), 0),
        (1, ("Workshops", "Crumbling Kilns"), 0),
        (1, ("Workshops", "Chipped Tools"), 2),
    ],
)
def test_cost_floor_build_cost_reduction_is_never_negative(
    expansion: int, buildings: tuple[str, ...], reduction: int
) -> None:
    """A GM's building with a negative Cost Reduction cannot push the column below 0
    (Crumbling Kilns -3; Chipped Tools -1: 1 + 2 - 1 = 2 stays positive)."""
    custom = [
        *template_buildings(),
        {"Building": "Crumbling Kilns", "Kind": "Universal", "Cost": 3, "Cost Reduction": -3},
        {"Building": "Chipped Tools", "Kind": "Universal", "Cost": 3, "Cost Reduction": -1},
    ]
    provinces = [province("Owari", **{f"Building {i}": b for i, b in enumerate(buildings, start=1)})]
    clans = [clan("Oda", Expansion=expansion, Capital="Owari")]
    row = stats(provinces, clans, buildings=custom).loc["Owari"]
    assert row["Build Cost Reduction"] == reduction


@pytest.mark.parametrize(("development", "slots"), [(0, 4), (2, 4), (3, 5), (6, 5)])
def test_slots_5_at_development_3(development: int, slots: int) -> None:
    """Section 4: 4 building slots; a fifth unlocks at Development 3."""
    assert owari(Development=development)["Slots"] == slots


def test_slots_come_from_the_game_tab() -> None:
    """building_slots / building_slots_dev3 are Game data a GM may change."""
    provinces = [province("Owari"), province("Kai", Province_Owner="Takeda")]
    clans = [clan("Oda", Development=2, Capital="Owari"), clan("Takeda", Development=3, Capital="Kai")]
    slots = stats(provinces, clans, game={"building_slots": 6, "building_slots_dev3": 8})["Slots"]
    assert slots.to_dict() == {"Owari": 6, "Kai": 8}


@pytest.mark.parametrize(
    ("buildings", "unit"),
    [
        ((), "Spear Levies"),
        (("Fields", "Storehouse"), "Spear Levies"),
        (("Dojo",), "Sword Levies"),
        (("Archery Range", "Dojo"), "Sword Levies"),
        (("Gunsmith", "Archery Range"), "Archer Levies"),
        (("Gunsmith", "Stables"), "Cavalry"),
        (("Fields", "Barracks", "Gunsmith"), "Firearm Levies"),
    ],
)
def test_levy_unit_first_building_in_buildings_row_order(buildings: tuple[str, ...], unit: str) -> None:
    """Section 4: the first applicable building wins, in Buildings row order (Dojo, Archery Range,
    Stables, Gunsmith), whatever slot it stands in; none -> Spear Levies."""
    assert owari("City", buildings=buildings, resource="Horses")["Levy Unit"] == unit


def test_levy_unit_order_is_the_buildings_tab_not_code() -> None:
    """Move Gunsmith to the top of Buildings and it beats a Dojo; default_levy_unit is Game data."""
    rows = template_buildings()
    reordered = [r for r in rows if r["Building"] == "Gunsmith"] + [r for r in rows if r["Building"] != "Gunsmith"]
    provinces = [
        province("Owari", Type="City", Building_1="Dojo", Building_2="Gunsmith"),
        province("Mino", Building_1="Fields"),
    ]
    clans = [clan("Oda", Capital="Owari")]
    result = stats(provinces, clans, game={"default_levy_unit": "Archer Levies"}, buildings=reordered)
    assert result["Levy Unit"].to_dict() == {"Owari": "Firearm Levies", "Mino": "Archer Levies"}


# Whose tech counts ------------------------------------------------------------------------------


def test_controlled_by_clan_tech_counts() -> None:
    """The clan that controls a province (Controlled By, else Province Owner) lends it its tech.

    Owari is Oda's (Development 0, Expansion 0) but held by Takeda (Development 6, Expansion 5):
    City regen 2 + 1 = 3, caps 4 + 1 = 5 (Owari is not Takeda's capital), 5 slots, cost -1.
    Kai, Takeda's own Rural capital: regen 1 + 1 = 2, caps 3 + 1 + 5 = 9.
    """
    provinces = [
        province("Owari", Type="City", Controlled_By="Takeda"),
        province("Kai", Province_Owner="Takeda"),
    ]
    clans = [clan("Oda", Capital="Owari"), clan("Takeda", Development=6, Expansion=5, Capital="Kai")]
    result = stats(provinces, clans)
    columns = [*REGEN, *CAPS, "Slots", "Build Cost Reduction"]
    assert result.loc["Owari", columns].tolist() == [3, 3, 5, 5, 5, 1]
    assert result.loc["Kai", columns].tolist() == [2, 2, 9, 9, 5, 1]


def test_a_captured_capital_loses_its_owners_tech_and_capital_bonuses() -> None:
    """Oda (Development 6, Expansion 5) loses its capital Owari to Takeda (all 0): the City is
    back to regen 2, caps 4, 4 slots, no cost reduction; Capital Of still names Oda."""
    provinces = [
        province("Owari", Type="City", Controlled_By="Takeda"),
        province("Kai", Province_Owner="Takeda"),
    ]
    clans = [clan("Oda", Development=6, Expansion=5, Capital="Owari"), clan("Takeda", Capital="Kai")]
    row = stats(provinces, clans).loc["Owari"]
    assert row[[*REGEN, *CAPS, "Slots", "Build Cost Reduction"]].tolist() == [2, 2, 4, 4, 4, 0]
    assert row["Capital Of"] == "Oda"


def test_capital_of_names_the_clan_whose_capital_it_is() -> None:
    """Capital Of comes from the Clans tab's Capital; other provinces stay empty."""
    provinces = [province("Owari"), province("Mino"), province("Kai", Province_Owner="Takeda")]
    clans = [clan("Oda", Capital="Owari"), clan("Takeda", Capital="Kai")]
    assert stats(provinces, clans)["Capital Of"].to_dict() == {"Owari": "Oda", "Mino": "", "Kai": "Takeda"}


def test_stats_are_computed_when_no_clan_has_a_capital_yet() -> None:
    """A campaign whose clans have not chosen a Capital still gets its derived stats."""
    result = stats([province("Owari", Type="City")], [clan("Oda")])
    assert result.loc["Owari", ["Capital Of", "Tax Regen", "Tax Cap"]].tolist() == ["", 2, 4]
