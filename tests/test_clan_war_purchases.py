"""Clan War start phase: purchases under the document's limits, sealed bids, alliances declared."""

from __future__ import annotations

from datetime import UTC, datetime

from sheets_engine.clan_war import alliances, bids, new_forces, phases
from sheets_engine.clan_war import start as start_phase
from tests.clan_war_support import cell, default_people, make_turn, person, provinces, results, state, unit


def buy(faction: str, item: str, count: int | None = 1, target: str = "", province: str = "", action: str = "buy",
        ally_ok: bool = False) -> dict:  # fmt: skip
    return {"Turn": 1, "Faction": faction, "Action": action, "Item": item, "Count": count, "Target": target,
            "Province": province, "Ally OK": ally_ok, "Status": "Pending"}  # fmt: skip


def start(rolls: list[int] | None = None, **rows: list[dict]) -> object:
    turn = make_turn(state(**rows), rolls)
    alliances.declare(turn)
    start_phase.orders(turn)
    bids.bids(turn)
    return turn


NOW = datetime(2026, 12, 1, 20, 0, tzinfo=UTC)
ALLIED = [{"Faction A": "Crab", "Faction B": "Crane", "Since Turn": 1, "Status": "Active"}]


def test_a_unique_item_is_bought_only_once() -> None:
    hammer = buy("Crab", "Ancestral Hammer of the Crab", target="Hida Kisada")
    turn = start(purchases=[hammer, hammer])
    assert results(turn, "Purchases") == [
        ("Accepted", "bought Ancestral Hammer of the Crab for 40 koku; Hida Kisada receives it in the recovery phase"),
        ("Rejected", "Ancestral Hammer of the Crab is unique and Crab has it already"),
    ]
    assert cell(turn, "Factions", "Crab", "Koku") == 960


def test_a_dead_unique_personality_is_never_bought_again_by_anyone() -> None:
    people = [person("Hida Kisada", "Crab", "Hida Kisada", "Hida", Unique=True, Status="Dead"), default_people()[1]]
    turn = start(personalities=people, alliances=ALLIED, purchases=[
        buy("Crab", "Hida Kisada", province="Hida"), buy("Crane", "Hida Kisada", province="Doji", ally_ok=True),
    ])  # fmt: skip
    dead = "Hida Kisada is unique and has died: a dead unique personality may never be bought again"
    assert results(turn, "Purchases") == [("Rejected", dead), ("Rejected", dead)]


def test_a_unique_personality_and_its_experienced_version_are_one_personality() -> None:
    """Hida Kisada dead never returns as Hida Kisada (Experienced); while one Kisada lives, nobody buys the other."""
    people = [person("Hida Kisada", "Crab", "Hida Kisada", "Hida", Unique=True, Status="Dead"), default_people()[1]]
    turn = start(personalities=people, purchases=[buy("Crab", "Hida Kisada (Experienced)", province="Hida")])
    assert results(turn, "Purchases") == [
        ("Rejected", "Hida Kisada (Experienced) is a version of Hida Kisada, a unique personality who has died: "
                     "a dead unique personality may never be bought again"),
    ]  # fmt: skip
    turn = start(alliances=ALLIED, purchases=[
        buy("Crane", "Hida Kisada (Experienced)", province="Doji", ally_ok=True),
    ])  # fmt: skip
    assert results(turn, "Purchases") == [
        ("Rejected", "Hida Kisada (Experienced) is a version of Hida Kisada, which is unique and Crab has it already"),
    ]
    assert cell(turn, "Factions", "Crane", "Koku") == 1000


def test_a_purchase_of_no_models_or_items_is_refused() -> None:
    """Count 0 buys nothing: refused, rather than an empty unit taking the name or a row of 0 in the Stockpile."""
    turn = start(purchases=[
        buy("Crab", "Hida Ashigaru Spearmen", 0, "Levy", "Hida"), buy("Crab", "Yari", 0, action="stockpile"),
    ])  # fmt: skip
    nothing = "Count is 0: nothing to buy (give the number of models or items; an empty Count is 1)"
    assert results(turn, "Purchases") == [("Rejected", nothing), ("Rejected", nothing)]


def test_at_most_three_of_a_non_unique_personality_across_the_force() -> None:
    people = [*default_people(), person("Hida Aki", "Crab", "Hida Bushi", "Hida"),
              person("Hida Bo", "Crab", "Hida Bushi", "Kuni")]  # fmt: skip
    turn = start(personalities=people, purchases=[
        buy("Crab", "Hida Bushi", target="Hida Chu", province="Hida"),
        buy("Crab", "Hida Bushi", target="Hida Dan", province="Hida"),
    ])  # fmt: skip
    assert results(turn, "Purchases") == [
        ("Accepted", "bought Hida Bushi as Hida Chu for 60 koku; joins the army at Hida in the recovery phase"),
        ("Rejected", "Crab may have at most 3 of Hida Bushi across its force, and has 3"),
    ]


def test_generic_leadership_packages_are_unlimited_and_clan_ones_three() -> None:
    units = [unit(f"Spears {n}", "Crab", "Hida Ashigaru Spearmen", "Hida", 10) for n in range(1, 6)]
    promotions = [buy("Crab", "Hida Nikutai", target=f"Spears {n}", action="promote") for n in range(1, 5)]
    promotions += [buy("Crab", "Nikutai", target=f"Spears {n}", action="promote") for n in (4, 5)]
    turn = start(units=units, purchases=promotions)
    assert [s for s, _ in results(turn, "Purchases")] == ["Resolved"] * 3 + ["Rejected"] + ["Resolved"] * 2
    assert results(turn, "Purchases")[3][1] == "Crab may have at most 3 of Hida Nikutai across its force, and has 3"
    assert (cell(turn, "Units", "Spears 4", "Package"), cell(turn, "Units", "Spears 5", "Package")) == (
        "Nikutai", "Nikutai",
    )  # fmt: skip
    assert cell(turn, "Factions", "Crab", "Koku") == 1000 - 3 * 10 - 2 * 8


def test_a_destroyed_unit_is_not_promoted() -> None:
    units = [unit("Fallen", "Crab", "Hida Ashigaru Spearmen", "Hida", 0, Status="Destroyed")]
    turn = start(units=units, purchases=[buy("Crab", "Gunso", target="Fallen", action="promote")])
    assert results(turn, "Purchases") == [("Rejected", "Fallen was destroyed: there is no model to promote")]
    assert cell(turn, "Factions", "Crab", "Koku") == 1000


def test_a_troop_types_model_limit_counts_across_the_force() -> None:
    units = [
        unit("Wall", "Crab", "Hida Heavy Infantry", "Hida", 20),
        unit("Gate", "Crab", "Hida Heavy Infantry", "Kuni", 10),
    ]
    turn = start(units=units, purchases=[
        buy("Crab", "Hida Heavy Infantry", 3, "Tower", "Hida"), buy("Crab", "Hida Heavy Infantry", 2, "Tower", "Hida"),
    ])  # fmt: skip
    assert results(turn, "Purchases")[0] == (
        "Rejected", "only 32 models of Hida Heavy Infantry exist for a force, and Crab has 30"
    )  # fmt: skip
    assert results(turn, "Purchases")[1][0] == "Accepted"


def test_allied_units_need_the_allys_ok_cost_the_modifier_and_pay_the_ally_a_fifth_of_base_cost() -> None:
    turn = start(alliances=ALLIED, purchases=[
        buy("Crane", "Hida Heavy Infantry", 10, "Loan Guard", "Doji"),
        buy("Crane", "Hida Heavy Infantry", 10, "Loan Guard", "Doji", ally_ok=True),
        buy("Shadowlands", "Hida Ashigaru Spearmen", 10, "Thralls", "Pit", ally_ok=True),
    ])  # fmt: skip
    assert results(turn, "Purchases") == [
        ("Rejected", "Hida Heavy Infantry is the Crab's: buying it needs the ally's OK (Ally OK TRUE)"),
        ("Accepted", "bought 10 models of Hida Heavy Infantry as Loan Guard for 192 koku (Crab receives 32 koku); "
                     "joins the army at Doji in the recovery phase"),
        ("Rejected", "Hida Ashigaru Spearmen belongs to the Crab, whom Shadowlands may buy from only as an ally"),
    ]  # fmt: skip
    assert (cell(turn, "Factions", "Crane", "Koku"), cell(turn, "Factions", "Crab", "Koku")) == (808, 1032)
    new_forces.place_new_forces(turn)
    assert (cell(turn, "Units", "Loan Guard", "From Ally"), cell(turn, "Units", "Loan Guard", "Models")) == ("Crab", 10)


def test_ranged_weapons_may_not_be_stockpiled_and_spells_are_kept_at_a_library() -> None:
    turn = start(purchases=[
        buy("Crab", "Daikyu", 10, action="stockpile"), buy("Crab", "Yari", 20, action="stockpile"),
        buy("Crab", "Fires of Purity", 1, province="Hida", action="stockpile"),
        buy("Crab", "Fires of Purity", 1, province="Kuni", action="stockpile"),
    ])  # fmt: skip
    assert results(turn, "Purchases") == [
        ("Rejected", "Daikyu is a ranged weapon: ranged weapons may not be stockpiled"),
        ("Accepted", "bought 20 Yari for 20 koku; in the stockpile from the recovery phase"),
        ("Rejected", "spells are kept at a library: name a province with a library as Province"),
        ("Accepted", "bought 1 Fires of Purity for 25 koku; in the library at Kuni from the recovery phase"),
    ]
    new_forces.place_new_forces(turn)
    stock = turn.draft.frame("Stockpile")
    assert stock[["Faction", "Item", "Count", "Library"]].values.tolist() == [
        ["Crab", "Yari", 20, ""], ["Crab", "Fires of Purity", 1, "Kuni"],
    ]  # fmt: skip


def test_the_daimyos_command_group_is_free_up_to_three_quarters_of_the_daimyos_cost() -> None:
    turn = start(purchases=[buy("Crab", "Crab Command Group", 12, "Hida Kisada")])
    assert results(turn, "Purchases") == [
        ("Accepted", "12 models of Crab Command Group for Hida Kisada: 10 free (the Daimyo's entourage) and 2 for "
                     "30 koku; they join at Hida in the recovery phase"),
    ]  # fmt: skip
    assert (cell(turn, "Factions", "Crab", "Entourage Used"), cell(turn, "Factions", "Crab", "Koku")) == (150, 970)


def test_sealed_bids_the_higher_bid_recruits_at_its_price() -> None:
    turn = start(bids=[
        {"Turn": 1, "Faction": "Crab", "Personality": "Toku", "Bid": 60, "Province": "Hida"},
        {"Turn": 1, "Faction": "Crane", "Personality": "Toku", "Bid": 50, "Province": "Doji"},
    ])  # fmt: skip
    assert results(turn, "Bids") == [
        ("Won", "won Toku for 60 koku; joins the army at Hida in the recovery phase"),
        ("Lost", "outbid: Crab recruits Toku"),
    ]
    assert (cell(turn, "Factions", "Crab", "Koku"), cell(turn, "Factions", "Crane", "Koku")) == (940, 1000)
    new_forces.place_new_forces(turn)
    assert (cell(turn, "Personalities", "Toku", "Faction"), cell(turn, "Bids", 2, "Status")) == ("Crab", "Placed")


def test_sealed_bids_that_are_all_equal_recruit_nobody() -> None:
    turn = start(bids=[
        {"Turn": 1, "Faction": "Crab", "Personality": "Toku", "Bid": 60, "Province": "Hida"},
        {"Turn": 1, "Faction": "Crane", "Personality": "Toku", "Bid": 60, "Province": "Doji"},
    ])  # fmt: skip
    assert results(turn, "Bids") == [("Tied", "tied at 60 koku: nobody recruits Toku this turn")] * 2
    assert cell(turn, "Factions", "Crab", "Koku") == 1000


def test_a_bid_for_a_clan_no_player_plays_pays_the_allied_multiplier_on_the_bid() -> None:
    turn = start(bids=[{"Turn": 1, "Faction": "Crab", "Personality": "Otaku Kamoko", "Bid": 200, "Province": "Hida"}])
    assert results(turn, "Bids") == [
        ("Won", "won Otaku Kamoko for 240 koku; joins the army at Hida in the recovery phase")
    ]


def test_no_bid_for_a_unique_personality_another_player_controls() -> None:
    people = [*default_people(), person("Toku", "Crane", "Toku", "Doji", Unique=True)]
    turn = start(personalities=people, bids=[{"Turn": 1, "Faction": "Crab", "Personality": "Toku", "Bid": 90}])
    assert results(turn, "Bids") == [("Rejected", "Toku is unique and Crane has it already")]


def test_alliances_are_declared_in_the_start_phase_within_the_factions_rules() -> None:
    turn = start(alliances=[
        {"Faction A": "Crab", "Faction B": "Crane"}, {"Faction A": "Naga", "Faction B": "Shadowlands"},
        {"Faction A": "Shadowlands", "Faction B": "Crab"},
    ])  # fmt: skip
    assert results(turn, "Alliances") == [
        ("Active", "allied since the start phase of turn 1"),
        ("Refused", "refused: the Naga may never ally with the Shadowlands"),
        ("Refused", "refused: the Shadowlands may only ally with corrupted factions, and Crab is not corrupted"),
    ]
    assert cell(turn, "Alliances", 2, "Since Turn") == 1


def test_the_shadowlands_may_ally_with_a_corrupted_faction() -> None:
    from tests.clan_war_support import factions

    rows = factions()
    rows[0]["Corrupted"] = True
    turn = start(factions=rows, alliances=[{"Faction A": "Shadowlands", "Faction B": "Crab"}])
    assert results(turn, "Alliances") == [("Active", "allied since the start phase of turn 1")]


def test_units_of_an_unplayed_clan_are_not_bought_and_koku_must_suffice() -> None:
    from tests.clan_war_support import factions

    turn = start(factions=factions(Crab=50), purchases=[
        buy("Crab", "Shinjo Horsemen", 5, "Riders", "Hida"), buy("Crab", "Hida Bushi", 1, "Hida Aki", "Hida"),
        buy("Crab", "Hida Bushi", 1, "Hida Ko", "Pass"),
    ])  # fmt: skip
    assert results(turn, "Purchases") == [
        ("Rejected", "Shinjo Horsemen belongs to the Unicorn, a clan no player plays: recruit it through Bids"),
        ("Rejected", "costs 60 koku and Crab has 50"),
        ("Rejected", "new forces join only in a province Crab controlled at the start of the turn, not Pass"),
    ]


def test_a_personality_is_upgraded_to_its_experienced_version_for_the_difference_in_cost() -> None:
    turn = start(purchases=[buy("Crab", "Hida Kisada (Experienced)", target="Hida Kisada", action="upgrade")])
    assert results(turn, "Purchases") == [
        ("Resolved", "Hida Kisada is now Hida Kisada (Experienced), for the difference of 60 koku")
    ]
    kisada = turn.draft.row("Personalities", "Hida Kisada")
    assert (kisada["Item"], kisada["Experienced"], kisada["Max Wounds"], kisada["Command Limit"]) == (
        "Hida Kisada (Experienced)", True, 6, 50,
    )  # fmt: skip
    assert cell(turn, "Factions", "Crab", "Koku") == 940


def test_a_special_item_may_go_to_a_personality_bought_in_the_same_turn() -> None:
    """The document: newly purchased special items may be placed on any newly purchased personality."""
    turn = start(purchases=[
        buy("Crab", "Kuni Shugenja", target="Kuni Tansen", province="Kuni"),
        buy("Crab", "Ancestral Hammer of the Crab", target="Kuni Tansen"),
    ])  # fmt: skip
    assert results(turn, "Purchases")[1] == (
        "Accepted", "bought Ancestral Hammer of the Crab for 40 koku; Kuni Tansen receives it in the recovery phase",
    )  # fmt: skip
    new_forces.place_new_forces(turn)
    assert cell(turn, "Personalities", "Kuni Tansen", "Items") == "Ancestral Hammer of the Crab"
    assert cell(turn, "Factions", "Crab", "Koku") == 1000 - 70 - 40


def test_no_special_item_or_command_group_is_bought_for_a_dead_personality() -> None:
    """A dead (or released) personality carries nothing and leads no command group: refused, nothing paid."""
    people = [*default_people(), person("Hida Aki", "Crab", "Hida Bushi", "Hida", Status="Dead")]
    turn = start(personalities=people, purchases=[
        buy("Crab", "Ancestral Hammer of the Crab", target="Hida Aki"),
        buy("Crab", "Crab Command Group", 2, target="Hida Aki"),
    ])  # fmt: skip
    assert results(turn, "Purchases") == [
        ("Rejected", "Hida Aki is Dead: name a personality in play as Target"),
        ("Rejected", "Hida Aki is Dead: name a personality in play as Target"),
    ]
    assert cell(turn, "Factions", "Crab", "Koku") == 1000


def test_a_personality_released_by_a_broken_alliance_is_not_dead_and_may_be_hired_again() -> None:
    people = [*default_people(), person("Matsu Tsuko", "Crane", "Matsu Tsuko", "Doji", Unique=True,
                                        Status="Released", From_Ally="Lion"),
              person("Akodo Toturi", "Lion", "Akodo Toturi", "Hida", Unique=True)]  # fmt: skip
    from tests.clan_war_support import factions

    rows = [*factions(), {"Faction": "Lion", "Koku": 1000, "Daimyo": "Akodo Toturi"}]
    turn = start(factions=rows, personalities=people, purchases=[buy("Lion", "Matsu Tsuko", province="Hida")],
                 provinces=provinces(Hida="Lion"))  # fmt: skip
    assert results(turn, "Purchases")[0][0] == "Accepted"
    new_forces.place_new_forces(turn)
    tsuko = turn.draft.row("Personalities", "Matsu Tsuko")
    assert (tsuko["Faction"], tsuko["Province"], tsuko["Status"], tsuko["From Ally"]) == ("Lion", "Hida", "Ready", "")


def test_a_troop_type_restricted_to_one_unit_counts_across_the_force() -> None:
    units = [unit("Iron", "Crane", "Daidoji Iron Warriors", "Doji", 8)]
    turn = start(units=units, purchases=[buy("Crane", "Daidoji Iron Warriors", 4, "More Iron", "Doji")])
    assert results(turn, "Purchases") == [
        ("Rejected", "a force may have 1 unit of Daidoji Iron Warriors, and Crane has 1"),
    ]
    turn = start(purchases=[buy("Crane", "Daidoji Iron Warriors", 4, "Iron", "Doji"),
                            buy("Crane", "Daidoji Iron Warriors", 4, "More Iron", "Doji")])  # fmt: skip
    assert [s for s, _ in results(turn, "Purchases")] == ["Accepted", "Rejected"]


def test_a_personality_won_by_a_bid_with_no_province_joins_only_where_the_faction_held_at_the_start() -> None:
    """Empty Province: with the Daimyo; a Daimyo who marched out of the faction's provinces during the turn
    does not take the new personality into neutral ground (new forces join where the faction held at the start)."""
    bid = {"Turn": 1, "Faction": "Crab", "Personality": "Toku", "Bid": 60, "Status": "Pending"}
    march = {"Turn": 1, "Phase": "primary", "Faction": "Crab", "Mover": "Hida Kisada", "To": "Pass"}
    outcome = phases.resolve_turn(state(bids=[bid], moves=[march]), NOW)
    people = outcome.state.frame("Personalities")
    assert (people.at["Hida Kisada", "Province"], people.at["Toku", "Province"]) == ("Pass", "Hida")
    assert outcome.state.frame("Bids").at[2, "Result"] == (
        "won Toku for 60 koku; joins the army at Hida in the recovery phase. Placed: Toku at Hida"
    )


def test_generic_personalities_may_be_had_experienced_and_not_each_up_to_three() -> None:
    """ "You may have experienced and non-experienced versions of the same personality ... if the non-experienced
    version is also non-unique": three Hida Bushi, and a Hida Bushi (Experienced) besides."""
    people = [*default_people(), *(person(f"Hida {n}", "Crab", "Hida Bushi", "Hida") for n in ("Aki", "Bo", "Chu"))]
    turn = start(personalities=people, purchases=[
        buy("Crab", "Hida Bushi (Experienced)", target="Hida Dan", province="Hida"),
        buy("Crab", "Hida Bushi", target="Hida Eiji", province="Hida"),
    ])  # fmt: skip
    assert [s for s, _ in results(turn, "Purchases")] == ["Accepted", "Rejected"]
