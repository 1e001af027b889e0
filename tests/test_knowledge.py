"""Guide Sections 2 and 5: Knowledge from missions and buildings, tech points and Tech Choices."""

from __future__ import annotations

from sheets_engine.sengoku import knowledge
from tests.campaigns import KATSUIE, provinces, small
from tests.rules import cell, result_of, run


def test_meditate_gives_1_knowledge_and_1_authority() -> None:
    turn = run(small((KATSUIE, "Shibata Katsuie", "meditate", "", "")), knowledge.knowledge_missions)
    assert cell(turn, "Clans", "Oda", "Knowledge") == 1
    assert cell(turn, "Characters", "Shibata Katsuie", "Authority") == 5


def test_experiment_gives_3_knowledge_and_no_authority() -> None:
    turn = run(small((KATSUIE, "Shibata Katsuie", "experiment", "", "")), knowledge.knowledge_missions)
    assert cell(turn, "Clans", "Oda", "Knowledge") == 3
    assert cell(turn, "Characters", "Shibata Katsuie", "Authority") == 4


def test_trade_mission_gives_2_knowledge_and_1_authority() -> None:
    turn = run(small((KATSUIE, "Shibata Katsuie", "trade-mission", "Takeda", "")), knowledge.knowledge_missions)
    assert cell(turn, "Clans", "Oda", "Knowledge") == 2
    assert cell(turn, "Clans", "Takeda", "Knowledge") == 0
    assert cell(turn, "Characters", "Shibata Katsuie", "Authority") == 5
    assert result_of(turn, "trade-mission") == (
        "Resolved",
        "Trade mission to Takeda completed (Authority +1, Oda Knowledge +2)",
    )


def test_trade_mission_goes_to_another_clan() -> None:
    turn = run(small((KATSUIE, "Shibata Katsuie", "trade-mission", "Oda", "")), knowledge.knowledge_missions)
    assert result_of(turn, "trade-mission") == ("Rejected", "a trade mission goes to another clan, not your own")
    assert cell(turn, "Clans", "Oda", "Knowledge") == 0


def test_knowledge_buildings_add_knowledge_each_turn() -> None:
    """Library +1 and Temple +1 in the provinces the clan controls."""
    state = small(provinces=provinces(Owari={"Building 1": "Library", "Building 2": "Temple"},
                                      Mino={"Building 1": "Temple"}))  # fmt: skip
    turn = run(state, knowledge.building_knowledge)
    assert cell(turn, "Clans", "Oda", "Knowledge") == 3
    assert cell(turn, "Clans", "Takeda", "Knowledge") == 0


def test_knowledge_converts_into_tech_points_and_the_pool_keeps_the_remainder() -> None:
    """tech_point_cost 10: 23 Knowledge is 2 points with 3 left."""
    turn = run(small(oda={"Knowledge": 23}), knowledge.convert_knowledge)
    assert cell(turn, "Clans", "Oda", "Tech Points") == 2
    assert cell(turn, "Clans", "Oda", "Knowledge") == 3
    messages = [n["Message"] for n in turn.draft.logs["Notifications"]]
    assert messages[0].startswith("Oda has 2 unallocated tech points")


def test_knowledge_below_the_cost_stays_in_the_pool() -> None:
    turn = run(small(oda={"Knowledge": 9}), knowledge.convert_knowledge)
    assert cell(turn, "Clans", "Oda", "Tech Points") == 0
    assert cell(turn, "Clans", "Oda", "Knowledge") == 9


def choice(character: str, discipline: str = "Development") -> dict[str, object]:
    return {"Turn": 1, "Clan": "Oda", "Character": character, "Discipline": discipline}


def test_the_daimyo_spends_a_tech_point_on_a_tree() -> None:
    state = small(oda={"Tech Points": 1, "Development": 2}, tech_choices=[choice("Oda Nobunaga")])
    turn = run(state, knowledge.spend_tech_points)
    assert cell(turn, "Clans", "Oda", "Development") == 3
    assert cell(turn, "Clans", "Oda", "Tech Points") == 0
    assert cell(turn, "Tech Choices", 2, "Status") == "Spent"


def test_a_new_tech_level_counts_in_the_same_resolutions_recalculation() -> None:
    """Development 3 from a Tech Choice opens the 5th slot when step 2 recalculates."""
    from sheets_engine.sengoku import derived, orders
    from tests.support import make_turn

    state = small(oda={"Tech Points": 1, "Development": 2}, tech_choices=[choice("Oda Nobunaga")])
    turn = make_turn(state)
    orders.intake(turn)
    knowledge.spend_tech_points(turn)
    derived.recalculate(turn.draft, turn.settings)
    assert cell(turn, "Provinces", "Mino", "Slots") == 5


def test_only_a_daimyo_or_shikibu_kyo_spends_tech_points() -> None:
    state = small(oda={"Tech Points": 1}, tech_choices=[choice("Shibata Katsuie")])
    turn = run(state, knowledge.spend_tech_points)
    assert cell(turn, "Tech Choices", 2, "Status") == "Rejected"
    assert cell(turn, "Clans", "Oda", "Tech Points") == 1
    assert turn.draft.logs["Notifications"][0]["Message"] == (
        "Tech choice for Development rejected: only a Daimyo, Shikibu Kyo may choose tech; Shibata Katsuie is Karo."
    )


def test_a_shikibu_kyo_may_spend_tech_points() -> None:
    from tests.campaigns import characters

    people = characters()
    people[1]["Title"] = "Shikibu Kyo"
    state = small(oda={"Tech Points": 1}, characters=people, tech_choices=[choice("Shibata Katsuie", "Piety")])
    turn = run(state, knowledge.spend_tech_points)
    assert cell(turn, "Clans", "Oda", "Piety") == 1


def test_a_tech_choice_without_points_is_rejected() -> None:
    turn = run(small(tech_choices=[choice("Oda Nobunaga")]), knowledge.spend_tech_points)
    assert cell(turn, "Tech Choices", 2, "Status") == "Rejected"
    assert cell(turn, "Clans", "Oda", "Development") == 0


def test_each_tech_choice_spends_one_point_in_row_order() -> None:
    state = small(oda={"Tech Points": 1}, tech_choices=[choice("Oda Nobunaga", "Warfare"), choice("Oda Nobunaga")])
    turn = run(state, knowledge.spend_tech_points)
    assert [cell(turn, "Tech Choices", r, "Status") for r in (2, 3)] == ["Spent", "Rejected"]
    assert (cell(turn, "Clans", "Oda", "Warfare"), cell(turn, "Clans", "Oda", "Development")) == (1, 0)
