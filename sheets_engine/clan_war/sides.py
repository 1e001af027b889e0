"""The sides of a battle, and forces that switch sides in the middle of one (the document's "Breaking
Alliances": "Any action which would place forces in opposition to allied forces breaks the alliance. This
may happen in the middle of battle, with one force 'switching sides.' ... the Scorpion turn on the Cranes
and join forces with the Lions").

The winning side is the Winner and its allies among the factions that fought (an ally's ally is not
brought in: alliances are not shared). The GM records a force that switched sides on a Battle Results row
of its own (`Switched Sides`: the faction; `Sided With`: the faction it joined): a switching faction is on
the side of the faction it sided with, whichever side that is, and its alliances bring nobody in. Every
other faction lost. A switch breaks the switcher's alliance with each ally that fought there and that it
did not side with; allies that end on opposite sides have broken theirs too (clan_war.alliances).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import Any

from sheets_engine.clan_war.game import Turn


def switches(rows: Iterable[tuple[Hashable, dict[str, Any]]]) -> dict[str, str]:
    """The battle's switching factions and the faction each sided with."""
    return {str(r["Switched Sides"]): str(r["Sided With"]) for _, r in rows if r["Switched Sides"]}


def winning_side(turn: Turn, factions: tuple[str, ...], winner: str, switched: dict[str, str]) -> set[str]:
    """The factions on the winner's side at the end of the battle."""
    side = {winner} | ({switched[winner]} if winner in switched else set())
    pulling = [f for f in side if f not in switched]  # whose allies stand with them
    side |= {f for f in factions if f not in switched and any(f in turn.allies(p) for p in pulling)}
    grew = True
    while grew:  # a switcher who sided with a switcher who sided with the winner...
        joined = {s for s, with_ in switched.items() if with_ in side and s in factions} - side
        side |= joined
        grew = bool(joined)
    return side


def turned_on(turn: Turn, factions: tuple[str, ...], switched: dict[str, str]) -> list[tuple[str, str]]:
    """(switcher, ally) for every ally a switching faction fought against: those alliances are broken."""
    pairs = []
    for switcher, joined in sorted(switched.items()):
        for ally in sorted(turn.allies(switcher) & set(factions)):
            if ally != joined and switched.get(ally) not in (joined, switcher):
                pairs.append((switcher, ally))
    return pairs


def switch_problem(turn: Turn, factions: tuple[str, ...], switcher: str, joined: str) -> str:
    """Why a Switched Sides row cannot be used ("" when it can)."""
    if switcher not in factions:
        return f"a faction that fought there ({', '.join(factions)})"
    if joined == switcher or joined not in factions:
        return f"the faction {switcher} sided with: another that fought there ({', '.join(factions)})"
    if joined in turn.allies(switcher):
        return f"a faction {switcher} was not allied with: a force that switches sides turns on its allies"
    return ""
