"""The start phase's orders (the document's "Start": "You may do any of the following, in any order"): every
Pending Purchases row of the turn is settled in row order, so that a player orders them as they need (a
personality bought, then given a special item; a model promoted twice; equipment returned, then assigned).

What each action does is in the module named after its rule: buying, stockpiling and replacing casualties
(clan_war.purchases), promotion and upgrades (clan_war.promotion), tattoos (clan_war.tattoos), assigning
and swapping items (clan_war.equipment), reassignment (clan_war.reassignment). A purchase is Accepted (paid
now, placed in the recovery phase: clan_war.new_forces); the others are Resolved at once; a row the rules
do not allow is Rejected with the reason, and the rest of the turn resolves.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sheets_engine.clan_war import equipment, promotion, purchases, reassignment, tattoos
from sheets_engine.clan_war.game import Turn
from sheets_engine.clan_war.koku import Refused, count_of
from sheets_engine.clan_war.schema import Action, PurchaseStatus

Settle = Callable[[Turn, dict[str, Any], Any], str]

# action -> (what settles it, whether it is paid now and placed in the recovery phase)
ACTIONS: dict[str, tuple[Settle, bool]] = {
    Action.BUY.value: (purchases.buy, True),
    Action.STOCKPILE.value: (purchases.stockpile, True),
    Action.REPLACE.value: (purchases.replace, True),
    Action.TATTOO.value: (tattoos.tattoo, True),
    Action.PROMOTE.value: (promotion.promote, False),
    Action.UPGRADE.value: (promotion.upgrade, False),
    Action.ASSIGN.value: (equipment.assign, False),
    Action.SWAP.value: (equipment.swap, False),
    Action.RETURN.value: (equipment.give_back, False),
    Action.LEAD.value: (reassignment.lead, False),
    Action.JOIN.value: (reassignment.join, False),
    Action.LEAVE.value: (reassignment.leave, False),
    Action.TRANSFER.value: (reassignment.transfer, False),
}
COUNTED = (Action.BUY.value, Action.STOCKPILE.value, Action.REPLACE.value)


def orders(turn: Turn) -> None:
    """Settle this turn's Pending Purchases rows, in row order."""
    draft = turn.draft
    frame = draft.frame("Purchases")
    for key in list(frame.index):
        row = draft.row("Purchases", key)
        if row["Turn"] != turn.number or row["Status"] != PurchaseStatus.PENDING.value:
            continue
        action = str(row["Action"])
        what = row["Item"] or row["From"] or row["Target"]
        cause = f"{action} {what} by {row['Faction']}"
        settle, paid = ACTIONS[action]
        try:
            if action in COUNTED and count_of(row) < 1:
                raise Refused("Count is 0: nothing to buy (give the number of models or items; an empty Count is 1)")
            result = settle(turn, row, turn.catalogue(str(row["Item"])) if row["Item"] else None)
        except Refused as refusal:
            turn.purchases.reject(key, str(refusal), cause)
            turn.summary["purchases refused"] += 1
            continue
        if paid:
            draft.set("Purchases", key, "Status", PurchaseStatus.ACCEPTED.value, cause)
            draft.set("Purchases", key, "Result", result, cause)
            turn.summary["purchases made"] += 1
        else:
            turn.purchases.resolve(key, result, cause)
            turn.summary["start orders carried out"] += 1
