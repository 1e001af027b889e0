"""Guide Section 8, Diplomacy: designate-ally (one-sided, mutual, secret) and establish-relations."""

from __future__ import annotations

from typing import Any

import pytest

from sheets_engine.sengoku import orders
from sheets_engine.sengoku.alliances import declarations, mutual
from sheets_engine.sengoku.diplomacy import designate_allies, establish_relations
from sheets_engine.sengoku.execution import executions
from sheets_engine.sengoku.phases import phase_list
from sheets_engine.sengoku.turn import Turn
from tests.support import clan, make_turn, province, state

DAIMYOS = {"Oda": "Oda Nobunaga", "Takeda": "Takeda Shingen", "Mori": "Mori Motonari"}


def email(name: str) -> str:
    """oda.nobunaga@example.com."""
    return ".".join(name.lower().split()) + "@example.com"


def order(minute: int, who: str, kind: str, target: str, secret: bool = False) -> dict[str, Any]:
    """An Orders row for this turn, given by the character itself."""
    return {"Turn": 1, "Submitted": f"2026-11-28 12:{minute:02d}:00", "Email": email(who), "Character": who,
            "Order": kind, "Target": target, "Secret": secret, "Status": "Pending"}  # fmt: skip


def play(
    *order_rows: dict[str, Any],
    alliances: list[dict[str, Any]] | None = None,
    relations: list[dict[str, Any]] | None = None,
    step: Any = designate_allies,
) -> Turn:
    """Oda, Takeda and Mori with their Daimyo (Authority 5) and the Oda Karo Shibata Katsuie (4)."""
    cast = [
        {"Character": name, "Email": email(name), "Clan": c, "Title": "Daimyo", "Authority": 5,
         "Location": c, "Status": "Alive"}
        for c, name in DAIMYOS.items()
    ]  # fmt: skip
    cast.append({"Character": "Shibata Katsuie", "Email": email("Shibata Katsuie"), "Clan": "Oda", "Title": "Karo",
                 "Authority": 4, "Location": "Oda", "Status": "Alive"})  # fmt: skip
    campaign = state(
        clans=[clan(c, Capital=c) for c in DAIMYOS],
        provinces=[province(c, Province_Owner=c) for c in DAIMYOS],
        characters=cast,
        alliances=alliances or [],
        relations=relations or [],
        orders=list(order_rows),
    )
    turn = make_turn(campaign, [])
    orders.intake(turn)
    step(turn)
    return turn


def outcome(turn: Turn, row: int = 2) -> tuple[str, str]:
    """(Status, Result) of the Orders row (the first order is sheet row 2)."""
    return turn.draft.get("Orders", row, "Status"), turn.draft.get("Orders", row, "Result")


def rows(turn: Turn, tab: str) -> list[list[Any]]:
    """Every row of a tab, as lists of its cells."""
    return turn.draft.frame(tab).values.tolist()


def notices(turn: Turn) -> list[tuple[str, str, str]]:
    """(audience, channel, message) of every notification."""
    return [(n["Audience"], n["Channel"], n["Message"]) for n in turn.draft.logs["Notifications"]]


# designate-ally -------------------------------------------------------------------------------------


def test_designate_ally_is_a_one_sided_declaration_announced_in_declarations() -> None:
    turn = play(order(0, "Oda Nobunaga", "designate-ally", "Takeda"))
    assert rows(turn, "Alliances") == [["Oda", "Takeda", False, 1]]
    assert not mutual(declarations(turn.draft), "Oda", "Takeda")
    assert notices(turn) == [("public", "declarations", "The Oda clan declares the Takeda clan its ally.")]
    assert outcome(turn) == (
        "Resolved",
        "The Oda clan declares Takeda its ally (one-sided until Takeda declares Oda too)",
    )


def test_an_alliance_is_mutual_once_both_clans_have_declared() -> None:
    """Both declarations in one turn take effect together at step 5."""
    turn = play(
        order(0, "Oda Nobunaga", "designate-ally", "Takeda"), order(1, "Takeda Shingen", "designate-ally", "Oda")
    )
    assert mutual(declarations(turn.draft), "Oda", "Takeda")
    assert not mutual(declarations(turn.draft), "Oda", "Mori")


def test_a_secret_declaration_is_not_announced_but_counts() -> None:
    """Takeda had declared Oda publicly; Oda's secret answer makes the alliance mutual, unannounced."""
    turn = play(
        order(0, "Oda Nobunaga", "designate-ally", "Takeda", secret=True),
        alliances=[{"Clan": "Takeda", "Ally": "Oda", "Secret": False, "Since Turn": 0}],
    )
    assert rows(turn, "Alliances") == [["Takeda", "Oda", False, 0], ["Oda", "Takeda", True, 1]]
    assert mutual(declarations(turn.draft), "Oda", "Takeda")
    assert [n for n in notices(turn) if n[0] == "public"] == []
    assert notices(turn) == [
        ("gm", "declarations", "Secret declaration: The Oda clan declares the Takeda clan its ally.")
    ]


def test_declaring_an_ally_again_adds_no_duplicate_row() -> None:
    turn = play(
        order(0, "Oda Nobunaga", "designate-ally", "Takeda"),
        alliances=[{"Clan": "Oda", "Ally": "Takeda", "Secret": False, "Since Turn": 0}],
    )
    assert rows(turn, "Alliances") == [["Oda", "Takeda", False, 0]]
    assert outcome(turn) == ("Resolved", "The Oda clan has already declared Takeda its ally; nothing changes")
    assert notices(turn) == []


def test_a_public_declaration_of_a_secret_ally_makes_it_public() -> None:
    turn = play(
        order(0, "Oda Nobunaga", "designate-ally", "Takeda"),
        alliances=[{"Clan": "Oda", "Ally": "Takeda", "Secret": True, "Since Turn": 0}],
    )
    assert rows(turn, "Alliances") == [["Oda", "Takeda", False, 0]]
    assert notices(turn) == [("public", "declarations", "The Oda clan declares the Takeda clan its ally.")]


@pytest.mark.parametrize(
    ("who", "target", "reason"),
    [
        ("Shibata Katsuie", "Takeda", "only the Daimyo may designate-ally; Shibata Katsuie is Karo of the Oda clan"),
        ("Oda Nobunaga", "Oda", "designate-ally names another clan, not your own (Oda)"),
        ("Oda Nobunaga", "Takda", 'there is no clan "Takda" (did you mean Takeda?)'),
    ],
)
def test_designate_ally_is_rejected_for_a_non_daimyo_own_clan_or_unknown_clan(
    who: str, target: str, reason: str
) -> None:
    turn = play(order(0, who, "designate-ally", target))
    assert outcome(turn) == ("Rejected", reason)
    assert rows(turn, "Alliances") == []


def test_declarations_take_effect_at_step_5_before_the_missions_and_the_movement() -> None:
    phases = [phase for _, _, phase in phase_list()]
    steps = [step for step, _, _ in phase_list()]
    at = phases.index(designate_allies)
    assert steps[at] == 5
    assert phases.index(executions) < at
    assert all(step >= 6 for step in steps[at + 1 :])


# establish-relations ---------------------------------------------------------------------------------


def test_establish_relations_opens_a_channel_and_tells_both_clans() -> None:
    turn = play(order(0, "Oda Nobunaga", "establish-relations", "Mori"), step=establish_relations)
    assert rows(turn, "Relations") == [["Oda", "Mori", 1]]
    message = 'Relations established between the Oda and Mori clans: the private channel "Oda - Mori" is open.'
    assert notices(turn) == [
        ("clan:Oda", "diplomacy", message),
        ("clan:Mori", "diplomacy", message),
        ("clan:Oda", "orders", message),
        ("clan:Mori", "orders", message),
    ]
    assert outcome(turn) == (
        "Resolved",
        'Relations established with Mori: the channel "Oda - Mori" is open (Authority +1)',
    )


def test_establish_relations_notifies_both_clans_orders_channels() -> None:
    """Guide Section 8: "Both clans' orders channels receive a notification that relations have been
    established" (they went to the diplomacy channel only before issue 13)."""
    turn = play(order(0, "Oda Nobunaga", "establish-relations", "Mori"), step=establish_relations)
    message = 'Relations established between the Oda and Mori clans: the private channel "Oda - Mori" is open.'
    assert [(a, m) for a, c, m in notices(turn) if c == "orders"] == [("clan:Oda", message), ("clan:Mori", message)]


def test_establish_relations_gives_the_missions_authority() -> None:
    """Missions: establish-relations +1 (5 -> 6)."""
    turn = play(order(0, "Oda Nobunaga", "establish-relations", "Mori"), step=establish_relations)
    assert turn.draft.get("Characters", "Oda Nobunaga", "Authority") == 6


def test_relations_that_exist_in_either_order_open_no_new_channel_but_the_mission_completes() -> None:
    """Mori-Oda is on the sheet the other way round: no new row, no notification, Authority +1 still."""
    turn = play(
        order(0, "Oda Nobunaga", "establish-relations", "Mori"),
        relations=[{"Clan A": "Mori", "Clan B": "Oda", "Since Turn": 0}],
        step=establish_relations,
    )
    assert rows(turn, "Relations") == [["Mori", "Oda", 0]]
    assert notices(turn) == []
    assert outcome(turn) == (
        "Resolved",
        "The Oda and Mori clans already have relations; no new channel is opened (Authority +1)",
    )
    assert turn.draft.get("Characters", "Oda Nobunaga", "Authority") == 6


def test_two_clans_establishing_relations_with_each_other_get_one_channel() -> None:
    turn = play(
        order(0, "Oda Nobunaga", "establish-relations", "Mori"),
        order(1, "Mori Motonari", "establish-relations", "Oda"),
        step=establish_relations,
    )
    assert rows(turn, "Relations") == [["Oda", "Mori", 1]]
    assert [outcome(turn, r)[0] for r in (2, 3)] == ["Resolved", "Resolved"]
    assert turn.draft.get("Characters", "Mori Motonari", "Authority") == 6


def test_only_the_daimyo_may_establish_relations() -> None:
    turn = play(order(0, "Shibata Katsuie", "establish-relations", "Mori"), step=establish_relations)
    assert outcome(turn) == (
        "Rejected",
        "only the Daimyo may establish-relations; Shibata Katsuie is Karo of the Oda clan",
    )
    assert rows(turn, "Relations") == []
