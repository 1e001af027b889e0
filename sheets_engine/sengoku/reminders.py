"""Who has not ordered yet: the characters a deadline reminder names (no rule of the guide; the
guide's GMs pinged the players in their clan channels by hand).

A living character has ordered for the current turn if an Orders row of this turn names it, or a
form response not yet copied into Orders names it and was sent by the deadline (a later one
belongs to the next turn). Any order counts, even one that will be rejected: the reminder asks
for an order, `check` says whether it will work.
"""

from __future__ import annotations

from datetime import datetime

from sheets_engine.core.deadlines import local_time
from sheets_engine.core.tables import GameState
from sheets_engine.sengoku.orders import find, new_responses
from sheets_engine.sengoku.schema import CharacterStatus


def without_orders(state: GameState, turn: int, cutoff: datetime | None) -> dict[str, list[str]]:
    """Clan -> its living characters with no order for `turn` yet (clans with none left out)."""
    characters = state.frame("Characters")
    orders = state.frame("Orders")
    zone = cutoff.tzinfo if cutoff is not None else None
    ordered: set[str] = set()
    for name in orders.loc[orders["Turn"] == turn, "Character"]:
        found = find(characters.index, str(name))
        if found:
            ordered.add(found)
    for _, values, _ in new_responses(state.frame("Form Responses 1"), orders):
        sent = local_time(values["Submitted"], zone) if zone is not None else None
        if cutoff is not None and sent is not None and sent > cutoff:
            continue  # for a later turn
        found = find(characters.index, values["Character"])
        if found:
            ordered.add(found)
    missing: dict[str, list[str]] = {}
    alive = characters[characters["Status"] == CharacterStatus.ALIVE.value]
    for name, row in alive.iterrows():
        if str(name) not in ordered and str(row["Clan"]).strip():
            missing.setdefault(str(row["Clan"]), []).append(str(name))
    return missing
