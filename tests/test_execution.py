"""Guide Section 9, Execution: valid targets, the d20 threshold, success, failure, one per Daimyo.

Threshold = clamp(18 + clamp(executor's - target's Authority, -5, +5), 1, 20), Authority as at the
start of the resolution (shared/spec/rules-defaults.md). Every expected number is worked out by
hand from that formula.
"""

from __future__ import annotations

from typing import Any

import pytest

from sheets_engine.sengoku import knowledge, orders
from sheets_engine.sengoku.execution import execution_threshold, executions
from sheets_engine.sengoku.phases import phase_list
from sheets_engine.sengoku.turn import Turn
from tests.support import clan, make_turn, province, state


def character(name: str, clan_: str, title: str, authority: int, location: str, **extra: Any) -> dict[str, Any]:
    """A living character whose email is its first name at example.com."""
    row = {"Character": name, "Email": f"{name.split()[0].lower()}@example.com", "Clan": clan_, "Title": title,
           "Authority": authority, "Location": location, "Status": "Alive"}  # fmt: skip
    row.update(extra)
    return row


def execute(minute: int, who: str, target: str, secret: bool = False, kind: str = "execute") -> dict[str, Any]:
    """An Orders row for this turn, given by the character itself."""
    return {"Turn": 1, "Submitted": f"2026-11-28 12:{minute:02d}:00", "Email": f"{who.split()[0].lower()}@example.com",
            "Character": who, "Order": kind, "Target": target, "Secret": secret, "Status": "Pending"}  # fmt: skip


def play(*order_rows: dict[str, Any], rolls: list[int], people: dict[str, dict[str, Any]] | None = None,
         game: dict[str, Any] | None = None) -> Turn:  # fmt: skip
    """Oda (capital Owari) and Takeda (capital Kai); intake, then step 4 with these dice.

    Nobunaga (Oda Daimyo, 7, Owari), Katsuie (Oda Karo, 4, Mino), Shingen (Takeda Daimyo, 6, Kai),
    Nobuharu (Takeda Taisho, 9, at Owari), Kansuke (Takeda, 5, at Mino), Dosan (dead).
    """
    cast = {
        "Oda Nobunaga": character("Oda Nobunaga", "Oda", "Daimyo", 7, "Owari"),
        "Shibata Katsuie": character("Shibata Katsuie", "Oda", "Karo", 4, "Mino"),
        "Takeda Shingen": character("Takeda Shingen", "Takeda", "Daimyo", 6, "Kai"),
        "Baba Nobuharu": character("Baba Nobuharu", "Takeda", "Taisho", 9, "Owari"),
        "Yamamoto Kansuke": character("Yamamoto Kansuke", "Takeda", "Shikibu Kyo", 5, "Mino"),
        "Saito Dosan": character("Saito Dosan", "", "", 2, "Owari", Status="Dead"),
    }
    for name, changes in (people or {}).items():
        cast[name].update(changes)
    campaign = state(
        game=game,
        clans=[clan("Oda", Capital="Owari"), clan("Takeda", Capital="Kai")],
        provinces=[
            province("Owari", Adjacent="Mino"),
            province("Mino", Adjacent="Owari, Kai"),
            province("Kai", Province_Owner="Takeda", Adjacent="Mino"),
        ],
        characters=list(cast.values()),
        armies=[{"Army": "Oda Vanguard", "Clan": "Oda", "Province": "Mino", "Leader": "Shibata Katsuie", "Spear": 3}],
        orders=list(order_rows),
    )
    turn = make_turn(campaign, rolls)
    orders.intake(turn)
    executions(turn)
    return turn


def outcome(turn: Turn, row: int = 2) -> tuple[str, str]:
    """(Status, Result) of the Orders row (the first order is sheet row 2)."""
    return turn.draft.get("Orders", row, "Status"), turn.draft.get("Orders", row, "Result")


def notices(turn: Turn) -> list[tuple[str, str, str]]:
    """(audience, channel, message) of every notification."""
    return [(n["Audience"], n["Channel"], n["Message"]) for n in turn.draft.logs["Notifications"]]


# The threshold ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("executor", "target", "base", "threshold"),
    [
        (5, 5, 18, 18),  # equal Authority: the base
        (9, 6, 18, 20),  # 18 + 3 = 21, capped at 20
        (4, 7, 18, 15),  # 18 - 3
        (0, 10, 18, 13),  # the difference -10 counts as -5
        (12, 0, 10, 15),  # +12 counts as +5
        (0, 9, 5, 1),  # 5 - 5 = 0, raised to 1
    ],
)
def test_execution_threshold_is_18_plus_the_authority_difference_capped_at_5_then_1_to_20(
    executor: int, target: int, base: int, threshold: int
) -> None:
    assert execution_threshold(executor, target, base, 5) == threshold


@pytest.mark.parametrize(("roll", "status"), [(16, "Dead"), (17, "Alive")])
def test_execution_succeeds_when_the_d20_is_at_or_under_the_threshold(roll: int, status: str) -> None:
    """Nobunaga 7 against Nobuharu 9: 18 - 2 = 16."""
    turn = play(execute(0, "Oda Nobunaga", "Baba Nobuharu"), rolls=[roll])
    assert turn.draft.get("Characters", "Baba Nobuharu", "Status") == status
    assert turn.dice.rolls[0].value == roll


def test_a_threshold_of_20_always_succeeds() -> None:
    """Nobunaga 7 against Katsuie 4: 18 + 3 = 21 -> 20; even a 20 succeeds."""
    turn = play(execute(0, "Oda Nobunaga", "Shibata Katsuie"), rolls=[20])
    assert outcome(turn) == (
        "Resolved",
        "Shibata Katsuie was executed: d20 rolled 20, threshold 20 from Authority 7 against 4 (Authority +1)",
    )


@pytest.mark.parametrize(("roll", "status"), [(1, "Dead"), (2, "Alive")])
def test_a_threshold_of_1_succeeds_only_on_a_1(roll: int, status: str) -> None:
    """execute_threshold 5 (Game data): Nobunaga 0 against Katsuie 9 gives 5 - 5 = 0, raised to 1."""
    turn = play(
        execute(0, "Oda Nobunaga", "Shibata Katsuie"),
        rolls=[roll],
        game={"execute_threshold": 5},
        people={"Oda Nobunaga": {"Authority": 0}, "Shibata Katsuie": {"Authority": 9}},
    )
    assert turn.draft.get("Characters", "Shibata Katsuie", "Status") == status


def test_successful_execution_kills_strips_title_and_clan_frees_the_army_and_is_announced() -> None:
    turn = play(execute(0, "Oda Nobunaga", "Shibata Katsuie"), rolls=[3])
    katsuie = turn.draft.row("Characters", "Shibata Katsuie")
    assert (katsuie["Status"], katsuie["Title"], katsuie["Clan"], katsuie["Location"]) == ("Dead", "", "", "Mino")
    assert turn.draft.get("Armies", "Oda Vanguard", "Leader") == ""
    assert (
        "public",
        "graveyard",
        "Shibata Katsuie, Karo of the Oda clan, has died: executed by order of Oda Nobunaga, Daimyo of the Oda clan.",
    ) in notices(turn)
    death = next(c for c in turn.draft.changes if c.key == "Shibata Katsuie" and c.column == "Status")
    assert death.roll == "d20=3 (execution of Shibata Katsuie by Oda Nobunaga)"


def test_successful_execution_gives_the_executor_the_missions_authority() -> None:
    """Missions: execute +1 (a successful execute)."""
    turn = play(execute(0, "Oda Nobunaga", "Shibata Katsuie"), rolls=[3])
    assert turn.draft.get("Characters", "Oda Nobunaga", "Authority") == 8


def test_secret_execution_leaves_no_public_announcement() -> None:
    turn = play(execute(0, "Oda Nobunaga", "Shibata Katsuie", secret=True), rolls=[3])
    assert turn.draft.get("Characters", "Shibata Katsuie", "Status") == "Dead"
    assert [n for n in notices(turn) if n[0] == "public"] == []


def test_failed_public_execution_tells_the_executor_and_the_target() -> None:
    """Nobunaga 7 against Nobuharu 9 at Owari: threshold 16, roll 17 fails; no Authority gained."""
    turn = play(execute(0, "Oda Nobunaga", "Baba Nobuharu"), rolls=[17])
    assert outcome(turn) == (
        "Resolved",
        "The execution of Baba Nobuharu failed: d20 rolled 17, threshold 16 from Authority 7 against 9",
    )
    assert notices(turn) == [
        ("character:Oda Nobunaga", "private",
         "Your order to execute Baba Nobuharu failed: d20 rolled 17, threshold 16 from Authority 7 against 9."),
        ("character:Baba Nobuharu", "private",
         "You were the subject of an assassination attempt: Oda Nobunaga, Daimyo of the Oda clan, ordered your "
         "execution, and it failed."),
    ]  # fmt: skip
    assert turn.draft.get("Characters", "Oda Nobunaga", "Authority") == 7


def test_failed_secret_execution_tells_only_the_executor() -> None:
    turn = play(execute(0, "Oda Nobunaga", "Baba Nobuharu", secret=True), rolls=[17])
    assert [n[0] for n in notices(turn)] == ["character:Oda Nobunaga"]


# Valid targets ------------------------------------------------------------------------------


def test_a_clanmate_may_be_executed_wherever_he_stands() -> None:
    """Katsuie is in Mino, not at the Oda capital Owari."""
    turn = play(execute(0, "Oda Nobunaga", "Shibata Katsuie"), rolls=[20])
    assert turn.draft.get("Characters", "Shibata Katsuie", "Status") == "Dead"


def test_a_foreign_character_away_from_the_capital_is_not_a_valid_target() -> None:
    """Kansuke (Takeda) stands in Mino, not in Owari: rejected, and no die is rolled."""
    turn = play(execute(0, "Oda Nobunaga", "Yamamoto Kansuke"), rolls=[])
    assert outcome(turn) == (
        "Rejected",
        "Yamamoto Kansuke is neither of the Oda clan nor at your capital Owari (Yamamoto Kansuke is at Mino); "
        "only clanmates and foreigners at your capital may be executed",
    )
    assert turn.draft.get("Characters", "Yamamoto Kansuke", "Status") == "Alive"


@pytest.mark.parametrize(
    ("target", "reason"),
    [
        ("Saito Dosan", "Saito Dosan is already dead"),
        ("Oda Nobunaga", "a Daimyo cannot order his own execution"),
        ("Oda Nobunga", 'there is no character "Oda Nobunga" (did you mean Oda Nobunaga?)'),
    ],
)
def test_execution_of_a_dead_unknown_or_own_character_is_rejected(target: str, reason: str) -> None:
    turn = play(execute(0, "Oda Nobunaga", target), rolls=[])
    assert outcome(turn) == ("Rejected", reason)


def test_only_the_daimyo_may_execute() -> None:
    turn = play(execute(0, "Shibata Katsuie", "Oda Nobunaga"), rolls=[])
    assert outcome(turn) == ("Rejected", "only the Daimyo may execute; Shibata Katsuie is Karo of the Oda clan")


# One attempt per Daimyo per turn -------------------------------------------------------------


def test_only_the_latest_execute_order_of_a_daimyo_counts() -> None:
    """Two orders from Nobunaga: the earlier is Superseded; one die only (FixedDice fails on a second)."""
    turn = play(execute(0, "Oda Nobunaga", "Baba Nobuharu"), execute(1, "Oda Nobunaga", "Shibata Katsuie"), rolls=[20])
    assert outcome(turn, 2) == (
        "Superseded",
        "only one execution attempt per Daimyo per turn: replaced by the later execute order submitted "
        "2026-11-28 12:01:00",
    )
    assert outcome(turn, 3)[0] == "Resolved"
    assert turn.draft.get("Characters", "Baba Nobuharu", "Status") == "Alive"
    assert turn.draft.get("Characters", "Shibata Katsuie", "Status") == "Dead"


def test_each_daimyo_has_his_own_attempt_in_submission_order() -> None:
    """Shingen (6) executes Nobunaga (7) standing at Kai first: 18 - 1 = 17, roll 17 succeeds;
    Nobunaga's own later order then fails for want of a living executor."""
    turn = play(
        execute(0, "Takeda Shingen", "Oda Nobunaga"),
        execute(1, "Oda Nobunaga", "Shibata Katsuie"),
        rolls=[17],
        people={"Oda Nobunaga": {"Location": "Kai"}},
    )
    assert turn.draft.get("Characters", "Oda Nobunaga", "Status") == "Dead"
    assert outcome(turn, 3) == ("Rejected", "Oda Nobunaga died before the order could be carried out")


def test_execution_uses_authority_at_the_start_of_the_resolution() -> None:
    """Nobunaga executes Katsuie first (+1: Authority 8). Shingen (6) then executes Nobunaga at Kai:
    with the start value 7 the threshold is 17 and a 17 succeeds (with 8 it would be 16)."""
    turn = play(
        execute(0, "Oda Nobunaga", "Shibata Katsuie"),
        execute(1, "Takeda Shingen", "Oda Nobunaga"),
        rolls=[1, 17],
        people={"Oda Nobunaga": {"Location": "Kai"}},
    )
    assert turn.draft.get("Characters", "Oda Nobunaga", "Status") == "Dead"
    assert outcome(turn, 3)[1].startswith("Oda Nobunaga was executed: d20 rolled 17, threshold 17")


def test_execute_is_a_free_action_resolved_before_the_missions() -> None:
    """Nobunaga executes and meditates in one turn: both resolve, Authority 7 + 1 + 1 = 9."""
    turn = play(
        execute(0, "Oda Nobunaga", "Shibata Katsuie"), execute(1, "Oda Nobunaga", "", kind="meditate"), rolls=[20]
    )
    assert outcome(turn, 2)[0] == "Resolved"
    assert outcome(turn, 3) == ("Pending", "")
    knowledge.knowledge_missions(turn)
    assert outcome(turn, 3) == ("Resolved", "Meditation completed (Authority +1, Oda Knowledge +1)")
    assert turn.draft.get("Characters", "Oda Nobunaga", "Authority") == 9


def test_executions_run_at_step_4_before_declarations_and_missions() -> None:
    phases = [(step, phase) for step, _, phase in phase_list()]
    steps = [step for step, _ in phases]
    at = [phase for _, phase in phases].index(executions)
    assert steps[at] == 4
    assert steps == sorted(steps)
