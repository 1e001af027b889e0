"""The battle phase (the document's "Battle"): where opposing armies meet, a battle is fought at the
table; the engine lists them, waits for the GM's Battle Results, then applies them.

Applying a battle's results: casualties; units that left the table regroup at one province the player
controlled at the start of the turn (Routed ones at `routed_regroup` of their strength); the losers'
remaining forces withdraw there too; the death and wound rolls of every personality taken to 0 wounds;
control of the province (allied defenders keep it with its controller; a faction the GM names in
Control: the winner's choice among allies, a liberated ally's province, or neutral); Monks' Rings;
alliances broken by allies on opposite sides; two experience checks for every surviving unit
(clan_war.experience).
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

from sheets_engine.clan_war import alliances, experience, reincarnation, sides
from sheets_engine.clan_war.experience import lose_models
from sheets_engine.clan_war.game import Turn, share
from sheets_engine.clan_war.schema import NEUTRAL, RINGS, PersonalityStatus, Special, UnitStatus
from sheets_engine.core.dice import Dice


@dataclass(frozen=True)
class Battle:
    """A province where opposing armies meet."""

    province: str
    factions: tuple[str, ...]
    defender: str  # "" on neutral ground (or where the controller has no army)

    @property
    def terrain_by(self) -> str:
        """Who chooses the terrain."""
        return self.defender or "the players, by agreement (no defender)"


def find(turn: Turn) -> list[Battle]:
    """Every province where opposing armies have forces, in the Provinces tab's order."""
    found = []
    for province in turn.draft.frame("Provinces").index:
        armies = turn.armies_at(str(province))
        factions = sorted(armies)
        if not any(turn.opposed(a, b) for a in factions for b in factions if a < b):
            continue
        holder = turn.controller(str(province))
        defender = holder if holder in armies else next((f for f in factions if f in turn.allies(holder)), "")
        found.append(Battle(str(province), tuple(factions), defender))
    return found


def list_battles(turn: Turn, battles: list[Battle]) -> None:
    """Battles rows, and a word to the GM and the players."""
    for battle in battles:
        turn.draft.log(
            "Battles",
            {
                "Turn": turn.number,
                "Province": battle.province,
                "Factions": ", ".join(battle.factions),
                "Defender": battle.defender,
                "Terrain Chosen By": battle.terrain_by,
            },
        )
        turn.notify(
            "public",
            "world",
            f"Battle at {battle.province}: {' against '.join(battle.factions)}; terrain chosen by {battle.terrain_by}.",
        )


def occupy(turn: Turn, battles: list[Battle]) -> None:
    """Where armies stand unopposed in a province they do not hold, the army takes it (a Monk only
    retakes its own; allies who are not its holder leave it as it is for the GM to settle)."""
    fought = {b.province for b in battles}
    for province in turn.draft.frame("Provinces").index:
        province = str(province)
        if province in fought:
            continue
        armies = sorted(turn.armies_at(province))
        holder = turn.controller(province)
        if not armies or holder in armies or any(holder in turn.allies(f) for f in armies) or len(armies) > 1:
            continue
        faction = armies[0]
        if (
            turn.special(faction) == Special.MONK.value
            and turn.draft.get("Provinces", province, "Original Owner") != faction
        ):
            continue
        if holder and not turn.opposed(faction, holder):
            continue  # a Monk defending a province does not take it
        turn.draft.set("Provinces", province, "Controller", faction, f"{faction}'s army occupies {province} unopposed")
        capture_library(turn, province, faction)
        turn.notify("public", "world", f"{faction} occupies {province} unopposed.")
        turn.summary["provinces occupied"] += 1


def result_rows(turn: Turn, province: str) -> list[tuple[Hashable, dict[str, Any]]]:
    results = turn.draft.frame("Battle Results")
    keys = results.index[(results["Turn"] == turn.number) & (results["Province"] == province)]
    return [(k, turn.draft.row("Battle Results", k)) for k in keys]


def apply(turn: Turn, battle: Battle) -> None:
    """Apply the GM's results of one battle (they have been checked)."""
    draft = turn.draft
    rows = result_rows(turn, battle.province)
    winner = next(str(r["Winner"]) for _, r in rows if r["Winner"])
    control = next(str(r["Control"]) for _, r in rows if r["Winner"])
    switched = sides.switches(rows)
    side = sides.winning_side(turn, battle.factions, winner, switched)
    losers = set(battle.factions) - side
    cause = f"battle at {battle.province}"
    dice = turn.dice.stream("battle", battle.province)
    present_units = turn.units(battle.province)
    present_people = turn.personalities(battle.province)
    for unit in present_units:
        draft.set("Units", unit, "Fought", True, cause)
    for person in present_people:
        draft.set("Personalities", person, "Fought", True, cause)
    withdraw = {
        str(draft.get("Units" if r["Unit"] else "Personalities", r["Unit"] or r["Personality"], "Faction")): str(
            r["Withdraw To"]
        )
        for _, r in rows
        if r["Withdraw To"] and (r["Unit"] or r["Personality"])
    }
    status: dict[str, str] = {}
    for _, row in rows:
        if row["Unit"]:
            won = str(draft.get("Units", row["Unit"], "Faction")) in side
            status[str(row["Unit"])] = _unit_result(turn, battle, row, won, withdraw)
    for _, row in rows:
        person, target = str(row["Personality"]), str(row["Reincarnate Into"])
        if not person:
            continue
        if row["Reincarnated"]:
            reincarnation.in_battle(turn, person, target, cause)
            continue
        fate = death_roll(turn, person, int(row["Wounds Over Max"]), dice, cause)
        if fate == PersonalityStatus.DEAD.value and target and reincarnation.is_ujimitsu(turn, person):
            turn.reincarnations[person] = target  # he must reincarnate, in the recovery phase
    # the losers' remaining forces (and lone personalities) withdraw with their army
    for faction in sorted(losers):
        target = withdraw.get(faction, "")
        for unit in turn.units(battle.province, faction):
            if target:
                _withdraw_unit(turn, unit, target, f"{cause}: {faction} withdraws")
        for person in turn.personalities(battle.province):
            if draft.get("Personalities", person, "Faction") == faction and target:
                draft.set("Personalities", person, "Province", target, f"{cause}: {faction} withdraws")
    _control(turn, battle, winner, control, side, cause)
    for faction in sorted(side):
        if turn.special(faction) == Special.MONK.value:
            rings = int(draft.get("Factions", faction, "Rings")) + 1
            draft.set("Factions", faction, "Rings", rings, f"{cause}: a Monk victory gains a Ring")
    for switcher, ally in sides.turned_on(turn, battle.factions, switched):
        key = alliances.find(turn, switcher, ally)
        if key is not None:
            why = f"{switcher} switched sides at {battle.province} in turn {turn.number}, turning on {ally}"
            alliances.end(turn, key, why)
    alliances.break_opposed(turn, side, losers, battle.province)
    for unit in sorted(present_units):
        if draft.get("Units", unit, "Status") != UnitStatus.DESTROYED.value:
            experience.checks(turn, unit, status.get(unit, UnitStatus.READY.value), dice, cause)
    turn.notify("public", "world", f"{winner} wins the battle at {battle.province}.")
    turn.summary["battles applied"] += 1


def _unit_result(turn: Turn, battle: Battle, row: dict[str, Any], won: bool, withdraw: dict[str, str]) -> str:
    draft = turn.draft
    unit = str(row["Unit"])
    cause = f"battle at {battle.province}"
    models = int(draft.get("Units", unit, "Models"))
    lost = int(row["Models Lost"])
    final = str(row["Final Status"]) or UnitStatus.READY.value
    left = models - lost
    turn.casualties[unit] = (lost, won)
    if final == UnitStatus.DESTROYED.value or left <= 0:
        lose_models(turn, unit, 0, cause)
        draft.set("Units", unit, "Status", UnitStatus.DESTROYED.value, cause)
        for person in turn.personalities():
            if draft.get("Personalities", person, "Unit") == unit:
                draft.set("Personalities", person, "Unit", "", f"{cause}: its unit was destroyed")
        return UnitStatus.DESTROYED.value
    turn.veterans_lost[unit] = lose_models(turn, unit, left, f"{cause}: {lost} models lost")
    draft.set("Units", unit, "Status", final, cause)
    if row["Left Table"]:
        if final == UnitStatus.ROUTED.value:
            regroup = share(left, turn.settings.rate("routed_regroup"))
            rate = turn.settings.rate("routed_regroup")
            lose_models(turn, unit, regroup, f"{cause}: routed off the table, regroups at {rate:.0%} of its strength")
        target = str(row["Withdraw To"]) or withdraw.get(str(draft.get("Units", unit, "Faction")), "")
        _withdraw_unit(turn, unit, target, f"{cause}: left the table and regroups")
    return final


def _withdraw_unit(turn: Turn, unit: str, target: str, cause: str) -> None:
    draft = turn.draft
    where = str(draft.get("Units", unit, "Province"))
    draft.set("Units", unit, "Province", target, cause)
    for person in turn.personalities(where):
        if draft.get("Personalities", person, "Unit") == unit:
            draft.set("Personalities", person, "Province", target, cause)


def death_roll(turn: Turn, person: str, over: int, dice: Dice, cause: str) -> str:
    """A personality taken to 0 wounds: 1d10 + wounds over max below Earth: Wounded; else a second 1d10
    + wounds over max below Void: Maimed (1 lost from the highest ring); else Dead."""
    draft = turn.draft
    row = draft.row("Personalities", person)
    draft.set("Personalities", person, "Wounds", 0, cause)
    first = dice.roll(10, f"wound roll of {person}")
    roll = str(first)
    if first.value + over < int(row["Earth"]):
        draft.set("Personalities", person, "Status", PersonalityStatus.WOUNDED.value, f"{cause}: Wounded", roll)
        return PersonalityStatus.WOUNDED.value
    second = dice.roll(10, f"maim roll of {person}")
    roll = f"{first}; {second}"
    if second.value + over < int(row["Void"]):
        ring = max(RINGS, key=lambda r: (int(row[r]), -RINGS.index(r)))  # the highest ring; the first on a tie
        draft.set("Personalities", person, ring, int(row[ring]) - 1, f"{cause}: Maimed, loses 1 {ring}", roll)
        draft.set("Personalities", person, "Status", PersonalityStatus.MAIMED.value, f"{cause}: Maimed", roll)
        return PersonalityStatus.MAIMED.value
    draft.set("Personalities", person, "Status", PersonalityStatus.DEAD.value, f"{cause}: Dead", roll)
    draft.set("Personalities", person, "Unit", "", f"{cause}: Dead", roll)
    frame = draft.frame("Units")
    for unit in frame.index[frame["Leader"] == person]:
        draft.set("Units", unit, "Leader", "", f"{cause}: its leader {person} died", roll)
    turn.notify("public", "graveyard", f"{person} has died at {cause.removeprefix('battle at ')}.")
    return PersonalityStatus.DEAD.value


def _control(turn: Turn, battle: Battle, winner: str, control: str, side: set[str], cause: str) -> None:
    draft = turn.draft
    province = battle.province
    holder = turn.start_control.get(province, "")
    if control == NEUTRAL:
        new = ""
    elif control:
        new = control
    elif holder and holder in side:
        new = holder  # allied defenders: whoever controlled it keeps it
    elif turn.special(winner) == Special.MONK.value:
        owner = str(draft.get("Provinces", province, "Original Owner"))
        new = winner if owner == winner else turn.controller(province)  # Monks only retake their own
    else:
        new = winner
    draft.set("Provinces", province, "Controller", new, f"{cause}: won by {winner}")
    capture_library(turn, province, new)
    owner = str(draft.get("Provinces", province, "Original Owner"))
    if new and owner and owner != new and owner in turn.allies(new) and holder and turn.opposed(new, holder):
        alliances.liberator_kept(turn, new, owner, province)  # liberated from an enemy, not returned


def capture_library(turn: Turn, province: str, new: str) -> None:
    """If a library is captured, so are the spells kept there (spells on shugenja are not in the Stockpile)."""
    draft = turn.draft
    if not new or not draft.get("Provinces", province, "Library"):
        return
    stock = draft.frame("Stockpile")
    for key in stock.index[(stock["Library"] == province) & (stock["Faction"] != new)]:
        loser = str(stock.at[key, "Faction"])
        draft.set("Stockpile", key, "Faction", new, f"the library at {province} captured from {loser}")
