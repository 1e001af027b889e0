"""Guide Section 7, Claim Shogunate: who may claim, the three conditions, several claimants, benefits.

"25% or more" is at least 1.25 times (rules-defaults.md); provinces count Province Owner; deployed
units leave Siege Weapons out and destroyed armies have none; Authority is the value at the start
of the resolution.
"""

from __future__ import annotations

from typing import Any

import pytest

from sheets_engine.sengoku import orders
from sheets_engine.sengoku.execution import executions
from sheets_engine.sengoku.game import read_settings
from sheets_engine.sengoku.phases import phase_list
from sheets_engine.sengoku.shogunate import at_least_more, character_cap, claim_shogunate, deployed_units
from sheets_engine.sengoku.turn import Turn
from tests.support import clan, make_turn, province, state

DAIMYOS = {"Oda": "Oda Nobunaga", "Takeda": "Takeda Shingen", "Mori": "Mori Motonari", "Uesugi": "Uesugi Kenshin"}


def email(name: str) -> str:
    """oda.nobunaga@example.com."""
    return ".".join(name.lower().split()) + "@example.com"


def character(name: str, clan_: str, title: str, authority: int) -> dict[str, Any]:
    """A living character at its clan's capital."""
    return {"Character": name, "Email": email(name), "Clan": clan_, "Title": title, "Authority": authority,
            "Location": f"{clan_} 1", "Status": "Alive"}  # fmt: skip


def claim(minute: int, who: str, kind: str = "claim-shogunate", target: str = "") -> dict[str, Any]:
    """An Orders row for this turn, given by the character itself."""
    return {"Turn": 1, "Submitted": f"2026-11-28 12:{minute:02d}:00", "Email": email(who), "Character": who,
            "Order": kind, "Target": target, "Status": "Pending"}  # fmt: skip


def play(
    *order_rows: dict[str, Any],
    provinces: dict[str, int],
    units: dict[str, int] | None = None,
    authority: dict[str, int] | None = None,
    shogun: str = "",
    rolls: list[int] | None = None,
    extra: list[dict[str, Any]] | None = None,
    people: dict[str, dict[str, Any]] | None = None,
    relations: list[dict[str, Any]] | None = None,
    steps: tuple[Any, ...] = (claim_shogunate,),
) -> Turn:
    """Oda, Takeda, Mori, Uesugi (in Clans row order), each owning `provinces[clan]` provinces
    ("Oda 1", "Oda 2", ...; the first is the capital) and one army of `units[clan]` Spear levies.
    Daimyo Authority: Nobunaga 7, Shingen 6, Motonari 8, Kenshin 5, unless `authority` says otherwise;
    Shibata Katsuie is the Oda Karo (4). `people` changes a character's cells, `extra` adds characters."""
    values = {"Oda": 7, "Takeda": 6, "Mori": 8, "Uesugi": 5, **(authority or {})}
    cast = [character(name, c, "Daimyo", values[c]) for c, name in DAIMYOS.items()]
    cast.append(character("Shibata Katsuie", "Oda", "Karo", 4))
    for row in cast:
        row.update((people or {}).get(row["Character"], {}))
    campaign = state(
        game={"shogun_clan": shogun},
        clans=[clan(c, Capital=f"{c} 1") for c in DAIMYOS],
        provinces=[province(f"{c} {i}", Province_Owner=c) for c in DAIMYOS for i in range(1, provinces.get(c, 1) + 1)],
        characters=cast + (extra or []),
        armies=[{"Army": f"{c} Host", "Clan": c, "Province": f"{c} 1", "Spear": n} for c, n in (units or {}).items()],
        relations=relations or [],
        orders=list(order_rows),
    )
    turn = make_turn(campaign, rolls or [])
    orders.intake(turn)
    for step in steps:
        step(turn)
    return turn


def outcome(turn: Turn, row: int = 2) -> tuple[str, str]:
    """(Status, Result) of the Orders row (the first order is sheet row 2)."""
    return turn.draft.get("Orders", row, "Status"), turn.draft.get("Orders", row, "Result")


def shogun(turn: Turn) -> str:
    return str(turn.draft.game("shogun_clan"))


# With no Shogun -------------------------------------------------------------------------------------


def test_with_no_shogun_a_daimyo_claims_it_outright() -> None:
    """Oda owns 1 province against Takeda's 3: with nobody to surpass, the claim wins."""
    turn = play(claim(0, "Oda Nobunaga"), provinces={"Oda": 1, "Takeda": 3})
    assert shogun(turn) == "Oda"
    assert outcome(turn) == ("Resolved", "You are Shogun: the Oda clan holds the Shogunate")
    public = [(n["Channel"], n["Message"]) for n in turn.draft.logs["Notifications"] if n["Audience"] == "public"]
    assert public == [("world", "Oda Nobunaga, Daimyo of the Oda clan, is proclaimed Shogun.")]
    change = next(c for c in turn.draft.changes if c.tab == "Game")
    assert (change.key, change.column, change.old, change.new, change.cause) == (
        "shogun_clan", "Value", "", "Oda", "claim-shogunate by Oda Nobunaga",
    )  # fmt: skip


def test_of_several_claimants_the_most_provinces_wins() -> None:
    """No Shogun: Oda 3, Mori 4, Uesugi 4 provinces; Mori (Authority 8) beats Uesugi (5) on the tie."""
    turn = play(
        claim(0, "Oda Nobunaga"), claim(1, "Mori Motonari"), claim(2, "Uesugi Kenshin"),
        provinces={"Oda": 3, "Mori": 4, "Uesugi": 4},
    )  # fmt: skip
    assert shogun(turn) == "Mori"
    assert outcome(turn, 2) == (
        "Rejected",
        "Mori Motonari of the Mori clan claimed the Shogunate with a stronger claim (4 provinces, Authority 8; "
        "yours: 3, 7)",
    )
    assert outcome(turn, 3)[0] == "Resolved"
    assert outcome(turn, 4)[0] == "Rejected"


@pytest.mark.parametrize(("lot", "winner"), [(1, "Oda"), (2, "Takeda")])
def test_claimants_tied_on_provinces_and_authority_are_decided_by_a_logged_die(lot: int, winner: str) -> None:
    turn = play(
        claim(0, "Oda Nobunaga"), claim(1, "Takeda Shingen"), provinces={"Oda": 2, "Takeda": 2},
        authority={"Takeda": 7}, rolls=[lot],
    )  # fmt: skip
    assert shogun(turn) == winner
    change = next(c for c in turn.draft.changes if c.tab == "Game")
    assert change.roll == f"d2={lot} (claim-shogunate tie: Oda Nobunaga, Takeda Shingen)"


# Against a sitting Shogun ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("oda_provinces", "oda_units", "nobunaga", "holder"),
    [
        (5, 10, 7, "Oda"),  # 5 >= 1.25 x 4, 10 >= 1.25 x 8, 7 > 6: all three hold
        (4, 10, 7, "Takeda"),  # provinces short: 4 < 5
        (5, 9, 7, "Takeda"),  # units short: 9 < 10
        (5, 10, 6, "Takeda"),  # Authority only equal to the Shogun's
    ],
    ids=["all three", "provinces short", "units short", "authority not higher"],
)
def test_a_claim_against_a_sitting_shogun_needs_all_three_conditions(
    oda_provinces: int, oda_units: int, nobunaga: int, holder: str
) -> None:
    """The Takeda Shogun: 4 provinces, 8 units, Shingen's Authority 6."""
    turn = play(
        claim(0, "Oda Nobunaga"), provinces={"Oda": oda_provinces, "Takeda": 4},
        units={"Oda": oda_units, "Takeda": 8}, authority={"Oda": nobunaga}, shogun="Takeda",
    )  # fmt: skip
    assert shogun(turn) == holder
    assert outcome(turn)[0] == ("Resolved" if holder == "Oda" else "Rejected")


def test_a_claim_that_falls_short_says_every_condition_it_misses() -> None:
    turn = play(
        claim(0, "Oda Nobunaga"), provinces={"Oda": 4, "Takeda": 4}, units={"Oda": 9, "Takeda": 8},
        authority={"Oda": 6}, shogun="Takeda",
    )  # fmt: skip
    assert outcome(turn) == (
        "Rejected",
        "your claim to the Shogunate falls short: the Oda clan owns 4 provinces, the Shogun's Takeda clan 4 (at "
        "least 25% more are needed); the Oda clan deploys 9 units, the Shogun's Takeda clan 8 (at least 25% more "
        "are needed); your Authority 6 does not exceed the Shogun Takeda Shingen's 6",
    )


@pytest.mark.parametrize(
    ("value", "other", "enough"), [(5, 4, True), (4, 4, False), (9, 8, False), (10, 8, True), (0, 0, True)]
)
def test_25_percent_more_means_at_least_1_25_times(value: int, other: int, enough: bool) -> None:
    assert at_least_more(value, other, 25) is enough


def test_siege_weapons_and_destroyed_armies_are_not_deployed_units() -> None:
    """Oda: 6 Spear + 2 Samurai + 4 Siege in the field, and a destroyed army: 8 units."""
    campaign = state(
        clans=[clan("Oda", Capital="Oda 1")],
        provinces=[province("Oda 1")],
        armies=[
            {"Army": "Oda Host", "Clan": "Oda", "Province": "Oda 1", "Spear": 6, "Samurai": 2, "Siege": 4},
            {"Army": "Oda Remnant", "Clan": "Oda", "Province": "Oda 1", "Sword": 3, "Status": "Destroyed"},
        ],
    )
    assert deployed_units(make_turn(campaign).draft, "Oda") == 8


def test_only_qualifying_claimants_compete_against_a_sitting_shogun() -> None:
    """Takeda (2 provinces, 0 units, Shingen 6) is Shogun. Mori owns 5 provinces but Motonari's 5
    does not exceed 6; Oda's 3 provinces (>= 2.5) and Nobunaga's 7 qualify: Oda wins."""
    turn = play(
        claim(0, "Mori Motonari"), claim(1, "Oda Nobunaga"), provinces={"Oda": 3, "Takeda": 2, "Mori": 5},
        authority={"Mori": 5}, shogun="Takeda",
    )  # fmt: skip
    assert shogun(turn) == "Oda"
    assert outcome(turn, 2) == (
        "Rejected",
        "your claim to the Shogunate falls short: your Authority 5 does not exceed the Shogun Takeda Shingen's 6",
    )


@pytest.mark.parametrize(("shingen", "holder"), [("Alive", "Takeda"), ("Dead", "Oda")])
def test_a_shogun_clan_without_a_living_daimyo_has_no_authority_to_exceed(shingen: str, holder: str) -> None:
    """Nobunaga's Authority 1 never exceeds Shingen's 6; with Shingen dead (Takeda still holds the
    Shogunate) only the provinces and units count, and Oda has enough of both."""
    dead = {"Status": "Dead", "Title": "", "Clan": ""} if shingen == "Dead" else {}
    turn = play(
        claim(0, "Oda Nobunaga"), provinces={"Oda": 5, "Takeda": 4}, units={"Oda": 10, "Takeda": 8},
        authority={"Oda": 1}, shogun="Takeda", people={"Takeda Shingen": dead},
    )  # fmt: skip
    assert shogun(turn) == holder


def test_a_claim_uses_authority_at_the_start_of_the_resolution() -> None:
    """Nobunaga 6 executes Katsuie at step 4 (+1 makes 7) but claims with his start value 6,
    which does not exceed Shingen's 6."""
    turn = play(
        claim(0, "Oda Nobunaga"), claim(1, "Oda Nobunaga", "execute", "Shibata Katsuie"),
        provinces={"Oda": 5, "Takeda": 4}, units={"Oda": 10, "Takeda": 8}, authority={"Oda": 6},
        shogun="Takeda", rolls=[1], steps=(executions, claim_shogunate),
    )  # fmt: skip
    assert turn.draft.get("Characters", "Oda Nobunaga", "Authority") == 7
    assert shogun(turn) == "Takeda"


# Who may claim -------------------------------------------------------------------------------------


def test_only_a_daimyo_may_claim_the_shogunate() -> None:
    turn = play(claim(0, "Shibata Katsuie"), provinces={"Oda": 1})
    assert outcome(turn) == (
        "Rejected",
        "only the Daimyo may claim-shogunate; Shibata Katsuie is Karo of the Oda clan",
    )
    assert shogun(turn) == ""


def test_the_shoguns_own_clan_cannot_claim_it_again() -> None:
    turn = play(claim(0, "Takeda Shingen"), provinces={"Takeda": 1}, shogun="Takeda")
    assert outcome(turn) == ("Rejected", "the Takeda clan already holds the Shogunate")


# Benefits --------------------------------------------------------------------------------------------


def test_a_new_shogun_has_relations_with_every_clan() -> None:
    """Mori-Oda exists (written the other way round): only Oda-Takeda and Oda-Uesugi are added."""
    turn = play(
        claim(0, "Oda Nobunaga"), provinces={"Oda": 1},
        relations=[{"Clan A": "Mori", "Clan B": "Oda", "Since Turn": 0}],
    )  # fmt: skip
    pairs = turn.draft.frame("Relations")[["Clan A", "Clan B", "Since Turn"]].values.tolist()
    assert pairs == [["Mori", "Oda", 0], ["Oda", "Takeda", 1], ["Oda", "Uesugi", 1]]
    diplomacy = [n["Audience"] for n in turn.draft.logs["Notifications"] if n["Channel"] == "diplomacy"]
    assert diplomacy == ["clan:Oda", "clan:Takeda", "clan:Oda", "clan:Uesugi"]


def test_the_character_cap_is_5_for_the_shoguns_clan_and_4_otherwise() -> None:
    settings = read_settings(state())
    assert [character_cap(settings, "Oda", c) for c in ("Oda", "Takeda", "")] == [5, 4, 4]
    assert character_cap(settings, "", "") == 4


def test_a_clan_that_loses_the_shogunate_over_the_cap_is_reported_to_the_gm() -> None:
    """Takeda keeps 5 living characters (its Shogun's cap); once Oda takes the Shogunate its cap is 4."""
    retainers = [character(f"Takeda Retainer{i}", "Takeda", "", 1) for i in range(1, 5)]
    turn = play(
        claim(0, "Oda Nobunaga"), provinces={"Oda": 5, "Takeda": 4}, units={"Oda": 10, "Takeda": 8},
        shogun="Takeda", extra=retainers,
    )  # fmt: skip
    gm = [n["Message"] for n in turn.draft.logs["Notifications"] if n["Audience"] == "gm"]
    assert gm == ["The Takeda clan has 5 living characters, over the cap of 4 now that it lost the Shogunate."]


def test_claims_to_the_shogunate_follow_claims_to_be_daimyo_in_step_6() -> None:
    from sheets_engine.sengoku.claim_daimyo import claim_daimyo

    phases = [phase for _, _, phase in phase_list()]
    steps = [step for step, _, _ in phase_list()]
    assert steps[phases.index(claim_shogunate)] == 6
    assert phases.index(claim_daimyo) < phases.index(claim_shogunate)
