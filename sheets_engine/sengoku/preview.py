"""What other clans' orders could still change about one clan's order (for `check` before the deadline).

A check judges a clan's orders by resolving the turn with that clan's orders alone; what the dice
decide it finds by trying the dice's extremes. What it cannot find that way is an order other clans
may still give before the deadline. The rules say where those reach into another clan's order:

- an execution (step 4) of a foreign character standing at the executor clan's capital;
- a crossing-path conflict (step 8) with an army marching the other way: only an army standing in
  the destination can (mutual allies can stop it, and a declaration of this turn can make them so);
- establish-relations (step 6): the other clan may open the same channel first ("already have relations");
- claim-shogunate (step 6): other claimants, and the levies other clans raise before it;
- write-letter (step 6): the letter's number follows every letter written before it this turn.

Everything else a clan orders touches its own treasury, provinces, armies and characters only.
"""

from __future__ import annotations

from sheets_engine.core.tables import GameState
from sheets_engine.sengoku.orders import find
from sheets_engine.sengoku.schema import ArmyStatus, OrderType


def other_clans_may_change(
    state: GameState, clan: str, character: str, kind: OrderType, target: str, detail: str
) -> str:
    """Why other clans' orders could change this order's outcome, in a player's words ("" if they cannot)."""
    reasons = []
    characters, clans = state.frame("Characters"), state.frame("Clans")
    where = str(characters.at[character, "Location"]) if character in characters.index else ""
    hosts = [str(c) for c in clans.index[(clans["Capital"] == where) & (clans.index != clan)]] if where else []
    if hosts:
        reasons.append(f"{character} stands at the {hosts[0]} capital, where the {hosts[0]} Daimyo may execute him")
    if kind is OrderType.LEAD_ARMY:
        provinces = state.frame("Provinces")
        destination = find(provinces.index, detail)
        armies = state.frame("Armies")
        there = armies[
            (armies["Province"] == destination) & (armies["Clan"] != clan)
            & (armies["Status"] != ArmyStatus.DESTROYED.value)
        ] if destination else armies.iloc[0:0]  # fmt: skip
        if len(there):
            names = ", ".join(f"{a} ({there.at[a, 'Clan']})" for a in there.index)
            reasons.append(f"{names} in {destination} may march the other way")
    elif kind is OrderType.ESTABLISH_RELATIONS:
        reasons.append(f"{target or 'the other clan'} may open relations with you first")
    elif kind is OrderType.CLAIM_SHOGUNATE:
        reasons.append("other clans may claim too, and their levies count")
    elif kind is OrderType.WRITE_LETTER:
        reasons.append("the letter's number follows the letters other clans write this turn")
    return "; ".join(reasons)
