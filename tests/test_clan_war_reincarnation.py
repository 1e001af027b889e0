"""Clan War: Shiba Ujimitsu's reincarnation, in the battle (Dead without a roll) or, after failing his rolls,
in the recovery phase into any legal target of his army; the target keeps her name and takes his profile."""

from __future__ import annotations

from datetime import UTC, datetime

from sheets_engine.clan_war import phases, purchases
from sheets_engine.core.problems import Severity
from tests.clan_war_support import Fixed, default_people, factions, make_turn, person, problems, provinces, state, unit

NOW = datetime(2026, 12, 1, 20, 0, tzinfo=UTC)


def phoenix(*typed: dict) -> dict:
    rows = [*factions(), {"Faction": "Phoenix", "Koku": 1000, "Daimyo": "Shiba Ujimitsu"}]
    people = [*default_people(),
              person("Shiba Ujimitsu", "Phoenix", "Shiba Ujimitsu", "Temple", "Guard", Unique=True),
              person("Isawa Ko", "Phoenix", "Isawa Shugenja", "Temple", Wounds=2, Max_Wounds=2),
              person("Isawa Yu", "Phoenix", "Isawa Shugenja", "Kakita")]  # fmt: skip
    units = [unit("Guard", "Phoenix", "Shiba Guard", "Temple", 10, "Shiba Ujimitsu"),
             unit("Goblins", "Shadowlands", "Goblin Rabble", "Temple", 20, "Gunso")]  # fmt: skip
    results = [{"Turn": 1, "Province": "Temple", **{k.replace("_", " "): v for k, v in r.items()}} for r in typed]
    return {"factions": rows, "personalities": people, "units": units, "battle_results": results,
            "provinces": provinces(Temple="Phoenix", Kakita="Phoenix")}  # fmt: skip


WON = ({"Winner": "Phoenix"}, {"Unit": "Goblins", "Final_Status": "Destroyed"})


def test_ujimitsu_reincarnating_in_the_battle_is_dead_without_a_roll_and_his_target_takes_his_profile() -> None:
    rows = phoenix(*WON, {"Personality": "Shiba Ujimitsu", "Reincarnated": True, "Reincarnate_Into": "Isawa Ko"})
    outcome = phases.resolve_turn(state({"phase": "battle"}, **rows), NOW, dice=Fixed([10] * 4))
    people = outcome.state.frame("Personalities")
    assert people.at["Shiba Ujimitsu", "Status"] == "Dead"
    ko = people.loc["Isawa Ko"]
    profile = [ko[c] for c in ("Item", "Profile", "Experienced", "Fire", "Void", "Max Wounds", "Command Limit")]
    assert profile == ["Isawa Shugenja", "Shiba Ujimitsu", True, 4, 4, 5, 30]
    rolls = [c.roll for c in outcome.changes if c.tab == "Personalities" and c.key == "Shiba Ujimitsu"]
    assert all(r == "" for r in rolls)  # no wound or maim roll


def test_ujimitsu_who_dies_from_his_rolls_reincarnates_in_the_recovery_phase_into_any_legal_target() -> None:
    """Not only one in the same province: Isawa Yu is at Kakita."""
    rows = phoenix(*WON, {"Personality": "Shiba Ujimitsu", "Wounds_Over_Max": 1, "Reincarnate_Into": "Isawa Yu"})
    outcome = phases.resolve_turn(state({"phase": "battle"}, **rows), NOW, dice=Fixed([10, 10] + [10] * 8))
    people = outcome.state.frame("Personalities")
    assert (people.at["Shiba Ujimitsu", "Status"], people.at["Isawa Yu", "Profile"]) == ("Dead", "Shiba Ujimitsu")
    causes = [c.cause for c in outcome.changes if c.key == "Isawa Yu" and c.column == "Profile"]
    assert causes == ["recovery: Shiba Ujimitsu reincarnates into Isawa Yu"]


def test_the_old_ujimitsu_is_dead_for_uniqueness_and_the_new_one_keeps_her_own_uniqueness() -> None:
    rows = phoenix(*WON, {"Personality": "Shiba Ujimitsu", "Reincarnated": True, "Reincarnate_Into": "Isawa Ko"})
    after = phases.resolve_turn(state({"phase": "battle"}, **rows), NOW, dice=Fixed([10] * 4)).state
    turn = make_turn(after)
    assert purchases.in_play(turn, "Shiba Ujimitsu") == ("", True)
    assert purchases.in_play(turn, "Isawa Shugenja")[0] == "Phoenix"


def errors(rows: dict) -> list[str]:
    """What validate says of the paused turn's results (and what resolve would refuse, nothing written)."""
    return [str(p) for p in problems({"phase": "battle"}, **rows) if p.severity is Severity.ERROR]


def test_reincarnation_rows_name_ujimitsu_and_a_legal_target() -> None:
    rows = phoenix(*WON, {"Personality": "Shiba Ujimitsu", "Reincarnated": True, "Reincarnate_Into": "Isawa Yu"},
                   {"Personality": "Isawa Ko", "Wounds_Over_Max": 0, "Reincarnate_Into": "Isawa Yu"})  # fmt: skip
    assert errors(rows) == [
        "Battle Results, row 4, column Reincarnate Into: found 'Isawa Yu'; a personality at Temple: in the battle he "
        "reincarnates into one who is there",
        "Battle Results, row 5, column Reincarnate Into: found 'Isawa Yu'; an empty cell: only Shiba Ujimitsu "
        "reincarnates",
    ]
    rows = phoenix(*WON, {"Personality": "Shiba Ujimitsu", "Wounds_Over_Max": 1})
    assert errors(rows) == [
        "Battle Results, row 4, column Reincarnate Into: found an empty cell; the personality Shiba Ujimitsu "
        "reincarnates into if he dies (he must)"
    ]
