"""Guide Section 7, Claim Daimyo: one challenger per clan, the contest, the flee check, the announcement.

Flee threshold = clamp(10 - (winner's - loser's Authority) + modifiers, 2, 18); Authority as at the
start of the resolution. The Oda capital Owari borders Mino and Ise; Omi is two hops away (via
Mino), Yamashiro three.
"""

from __future__ import annotations

from typing import Any

import pytest

from sheets_engine.sengoku import knowledge, orders
from sheets_engine.sengoku.claim_daimyo import claim_daimyo, flee_threshold
from sheets_engine.sengoku.execution import executions
from sheets_engine.sengoku.phases import phase_list
from sheets_engine.sengoku.turn import Turn
from tests.support import clan, make_turn, province, state

NOBUNAGA, KATSUIE, NAGAHIDE, TOKICHIRO = "Oda Nobunaga", "Shibata Katsuie", "Niwa Nagahide", "Kinoshita Tokichiro"


def character(name: str, clan_: str, title: str, authority: int, location: str) -> dict[str, Any]:
    """A living character whose email is its first name at example.com."""
    return {"Character": name, "Email": f"{name.split()[0].lower()}@example.com", "Clan": clan_, "Title": title,
            "Authority": authority, "Location": location, "Status": "Alive"}  # fmt: skip


def order(minute: int, who: str, kind: str = "claim-daimyo", target: str = "") -> dict[str, Any]:
    """An Orders row for this turn, given by the character itself."""
    return {"Turn": 1, "Submitted": f"2026-11-28 12:{minute:02d}:00", "Email": f"{who.split()[0].lower()}@example.com",
            "Character": who, "Order": kind, "Target": target, "Status": "Pending"}  # fmt: skip


REFUGE = {"Army": "Oda Vanguard", "Clan": "Oda", "Province": "Omi", "Leader": "", "Spear": 3}


def play(
    *order_rows: dict[str, Any],
    rolls: list[int],
    authority: dict[str, int] | None = None,
    people: dict[str, dict[str, Any]] | None = None,
    armies: list[dict[str, Any]] | None = None,
    game: dict[str, Any] | None = None,
    steps: tuple[Any, ...] = (claim_daimyo,),
) -> Turn:
    """The Oda clan (Nobunaga Daimyo 7, Katsuie 4, Nagahide 6, Tokichiro 3) and Takeda (Shingen
    Daimyo 6, Kansuke 2, at the capital Kai next to Shinano). `people` changes a character's cells.

    Armies: the Main Host led by Nobunaga and a leaderless guard, both at the capital Owari, and
    the leaderless Vanguard in Omi (REFUGE) unless `armies` replaces it.
    """
    values = {NOBUNAGA: 7, KATSUIE: 4, NAGAHIDE: 6, TOKICHIRO: 3, **(authority or {})}
    titles = {NOBUNAGA: "Daimyo", KATSUIE: "Karo", NAGAHIDE: "Shikibu Kyo", TOKICHIRO: "Bugyo"}
    where = {NOBUNAGA: "Owari", KATSUIE: "Mino", NAGAHIDE: "Owari", TOKICHIRO: "Ise"}
    cast = [character(n, "Oda", titles[n], values[n], where[n]) for n in titles]
    cast.append(character("Takeda Shingen", "Takeda", "Daimyo", 6, "Kai"))
    cast.append(character("Yamamoto Kansuke", "Takeda", "", 2, "Kai"))
    for row in cast:
        row.update((people or {}).get(row["Character"], {}))
    base = [
        {"Army": "Oda Main Host", "Clan": "Oda", "Province": "Owari", "Leader": NOBUNAGA, "Spear": 8},
        {"Army": "Oda Home Guard", "Clan": "Oda", "Province": "Owari", "Leader": "", "Spear": 2},
    ]
    campaign = state(
        game=game,
        clans=[clan("Takeda", Capital="Kai"), clan("Oda", Capital="Owari")],
        provinces=[
            province("Owari", Adjacent="Mino, Ise"),
            province("Mino", Adjacent="Owari, Omi"),
            province("Omi", Adjacent="Mino, Yamashiro"),
            province("Yamashiro", Adjacent="Omi"),
            province("Ise", Adjacent="Owari"),
            province("Kai", Province_Owner="Takeda", Adjacent="Shinano"),
            province("Shinano", Province_Owner="Takeda", Adjacent="Kai"),
        ],
        characters=cast,
        armies=base + (armies if armies is not None else [REFUGE]),
        orders=list(order_rows),
    )
    turn = make_turn(campaign, rolls)
    orders.intake(turn)
    for step in steps:
        step(turn)
    return turn


def who(turn: Turn, name: str) -> tuple[str, str, str, str]:
    """(Clan, Title, Location, Status) of a character."""
    row = turn.draft.row("Characters", name)
    return row["Clan"], row["Title"], row["Location"], row["Status"]


def outcome(turn: Turn, row: int = 2) -> tuple[str, str]:
    """(Status, Result) of the Orders row (the first order is sheet row 2)."""
    return turn.draft.get("Orders", row, "Status"), turn.draft.get("Orders", row, "Result")


def public(turn: Turn) -> list[tuple[str, str]]:
    """(channel, message) of every public notification."""
    return [(n["Channel"], n["Message"]) for n in turn.draft.logs["Notifications"] if n["Audience"] == "public"]


# The flee threshold -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("winner", "loser", "modifier", "threshold"),
    [
        (7, 4, 0, 7),  # 10 - 3
        (7, 7, 0, 10),  # a tie: 10
        (20, 4, 0, 2),  # 10 - 16 = -6, raised to 2
        (8, 4, 0, 6),
        (7, 4, 3, 10),  # a GM's modifier is added
        (7, 4, 12, 18),  # 10 - 3 + 12 = 19, lowered to 18
    ],
)
def test_flee_threshold_is_10_minus_the_authority_difference_plus_modifiers_clamped_2_to_18(
    winner: int, loser: int, modifier: int, threshold: int
) -> None:
    assert flee_threshold(winner, loser, 10, modifier, 2, 18) == threshold


# The contest --------------------------------------------------------------------------------------


def test_higher_authority_claimant_wins_and_becomes_daimyo() -> None:
    """Katsuie 9 against Nobunaga 7: Katsuie is Daimyo; Nobunaga's threshold 10 - 2 = 8, a 8 flees."""
    turn = play(order(0, KATSUIE), rolls=[8], authority={KATSUIE: 9})
    assert who(turn, KATSUIE) == ("Oda", "Daimyo", "Mino", "Alive")
    assert outcome(turn) == (
        "Resolved",
        "You overthrew Oda Nobunaga and are Daimyo of the Oda clan (Authority 9 against 7); Oda Nobunaga fled to "
        "lead Oda Vanguard in Omi (flee check: d20 rolled 8, threshold 8) (Authority +2)",
    )


def test_the_winning_claimant_gets_the_missions_authority_for_claim_daimyo() -> None:
    """Missions: claim-daimyo winner +2 (9 -> 11)."""
    turn = play(order(0, KATSUIE), rolls=[8], authority={KATSUIE: 9})
    assert turn.draft.get("Characters", KATSUIE, "Authority") == 11


def test_a_usurpers_victory_is_announced_publicly() -> None:
    turn = play(order(0, KATSUIE), rolls=[8], authority={KATSUIE: 9})
    assert public(turn) == [("world", "Shibata Katsuie has overthrown Oda Nobunaga as Daimyo of the Oda clan.")]


def test_a_fleeing_loser_leads_the_first_leaderless_army_outside_the_capital() -> None:
    """The Home Guard is leaderless but in the capital; the Vanguard (Omi) is first outside it.
    The deposed Daimyo keeps his clan, loses the title and leaves the Main Host leaderless."""
    second = {"Army": "Oda Rearguard", "Clan": "Oda", "Province": "Ise", "Leader": "", "Spear": 1}
    turn = play(order(0, KATSUIE), rolls=[8], authority={KATSUIE: 9}, armies=[REFUGE, second])
    assert who(turn, NOBUNAGA) == ("Oda", "", "Omi", "Alive")
    leaders = turn.draft.frame("Armies")["Leader"].to_dict()
    assert leaders == {"Oda Main Host": "", "Oda Home Guard": "", "Oda Vanguard": NOBUNAGA, "Oda Rearguard": ""}


def test_a_loser_with_no_army_to_lead_is_exiled_within_2_hops_of_the_capital() -> None:
    """No leaderless army outside Owari (the destroyed one does not count): Mino, Omi and Ise lie
    within 2 hops (Provinces row order), Yamashiro does not; the die's 3 picks Ise."""
    wrecked = {"Army": "Oda Remnant", "Clan": "Oda", "Province": "Mino", "Leader": "", "Status": "Destroyed"}
    takeda = {"Army": "Takeda Scouts", "Clan": "Takeda", "Province": "Mino", "Leader": ""}
    turn = play(order(0, KATSUIE), rolls=[8, 3], authority={KATSUIE: 9}, armies=[wrecked, takeda])
    assert who(turn, NOBUNAGA) == ("Oda", "", "Ise", "Alive")
    assert turn.dice.rolls[1].sides == 3
    location = next(c for c in turn.draft.changes if c.key == NOBUNAGA and c.column == "Location")
    assert location.roll == (
        "d20=8 (flee check of Oda Nobunaga (claim-daimyo by Shibata Katsuie)); "
        "d3=3 (exile of Oda Nobunaga within 2 hops of Owari)"
    )


def test_a_loser_over_the_threshold_dies() -> None:
    """Threshold 8; a 9 kills the deposed Daimyo, announced in the graveyard."""
    turn = play(order(0, KATSUIE), rolls=[9], authority={KATSUIE: 9})
    assert who(turn, NOBUNAGA) == ("", "", "Owari", "Dead")
    assert who(turn, KATSUIE)[1] == "Daimyo"
    assert public(turn) == [
        ("graveyard", "Oda Nobunaga, Daimyo of the Oda clan, has died: killed in the coup of Shibata Katsuie."),
        ("world", "Shibata Katsuie has overthrown Oda Nobunaga as Daimyo of the Oda clan."),
    ]


def test_a_daimyo_who_defends_is_not_announced_and_the_claimant_flees() -> None:
    """Katsuie 4 against Nobunaga 7: Nobunaga keeps the title; threshold 10 - 3 = 7, a 7 flees.
    No Authority changes: the Missions Authority goes to a winning claimant only."""
    turn = play(order(0, KATSUIE), rolls=[7])
    assert who(turn, NOBUNAGA) == ("Oda", "Daimyo", "Owari", "Alive")
    assert who(turn, KATSUIE) == ("Oda", "", "Omi", "Alive")
    assert public(turn) == []
    assert outcome(turn) == (
        "Resolved",
        "Your claim failed: Oda Nobunaga kept the title (Authority 7 against 4); you fled to lead Oda Vanguard in "
        "Omi (flee check: d20 rolled 7, threshold 7)",
    )
    assert [turn.draft.get("Characters", n, "Authority") for n in (NOBUNAGA, KATSUIE)] == [7, 4]


def test_a_failed_claimant_over_the_threshold_dies_without_word_of_the_coup() -> None:
    """The death goes to the graveyard (every death does); the failed coup is not announced."""
    turn = play(order(0, KATSUIE), rolls=[8])
    assert who(turn, KATSUIE) == ("", "", "Mino", "Dead")
    assert public(turn) == [("graveyard", "Shibata Katsuie, Karo of the Oda clan, has died.")]


@pytest.mark.parametrize(("coin", "daimyo"), [(1, KATSUIE), (2, NOBUNAGA)])
def test_an_authority_tie_between_claimant_and_daimyo_goes_to_a_coin_flip(coin: int, daimyo: str) -> None:
    """Both 7: the coin's 1 is the claimant's; the loser's threshold is 10, a 10 flees."""
    turn = play(order(0, KATSUIE), rolls=[coin, 10], authority={KATSUIE: 7})
    assert who(turn, daimyo)[1] == "Daimyo"
    assert str(turn.dice.rolls[0]) == (
        f"d2={coin} (claim-daimyo by Shibata Katsuie: Authority tie with Oda Nobunaga (1: Shibata Katsuie wins))"
    )


@pytest.mark.parametrize(("roll", "status"), [(2, "Alive"), (3, "Dead")])
def test_the_flee_threshold_never_falls_below_2(roll: int, status: str) -> None:
    """Nobunaga 20 against Katsuie 4: 10 - 16 = -6, raised to 2."""
    turn = play(order(0, KATSUIE), rolls=[roll], authority={NOBUNAGA: 20})
    assert who(turn, KATSUIE)[3] == status


@pytest.mark.parametrize(("roll", "status"), [(18, "Alive"), (19, "Dead")])
def test_the_flee_threshold_never_rises_above_18(roll: int, status: str) -> None:
    """flee_modifier 12 (Game data): 10 - 3 + 12 = 19, lowered to 18."""
    turn = play(order(0, KATSUIE), rolls=[roll], game={"flee_modifier": 12})
    assert who(turn, KATSUIE)[3] == status


@pytest.mark.parametrize(("roll", "status"), [(5, "Alive"), (6, "Dead")])
def test_the_flee_modifier_is_game_data(roll: int, status: str) -> None:
    """flee_modifier -2: 10 - 3 - 2 = 5."""
    turn = play(order(0, KATSUIE), rolls=[roll], game={"flee_modifier": -2})
    assert who(turn, KATSUIE)[3] == status


# Several claimants ----------------------------------------------------------------------------------


def test_of_several_clanmates_only_the_highest_authority_challenges() -> None:
    """Katsuie 4, Nagahide 6, Tokichiro 3 claim: Nagahide challenges (and loses to 7, a 9 flees at
    threshold 9); the others are cancelled. One die only."""
    turn = play(order(0, KATSUIE), order(1, NAGAHIDE), order(2, TOKICHIRO), rolls=[9])
    assert outcome(turn, 2) == (
        "Rejected",
        "cancelled: only one clanmate may challenge the Daimyo in a turn, the claimant with the highest Authority: "
        "Niwa Nagahide (Authority 6); your Authority is 4",
    )
    assert outcome(turn, 3)[1].startswith("Your claim failed: Oda Nobunaga kept the title (Authority 7 against 6)")
    assert outcome(turn, 4)[0] == "Rejected"
    assert [who(turn, n)[1] for n in (NOBUNAGA, KATSUIE, NAGAHIDE, TOKICHIRO)] == ["Daimyo", "Karo", "", "Bugyo"]


@pytest.mark.parametrize(("lot", "challenger", "other"), [(1, KATSUIE, NAGAHIDE), (2, NAGAHIDE, KATSUIE)])
def test_claimants_tied_on_authority_are_decided_by_a_logged_coin_flip(lot: int, challenger: str, other: str) -> None:
    """Katsuie and Nagahide both 6: the d2 picks among them in submission order."""
    turn = play(order(0, KATSUIE), order(1, NAGAHIDE), rolls=[lot, 1], authority={KATSUIE: 6})
    assert who(turn, challenger)[2] == "Omi"  # challenged, lost, fled
    assert who(turn, other)[1] == {KATSUIE: "Karo", NAGAHIDE: "Shikibu Kyo"}[other]
    cancelled = next(r for r in (2, 3) if outcome(turn, r)[0] == "Rejected")
    assert outcome(turn, cancelled)[1].endswith(
        f"{challenger} (Authority 6, chosen by lot among those tied (d2={lot} (claim-daimyo tie in Oda: "
        f"Shibata Katsuie, Niwa Nagahide))); your Authority is 6"
    )


def test_coups_in_two_clans_are_each_resolved() -> None:
    """Clans in Clans row order, Takeda first: Kansuke 2 fails against Shingen 6 (threshold 6, a 6
    flees; exile to Shinano, the only province near Kai, d1); then Katsuie 9 takes Oda (a 8 flees)."""
    turn = play(order(0, KATSUIE), order(1, "Yamamoto Kansuke"), rolls=[6, 1, 8], authority={KATSUIE: 9})
    assert who(turn, "Yamamoto Kansuke") == ("Takeda", "", "Shinano", "Alive")
    assert who(turn, "Takeda Shingen")[1] == "Daimyo"
    assert who(turn, KATSUIE)[1] == "Daimyo"
    assert who(turn, NOBUNAGA) == ("Oda", "", "Omi", "Alive")
    assert [r.purpose for r in turn.dice.rolls] == [
        "flee check of Yamamoto Kansuke (claim-daimyo by Yamamoto Kansuke)",
        "exile of Yamamoto Kansuke within 2 hops of Kai",
        "flee check of Oda Nobunaga (claim-daimyo by Shibata Katsuie)",
    ]


# Who may claim --------------------------------------------------------------------------------------


def test_the_daimyo_cannot_claim_his_own_title() -> None:
    turn = play(order(0, NOBUNAGA), rolls=[])
    assert outcome(turn) == ("Rejected", "Oda Nobunaga is already the Daimyo of the Oda clan")


def test_a_claimant_executed_at_step_4_has_no_claim() -> None:
    """Nobunaga executes Katsuie first (threshold 20); Katsuie's claim is then rejected."""
    turn = play(order(0, KATSUIE), order(1, NOBUNAGA, "execute", KATSUIE), rolls=[20],
                steps=(executions, claim_daimyo))  # fmt: skip
    assert outcome(turn, 2) == ("Rejected", "Shibata Katsuie died before the claim was heard")


def test_a_clan_without_a_living_daimyo_has_no_one_to_challenge() -> None:
    """Succession (step 12) names a Daimyo; a claim has nobody to overthrow. No die is rolled."""
    turn = play(order(0, KATSUIE), rolls=[], people={NOBUNAGA: {"Title": "Karo"}, KATSUIE: {"Title": ""}})
    assert outcome(turn) == (
        "Rejected",
        "the Oda clan has no living Daimyo to challenge; its successor is chosen at the end of the turn",
    )


def test_claims_use_authority_at_the_start_of_the_resolution() -> None:
    """Nobunaga's execution of Tokichiro (step 4) makes him 8; Katsuie 7 still ties his start value 7,
    so a coin decides (1: Katsuie wins) and the loser's threshold is 10."""
    turn = play(
        order(0, KATSUIE), order(1, NOBUNAGA, "execute", TOKICHIRO), rolls=[20, 1, 10], authority={KATSUIE: 7},
        steps=(executions, claim_daimyo),
    )  # fmt: skip
    assert turn.draft.state.frame("Characters").at[NOBUNAGA, "Authority"] == 7
    assert who(turn, KATSUIE)[1] == "Daimyo"
    assert who(turn, NOBUNAGA) == ("Oda", "", "Omi", "Alive")


def test_claims_run_among_the_social_missions_of_step_6_after_the_economy_and_knowledge() -> None:
    phases = [phase for _, _, phase in phase_list()]
    steps = [step for step, _, _ in phase_list()]
    at = phases.index(claim_daimyo)
    assert steps[at] == 6
    assert at > phases.index(knowledge.knowledge_missions)
    assert steps == sorted(steps)
