"""Special items, spells and mundane equipment on personalities (the document's "Special items must be
assigned to a personality", "Swapping" and "Library", and the placing of newly purchased special items).

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
from sheets_engine.clan_war.items import give

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
