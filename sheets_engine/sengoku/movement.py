"""Guide Section 6, Army Movement: /army lead-army, crossing-path conflicts, and Movement Blocked.

Step 8. Every lead-army order is checked first, then all marches are judged together (moves are
simultaneous) and only then applied. An army that marches records `Origin` and `Moved` TRUE; every
other army has `Moved` FALSE and no `Origin` this turn, so "the side that moved in" of a battle
and "retreats to its origin" read this turn's march only.

Winter: every lead-army order is cancelled (Rejected, "cancelled by Winter"); the character who
gave it is moved to the army's province, takes its lead, and is told.
"""

from __future__ import annotations

from dataclasses import dataclass

from sheets_engine.core.cells import split_names
from sheets_engine.core.dice import Roll
from sheets_engine.sengoku.alliances import declarations, friendly
from sheets_engine.sengoku.armies import size, unit_table, units_of
from sheets_engine.sengoku.orders import find, unknown
from sheets_engine.sengoku.schema import ArmyStatus, OrderStatus, OrderType
from sheets_engine.sengoku.turn import Order, Turn

CAVALRY = "Cavalry"  # the Armies column the guide's tiebreaker counts


@dataclass(frozen=True)
class March:
    """A valid lead-army order: this army, from its province to an adjacent one."""

    order: Order
    army: str
    clan: str
    origin: str
    destination: str


@dataclass(frozen=True)
class Blocked:
    """A march stopped by a crossing-path conflict: who went through, why, and the coin if any."""

    winner: str
    reason: str
    roll: str = ""


def lead_army(turn: Turn) -> None:
    """Step 8: check every lead-army order, settle crossing paths, then move the armies."""
    marches: list[March] = []
    claimed: dict[str, Order] = {}
    for order in turn.pending(OrderType.LEAD_ARMY):
        army, reason = _army_for(turn, order, claimed)
        if reason:
            turn.reject(order, reason)
            continue
        claimed[army] = order
        if turn.winter:
            _cancelled_by_winter(turn, order, army)
            continue
        march = _march_for(turn, order, army)
        if isinstance(march, str):
            turn.reject(order, march)
            continue
        marches.append(march)
    blocked = crossing_paths(turn, marches)
    coins = {b.winner: b.roll for b in blocked.values() if b.roll}
    moving = {m.army for m in marches if m.army not in blocked}
    _not_marched(turn, moving)
    for march in marches:
        if march.army in blocked:
            _stay(turn, march, blocked[march.army])
        else:
            _move(turn, march, coins.get(march.army, ""))


def _army_for(turn: Turn, order: Order, claimed: dict[str, Order]) -> tuple[str, str]:
    """(the army this character may lead, "") or ("", the reason it may not)."""
    draft = turn.draft
    clan = draft.get("Characters", order.character, "Clan")
    if not clan:
        return "", f"{order.character} belongs to no clan"
    armies = draft.frame("Armies")
    army = find(armies.index, order.target)
    if army is None:
        return "", unknown("army", order.target, armies.index)
    row = armies.loc[army]
    if row["Clan"] != clan:
        return "", f"not your army: {army} belongs to {row['Clan']}"
    if row["Status"] == ArmyStatus.DESTROYED.value:
        return "", f"{army} was destroyed"
    if row["Leader"] and row["Leader"] != order.character:
        return "", f"{army} is led by {row['Leader']}; only its leader may lead it"
    if army in claimed:
        return "", f"{army} was already ordered to march this turn by {claimed[army].character}"
    return army, ""


def _march_for(turn: Turn, order: Order, army: str) -> March | str:
    """The march, or why the army cannot make it (shut in a fortress, no adjacency link)."""
    draft = turn.draft
    row = draft.row("Armies", army)
    origin = str(row["Province"])
    if row["Status"] == ArmyStatus.GARRISONED.value:
        return f"{army} is besieged in the fortress of {origin} and cannot march out"
    provinces = draft.frame("Provinces")
    destination = find(provinces.index, order.detail)
    if destination is None:
        return unknown("province", order.detail, provinces.index)
    if destination == origin:
        return f"{army} is already in {origin}"
    adjacent = split_names(str(provinces.at[origin, "Adjacent"]))
    if destination not in adjacent:
        links = ", ".join(adjacent) or "none"
        return (
            f"{destination} is not adjacent to {origin}; an army moves one province along an adjacency link ({links})"
        )
    return March(order, army, str(row["Clan"]), origin, destination)


def crossing_paths(turn: Turn, marches: list[March]) -> dict[str, Blocked]:
    """Armies stopped by crossing-path conflicts (A to B while B to A, not mutually allied).

    The larger army (more units) completes its move; on a tie the one with more cavalry, then a
    coin flip (1: the army earlier in the Armies tab). Pairs are judged in Armies row order; an
    army already stopped crosses nobody.
    """
    draft = turn.draft
    declared = declarations(draft)
    table = unit_table(draft)
    position = {army: i for i, army in enumerate(draft.frame("Armies").index)}
    ordered = sorted(marches, key=lambda m: position[m.army])
    blocked: dict[str, Blocked] = {}
    for i, first in enumerate(ordered):
        for second in ordered[i + 1 :]:
            if first.army in blocked or second.army in blocked:
                continue
            if (first.origin, first.destination) != (second.destination, second.origin):
                continue
            if friendly(declared, first.clan, second.clan):
                continue
            units = {m.army: units_of(draft, m.army, table) for m in (first, second)}
            sizes = {army: size(u) for army, u in units.items()}
            cavalry = {army: u.get(CAVALRY, 0) for army, u in units.items()}
            roll: Roll | None = None
            if sizes[first.army] != sizes[second.army]:
                winner = first if sizes[first.army] > sizes[second.army] else second
                why = f"the larger army ({sizes[winner.army]} units against {min(sizes.values())})"
            elif cavalry[first.army] != cavalry[second.army]:
                winner = first if cavalry[first.army] > cavalry[second.army] else second
                most, least = cavalry[winner.army], min(cavalry.values())
                why = f"equal in size, the army with more cavalry ({most} against {least})"
            else:
                roll = turn.dice.coin(f"crossing-path conflict, {first.army} or {second.army}")
                winner = first if roll.value == 1 else second
                why = f"equal in size and cavalry, by a coin flip ({roll})"
            loser = second if winner is first else first
            blocked[loser.army] = Blocked(
                winner.army,
                f"Blocked: {loser.army} met {winner.army} ({winner.clan}) marching the other way between "
                f"{loser.origin} and {loser.destination}; {winner.army} went through as {why}, "
                f"and {loser.army} stayed in {loser.origin}",
                str(roll) if roll else "",
            )
    return blocked


def _not_marched(turn: Turn, moving: set[str]) -> None:
    """Armies that do not march this turn: `Moved` FALSE and no `Origin`."""
    for army in turn.draft.frame("Armies").index:
        if army not in moving:
            turn.draft.set("Armies", army, "Moved", False, "movement: did not march this turn")
            turn.draft.set("Armies", army, "Origin", "", "movement: did not march this turn")


def _take_lead(turn: Turn, order: Order, army: str, province: str, roll: str = "") -> None:
    """The character leads the army (leaving any other it led) and stands where it stands."""
    draft = turn.draft
    armies = draft.frame("Armies")
    for other in armies.index[(armies["Leader"] == order.character) & (armies.index != army)]:
        draft.set("Armies", other, "Leader", "", order.cause)
    draft.set("Armies", army, "Leader", order.character, order.cause, roll)
    draft.set("Characters", order.character, "Location", province, order.cause, roll)


def _move(turn: Turn, march: March, roll: str = "") -> None:
    """The army marches (`roll`: the coin that let it through a crossing-path conflict)."""
    draft = turn.draft
    draft.set("Armies", march.army, "Province", march.destination, march.order.cause, roll)
    draft.set("Armies", march.army, "Origin", march.origin, march.order.cause, roll)
    draft.set("Armies", march.army, "Moved", True, march.order.cause, roll)
    # A besieging army that marches off is in the field again (the siege may be lifted).
    draft.set("Armies", march.army, "Status", ArmyStatus.FIELD.value, march.order.cause)
    _take_lead(turn, march.order, march.army, march.destination)
    turn.summary["armies marched"] += 1
    turn.resolve(march.order, f"{march.army} marched from {march.origin} to {march.destination}")


def _stay(turn: Turn, march: March, blocked: Blocked) -> None:
    """The army stays at its origin; the order is Resolved, saying it was blocked and why."""
    # The coin decided it: the order's Status carries the roll (turn.resolve then changes nothing more).
    turn.draft.set("Orders", march.order.key, "Status", OrderStatus.RESOLVED.value, march.order.cause, blocked.roll)
    _take_lead(turn, march.order, march.army, march.origin, blocked.roll)
    turn.summary["marches blocked"] += 1
    turn.resolve(march.order, blocked.reason)


def _cancelled_by_winter(turn: Turn, order: Order, army: str) -> None:
    """Movement Blocked: the order is cancelled; the character joins the army where it stands."""
    province = str(turn.draft.get("Armies", army, "Province"))
    _take_lead(turn, order, army, province)
    turn.reject(order, f"cancelled by Winter: no army marches in Winter; {order.character} joined {army} in {province}")
    turn.notify(
        f"character:{order.character}",
        "orders",
        f"Winter: your lead-army order for {army} was cancelled; you are with {army} in {province}.",
    )
