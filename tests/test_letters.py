"""Guide Section 10: letters wait as Pending and go out at resolution, as many as Learning allows."""

from __future__ import annotations

import pytest

from sheets_engine.sengoku import letters
from tests.campaigns import KATSUIE, small
from tests.rules import cell, result_of, run


@pytest.mark.parametrize(("learning", "limit"), [(0, 1), (1, 2), (2, 3), (3, 4), (4, 6), (5, None), (8, None)])
def test_letters_dispatched_per_turn_by_learning_level(learning: int, limit: int | None) -> None:
    assert letters.letter_limit(small().frame("Tech"), learning) == limit


def pending(count: int) -> list[dict[str, object]]:
    return [
        {"Letter": f"L{i}", "Turn": turn, "From": "Shibata Katsuie", "To Clan": "Takeda", "Text": f"letter {i}",
         "Status": "Pending"}
        for i, turn in zip(range(1, count + 1), [3, 1, 2, 2, 4, 4, 4, 4], strict=False)
    ]  # fmt: skip


def test_letter_limit_at_learning_0_sends_the_oldest_letter_only() -> None:
    turn = run(small(letters=pending(3)), letters.dispatch)
    assert [cell(turn, "Letters", f"L{i}", "Status") for i in (1, 2, 3)] == ["Pending", "Delivered", "Pending"]
    assert cell(turn, "Letters", "L2", "Delivered Turn") == 1
    assert turn.draft.logs["Notifications"] == [
        {"Turn": 1, "Audience": "clan:Takeda", "Channel": "letters",
         "Message": "Letter from Shibata Katsuie of Oda: letter 2"}
    ]  # fmt: skip


def test_letter_limit_at_learning_1_sends_two_oldest_first() -> None:
    turn = run(small(letters=pending(4), oda={"Learning": 1}), letters.dispatch)
    assert [cell(turn, "Letters", f"L{i}", "Status") for i in (1, 2, 3, 4)] == [
        "Pending", "Delivered", "Delivered", "Pending",
    ]  # fmt: skip


def test_letters_at_learning_5_have_no_limit() -> None:
    turn = run(small(letters=pending(8), oda={"Learning": 5}), letters.dispatch)
    assert set(turn.draft.frame("Letters")["Status"]) == {"Delivered"}


def test_write_letter_stages_a_pending_letter() -> None:
    turn = run(small((KATSUIE, "Shibata Katsuie", "write-letter", "takeda", "=Surrender or perish")),
               letters.write_letters)  # fmt: skip
    assert cell(turn, "Letters", "L1", "Status") == "Pending"
    assert cell(turn, "Letters", "L1", "Text") == "=Surrender or perish"
    assert cell(turn, "Letters", "L1", "To Clan") == "Takeda"
    assert result_of(turn, "write-letter") == ("Resolved", "Letter L1 to Takeda is waiting to be dispatched")


def test_write_letter_needs_a_clan_and_a_text() -> None:
    state = small(
        (KATSUIE, "Shibata Katsuie", "write-letter", "Hojo", "hello"),
        (KATSUIE, "Shibata Katsuie", "write-letter", "Takeda", ""),
    )
    turn = run(state, letters.write_letters)
    assert list(turn.draft.frame("Orders")["Result"]) == [
        'there is no clan "Hojo"',
        "the letter has no text (write it in Detail)",
    ]


def test_a_letter_delivered_the_turn_it_was_written_says_so_in_its_orders_result() -> None:
    """Issue 13: the Result said "waiting to be dispatched" while the Letters tab showed it Delivered.
    A Result is written once the turn has settled what happened; one kept back by the Learning
    limit still says it waits."""
    state = small(
        (KATSUIE, "Shibata Katsuie", "write-letter", "Takeda", "first"),
        (KATSUIE, "Shibata Katsuie", "write-letter", "Takeda", "second"),
    )
    turn = run(state, letters.write_letters, letters.dispatch)  # Oda's Learning 0: one letter a turn
    assert [cell(turn, "Letters", n, "Status") for n in ("L1", "L2")] == ["Delivered", "Pending"]
    frame = turn.draft.frame("Orders")
    assert frame["Result"].tolist() == [
        "Letter L1 to Takeda was delivered",
        "Letter L2 to Takeda is waiting to be dispatched",
    ]
