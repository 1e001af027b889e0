"""Clan War recruitment of forces of clans no player plays ("a similar process" to the sealed bids, the
allied multiplier on the bid), and the cost modifier per pair of clans ("Crane recruiting Phoenix pay 120%")."""

from __future__ import annotations

from sheets_engine.clan_war import alliances, bids, new_forces, start
from tests.clan_war_support import cell, factions, make_turn, results, state


def bid(faction: str, item: str, price: int, count: int | None = None, target: str = "", province: str = "") -> dict:
    return {"Turn": 1, "Faction": faction, "Personality": item, "Bid": price, "Count": count, "Target": target,
            "Province": province, "Status": "Pending"}  # fmt: skip


def recruited(*rows: dict, **tabs: list[dict]) -> object:
    turn = make_turn(state(bids=list(rows), **tabs))
    bids.bids(turn)
    return turn


def test_units_of_a_clan_no_player_plays_are_bid_for_per_model_and_pay_the_multiplier_on_the_bid() -> None:
    """Unicorn is played by nobody: Crab bids 22 a model for 10 Shinjo Horsemen, Crane 21 for 12; Crab's is
    higher and pays 10 x 22 x 120% = 264; the riders join at Hida in the recovery phase."""
    turn = recruited(bid("Crab", "Shinjo Horsemen", 22, 10, "Riders", "Hida"),
                     bid("Crane", "Shinjo Horsemen", 21, 12, "Lancers", "Doji"))  # fmt: skip
    assert results(turn, "Bids") == [
        ("Won", "won 10 models of Shinjo Horsemen as Riders for 264 koku; joins the army at Hida in the recovery "
                "phase"),
        ("Lost", "outbid: Crab recruits Shinjo Horsemen"),
    ]  # fmt: skip
    new_forces.place_new_forces(turn)
    riders = turn.draft.row("Units", "Riders")
    assert (riders["Faction"], riders["Models"], riders["Province"], riders["ML"], riders["From Ally"]) == (
        "Crab", 10, "Hida", 5, "",
    )  # fmt: skip
    assert (cell(turn, "Factions", "Crab", "Koku"), cell(turn, "Bids", 2, "Status")) == (736, "Placed")


def test_a_bid_for_units_keeps_their_limits_and_the_catalogue_cost() -> None:
    turn = recruited(bid("Crab", "Shinjo Horsemen", 19, 10, "Riders", "Hida"),
                     bid("Crane", "Shinjo Horsemen", 25, 13, "Lancers", "Doji"),
                     bid("Naga", "Shinjo Horsemen", 25, 10, "", "Temple"))  # fmt: skip
    assert results(turn, "Bids") == [
        ("Rejected", "a bid must be at least Shinjo Horsemen's cost of 20 koku a model"),
        ("Rejected", "a unit of Shinjo Horsemen holds at most 12 models, not 13"),
        ("Rejected", "name the new unit in Target"),
    ]


def test_a_non_unique_personality_of_a_clan_no_player_plays_is_bid_for_not_refused_both_ways() -> None:
    """Purchases sends it to Bids, and Bids recruits it (it used to refuse it as not unique)."""
    turn = make_turn(state(purchases=[{"Turn": 1, "Faction": "Crab", "Action": "buy", "Item": "Shinjo Bushi",
                                       "Target": "Shinjo Ko", "Province": "Hida", "Status": "Pending"}],
                           bids=[bid("Crab", "Shinjo Bushi", 60, province="Hida")]))  # fmt: skip
    start.orders(turn)
    bids.bids(turn)
    assert results(turn, "Purchases")[0] == (
        "Rejected", "Shinjo Bushi belongs to the Unicorn, a clan no player plays: recruit it through Bids",
    )  # fmt: skip
    assert results(turn, "Bids")[0] == ("Won", "won Shinjo Bushi for 72 koku; joins the army at Hida in the recovery "
                                               "phase")  # fmt: skip


def test_unaligned_unique_items_are_bid_for_only_where_the_campaign_says_so() -> None:
    """The document makes item bids optional: with `unique_item_bids` TRUE, the Jade Amulet is bid for."""
    hammer = "Ancestral Hammer of the Crab"  # a played clan's item: never bid for
    rows = (bid("Crab", hammer, 50, target="Hida Kisada"), bid("Crab", "Ronin Bushi", 50),
            bid("Crab", "Jade Amulet", 35, target="Hida Kisada"))  # fmt: skip
    turn = recruited(*rows)
    assert results(turn, "Bids") == [
        ("Rejected", f"{hammer} belongs to the Crab, a clan a player plays: it is not recruited by bidding"),
        ("Rejected", "Ronin Bushi is unaligned and not unique: buy it in Purchases"),
        ("Rejected", "Jade Amulet is unaligned and unique: buy it in Purchases"),
    ]
    turn = make_turn(state({"unique_item_bids": "TRUE"}, bids=list(rows)))
    bids.bids(turn)
    assert results(turn, "Bids")[2] == ("Won", "won Jade Amulet for 35 koku; Hida Kisada receives it in the "
                                               "recovery phase")  # fmt: skip
    new_forces.place_new_forces(turn)
    assert cell(turn, "Personalities", "Hida Kisada", "Items") == "Jade Amulet"


def test_the_cost_modifier_is_per_pair_of_clans() -> None:
    """Crane's Ally Costs say Crab troops cost it 110%: 10 Hida Heavy Infantry (160) cost 176, the Crab getting
    20% of the base cost (32); Crab buying Crane troops pays the default 120%."""
    rows = factions()
    rows[1]["Ally Costs"] = "Crab 110%, Phoenix 120%"
    allied = [{"Faction A": "Crab", "Faction B": "Crane", "Since Turn": 1, "Status": "Active"}]
    buy = [{"Turn": 1, "Faction": "Crane", "Action": "buy", "Item": "Hida Heavy Infantry", "Count": 10,
            "Target": "Loan", "Province": "Doji", "Ally OK": True, "Status": "Pending"},
           {"Turn": 1, "Faction": "Crab", "Action": "buy", "Item": "Kakita Duelists", "Count": 10,
            "Target": "Guests", "Province": "Hida", "Ally OK": True, "Status": "Pending"}]  # fmt: skip
    turn = make_turn(state(factions=rows, alliances=allied, purchases=buy))
    alliances.declare(turn)
    start.orders(turn)
    assert [r for _, r in results(turn, "Purchases")] == [
        "bought 10 models of Hida Heavy Infantry as Loan for 176 koku (Crab receives 32 koku); joins the army at "
        "Doji in the recovery phase",
        "bought 10 models of Kakita Duelists as Guests for 168 koku (Crane receives 28 koku); joins the army at "
        "Hida in the recovery phase",
    ]


def test_a_bid_pays_the_pair_modifier_of_its_own_clan() -> None:
    rows = factions()
    rows[0]["Ally Costs"] = "Unicorn 150%"
    turn = recruited(bid("Crab", "Otaku Kamoko", 200, province="Hida"), factions=rows)
    assert results(turn, "Bids") == [("Won", "won Otaku Kamoko for 300 koku; joins the army at Hida in the recovery "
                                             "phase")]  # fmt: skip
