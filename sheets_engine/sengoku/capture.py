"""Guide Section 6, Province Capture and Pillage, and the siege weapons of a routed army.

Capture changes `Controlled By` (who taxes and administers the province), never `Province Owner`
(Winter consolidation does that). With several clans on the winning side, the clan with the most
surviving CS takes control and the pillage (ties: Clans row order). A clan that wins back its own
province clears `Controlled By` (empty means the owner). The Tax Stockpile is pillaged into the
winner's treasury unless the clan that controlled the province before has Piety 5+.
"""

from __future__ import annotations

from collections.abc import Iterable

from sheets_engine.sengoku.alliances import friendly
from sheets_engine.sengoku.armies import UnitTable, army_strength, piety, siege_weapons, standing
from sheets_engine.sengoku.turn import Turn


def controller(turn: Turn, province: str) -> str:
    """The clan that controls the province: `Controlled By`, else the `Province Owner`."""
    row = turn.draft.row("Provinces", province)
    return str(row["Controlled By"] or row["Province Owner"])


def strongest(turn: Turn, armies: Iterable[str], table: UnitTable) -> str:
    """The army with the largest CS (ties: the earlier in Armies row order), "" if none."""
    best, best_cs = "", -1
    for army in armies:
        cs = army_strength(turn.draft, turn.settings, army, table)
        if cs > best_cs:
            best, best_cs = army, cs
    return best


def strongest_clan(turn: Turn, armies: Iterable[str], table: UnitTable) -> str:
    """The clan with the most CS among these armies (ties: Clans row order), "" if none."""
    totals: dict[str, int] = {}
    for army in armies:
        clan = str(turn.draft.get("Armies", army, "Clan"))
        totals[clan] = totals.get(clan, 0) + army_strength(turn.draft, turn.settings, army, table)
    order = list(turn.draft.frame("Clans").index)
    ranked = sorted(totals, key=lambda c: (-totals[c], order.index(c) if c in order else len(order)))
    return ranked[0] if ranked else ""


def capture(turn: Turn, province: str, winners: list[str], declared: set[tuple[str, str]], table: UnitTable) -> str:
    """The winning side takes the province and pillages it; the outcome in words ("" if held).

    Nothing changes hands when the winning clan is the controller or its mutual ally.
    """
    draft = turn.draft
    clan = strongest_clan(turn, winners, table)
    before = controller(turn, province)
    if not clan or friendly(declared, clan, before):
        return ""
    cause = f"capture of {province} by {clan}"
    owner = str(draft.get("Provinces", province, "Province Owner"))
    draft.set("Provinces", province, "Controlled By", "" if clan == owner else clan, cause)
    turn.summary["provinces captured"] += 1
    words = f"{clan} captured {province}" + (f" from {before}" if before else "")
    stockpile = int(draft.get("Provinces", province, "Tax Stockpile"))
    if before and piety(draft, before) >= turn.settings.piety5_level:
        words += f"; {before}'s Piety {piety(draft, before)} spared it from pillage"
    elif stockpile > 0:
        pillage = f"pillage of {province} by {clan}"
        treasury = int(draft.get("Clans", clan, "Treasury")) + stockpile
        draft.set("Clans", clan, "Treasury", treasury, pillage)
        draft.set("Provinces", province, "Tax Stockpile", 0, pillage)
        words += f" and pillaged {stockpile} Mon"
    return words


def enter_unopposed(turn: Turn, province: str, declared: set[tuple[str, str]], table: UnitTable) -> None:
    """An army entering a province of a clan it is not mutually allied with, where no army of that
    clan or its allies stands, takes it as if it had won a battle: capture and pillage.
    """
    draft = turn.draft
    holder = controller(turn, province)
    here = standing(draft, province)
    # Moved in this turn; an army that retreated back to its origin entered nothing.
    entered = [a for a in here if draft.get("Armies", a, "Moved") and draft.get("Armies", a, "Origin") != province]
    if not holder or not entered:
        return
    if any(friendly(declared, str(draft.get("Armies", a, "Clan")), holder) for a in here):
        return
    taken = capture(turn, province, here, declared, table)
    if taken:
        turn.notify("public", "world", f"{', '.join(entered)} entered {province} unopposed: {taken}.")


def pass_siege_weapons(turn: Turn, routed: list[str], winners: list[str], cause: str, table: UnitTable) -> str:
    """Siege weapons of routed armies pass to the winners' surviving army with the largest CS."""
    draft = turn.draft
    taker = strongest(turn, winners, table)
    if not taker or not table.siege:
        return ""
    column = table.siege[0]
    passed = 0
    for army in routed:
        count = siege_weapons(draft, army, table)
        if count:
            for siege in table.siege:
                draft.set("Armies", army, siege, 0, cause)
            passed += count
    if not passed:
        return ""
    draft.set("Armies", taker, column, int(draft.get("Armies", taker, column)) + passed, cause)
    return f"{taker} took {passed} siege weapon{'s' if passed != 1 else ''}"
