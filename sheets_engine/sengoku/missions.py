"""Authority and Knowledge by mission (guide Sections 2 and 7): rows of the Missions tab."""

from __future__ import annotations

from sheets_engine.core.tables import Draft
from sheets_engine.sengoku.order import Order


def apply_mission(draft: Draft, order: Order, authority: bool = True) -> str:
    """Give the acting character its Missions Authority and its clan the Knowledge.

    Returns the words to add to the order's Result ("" when the mission gives nothing).
    """
    key = order.type.value
    if not draft.has("Missions", key):
        return ""
    # cell by cell from the draft, not a pandas row (.loc) for each of a turn's orders
    row = {column: draft.get("Missions", key, column) for column in ("Authority", "Knowledge")}
    notes = []
    if authority and row["Authority"]:
        before = int(draft.get("Characters", order.character, "Authority"))
        draft.set("Characters", order.character, "Authority", before + int(row["Authority"]), order.cause)
        notes.append(f"Authority {int(row['Authority']):+d}")
    clan = draft.get("Characters", order.character, "Clan")
    if row["Knowledge"] and clan:
        before = int(draft.get("Clans", clan, "Knowledge"))
        draft.set("Clans", clan, "Knowledge", before + int(row["Knowledge"]), order.cause)
        notes.append(f"{clan} Knowledge +{int(row['Knowledge'])}")
    return f" ({', '.join(notes)})" if notes else ""
