"""Clan War's Google Form (`form sync`): its dropdowns filled from the sheet.

One Form for every order of the start phase and the movement: the players choose their Faction and
the Order (a Purchases action, "bid", or a move of a phase), then answer the questions that order
needs (Item, Count, From, Target, Province, Ally OK for a purchase; Item, Bid, Count, Target,
Province for a bid; Mover and To for a move). The REST API cannot route sections per order, so
every question is on one page and intake (clan_war.intake) reads the ones the order needs.
"""

from __future__ import annotations

from sheets_engine.clan_war.intake import ORDERS, living
from sheets_engine.core.tables import GameState

# The dropdown questions the engine fills, their title when first linked, and the Game key that keeps the item id.
QUESTIONS = (
    ("Faction", "form_faction_item"),
    ("Order", "form_order_item"),
    ("Item", "form_item_item"),
    ("Province", "form_province_item"),
    ("Mover", "form_mover_item"),
    ("To", "form_to_item"),
)
KEY_NOTES = {
    "form_id": "The Google Form players send orders with (the long id in its edit URL); set by form sync --form",
    **{key: f"Written by form sync: the Form's {name} question (its item id)" for name, key in QUESTIONS},
}


def form_choices(state: GameState) -> dict[str, list[str]]:
    """Each question's options: the factions, the orders, the Catalogue, the provinces, the forces standing."""
    provinces = [str(p) for p in state.frame("Provinces").index]
    return {
        "Faction": [str(f) for f in state.frame("Factions").index],
        "Order": list(ORDERS),
        "Item": [str(i) for i in state.frame("Catalogue").index],
        "Province": provinces,
        "Mover": living(state),
        "To": provinces,
    }
