"""Alliances: declared only in the start phase, refused where the factions' rules forbid them, and
broken by any action that places forces in opposition to allied forces (units bought from the ally lost)."""

from __future__ import annotations

from collections.abc import Hashable

from sheets_engine.clan_war.game import Turn
from sheets_engine.clan_war.schema import AllianceStatus, PersonalityStatus, Special, UnitStatus
from sheets_engine.core.cells import is_blank


def forbidden(turn: Turn, a: str, b: str) -> str:
    """Why the factions' special rules forbid an alliance of a and b ("" when they allow it)."""
    for one, other in ((a, b), (b, a)):
        if turn.special(one) == Special.NAGA.value and turn.special(other) == Special.SHADOWLANDS.value:
            return "the Naga may never ally with the Shadowlands" + ("" if other == "Shadowlands" else f" ({other})")
        if turn.special(one) == Special.SHADOWLANDS.value and not turn.corrupt(other):
            who = "the Shadowlands" if one == "Shadowlands" else f"{one} (Shadowlands)"
            return f"{who} may only ally with corrupted factions, and {other} is not corrupted"
    return ""


def broken_by_the_gm(turn: Turn) -> None:
    """Alliances may be broken at any point: an Active alliance whose Broken Turn the GM has filled ends
    (at the start of either run of a turn, before any battle is found or applied). One its Free To Break
    names an owner's right for is broken without penalty, and the Result says so."""
    draft = turn.draft
    for key in list(draft.frame("Alliances").index):
        row = draft.row("Alliances", key)
        if row["Status"] == AllianceStatus.ACTIVE.value and not is_blank(row["Broken Turn"]):
            free = f"; without penalty for {row['Free To Break']}" if row["Free To Break"] else ""
            end(turn, key, f"broken in turn {int(row['Broken Turn'])} (the GM's record){free}")


def declare(turn: Turn) -> None:
    """Start phase: Pending declarations take effect or are refused."""
    draft = turn.draft
    frame = draft.frame("Alliances")
    for key in list(frame.index):
        row = draft.row("Alliances", key)
        if row["Status"] != AllianceStatus.PENDING.value:
            continue
        a, b = str(row["Faction A"]), str(row["Faction B"])
        cause = f"alliance of {a} and {b} declared"
        reason = forbidden(turn, a, b)
        if not reason and b in turn.allies(a):
            reason = f"{a} and {b} are allied already"
        if reason:
            draft.set("Alliances", key, "Status", AllianceStatus.REFUSED.value, cause)
            draft.set("Alliances", key, "Result", f"refused: {reason}", cause)
            turn.summary["alliances refused"] += 1
            continue
        draft.set("Alliances", key, "Status", AllianceStatus.ACTIVE.value, cause)
        draft.set("Alliances", key, "Since Turn", turn.number, cause)
        draft.set("Alliances", key, "Result", f"allied since the start phase of turn {turn.number}", cause)
        turn.notify("public", "declarations", f"{a} and {b} declare an alliance.")
        turn.summary["alliances declared"] += 1


def find(turn: Turn, a: str, b: str) -> Hashable | None:
    """The Active alliance row of two factions, if any."""
    frame = turn.draft.frame("Alliances")
    for key, row in frame.iterrows():
        if row["Status"] == AllianceStatus.ACTIVE.value and {row["Faction A"], row["Faction B"]} == {a, b}:
            return key
    return None


def end(turn: Turn, key: Hashable, why: str) -> None:
    """The alliance ends: units bought from each other's clans are lost, with no refund; personalities
    bought so are Released (not Dead: they may be hired again)."""
    draft = turn.draft
    a, b = str(draft.get("Alliances", key, "Faction A")), str(draft.get("Alliances", key, "Faction B"))
    cause = f"alliance of {a} and {b} broken"
    draft.set("Alliances", key, "Status", AllianceStatus.BROKEN.value, cause)
    if is_blank(draft.get("Alliances", key, "Broken Turn")):
        draft.set("Alliances", key, "Broken Turn", turn.number, cause)
    draft.set("Alliances", key, "Result", why, cause)
    pairs = {(a, b), (b, a)}
    units = draft.frame("Units")
    for unit in list(units.index):
        if (str(units.at[unit, "Faction"]), str(units.at[unit, "From Ally"])) in pairs:
            draft.set("Units", unit, "Models", 0, f"{cause}: units from the ally's clan are lost")
            draft.set(
                "Units", unit, "Status", UnitStatus.DESTROYED.value, f"{cause}: units from the ally's clan are lost"
            )
    people = draft.frame("Personalities")
    for person in list(people.index):
        if (str(people.at[person, "Faction"]), str(people.at[person, "From Ally"])) in pairs:
            draft.set(
                "Personalities",
                person,
                "Status",
                PersonalityStatus.RELEASED.value,
                f"{cause}: personalities from the ally's clan leave (not Dead)",
            )
            draft.set("Personalities", person, "Unit", "", f"{cause}: personalities from the ally's clan leave")
    turn.notify("public", "declarations", f"The alliance of {a} and {b} is broken: {why}.")
    turn.summary["alliances broken"] += 1


def liberator_kept(turn: Turn, keeper: str, owner: str, province: str) -> None:
    """A faction liberated its ally's province from an enemy army and kept it: "the original owner may break the
    alliance without penalty" (recorded on the alliance, told to the owner and the GM)."""
    key = find(turn, keeper, owner)
    if key is None:
        return
    right = f"{owner}: {keeper} kept {province}, liberated from an enemy in turn {turn.number}, instead of returning it"
    turn.draft.set("Alliances", key, "Free To Break", right, f"{keeper} keeps {province}, {owner}'s province")
    message = f"{keeper} kept {province}, your province it liberated: you may break the alliance without penalty."
    turn.notify(owner, "private", message)
    turn.notify("gm", "private", f"{owner} may break its alliance with {keeper} without penalty ({right}).")


def break_opposed(turn: Turn, winners: set[str], losers: set[str], province: str) -> None:
    """Allies who fought on opposite sides of a battle have broken their alliance."""
    for a in sorted(winners):
        for b in sorted(losers):
            key = find(turn, a, b)
            if key is not None:
                end(turn, key, f"{a}'s and {b}'s forces fought on opposite sides at {province} in turn {turn.number}")
