"""The Art of War's rules, one test per rule of the document, with exact outcomes (pure: no sheet)."""

from __future__ import annotations

from sheets_engine.art_of_war.model import Kind, OrderKind, Status
from sheets_engine.art_of_war.orders import parse_order
from sheets_engine.art_of_war.rules import (
    Order,
    PieceMarch,
    Step,
    advance,
    mandate,
    march,
    play_turn,
    raise_levies,
    strengths,
)
from tests.aow import board, texts, world


def go(*steps: tuple[int, int], attack_last: bool = False) -> tuple[Step, ...]:
    """Steps entering each hex (the last one an attack with attack_last)."""
    found = [Step(h) for h in steps]
    if attack_last:
        found[-1] = Step(steps[-1], attack=True)
    return tuple(found)


# -- one order a turn ------------------------------------------------------------------------------
def test_one_order_a_turn_raise_or_march_never_both() -> None:
    assert parse_order("raise", "P1: 0,0 > 1,0", "") == (
        "a raise order has no moves: one order a turn, raise levies or march, never both"
    )
    assert parse_order("dance", "", "") == 'unknown order "dance": the order is raise or march'
    order = parse_order("March", "P7: 3,4 > 4,4; P9: 5,5 x 6,5", "soldier")
    assert order == Order(
        OrderKind.MARCH,
        (PieceMarch("P7", (3, 4), (Step((4, 4)),)), PieceMarch("P9", (5, 5), (Step((6, 5), attack=True),))),
        Kind.SOLDIER,
    )


# -- movement --------------------------------------------------------------------------------------
def test_plain_costs_one_so_a_piece_crosses_two_plains() -> None:
    w = world([("P1", "Crane", "soldier", (0, 0))])
    events, carried = march(w, "Crane", (PieceMarch("P1", (0, 0), go((1, 0), (2, 0))),))
    assert texts(events) == ["P1 marches 0,0 > 1,0", "P1 marches 1,0 > 2,0"]
    assert carried == ["P1: 0,0 > 1,0 > 2,0"]


def test_highland_and_forest_cost_two_and_a_step_without_the_points_is_refused() -> None:
    for ground in ("highland", "forest"):
        w = world([("P1", "Crane", "soldier", (0, 0))], ground={(2, 0): ground})
        events, _ = march(w, "Crane", (PieceMarch("P1", (0, 0), go((1, 0), (2, 0))),))
        assert texts(events) == ["P1 marches 0,0 > 1,0", f"P1 cannot enter 2,0: {ground} costs 2 and it has 1 left"]
        assert board(w) == {"P1": "Crane soldier 1,0"}


def test_the_documents_example_refusal_and_the_rest_of_the_order_goes_on() -> None:
    w = world([("P7", "Crane", "soldier", (2, 4)), ("P9", "Crane", "soldier", (0, 0))], {(4, 4): "highland"}, radius=8)
    events, carried = march(
        w,
        "Crane",
        (PieceMarch("P7", (2, 4), go((3, 4), (4, 4), (5, 4))), PieceMarch("P9", (0, 0), go((0, 1)))),
    )
    assert texts(events) == [
        "P7 marches 2,4 > 3,4",
        "P7 cannot enter 4,4: highland costs 2 and it has 1 left (the 1 step after it was not tried)",
        "P9 marches 0,0 > 0,1",
    ]
    assert carried == ["P7: 2,4 > 3,4", "P9: 0,0 > 0,1"]


def test_after_rough_ground_nothing_is_left_to_attack_with() -> None:
    w = world([("P1", "Crane", "soldier", (0, 0)), ("P3", "Tiger", "settler", (2, 0))], {(1, 0): "forest"})
    events, _ = march(w, "Crane", (PieceMarch("P1", (0, 0), go((1, 0), (2, 0), attack_last=True)),))
    assert texts(events) == [
        "P1 marches 0,0 > 1,0",
        "P1 cannot attack 2,0: an attack needs a movement point left and it has 0",
    ]


def test_one_piece_a_hex_and_no_passing_through_your_own() -> None:
    w = world(
        [("P1", "Crane", "soldier", (0, 0)), ("P2", "Crane", "settler", (1, 0)), ("P3", "Tiger", "settler", (0, 1))]
    )
    events, _ = march(w, "Crane", (PieceMarch("P1", (0, 0), go((1, 0), (2, 0))), PieceMarch("P1", (0, 0), go((0, 1)))))
    assert texts(events) == [
        "P1 cannot enter 1,0: P2 of its own house stands there (the 1 step after it was not tried)",
        "P1 is named twice in this march: only its first entry is tried",  # it never moved
    ]
    events, _ = march(w, "Crane", (PieceMarch("P2", (1, 0), go((0, 1))),))
    assert texts(events) == ["P2 cannot enter 0,1: Tiger's settler P3 stands there (attack it with x)"]


def test_stepping_beside_an_enemy_soldier_halts_but_the_piece_may_still_attack() -> None:
    w = world(
        [("P1", "Crane", "soldier", (0, 0)), ("P3", "Tiger", "soldier", (2, -1)), ("P4", "Tiger", "settler", (1, 1))]
    )
    events, _ = march(w, "Crane", (PieceMarch("P1", (0, 0), go((1, 0), (1, -1))),))
    assert texts(events) == [
        "P1 marches 0,0 > 1,0",
        "P1 halts at 1,0 beside an enemy soldier",
        "P1 cannot enter 1,-1: it halted at 1,0 beside an enemy soldier",
    ]
    w = world([("P1", "Crane", "soldier", (0, 0)), ("P3", "Tiger", "soldier", (2, -1))])
    events, _ = march(w, "Crane", (PieceMarch("P1", (0, 0), go((1, 0), (2, -1), attack_last=True)),))
    assert texts(events)[1:] == [
        "P1 halts at 1,0 beside an enemy soldier",
        "P1 attacks Tiger's soldier P3 at 2,-1: attack 1 (1) against defence 1 (soldier 1, plain cover 0)",
        "P3 (Tiger's soldier) at 2,-1 is destroyed (equal strength)",
        "P1 (Crane's soldier) at 1,0 is destroyed (equal strength)",
    ]


def test_settlers_never_attack_and_an_attack_ends_the_pieces_turn() -> None:
    w = world(
        [
            ("P1", "Crane", "settler", (0, 0)),
            ("P2", "Crane", "soldier", (0, 2)),
            ("P3", "Tiger", "settler", (1, 0)),
            ("P4", "Tiger", "settler", (0, 3)),
        ]
    )
    events, _ = march(
        w,
        "Crane",
        (
            PieceMarch("P1", (0, 0), go((1, 0), attack_last=True)),
            PieceMarch("P2", (0, 2), (Step((0, 3), True), Step((0, 1)))),
        ),
    )
    assert texts(events) == [
        "P1 cannot attack 1,0: settlers never attack",
        "P2 attacks Tiger's settler P4 at 0,3: attack 1 (1) against defence 0 (settler 0, plain cover 0)",
        "P4 (Tiger's settler) at 0,3 is put to the sword",
        "P2 advances 0,2 > 0,3",
        "P2's turn is over",
    ]


# -- combat ----------------------------------------------------------------------------------------
def test_attack_higher_the_defender_breaks_and_the_attacker_advances() -> None:
    w = world(
        [("P1", "Crane", "soldier", (0, 0)), ("P2", "Crane", "soldier", (1, -1)), ("P3", "Tiger", "soldier", (1, 0))]
    )
    events, _ = march(w, "Crane", (PieceMarch("P1", (0, 0), go((1, 0), attack_last=True)),))
    assert texts(events) == [
        "P1 attacks Tiger's soldier P3 at 1,0: attack 2 (1 + 1 soldier touching) against defence 1 "
        "(soldier 1, plain cover 0)",
        "P3 (Tiger's soldier) at 1,0 breaks",
        "P1 advances 0,0 > 1,0",
    ]
    assert board(w) == {"P1": "Crane soldier 1,0", "P2": "Crane soldier 1,-1"}


def test_attack_equal_both_companies_are_destroyed_and_the_hex_left_empty() -> None:
    w = world([("P1", "Crane", "soldier", (0, 0)), ("P3", "Tiger", "soldier", (1, 0))])
    march(w, "Crane", (PieceMarch("P1", (0, 0), go((1, 0), attack_last=True)),))
    assert board(w) == {}


def test_attack_lower_the_attack_is_thrown_back_and_the_company_lost() -> None:
    w = world([("P1", "Crane", "soldier", (0, 0)), ("P3", "Tiger", "soldier", (1, 0))], {(1, 0): "forest"})
    events, _ = march(w, "Crane", (PieceMarch("P1", (0, 0), go((1, 0), attack_last=True)),))
    assert texts(events)[1:] == ["P1 (Crane's soldier) at 0,0 is thrown back and lost"]
    assert board(w) == {"P3": "Tiger soldier 1,0"}


def test_defence_is_the_piece_plus_the_cover_of_its_ground_plus_two_on_its_own_capital() -> None:
    found = {}
    for ground in ("plain", "highland", "forest"):
        for kind in ("soldier", "settler"):
            w = world([("P1", "Crane", "soldier", (0, 0)), ("P3", "Tiger", kind, (1, 0))], {(1, 0): ground})
            found[(ground, kind)] = strengths(w, w.pieces["P1"], w.pieces["P3"])[2]
    assert found == {
        ("plain", "soldier"): 1,
        ("plain", "settler"): 0,
        ("highland", "soldier"): 2,
        ("highland", "settler"): 1,
        ("forest", "soldier"): 2,
        ("forest", "settler"): 1,
    }
    w = world(
        [("P1", "Crane", "soldier", (0, 0)), ("P3", "Tiger", "soldier", (1, 0)), ("P4", "Tiger", "soldier", (2, 0))],
        capitals={"Crane": (4, -4), "Tiger": (1, 0)},
    )
    assert strengths(w, w.pieces["P1"], w.pieces["P3"])[1:] == (
        "1",
        3,
        "soldier 1, plain cover 0, own capital 2",
    )  # P4 beside its house's defender adds nothing


def test_a_settlement_overrun_by_a_lone_company_is_put_to_the_sword_with_support_it_swears() -> None:
    w = world([("P1", "Crane", "soldier", (0, 0)), ("P3", "Tiger", "settler", (1, 0))])
    events, _ = march(w, "Crane", (PieceMarch("P1", (0, 0), go((1, 0), attack_last=True)),))
    assert texts(events)[1:] == ["P3 (Tiger's settler) at 1,0 is put to the sword", "P1 advances 0,0 > 1,0"]
    w = world(
        [("P1", "Crane", "soldier", (0, 0)), ("P2", "Crane", "soldier", (1, -1)), ("P3", "Tiger", "settler", (1, 0))]
    )
    events, _ = march(w, "Crane", (PieceMarch("P1", (0, 0), go((1, 0), attack_last=True)),))
    assert texts(events)[1:] == ["P3 at 1,0 surrenders and swears to Crane"]
    assert board(w) == {"P1": "Crane soldier 0,0", "P2": "Crane soldier 1,-1", "P3": "Crane settler 1,0"}


# -- raising levies --------------------------------------------------------------------------------
def test_plain_raises_a_settler_highland_a_soldier_forest_nothing_nearest_a_rival_capital() -> None:
    found = {}
    for ground in ("plain", "highland", "forest"):
        w = world([("P1", "Crane", "settler", (0, 0))], {(0, 0): ground})
        found[ground] = texts(raise_levies(w, "Crane"))
    assert found == {
        "plain": ["P1 at 0,0 raises settler P2 at -1,1"],  # -1,1 is the open hex nearest Tiger's capital -4,4
        "highland": ["P1 at 0,0 raises soldier P2 at -1,1"],
        "forest": ["P1 at 0,0 raises nothing: forest is not productive"],
    }


def test_a_soldier_raised_onto_an_empty_rival_capital_makes_that_house_fall_at_once() -> None:
    """'Put a soldier on a rival capital and that house falls at once': a raised soldier is put there too."""
    w = world(
        [("P1", "Crane", "settler", (0, 0)), ("P2", "Tiger", "soldier", (3, -3)), ("P3", "Tiger", "settler", (2, 2))],
        {(0, 0): "highland"},
        capitals={"Crane": (-4, 4), "Tiger": (1, 0)},
    )
    assert texts(raise_levies(w, "Crane"))[:2] == [
        "P1 at 0,0 raises soldier P4 at 1,0",
        "Tiger falls: Crane holds its capital 1,0",
    ]
    assert board(w) == {"P1": "Crane settler 0,0", "P3": "Crane settler 2,2", "P4": "Crane soldier 1,0"}
    assert w.houses["Tiger"].fallen and w.houses["Crane"].taken == 1


def test_a_settler_with_an_enemy_soldier_alongside_is_blockaded() -> None:
    w = world(
        [
            ("P1", "Crane", "settler", (0, 0)),
            ("P3", "Tiger", "soldier", (1, 0)),
            ("P4", "Crane", "settler", (3, -3)),
            ("P5", "Tiger", "settler", (2, -3)),
        ]
    )
    assert texts(raise_levies(w, "Crane")) == [
        "P1 at 0,0 is blockaded by an enemy soldier beside it and raises nothing",
        "P4 at 3,-3 raises settler P6 at 2,-2",  # an enemy settler beside blockades nothing
    ]


def test_a_settler_crowded_by_its_own_pieces_has_nowhere_to_put_a_new_one() -> None:
    around = [(1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1)]
    pieces = [("P1", "Crane", "settler", (0, 0))] + [(f"P{i + 2}", "Crane", "soldier", h) for i, h in enumerate(around)]
    w = world(pieces)
    assert texts(raise_levies(w, "Crane")) == ["P1 at 0,0 has no open hex beside it and raises nothing"]
    fill = [(1, -1), (0, -1), (-1, 0), (-1, 1), (2, 0), (2, -1), (1, 1)]
    w = world(
        [("P1", "Crane", "settler", (0, 0)), ("P2", "Crane", "settler", (1, 0))]
        + [(f"P{i + 3}", "Crane", "soldier", h) for i, h in enumerate(fill)]
    )
    # both touch only 0,1: the first settler fills it at once, and the second has nowhere left
    assert texts(raise_levies(w, "Crane")) == [
        "P1 at 0,0 raises settler P10 at 0,1",
        "P2 at 1,0 has no open hex beside it and raises nothing",
    ]


def test_the_capital_raises_what_its_switch_says_and_the_switch_may_change_each_turn() -> None:
    w = world(
        [("P1", "Crane", "settler", (0, 0)), ("P9", "Tiger", "settler", (-4, 4))],
        {(0, 0): "forest"},
        capitals={"Crane": (0, 0), "Tiger": (-4, 4)},
    )
    events, _ = play_turn(w, Order(OrderKind.RAISE))
    assert texts(events) == ["P1 at 0,0 raises settler P10 at -1,1"]  # the switch (settler), not the forest
    w.to_move = "Crane"
    events, _ = play_turn(w, Order(OrderKind.RAISE, (), Kind.SOLDIER))
    assert texts(events) == [
        "Crane's capital now raises soldier",
        "P1 at 0,0 raises soldier P11 at -1,0",
        "P10 at -1,1 raises settler P12 at -2,2",  # on plain: the switch is the capital's alone
    ]
    assert w.houses["Crane"].raises is Kind.SOLDIER


# -- winning and losing ----------------------------------------------------------------------------
def test_a_soldier_on_a_rival_capital_makes_that_house_fall_at_once() -> None:
    w = world(
        [
            ("P1", "Crane", "soldier", (0, 0)),
            ("P3", "Tiger", "soldier", (-3, 3)),
            ("P4", "Tiger", "settler", (-4, 4)),
            ("P5", "Lotus", "settler", (0, -4)),
        ],
        capitals={"Crane": (4, -4), "Tiger": (1, 0), "Lotus": (0, -4)},
        houses=("Crane", "Tiger", "Lotus"),
    )
    events, _ = play_turn(w, Order(OrderKind.MARCH, (PieceMarch("P1", (0, 0), go((1, 0))),)))
    assert texts(events) == [
        "P1 marches 0,0 > 1,0",
        "Tiger falls: Crane holds its capital 1,0",
        "P3 (Tiger's soldier) at -3,3 is removed: Tiger fell",
        "P4 at -4,4 swears to Crane",
    ]
    assert (w.houses["Tiger"].fallen, w.houses["Crane"].taken, (1, 0) in w.capital_of) == (True, 1, False)
    assert w.to_move == "Lotus"  # the fallen house is skipped


def test_a_settler_on_a_rival_capital_takes_nothing() -> None:
    w = world(
        [("P1", "Crane", "settler", (0, 0)), ("P3", "Tiger", "soldier", (-3, 3))],
        capitals={"Crane": (4, -4), "Tiger": (1, 0)},
    )
    events, _ = play_turn(w, Order(OrderKind.MARCH, (PieceMarch("P1", (0, 0), go((1, 0))),)))
    assert texts(events) == ["P1 marches 0,0 > 1,0"]
    assert w.houses["Tiger"].fallen is False


def test_take_every_capital_and_you_rule_the_empire() -> None:
    w = world(
        [("P1", "Crane", "soldier", (0, 0)), ("P2", "Crane", "soldier", (2, -1)), ("P3", "Tiger", "settler", (1, 0))],
        capitals={"Crane": (4, -4), "Tiger": (1, 0)},
    )
    events, _ = play_turn(w, Order(OrderKind.MARCH, (PieceMarch("P1", (0, 0), go((1, 0), attack_last=True)),)))
    assert texts(events) == [
        # the settler on its own capital: 0 + 0 + 2; the attack 1 + P2 touching: equal, both destroyed
        "P1 attacks Tiger's settler P3 at 1,0: attack 2 (1 + 1 soldier touching) against defence 2 "
        "(settler 0, plain cover 0, own capital 2)",
        "P3 (Tiger's settler) at 1,0 is destroyed (equal strength)",
        "P1 (Crane's soldier) at 0,0 is destroyed (equal strength)",
        "Tiger is out: it has no pieces left on the board",
        "Crane rules the empire: every other house has fallen",
    ]
    assert (w.status, w.winner, w.capital_of) == (Status.OVER, "Crane", {(4, -4): "Crane"})


def test_a_house_with_no_pieces_is_out_and_fallen_houses_are_skipped() -> None:
    w = world(
        [("P1", "Crane", "soldier", (0, 0)), ("P3", "Tiger", "settler", (1, 0)), ("P5", "Lotus", "settler", (0, -4))],
        houses=("Crane", "Tiger", "Lotus"),
    )
    events, _ = play_turn(w, Order(OrderKind.MARCH, (PieceMarch("P1", (0, 0), go((1, 0), attack_last=True)),)))
    assert texts(events)[-1] == "Tiger is out: it has no pieces left on the board"
    assert (w.to_move, w.season, w.capital_of.get((-4, 4))) == ("Lotus", 1, None)
    advance(w)
    assert (w.to_move, w.season) == ("Crane", 2)  # a full circuit of the standing houses is one season


def test_the_mandate_counts_capitals_taken_settlers_soldiers_and_settlements_ready() -> None:
    w = world(
        [("P1", "Crane", "settler", (0, 0)), ("P2", "Crane", "settler", (2, -2)), ("P3", "Crane", "soldier", (3, -3))],
        {(2, -2): "forest"},
    )
    w.houses["Crane"].taken = 1
    assert mandate(w, "Crane") == 10 + 4 * 2 + 3 + 2  # P2 in forest is not ready to raise
    assert mandate(w, "Tiger") == 0


def test_when_season_60_closes_the_mandate_goes_to_the_highest_score() -> None:
    w = world(
        [("P1", "Crane", "settler", (0, 0)), ("P2", "Crane", "soldier", (2, -2)), ("P3", "Tiger", "settler", (-2, 2))],
        {(0, 0): "forest"},
        to_move="Tiger",
    )
    w.season = 60
    events, _ = play_turn(w, Order(OrderKind.RAISE))
    assert texts(events) == [
        "P3 at -2,2 raises settler P4 at -1,1",  # -1,1 is nearest Crane's capital 4,-4
        "season 60 closes: the mandate goes to Tiger (Crane 7, Tiger 12)",
    ]
    assert (w.status, w.winner, w.season) == (Status.OVER, "Tiger", 60)
    w = world([("P1", "Crane", "soldier", (0, 0)), ("P3", "Tiger", "soldier", (-2, 2))], to_move="Crane")
    w.season = 59
    play_turn(w, Order(OrderKind.MARCH))
    play_turn(w, Order(OrderKind.MARCH))
    assert (w.status, w.season) == (Status.PLAYING, 60)  # season 59 closed; 60 is played


def test_when_the_last_two_companies_destroy_each_other_nobody_wins() -> None:
    w = world([("P1", "Crane", "soldier", (0, 0)), ("P3", "Tiger", "soldier", (1, 0))])
    events, _ = play_turn(w, Order(OrderKind.MARCH, (PieceMarch("P1", (0, 0), go((1, 0), attack_last=True)),)))
    assert texts(events)[-3:] == [
        "Crane is out: it has no pieces left on the board",
        "Tiger is out: it has no pieces left on the board",
        "every house has fallen: the campaign ends with no winner",
    ]
    assert (w.status, w.winner) == (Status.OVER, "")


def test_a_piece_is_named_in_any_case_as_a_house_is() -> None:
    w = world([("P1", "Crane", "soldier", (0, 0))])
    events, carried = march(w, "Crane", (PieceMarch("p1", (0, 0), go((1, 0))), PieceMarch("P1", (1, 0), go((2, 0)))))
    assert texts(events) == ["P1 marches 0,0 > 1,0", "P1 has marched already this turn"]
    assert carried == ["P1: 0,0 > 1,0"]


def test_a_piece_whose_entry_was_refused_is_not_said_to_have_marched_when_named_again() -> None:
    w = world([("P1", "Crane", "soldier", (0, 0))])
    wrong_start = PieceMarch("P1", (2, 0), go((3, 0)))  # P1 stands at 0,0
    events, carried = march(w, "Crane", (wrong_start, PieceMarch("P1", (0, 0), go((1, 0)))))
    assert texts(events) == [
        "P1 stands at 0,0, not 2,0",
        "P1 is named twice in this march: only its first entry is tried",
    ]
    assert carried == [] and board(w) == {"P1": "Crane soldier 0,0"}
