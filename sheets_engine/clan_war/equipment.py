"""Special items, spells and mundane equipment on personalities (the document's "Special items must be
assigned to a personality, but they may be traded between personalities later", "Tattoos may not be
traded", "You may also stockpile Spells, to be traded among your shugenja", the start phase's "Swapping"
and "Library", and the placing of newly purchased special items).

Start-phase orders (Purchases rows, settled at once): `assign` takes mundane equipment from the faction's
stockpile onto a personality (Target), or a spell from the library the personality stands at, if it is a
shugenja (the Catalogue's `Shugenja`); `return` puts mundane equipment back in the stockpile, or a spell
back into the library where the personality (From) stands; `swap` moves a special item or a spell from one
personality (From) to another (Target) at the same province (a spell only to a shugenja). Special items are
never stockpiled, tattoos never traded, and mundane equipment changes hands through the stockpile.

A newly purchased special item "may be placed on any newly purchased personality, or any personality who
did not battle this turn". It goes to the personality the purchase named (its Target) if that one may
receive it; otherwise to the faction's Daimyo, or else the first of its personalities in the Personalities
tab's order, who is in play and did not battle this turn (one placed this recovery phase included); the
Result says so, and a `swap` in a later start phase moves it on. When no personality of the faction may
receive it this turn, it waits (the purchase stays Accepted, paid) and is placed in the next recovery
phase by the same rule: a special item is never stockpiled, so the campaign never holds one nowhere.
"""

from __future__ import annotations

from typing import Any

from sheets_engine.clan_war.game import Turn
from sheets_engine.clan_war.items import carried, give, stock_count, store, take, unstore
from sheets_engine.clan_war.koku import Refused
from sheets_engine.clan_war.schema import ItemKind

GONE = ("Dead", "Released")


def may_receive(turn: Turn, faction: str, person: str) -> bool:
    """May a newly purchased special item be placed on this personality now?"""
    draft = turn.draft
    if not draft.has("Personalities", person):
        return False
    row = draft.row("Personalities", person)
    return row["Faction"] == faction and row["Status"] not in GONE and not row["Fought"]


def receivers(turn: Turn, faction: str) -> list[str]:
    """The faction's personalities who may receive a new special item: its Daimyo first, then tab order."""
    draft = turn.draft
    daimyo = str(draft.get("Factions", faction, "Daimyo"))
    order = [str(p) for p in draft.frame("Personalities").index]
    ranked = ([daimyo] if daimyo in order else []) + [p for p in order if p != daimyo]
    return [p for p in ranked if may_receive(turn, faction, p)]


def place_special_item(turn: Turn, row: dict[str, Any], cause: str) -> tuple[str, bool]:
    """Place a newly purchased special item: (what happened, placed); not placed, it waits, saying why."""
    faction, item, target = str(row["Faction"]), str(row["Item"]), str(row["Target"])
    if may_receive(turn, faction, target):
        give(turn.draft, target, item, cause)
        return f"{item} given to {target}", True
    why = _why_not(turn, target)
    others = receivers(turn, faction)
    if not others:
        return (
            f"{why}, and no personality of {faction} may receive {item} this turn (each battled or is out of "
            "play): it is placed in a later recovery phase on one who did not battle",
            False,
        )
    give(turn.draft, others[0], item, f"{cause}: {why}")
    return f"{why}, so {item} is given to {others[0]}, who did not (a swap moves it on)", True


def _why_not(turn: Turn, person: str) -> str:
    draft = turn.draft
    if not draft.has("Personalities", person):
        return f"{person} did not join the army"
    status = draft.get("Personalities", person, "Status")
    return f"{person} is {status}" if status in GONE else f"{person} battled this turn"


def _mine(turn: Turn, faction: str, person: str, column: str) -> None:
    draft = turn.draft
    if not person or not draft.has("Personalities", person) or draft.get("Personalities", person, "Faction") != faction:
        raise Refused(f"name a personality of {faction} as {column}")
    status = draft.get("Personalities", person, "Status")
    if status in GONE:
        raise Refused(f"{person} is {status}: name a personality in play as {column}")


def shugenja(turn: Turn, person: str) -> bool:
    """Is the personality a shugenja (its profile's Catalogue row says so)?"""
    draft = turn.draft
    profile = str(draft.get("Personalities", person, "Profile")) or str(draft.get("Personalities", person, "Item"))
    entry = turn.catalogue(profile)
    return bool(entry and entry["Shugenja"])


def _library(turn: Turn, faction: str, person: str) -> str:
    """The library the personality stands at, controlled by its faction (Refused otherwise)."""
    where = str(turn.draft.get("Personalities", person, "Province"))
    if not turn.draft.get("Provinces", where, "Library"):
        raise Refused(f"{person} is at {where}, which has no library: spells are swapped at a library")
    if turn.controller(where) != faction:
        raise Refused(f"the library at {where} is not {faction}'s")
    return where


def _tradeable(entry: dict[str, Any]) -> None:
    if entry["Kind"] == ItemKind.TATTOO.value:
        raise Refused(f"{entry['Item']} is a tattoo: tattoos may not be traded")


def assign(turn: Turn, row: dict[str, Any], entry: dict[str, Any]) -> str:
    """Mundane equipment from the stockpile, or a spell from a library, onto a personality (Target)."""
    faction, item, person = str(row["Faction"]), str(entry["Item"]), str(row["Target"])
    _tradeable(entry)
    _mine(turn, faction, person, "Target")
    cause = f"assign {item} to {person} by {faction}"
    if entry["Kind"] == ItemKind.EQUIPMENT.value:
        if stock_count(turn.draft, faction, item) < 1:
            raise Refused(f"{faction}'s stockpile holds no {item}")
        unstore(turn.draft, faction, item, "", cause)
        give(turn.draft, person, item, cause)
        return f"{person} takes {item} from the stockpile"
    if entry["Kind"] == ItemKind.SPELL.value:
        if not shugenja(turn, person):
            raise Refused(f"{person} is not a shugenja: spells are traded among shugenja")
        library = _library(turn, faction, person)
        if stock_count(turn.draft, faction, item, library) < 1:
            raise Refused(f"the library at {library} holds no {item} of {faction}'s")
        unstore(turn.draft, faction, item, library, cause)
        give(turn.draft, person, item, cause)
        return f"{person} takes {item} from the library at {library}"
    if entry["Kind"] == ItemKind.SPECIAL_ITEM.value:
        raise Refused(f"{item} is a special item, never in the stockpile: swap it from the personality who has it")
    raise Refused(f"{item} is a {entry['Kind']}: only mundane equipment and spells are assigned from the stockpile")


def give_back(turn: Turn, row: dict[str, Any], entry: dict[str, Any]) -> str:
    """`return`: mundane equipment back to the stockpile, or a spell into the library where the personality is."""
    faction, item, person = str(row["Faction"]), str(entry["Item"]), str(row["From"])
    _tradeable(entry)
    _mine(turn, faction, person, "From")
    if item not in carried(turn.draft, person):
        raise Refused(f"{person} does not carry {item}")
    cause = f"return {item} from {person} by {faction}"
    if entry["Kind"] == ItemKind.EQUIPMENT.value:
        take(turn.draft, person, item, cause)
        store(turn.draft, faction, item, 1, "", cause)
        return f"{person} puts {item} back in the stockpile"
    if entry["Kind"] == ItemKind.SPELL.value:
        library = _library(turn, faction, person)
        take(turn.draft, person, item, cause)
        store(turn.draft, faction, item, 1, library, cause)
        return f"{person} puts {item} into the library at {library}"
    raise Refused(f"{item} is a special item: it must stay with a personality (swap it to another)")


def swap(turn: Turn, row: dict[str, Any], entry: dict[str, Any]) -> str:
    """A special item or a spell moved from one personality (From) to another (Target) at the same province."""
    faction, item = str(row["Faction"]), str(entry["Item"])
    giver, person = str(row["From"]), str(row["Target"])
    _tradeable(entry)
    _mine(turn, faction, giver, "From")
    _mine(turn, faction, person, "Target")
    draft = turn.draft
    if item not in carried(draft, giver):
        raise Refused(f"{giver} does not carry {item}")
    if entry["Kind"] == ItemKind.EQUIPMENT.value:
        raise Refused(f"{item} is mundane equipment: return it to the stockpile, then assign it")
    if entry["Kind"] == ItemKind.SPELL.value and not shugenja(turn, person):
        raise Refused(f"{person} is not a shugenja: spells are traded among shugenja")
    here = str(draft.get("Personalities", giver, "Province"))
    there = str(draft.get("Personalities", person, "Province"))
    if here != there:
        raise Refused(f"{giver} is at {here} and {person} at {there}: items change hands at the same province")
    cause = f"swap {item} from {giver} to {person} by {faction}"
    take(draft, giver, item, cause)
    give(draft, person, item, cause)
    return f"{item} passes from {giver} to {person}"
