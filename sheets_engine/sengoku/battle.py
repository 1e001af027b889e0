"""Guide Section 6, Post-Resolution: Battle Resolution, Combat Strength and the Damage Formula.

Step 9. A battle is fought in every province (Provinces row order) holding armies of two or more
clans that are not mutually allied; sides are the groups of mutual alliances. The attacker is the
side that moved in; if several or none did, the one with the larger CS. One exchange of damage a
turn; armies that neither retreat nor die fight again next turn, and an army fights at most one
battle a turn. Dice: each side's d20 (attacker first, then the others in side order), then the
leader death rolls in Armies row order. Each battle writes a Battles row per defending side.
What befalls the beaten is in `retreat`, `leader_death`, `capture` and `siege` (the pre-check).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from sheets_engine.core.dice import Roll
from sheets_engine.sengoku import capture, siege
from sheets_engine.sengoku.alliances import declarations, sides
from sheets_engine.sengoku.armies import (
    Units,
    UnitTable,
    army_strength,
    losses,
    set_units,
    shares,
    size,
    spreadsheet_round,
    standing_by_province,
    unit_table,
    units_of,
)
from sheets_engine.sengoku.leader_death import leader_death_roll
from sheets_engine.sengoku.retreat import retreat, retreat_to
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
    # Only provinces with armies can see a battle; a battle moves armies, so look again after one.
    present = standing_by_province(draft)
    for province in draft.frame("Provinces").index:
        if str(province) not in present:
            continue
        armies = [
            a for a in present[str(province)]
            if a not in fought and draft.get("Armies", a, "Status") != ArmyStatus.GARRISONED.value
        ]  # fmt: skip
        groups = sides(declared, [str(draft.get("Armies", a, "Clan")) for a in armies])
        if len(groups) < 2:
            if any(draft.get("Armies", a, "Moved") for a in present[str(province)]):
                capture.enter_unopposed(turn, str(province), declared, table)
            continue
        fought.update(armies)
        fight(turn, str(province), armies, groups, declared, table)
        present = standing_by_province(draft)


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
    clans = {a: str(draft.get("Armies", a, "Clan")) for a in armies}
    hosts = [Host(a, clans[a], side_of[clans[a]], units_of(draft, a, table)) for a in armies]
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
    if holder >= 0 and full_cs[holder] < full_cs[attacker] and siege.garrison_capacity(turn, province) != 0:
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
        events, held = _rout(turn, province, hosts, declared, rolls)
        events += _conclude(turn, province, hosts, active, garrison + held, names, declared, table)
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
    """Losses written; who retreats; leader death rolls; retreats. The events and the armies that
    fell back into the fortress.

    An army part of which sheltered is never split (rules-defaults: sheltered armies keep their
    rows): routed in the open, its survivors fall back into the fortress with the sheltered units,
    and the whole army stays, garrisoned. Casualties for the leader's death roll are counted over
    the whole army, sheltered units included.
    """
    draft = turn.draft
    cause = f"battle at {province}"
    roll_text = "; ".join(str(r) for r in rolls.values())
    fighting = [h for h in hosts if h.in_the_open]
    for h in fighting:
        start, lost = size(h.open), size(h.lost)
        set_units(draft, h.army, {c: n - h.lost.get(c, 0) for c, n in h.units.items()}, cause, roll_text)
        # More than 50% of its units lost (an army with no units cannot hold the field either).
        h.routed = start == 0 or lost * 100 > turn.settings.retreat_loss_percent * start
        if h.routed and start > lost and not size(h.sheltered):
            h.retreat_to = retreat_to(turn, h.army, province, declared)
    events: list[str] = []
    for h in fighting:
        whole = size(h.units)
        destroyed = h.routed and not h.retreat_to and not size(h.sheltered)
        casualties = Fraction(100) if destroyed or not whole else Fraction(100 * size(h.lost), whole)
        events += leader_death_roll(turn, h.army, province, casualties)
    held: list[str] = []
    for h in fighting:
        if h.routed and size(h.sheltered):
            held.append(h.army)
            events.append(f"{h.army} fell back into the fortress")
        elif h.routed:
            events.append(retreat(turn, h.army, province, h.retreat_to, tuple(h.units)))
    return events, held


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
        routed = [h.army for h in hosts if h.side != winner and h.routed and not size(h.sheltered)]
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
        if h.routed and not h.retreat_to and not size(h.sheltered):
            for column in table.siege:
                turn.draft.set("Armies", h.army, column, 0, f"battle at {province}: destroyed")
    return events


def groups_of(hosts: list[Host], side: int) -> list[str]:
    """The clans of a side present in the battle."""
    return list(dict.fromkeys(h.clan for h in hosts if h.side == side))
