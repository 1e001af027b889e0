"""Guide Section 6, Post-Resolution: Battle Resolution, Damage Formula, Retreat and Destruction,
Leader Death.

Step 9. A battle is fought in every province (Provinces row order) holding armies of two or more
clans that are not mutually allied; sides are the groups of mutual alliances. The attacker is the
side that moved in; if several or none did, the one with the larger CS. One exchange of damage a
turn; armies that neither retreat nor die fight again next turn, and an army fights at most one
battle a turn. Dice: each side's d20 (attacker first, then the others in side order), then the
leader death rolls in Armies row order. Each battle writes a Battles row per defending side.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from sheets_engine.core.cells import split_names
from sheets_engine.core.dice import Roll
from sheets_engine.sengoku import capture, siege
from sheets_engine.sengoku.alliances import declarations, friendly, sides
from sheets_engine.sengoku.armies import (
    Units,
    UnitTable,
    army_strength,
    losses,
    set_units,
    shares,
    size,
    spreadsheet_round,
    standing,
    unit_table,
    units_of,
)
from sheets_engine.sengoku.characters import alive, kill
from sheets_engine.sengoku.game import GameSettings
from sheets_engine.sengoku.schema import ArmyStatus
from sheets_engine.sengoku.turn import Turn


@dataclass
class Host:
    """An army in a battle: its units, those sheltered in the garrison, and what befell it."""

    army: str
    clan: str
    side: int
    units: Units
    sheltered: Units = field(default_factory=dict)
    lost: Units = field(default_factory=dict)
    routed: bool = False
    retreat_to: str = ""  # "" with routed: destroyed

    @property
    def open(self) -> Units:
        """The units that fight in the open."""
        return {c: n - self.sheltered.get(c, 0) for c, n in self.units.items()}

    @property
    def in_the_open(self) -> bool:
        """False for an army wholly inside the garrison (it neither fights nor routs)."""
        return size(self.open) > 0 or size(self.units) == 0


def battles(turn: Turn) -> None:
    """Step 9: every province with two or more sides fights; an unopposed entry captures."""
    draft = turn.draft
    declared = declarations(draft)
    table = unit_table(draft)
    fought: set[str] = set()
    for province in draft.frame("Provinces").index:
        armies = [
            a for a in standing(draft, str(province))
            if a not in fought and draft.get("Armies", a, "Status") != ArmyStatus.GARRISONED.value
        ]  # fmt: skip
        groups = sides(declared, [str(draft.get("Armies", a, "Clan")) for a in armies])
        if len(groups) < 2:
            capture.enter_unopposed(turn, str(province), declared, table)
            continue
        fought.update(armies)
        fight(turn, str(province), armies, groups, declared, table)


def fight(
    turn: Turn,
    province: str,
    armies: list[str],
    groups: list[list[str]],
    declared: set[tuple[str, str]],
    table: UnitTable,
) -> None:
    """One battle: the fortress pre-check, one exchange of damage, retreats, capture or siege."""
    draft = turn.draft
    side_of = {clan: i for i, group in enumerate(groups) for clan in group}
    hosts = [
        Host(a, c, side_of[c], units_of(draft, a, table)) for a in armies for c in [draft.get("Armies", a, "Clan")]
    ]
    names = [" + ".join(group) for group in groups]
    active = list(range(len(groups)))
    full_cs = {i: _side_cs(turn, hosts, i, table) for i in active}
    attacker = _attacker(turn, hosts, active, full_cs)
    notes: dict[int, str] = {}
    garrison: list[str] = []

    # Fortress Pre-Check: a defending side holding the fortress shelters when its CS is lower.
    holder = next(
        (i for i in active if i != attacker and siege.holds_fortress(turn, province, groups[i], declared)), -1
    )
    if holder >= 0 and full_cs[holder] < full_cs[attacker]:
        inside = [h for h in hosts if h.side == holder]
        sheltered = siege.shelter(turn, province, {h.army: h.units for h in inside}, table)
        for h in inside:
            h.sheltered = sheltered[h.army]
        if all(size(h.open) == 0 for h in inside):  # all fit: no open battle, a siege begins instead
            besiegers = [h.army for h in hosts if h.side == attacker]
            words = siege.begin(turn, province, besiegers, [h.army for h in inside], table)
            notes[holder] = f"{names[holder]} withdrew into the fortress; {words}"
            active.remove(holder)
            hosts = [h for h in hosts if h.side != holder]
        else:
            garrison = [h.army for h in inside if not h.in_the_open]

    cs = {i: _side_cs(turn, hosts, i, table) for i in active}
    rolls: dict[int, Roll] = {}
    dealt: dict[tuple[int, int], int] = {}
    events: list[str] = []
    if len(active) >= 2:
        rolls, dealt = _exchange(turn, province, hosts, active, attacker, cs, table)
        events, split = _rout(turn, province, hosts, declared, rolls)
        events += _conclude(turn, province, hosts, active, garrison + split, names, declared, table)
        turn.summary["battles"] += 1
    news = "; ".join([*notes.values(), *events])
    turn.notify("public", "world", f"Battle at {province}: {news}." if rolls else f"{province}: {news}.")
    for i in (d for d in range(len(groups)) if d != attacker):
        draft.log(
            "Battles",
            {"Turn": turn.number, "Province": province, "Attacker": names[attacker], "Defender": names[i],
             "Attacker CS": cs[attacker], "Defender CS": cs[i] if i in cs else full_cs[i],
             "Attacker Roll": rolls[attacker].value if attacker in rolls else "",
             "Defender Roll": rolls[i].value if i in rolls else "",
             "Damage To Attacker": dealt.get((i, attacker), ""), "Damage To Defender": dealt.get((attacker, i), ""),
             "Outcome": "; ".join(x for x in (notes.get(i, ""), *events) if x)},
        )  # fmt: skip


def _side_cs(turn: Turn, hosts: list[Host], side: int, table: UnitTable) -> int:
    """A side's CS: the sum of its armies' CS, counting only units in the open."""
    return sum(army_strength(turn.draft, turn.settings, h.army, table, h.open) for h in hosts if h.side == side)


def _attacker(turn: Turn, hosts: list[Host], active: list[int], cs: dict[int, int]) -> int:
    """The side that moved in; if several or none did, the one with the larger CS (ties: first)."""
    moved = [i for i in active if any(h.side == i and turn.draft.get("Armies", h.army, "Moved") for h in hosts)]
    candidates = moved or active
    return max(candidates, key=lambda i: (cs[i], -i))


def _exchange(
    turn: Turn, province: str, hosts: list[Host], active: list[int], attacker: int, cs: dict[int, int], table: UnitTable
) -> tuple[dict[int, Roll], dict[tuple[int, int], int]]:
    """Damage = ROUND((terrain modifier + d20) / 100 x CS), split by CS among the opposing sides,
    then by unit count among each side's armies, which lose units in battle loss order.
    """
    draft = turn.draft
    terrain = str(draft.get("Provinces", province, "Terrain"))
    modifiers = draft.frame("Terrain")
    rolls: dict[int, Roll] = {}
    for i in [attacker, *(j for j in active if j != attacker)]:
        clans = list(dict.fromkeys(h.clan for h in hosts if h.side == i))
        rolls[i] = turn.dice.d20(f"battle at {province}: {' + '.join(clans)}")
    dealt: dict[tuple[int, int], int] = {}
    received = dict.fromkeys(active, 0)
    for i in active:
        column = "Attacker" if i == attacker else "Defender"
        modifier = int(modifiers.at[terrain, column]) if terrain in modifiers.index else 0
        damage = spreadsheet_round(Fraction(modifier + rolls[i].value, 100) * cs[i])
        targets = [j for j in active if j != i]
        weights = [cs[j] for j in targets]
        if not any(weights):  # nobody opposing has strength: split by units instead
            weights = [sum(size(h.open) for h in hosts if h.side == j) for j in targets]
        for j, part in zip(targets, shares(damage, weights), strict=True):
            dealt[(i, j)] = part
            received[j] += part
    for j in active:
        side = [h for h in hosts if h.side == j and h.in_the_open]
        for h, part in zip(side, shares(received[j], [size(h.open) for h in side]), strict=True):
            h.lost = losses(h.open, part, table.battle_loss)
    return rolls, dealt


def _rout(
    turn: Turn, province: str, hosts: list[Host], declared: set[tuple[str, str]], rolls: dict[int, Roll]
) -> tuple[list[str], list[str]]:
    """Losses written, leader death rolls, retreats; returns the events and new garrison armies."""
    draft = turn.draft
    cause = f"battle at {province}"
    roll_text = "; ".join(str(r) for r in rolls.values())
    fighting = [h for h in hosts if h.in_the_open]
    for h in fighting:
        start, lost = size(h.open), size(h.lost)
        set_units(draft, h.army, {c: n - h.lost.get(c, 0) for c, n in h.units.items()}, cause, roll_text)
        # Retreat: more than 50% of its units lost (an army with no units cannot hold the field).
        h.routed = start == 0 or lost * 100 > turn.settings.retreat_loss_percent * start
        if h.routed and start > lost:
            h.retreat_to = _retreat_to(turn, h, province, declared)
    events: list[str] = []
    for h in fighting:
        events += _leader_death_roll(turn, h, province)
    split: list[str] = []
    for h in fighting:
        if h.routed:
            if size(h.sheltered):
                split.append(_garrison_row(turn, h, province))
            events.append(_retreat(turn, h, province))
    return events, split


def _retreat_to(turn: Turn, host: Host, province: str, declared: set[tuple[str, str]]) -> str:
    """Its origin if it moved in; else the first Adjacent province with no hostile army; "" if none."""
    draft = turn.draft
    origin = str(draft.get("Armies", host.army, "Origin"))
    if draft.get("Armies", host.army, "Moved") and origin:
        return origin
    for neighbour in split_names(str(draft.get("Provinces", province, "Adjacent"))):
        clans = {str(draft.get("Armies", a, "Clan")) for a in standing(draft, neighbour)}
        if all(friendly(declared, host.clan, clan) for clan in clans):
            return neighbour
    return ""


def _leader_death_roll(turn: Turn, host: Host, province: str) -> list[str]:
    """At 30% casualties or more the leader rolls: 10% at 30% rising linearly to 100% at 100%.

    A destroyed army counts as 100% casualties.
    """
    s = turn.settings
    leader = str(turn.draft.get("Armies", host.army, "Leader"))
    if not leader or not alive(turn, leader):
        return []
    start = size(host.open)
    destroyed = host.routed and not host.retreat_to
    casualties = Fraction(100) if destroyed or not start else Fraction(100 * size(host.lost), start)
    if casualties < s.leader_death_casualties:
        return []
    chance = leader_death_chance(s, casualties)
    roll = turn.dice.percent(
        f"leader death, {leader}: {float(casualties):.4g}% casualties, {float(chance):.4g}% chance"
    )
    if roll.value > chance:
        return []
    kill(turn, leader, f"battle at {province}", str(roll), how=f"fell in the battle at {province}")
    return [f"{leader} fell"]


def leader_death_chance(settings: GameSettings, casualties: Fraction) -> Fraction:
    """The death chance in %: 10 at 30% casualties rising linearly to 100 at 100% (Game keys)."""
    low, high, threshold = (
        settings.leader_death_chance_min, settings.leader_death_chance_max, settings.leader_death_casualties,
    )  # fmt: skip
    span = Fraction(high - low, max(100 - threshold, 1))
    return min(Fraction(high), low + (casualties - threshold) * span)


def _garrison_row(turn: Turn, host: Host, province: str) -> str:
    """The sheltered part of a routed army stays in the fortress as a new army of its own."""
    draft = turn.draft
    cause = f"battle at {province}: sheltered in the fortress"
    taken = set(draft.frame("Armies").index)
    name, number = f"{host.army} Garrison", 2
    while name in taken:
        name, number = f"{host.army} Garrison {number}", number + 1
    left = {c: n - host.lost.get(c, 0) - host.sheltered.get(c, 0) for c, n in host.units.items()}
    set_units(draft, host.army, left, cause)
    draft.add_row(
        "Armies",
        {"Army": name, "Clan": host.clan, "Province": province, **host.sheltered, "Moved": False,
         "Status": ArmyStatus.FIELD.value},
        cause,
    )  # fmt: skip
    return name


def _retreat(turn: Turn, host: Host, province: str) -> str:
    """A routed army goes to its retreat province with its leader, or is destroyed."""
    draft = turn.draft
    if not host.retreat_to:
        cause = f"battle at {province}: destroyed"
        set_units(draft, host.army, dict.fromkeys(host.units, 0), cause)
        draft.set("Armies", host.army, "Status", ArmyStatus.DESTROYED.value, cause)
        draft.set("Armies", host.army, "Leader", "", cause)
        turn.summary["armies destroyed"] += 1
        return f"{host.army} was destroyed"
    cause = f"battle at {province}: retreat"
    draft.set("Armies", host.army, "Province", host.retreat_to, cause)
    draft.set("Armies", host.army, "Status", ArmyStatus.FIELD.value, cause)
    leader = str(draft.get("Armies", host.army, "Leader"))
    if leader:
        draft.set("Characters", leader, "Location", host.retreat_to, cause)
    turn.summary["armies retreated"] += 1
    return f"{host.army} retreated to {host.retreat_to}"


def _conclude(
    turn: Turn,
    province: str,
    hosts: list[Host],
    active: list[int],
    garrison: list[str],
    names: list[str],
    declared: set[tuple[str, str]],
    table: UnitTable,
) -> list[str]:
    """When every opposing side retreated or was destroyed: siege weapons, then capture or siege."""
    holding = [i for i in active if any(h.side == i and h.in_the_open and not h.routed for h in hosts)]
    events: list[str] = []
    if len(holding) == 1:
        winner = holding[0]
        winners = [h.army for h in hosts if h.side == winner and not h.routed]
        routed = [h.army for h in hosts if h.side != winner and h.routed]
        passed = capture.pass_siege_weapons(turn, routed, winners, f"battle at {province}: siege weapons taken", table)
        events += [passed] if passed else []
        if garrison and not siege.holds_fortress(turn, province, groups_of(hosts, winner), declared):
            events.append(siege.begin(turn, province, winners, garrison, table))
        else:
            events.append(
                capture.capture(turn, province, winners, declared, table) or f"{names[winner]} held {province}"
            )
    else:
        events.append("no side broke; they fight on" if holding else "every side broke")
    for h in hosts:  # a destroyed army keeps nothing: siege weapons nobody took are lost
        if h.routed and not h.retreat_to:
            for column in table.siege:
                turn.draft.set("Armies", h.army, column, 0, f"battle at {province}: destroyed")
    return events


def groups_of(hosts: list[Host], side: int) -> list[str]:
    """The clans of a side present in the battle."""
    return list(dict.fromkeys(h.clan for h in hosts if h.side == side))
