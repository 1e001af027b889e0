"""Intake: form responses become Orders; who may order for whom; the latest order wins."""

from __future__ import annotations

from sheets_engine.sengoku import economy, knowledge, letters
from tests.campaigns import KATSUIE, ODA_DAIMYO, SHINGEN, small
from tests.rules import order_results, run


def test_each_form_response_becomes_an_orders_row_for_the_current_turn() -> None:
    turn = run(small((KATSUIE, "Shibata Katsuie", "meditate", "", ""), game={"turn": 4}))
    orders = turn.draft.frame("Orders")
    assert list(orders["Turn"]) == [4]
    assert list(orders["Submitted"]) == ["2026-11-28 12:00:00"]
    assert list(orders["Character"]) == ["Shibata Katsuie"]


def test_a_response_already_copied_is_not_copied_again() -> None:
    state = small(
        (KATSUIE, "Shibata Katsuie", "meditate", "", ""),
        orders=[{"Turn": 1, "Submitted": "2026-11-28 12:00:00", "Email": KATSUIE, "Character": "Shibata Katsuie",
                 "Order": "meditate", "Status": "Resolved", "Result": "Meditation completed"}],
    )  # fmt: skip
    turn = run(state)
    assert len(turn.draft.frame("Orders")) == 1
    assert turn.orders == []


def test_not_your_character_rejects_an_order_from_another_players_email() -> None:
    turn = run(small((SHINGEN, "Shibata Katsuie", "meditate", "", "")), knowledge.knowledge_missions)
    assert order_results(turn) == [
        ("meditate", "Rejected", f"not your character: {SHINGEN} may not give orders for Shibata Katsuie")
    ]
    assert turn.draft.get("Characters", "Shibata Katsuie", "Authority") == 4


def test_the_daimyo_may_order_for_a_clanmate_and_replaces_the_clanmates_own_order() -> None:
    turn = run(
        small(
            (ODA_DAIMYO, "Shibata Katsuie", "tax-province", "Owari", ""),
            (KATSUIE, "Shibata Katsuie", "meditate", "", ""),
        ),
        economy.economy_missions,
        knowledge.knowledge_missions,
    )
    results = order_results(turn)
    assert results[0][:2] == ("tax-province", "Resolved")
    assert results[1] == (
        "meditate",
        "Superseded",
        "replaced by the Daimyo's order tax-province submitted 2026-11-28 12:00:00",
    )


def test_a_characters_latest_order_supersedes_the_earlier_ones() -> None:
    turn = run(
        small(
            (KATSUIE, "Shibata Katsuie", "tax-province", "Owari", ""),
            (KATSUIE, "Shibata Katsuie", "meditate", "", ""),
        ),
        economy.economy_missions,
        knowledge.knowledge_missions,
    )
    assert order_results(turn) == [
        ("tax-province", "Superseded", "replaced by the later order meditate submitted 2026-11-28 12:01:00"),
        ("meditate", "Resolved", "Meditation completed (Authority +1, Oda Knowledge +1)"),
    ]
    assert turn.draft.get("Clans", "Oda", "Treasury") == 10  # the superseded tax never happened


def test_free_actions_do_not_use_the_characters_order() -> None:
    turn = run(
        small(
            (KATSUIE, "Shibata Katsuie", "meditate", "", ""),
            (KATSUIE, "Shibata Katsuie", "write-letter", "Takeda", "Greetings"),
        ),
        knowledge.knowledge_missions,
        letters.write_letters,
    )
    assert [s for _, s, _ in order_results(turn)] == ["Resolved", "Resolved"]


def test_orders_for_dead_or_unknown_characters_are_rejected() -> None:
    turn = run(
        small(
            ("saito.dosan@example.com", "Saito Dosan", "meditate", "", ""),
            (KATSUIE, "Shibata Katsui", "meditate", "", ""),
        )
    )
    assert order_results(turn) == [
        ("meditate", "Rejected", "Saito Dosan is dead and can give no orders"),
        ("meditate", "Rejected", 'there is no character "Shibata Katsui" (did you mean Shibata Katsuie?)'),
    ]


def test_an_unknown_order_type_is_rejected_with_the_list_of_orders() -> None:
    turn = run(small((KATSUIE, "Shibata Katsuie", "conquer", "Kai", "")))
    status, result = order_results(turn)[0][1:]
    assert status == "Rejected"
    assert result.startswith('unknown order "conquer" (orders: tax-province, recruit-levies, build,')


def test_order_names_are_read_as_players_write_them() -> None:
    turn = run(
        small(
            (KATSUIE, "shibata  katsuie", "/econ Tax Province", "owari", ""),
        ),
        economy.economy_missions,
    )
    assert order_results(turn)[0][1] == "Resolved"
    assert turn.draft.get("Clans", "Oda", "Treasury") == 12


def test_a_rejected_impersonation_does_not_cancel_the_real_players_order() -> None:
    turn = run(
        small(
            (KATSUIE, "Shibata Katsuie", "meditate", "", ""),
            (SHINGEN, "Shibata Katsuie", "experiment", "", ""),
        ),
        knowledge.knowledge_missions,
    )
    assert [s for _, s, _ in order_results(turn)] == ["Resolved", "Rejected"]
