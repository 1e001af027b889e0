"""Primary, cavalry and reserve movement (the document's "Movement").

Moves of a phase are settled in row order. A unit needs a leader within its Command Limit (counted in
models: clan_war.leadership) and moves
to an adjacent province (cavalry and flying units again in the cavalry phase); its attached
personalities go with it. A personality on its own moves freely through friendly territory and makes
one move per phase into neutral or enemy territory; in the cavalry phase only cavalry and flying
personalities move, and enemy cavalry (for cavalry) or flying troops (for both) in a province block
moving through it, not into it. Monks go anywhere to defend, or to join an allied attack on the
Shadowlands or the corrupt. Reserve movement stays inside friendly territory, away from the enemy.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Hashable
from typing import Any

from sheets_engine.clan_war.game import Turn
from sheets_engine.clan_war.leadership import leader_of, over_limit
from sheets_engine.clan_war.schema import MovePhase, MoveStatus, PersonalityStatus, Special, UnitStatus


class Refused(Exception):
    """A move the rules do not allow; the message is the player's Result."""


def primary(turn: Turn) -> None:
    """The primary movement phase."""
    _phase(turn, MovePhase.PRIMARY)


def cavalry(turn: Turn) -> None:
    """The cavalry movement phase."""
    _phase(turn, MovePhase.CAVALRY)


def reserve(turn: Turn) -> None:
    """The reserve movement phase (after the battles)."""
    _phase(turn, MovePhase.RESERVE)


def _phase(turn: Turn, phase: MovePhase) -> None:
    draft = turn.draft
    frame = draft.frame("Moves")
    hostile_moves: Counter[str] = Counter()  # personality -> moves into neutral or enemy territory this phase
    moved_units: set[str] = set()
    # where the blocking troops stand is fixed as the phase begins (moves are made in row order)
    blockers = _blockers(turn) if phase is MovePhase.CAVALRY else {}
    for key in list(frame.index):
        row = draft.row("Moves", key)
        if row["Turn"] != turn.number or row["Phase"] != phase.value or row["Status"] != MoveStatus.PENDING.value:
            continue
        mover, faction, to = str(row["Mover"]), str(row["Faction"]), str(row["To"])
        cause = f"{phase.value} move of {mover} to {to} by {faction}"
        try:
            if draft.has("Units", mover):
                result = _move_unit(turn, phase, mover, faction, to, moved_units, cause)
            else:
                result = _move_personality(turn, phase, mover, faction, to, hostile_moves, blockers, cause)
        except Refused as refusal:
            turn.moves.reject(key, str(refusal), cause)
            turn.summary["moves refused"] += 1
            continue
        turn.moves.resolve(key, result, cause)
        turn.summary["moves made"] += 1


def _monk_reach(turn: Turn, faction: str, to: str) -> bool:
    """A Monk force may ignore adjacency to defend a province (one it does not fight the holder of), or to
    join an ally's attack on a Shadowlands or corrupt province (an ally's army stands there)."""
    if turn.special(faction) != Special.MONK.value:
        return False
    holder = turn.controller(to)
    if not holder or holder == faction or not turn.opposed(faction, holder):
        return True
    if turn.corrupt(holder):
        return any(ally in turn.armies_at(to) for ally in turn.allies(faction))
    return False


def _common(turn: Turn, phase: MovePhase, faction: str, where: str, to: str, fought: bool, hostile: bool) -> None:
    if to == where:
        raise Refused(f"already at {to}")
    if phase is MovePhase.RESERVE:
        if fought:
            raise Refused("reserve movement is not allowed after battling this turn")
        if hostile:
            raise Refused(
                "reserve movement is not allowed after moving into or through neutral or enemy territory this turn"
            )
        near = [p for p in turn.neighbours(where) if turn.enemy_forces_at(faction, p)]
        if near:
            raise Refused(f"reserve movement is not allowed next to enemy forces (at {', '.join(near)})")
        if not turn.friendly(faction, to):
            raise Refused(f"reserve movement may not enter neutral or enemy territory ({to})")
        if turn.enemy_forces_at(faction, to):
            raise Refused(f"reserve movement may not bring forces where opposing armies stand ({to})")


def _move_unit(turn: Turn, phase: MovePhase, unit: str, faction: str, to: str, moved: set[str], cause: str) -> str:
    draft = turn.draft
    row = draft.row("Units", unit)
    if row["Faction"] != faction:
        raise Refused(f"{unit} is {row['Faction']}'s unit, not {faction}'s")
    if row["Status"] == UnitStatus.DESTROYED.value or row["Models"] <= 0:
        raise Refused(f"{unit} has been destroyed")
    if phase is MovePhase.CAVALRY and not (turn.unit_kind(unit, "Cavalry") or turn.unit_kind(unit, "Flying")):
        raise Refused("only cavalry and flying units move in the cavalry phase")
    if unit in moved:
        raise Refused(f"{unit} has moved already this phase (one move to an adjacent province)")
    leader = leader_of(turn, unit)
    if leader is None:
        raise Refused(f"{unit} has no leader able to lead it (a personality or leadership package): it cannot move")
    if leader.personality and draft.get("Personalities", leader.name, "Province") != row["Province"]:
        raise Refused(f"{unit}'s leader {leader.name} is not with it")
    exceeded = over_limit(turn, unit, leader)
    if exceeded:
        raise Refused(f"{exceeded}: {unit} cannot move")
    where = str(row["Province"])
    _common(turn, phase, faction, where, to, bool(row["Fought"]), bool(row["Entered Hostile"]))
    if to not in turn.neighbours(where) and not _monk_reach(turn, faction, to):
        raise Refused(f"{to} is not adjacent to {where}")
    hostile = not turn.friendly(faction, to)
    moved.add(unit)
    draft.set("Units", unit, "Province", to, cause)
    if hostile:
        draft.set("Units", unit, "Entered Hostile", True, cause)
    riders = [p for p in turn.personalities(where) if draft.get("Personalities", p, "Unit") == unit]
    for person in riders:
        draft.set("Personalities", person, "Province", to, f"{cause}: with its unit")
        draft.set("Personalities", person, "Moved", True, f"{cause}: with its unit")
        if hostile:
            draft.set("Personalities", person, "Entered Hostile", True, f"{cause}: with its unit")
    return f"moved from {where} to {to}" + (f" with {', '.join(riders)}" if riders else "")


def _blockers(turn: Turn) -> dict[str, tuple[set[str], set[str]]]:
    """Per province: the factions with cavalry units there, and those with flying units there."""
    found: dict[str, tuple[set[str], set[str]]] = {}
    for unit in turn.units():
        where = str(turn.draft.get("Units", unit, "Province"))
        faction = str(turn.draft.get("Units", unit, "Faction"))
        cav, fly = found.setdefault(where, (set(), set()))
        if turn.unit_kind(unit, "Cavalry"):
            cav.add(faction)
        if turn.unit_kind(unit, "Flying"):
            fly.add(faction)
    return found


def _blocked(turn: Turn, faction: str, province: str, person: dict[str, Any], blockers: dict[str, Any]) -> bool:
    cav, fly = blockers.get(province, (set(), set()))
    enemies_cav = any(turn.opposed(faction, f) for f in cav)
    enemies_fly = any(turn.opposed(faction, f) for f in fly)
    return (bool(person["Cavalry"]) and enemies_cav) or enemies_fly


def _move_personality(
    turn: Turn,
    phase: MovePhase,
    person: str,
    faction: str,
    to: str,
    hostile_moves: Counter[str],
    blockers: dict[str, Any],
    cause: str,
) -> str:
    draft = turn.draft
    row = draft.row("Personalities", person)
    if row["Faction"] != faction:
        raise Refused(f"{person} serves {row['Faction']}, not {faction}")
    if row["Status"] != PersonalityStatus.READY.value:
        raise Refused(f"{person} is {row['Status']} and cannot move")
    if row["Unit"]:
        raise Refused(f"{person} is attached to {row['Unit']} and moves with it")
    if phase is MovePhase.CAVALRY and not (row["Cavalry"] or row["Flying"]):
        raise Refused("only cavalry and flying personalities move in the cavalry phase")
    where = str(row["Province"])
    _common(turn, phase, faction, where, to, bool(row["Fought"]), bool(row["Entered Hostile"]))
    through = (lambda p: _blocked(turn, faction, p, row, blockers)) if phase is MovePhase.CAVALRY else (lambda p: False)
    if through(where):
        raise Refused(
            f"enemy {'flying or cavalry' if row['Cavalry'] else 'flying'} troops at {where} block moving on from it"
        )
    reach = _friendly_reach(turn, faction, where, through)
    hostile = not turn.friendly(faction, to)
    if not hostile:
        if to not in reach and not _monk_reach(turn, faction, to):
            raise Refused(f"{to} cannot be reached through friendly territory from {where}")
    else:
        if phase is MovePhase.RESERVE:
            raise Refused(f"reserve movement may not enter neutral or enemy territory ({to})")
        if hostile_moves[person] >= 1:
            raise Refused(f"{person} has made its one move into neutral or enemy territory this phase")
        starts = {where} | reach
        if not any(to in turn.neighbours(p) for p in starts) and not _monk_reach(turn, faction, to):
            raise Refused(f"{to} is not adjacent to {where} or to friendly territory it can reach")
        hostile_moves[person] += 1
    draft.set("Personalities", person, "Province", to, cause)
    draft.set("Personalities", person, "Moved", True, cause)
    if hostile:
        draft.set("Personalities", person, "Entered Hostile", True, cause)
    return f"moved from {where} to {to}"


def _friendly_reach(turn: Turn, faction: str, start: str, blocked: Any) -> set[str]:
    """Provinces reachable from `start` through friendly provinces (a blocking province may be entered, not passed)."""
    seen: set[str] = set()
    queue: deque[str] = deque([start])
    while queue:
        here = queue.popleft()
        if here != start and blocked(here):
            continue  # into, not through
        for nxt in sorted(turn.neighbours(here)):
            if nxt not in seen and nxt != start and turn.friendly(faction, nxt):
                seen.add(nxt)
                queue.append(nxt)
    return seen


def settled(turn: Turn, key: Hashable) -> bool:
    """Has the Moves row been settled?"""
    return turn.draft.get("Moves", key, "Status") != MoveStatus.PENDING.value
