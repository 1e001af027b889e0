"""Who has not ordered yet: the factions a deadline reminder goes to (no rule of the document: its
players handed their orders to the GM).

A faction with a Player has ordered for the turn when a Purchases, Bids or Moves row of the turn names
it, or a Form response not yet copied names it and was sent by the deadline (a later one belongs to
the next turn). Any order counts, even one that will be rejected: the reminder asks for orders,
`check` says whether they will work. A faction no one plays (no Player) is never reminded.
"""

from __future__ import annotations

from datetime import datetime

from sheets_engine.clan_war.intake import ORDER_TABS, find, new_responses
from sheets_engine.core.deadlines import local_time
from sheets_engine.core.tables import GameState


def without_orders(state: GameState, turn: int, cutoff: datetime | None) -> dict[str, list[str]]:
    """Faction -> [its player] for each played faction with no order for `turn` yet."""
    factions = state.frame("Factions")
    ordered: set[str] = set()
    for tab in ORDER_TABS:
        frame = state.frame(tab)
        ordered.update(str(f) for f in frame.loc[frame["Turn"] == turn, "Faction"])
    zone = cutoff.tzinfo if cutoff is not None else None
    responses = state.frame("Form Responses 1")
    for response in new_responses(state):
        sent = local_time(response.submitted, zone) if zone is not None else None
        if cutoff is not None and sent is not None and sent > cutoff:
            continue  # for a later turn
        named = find(factions.index, str(responses.at[response.key, "Faction"]))
        if named:
            ordered.add(named)
    return {
        str(f): [str(factions.at[f, "Player"])]
        for f in factions.index
        if str(factions.at[f, "Player"]).strip() and str(f) not in ordered
    }


def sentence(faction: str, players: list[str]) -> str:
    """The reminder's last sentence, as the faction's channel reads it."""
    return f"No order yet from the {faction} faction ({', '.join(players)})."
