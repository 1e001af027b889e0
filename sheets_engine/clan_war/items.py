"""What a personality carries (Personalities `Items`: its special items, spells and mundane equipment, by
Catalogue name, comma-separated) and what a faction keeps in its Stockpile (mundane equipment, and spells at
a library). A personality's own equipment (its profile's) is no item here: it is never stockpiled, and it is
back in use as soon as an item that replaced it is removed."""

from __future__ import annotations

from collections.abc import Hashable

from sheets_engine.core.cells import split_names
from sheets_engine.core.tables import Draft


def carried(draft: Draft, person: str) -> list[str]:
    """The items a personality carries, in the order given."""
    return split_names(str(draft.get("Personalities", person, "Items")))


def give(draft: Draft, person: str, item: str, cause: str) -> None:
    """The personality now carries the item too."""
    draft.set("Personalities", person, "Items", ", ".join([*carried(draft, person), item]), cause)


def take(draft: Draft, person: str, item: str, cause: str) -> None:
    """The personality no longer carries (one of) the item."""
    items = carried(draft, person)
    items.remove(item)
    draft.set("Personalities", person, "Items", ", ".join(items), cause)


def stock_row(draft: Draft, faction: str, item: str, library: str) -> Hashable | None:
    """The faction's Stockpile row of the item (at the library, for a spell; "" for the stockpile)."""
    stock = draft.frame("Stockpile")
    same = stock.index[(stock["Faction"] == faction) & (stock["Item"] == item) & (stock["Library"] == library)]
    return same[0] if len(same) else None


def stock_count(draft: Draft, faction: str, item: str, library: str = "") -> int:
    """How many of the item the faction keeps there."""
    key = stock_row(draft, faction, item, library)
    return 0 if key is None else int(draft.get("Stockpile", key, "Count"))


def store(draft: Draft, faction: str, item: str, count: int, library: str, cause: str) -> None:
    """Put `count` of the item into the faction's stockpile (or the library, for a spell)."""
    key = stock_row(draft, faction, item, library)
    if key is None:
        draft.add_row("Stockpile", {"Faction": faction, "Item": item, "Count": count, "Library": library}, cause)
    else:
        draft.set("Stockpile", key, "Count", int(draft.get("Stockpile", key, "Count")) + count, cause)


def unstore(draft: Draft, faction: str, item: str, library: str, cause: str) -> None:
    """Take one of the item out of the faction's stockpile (or library); the caller checked there is one."""
    key = stock_row(draft, faction, item, library)
    assert key is not None
    draft.set("Stockpile", key, "Count", int(draft.get("Stockpile", key, "Count")) - 1, cause)
