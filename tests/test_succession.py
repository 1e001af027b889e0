"""Step 12, succession: a clan whose Daimyo died this turn takes its living member with the highest
Authority as Daimyo (a logged die on ties)."""

from __future__ import annotations

from typing import Any

import pytest

from sheets_engine.sengoku import knowledge, orders
from sheets_engine.sengoku.characters import kill
from sheets_engine.sengoku.execution import executions
from sheets_engine.sengoku.phases import phase_list
from sheets_engine.sengoku.succession import succession
from sheets_engine.sengoku.turn import Turn
from tests.support import clan, make_turn, province, state


def character(name: str, clan_: str, title: str, authority: int, location: str = "Owari") -> dict[str, Any]:
    """A living character."""
    return {"Character": name, "Email": ".".join(name.lower().split()) + "@example.com", "Clan": clan_,
            "Title": title, "Authority": authority, "Location": location, "Status": "Alive"}  # fmt: skip


def oda(**authority: int) -> list[dict[str, Any]]:
    """Nobunaga (Daimyo 7), Katsuie (Karo 4), Nagahide (Shikibu Kyo 6), Tokichiro (3); Shingen of Takeda."""
    values = {"Nobunaga": 7, "Katsuie": 4, "Nagahide": 6, "Tokichiro": 3, **authority}
    return [
        character("Oda Nobunaga", "Oda", "Daimyo", values["Nobunaga"]),
        character("Shibata Katsuie", "Oda", "Karo", values["Katsuie"]),
        character("Niwa Nagahide", "Oda", "Shikibu Kyo", values["Nagahide"]),
        character("Kinoshita Tokichiro", "Oda", "", values["Tokichiro"]),
        character("Takeda Shingen", "Takeda", "Daimyo", 6, "Kai"),
    ]


def play(cast: list[dict[str, Any]], *steps: Any, rolls: list[int] | None = None, order_rows: Any = ()) -> Turn:
    """The Oda (capital Owari) and Takeda (capital Kai) clans; the steps, then succession."""
    campaign = state(
        clans=[clan("Oda", Capital="Owari"), clan("Takeda", Capital="Kai")],
        provinces=[province("Owari"), province("Kai", Province_Owner="Takeda")],
        characters=cast,
        orders=list(order_rows),
    )
    turn = make_turn(campaign, rolls or [])
    orders.intake(turn)
    for step in steps:
        step(turn)
    succession(turn)
    return turn


def slay(name: str) -> Any:
    """A step that kills the character this turn (as a battle or an execution would)."""

    def step(turn: Turn) -> None:
        kill(turn, name, "a test death")

    return step


def titles(turn: Turn) -> dict[str, str]:
    """Every character's Title now."""
    return turn.draft.frame("Characters")["Title"].to_dict()


def test_the_living_member_with_the_highest_authority_succeeds_a_daimyo_who_died_this_turn() -> None:
    turn = play(oda(), slay("Oda Nobunaga"))
    assert titles(turn) == {
        "Oda Nobunaga": "", "Shibata Katsuie": "Karo", "Niwa Nagahide": "Daimyo", "Kinoshita Tokichiro": "",
        "Takeda Shingen": "Daimyo",
    }  # fmt: skip
    message = "Niwa Nagahide succeeds Oda Nobunaga as Daimyo of the Oda clan (the highest Authority, 6)."
    assert ("clan:Oda", "capital", message) in [
        (n["Audience"], n["Channel"], n["Message"]) for n in turn.draft.logs["Notifications"]
    ]
    change = next(c for c in turn.draft.changes if c.key == "Niwa Nagahide")
    assert (change.column, change.old, change.new, change.cause) == (
        "Title", "Shikibu Kyo", "Daimyo", "succession in the Oda clan",
    )  # fmt: skip


def test_succession_uses_the_authority_at_step_12() -> None:
    """Katsuie's 4 became 8 this turn (a step before): he outranks Nagahide's 6."""

    def promote(turn: Turn) -> None:
        turn.draft.set("Characters", "Shibata Katsuie", "Authority", 8, "a test gain")

    turn = play(oda(), promote, slay("Oda Nobunaga"))
    assert titles(turn)["Shibata Katsuie"] == "Daimyo"


@pytest.mark.parametrize(("lot", "heir"), [(1, "Shibata Katsuie"), (2, "Niwa Nagahide")])
def test_heirs_tied_on_authority_are_decided_by_a_logged_die_in_row_order(lot: int, heir: str) -> None:
    turn = play(oda(Katsuie=6), slay("Oda Nobunaga"), rolls=[lot])
    assert titles(turn)[heir] == "Daimyo"
    change = next(c for c in turn.draft.changes if c.key == heir and c.column == "Title")
    assert change.roll == f"d2={lot} (succession tie in Oda: Shibata Katsuie, Niwa Nagahide)"


def test_a_clan_whose_daimyo_was_dead_before_the_turn_gets_no_successor() -> None:
    cast = oda()
    cast[0].update({"Status": "Dead", "Title": "", "Clan": ""})
    turn = play(cast)
    assert turn.draft.changes == []
    assert turn.draft.logs["Notifications"] == []


def test_a_clan_with_a_new_daimyo_already_needs_no_successor() -> None:
    """A usurper killed the old Daimyo: he is Daimyo, nobody else is made one."""

    def coup(turn: Turn) -> None:
        kill(turn, "Oda Nobunaga", "a test coup")
        turn.draft.set("Characters", "Kinoshita Tokichiro", "Title", "Daimyo", "a test coup")

    turn = play(oda(), coup)
    assert [n for n, t in titles(turn).items() if t == "Daimyo"] == ["Kinoshita Tokichiro", "Takeda Shingen"]


def test_a_clan_with_no_living_member_is_reported_to_the_gm() -> None:
    turn = play(oda(), slay("Takeda Shingen"))
    gm = [n["Message"] for n in turn.draft.logs["Notifications"] if n["Audience"] == "gm" and n["Channel"] == "capital"]
    assert gm == ["The Takeda clan has no living member to succeed Takeda Shingen as Daimyo."]


def test_a_daimyo_executed_at_his_capital_is_succeeded() -> None:
    """Shingen (6) executes Nobunaga (7) visiting Kai: 18 - 1 = 17, a 5 succeeds; Nagahide succeeds."""
    cast = oda()
    cast[0]["Location"] = "Kai"
    execute = {"Turn": 1, "Submitted": "2026-11-28 12:00:00", "Email": "takeda.shingen@example.com",
               "Character": "Takeda Shingen", "Order": "execute", "Target": "Oda Nobunaga"}  # fmt: skip
    turn = play(cast, executions, rolls=[5], order_rows=[execute])
    assert turn.draft.get("Characters", "Oda Nobunaga", "Status") == "Dead"
    assert titles(turn)["Niwa Nagahide"] == "Daimyo"


def test_succession_runs_at_step_12_after_knowledge_and_before_the_turn_ends() -> None:
    phases = [phase for _, _, phase in phase_list()]
    steps = [step for step, _, _ in phase_list()]
    at = phases.index(succession)
    assert steps[at] == 12
    assert phases.index(knowledge.convert_knowledge) < at
    assert steps == sorted(steps)
