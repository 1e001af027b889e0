"""Sengoku Jidai's Google Form (`form sync`): its Character, Order and Target dropdowns, filled from the sheet.

The Target question is one dropdown of every province, army, clan and living character (the REST API
cannot route sections per order; intake judges whether a target fits the order).
"""

from __future__ import annotations

from sheets_engine.core.tables import GameState

# The questions the engine fills, their title when first linked, and the Game key that keeps the item id.
QUESTIONS = (
    ("Character", "form_character_item"),
    ("Order", "form_order_item"),
    ("Target", "form_target_item"),
)
KEY_NOTES = {
    "form_id": "The Google Form players send orders with (the long id in its edit URL); set by form sync --form",
    "form_character_item": "Written by form sync: the Form's Character question (its item id)",
    "form_order_item": "Written by form sync: the Form's Order question (its item id)",
    "form_target_item": "Written by form sync: the Form's Target question (its item id)",
}


def form_choices(state: GameState) -> dict[str, list[str]]:
    """Each question's options: living characters, the order names, every name an order can take."""
    characters = state.frame("Characters")
    living = [str(n) for n in characters.index[characters["Status"].astype(str).str.casefold() == "alive"]]
    orders = [str(n) for n in state.frame("Missions").index]
    targets = [str(n) for tab in ("Provinces", "Armies", "Clans") for n in state.frame(tab).index] + living
    return {"Character": _unique(living), "Order": _unique(orders), "Target": _unique(targets)}


def _unique(names: list[str]) -> list[str]:
    seen: dict[str, None] = {}
    for name in names:
        if name.strip() and name.casefold() not in {s.casefold() for s in seen}:
            seen[name] = None
    return list(seen)
