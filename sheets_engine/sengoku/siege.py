"""Guide Section 6, Fortress Garrison and Siege: garrison capacity, the pre-check, siege turns.

A Fortress shelters defending units up to its garrison capacity (Game `garrison_capacity`,
8/16/32/64 units by Fortress Level; no cap at Piety `garrison_unlimited_piety` 4+). Capacity and
the siege timer use the Piety of the clan that controls the fortress. Siege Weapons are not units:
they take no room.

Sieges tab: a siege begins with `Timer` 3 (4 at Piety 5+) and `Status` Active; the timer first
decreases at the next resolution. Each turn one siege weapon is spent to lower the fortress one
level; at level 0 the Fortress building is removed and the siege ends (Broken) before any
surrender. At timer 0 the garrison surrenders: its units are disbanded (its siege weapons pass to
the besiegers, as a routed army's do) and control passes to the besieger, without pillage. With
no besieging army left the siege is Lifted. Sheltered armies keep their Armies rows, Status
Garrisoned; besiegers have Status Besieging.
"""

from __future__ import annotations

from sheets_engine.sengoku.alliances import declarations, friendly
from sheets_engine.sengoku.armies import Units, UnitTable, piety, siege_weapons, standing, unit_table
from sheets_engine.sengoku.capture import controller, pass_siege_weapons, strongest_clan
from sheets_engine.sengoku.economy import FORTRESS
from sheets_engine.sengoku.schema import SLOT_COLUMNS, ArmyStatus, SiegeStatus
from sheets_engine.sengoku.turn import Turn


def garrison_capacity(turn: Turn, province: str) -> int | None:
    """Units the province's fortress shelters (0 without a fortress; None: no cap, Piety 4+)."""
    level = int(turn.draft.get("Provinces", province, "Fortress Level"))
    if level <= 0:
        return 0
    if piety(turn.draft, controller(turn, province)) >= turn.settings.garrison_unlimited_piety:
        return None
    tiers = turn.settings.garrison_capacity
    return int(tiers[min(level, len(tiers)) - 1]) if tiers else 0


def holds_fortress(turn: Turn, province: str, clans: list[str], declared: set[tuple[str, str]]) -> bool:
    """True if these clans may shelter in the fortress: one of them is its controller or an ally."""
    holder = controller(turn, province)
    return bool(holder) and any(friendly(declared, clan, holder) for clan in clans)


def shelter(turn: Turn, province: str, units: dict[str, Units], table: UnitTable) -> dict[str, Units]:
    """Fortress Pre-Check: the defending units that enter the garrison, by army.

    Highest value first (Units `Garrison Order`), each unit type across the side's armies in
    Armies row order, up to the capacity.
    """
    room = garrison_capacity(turn, province)
    sheltered: dict[str, Units] = {army: {} for army in units}
    for column in table.garrison:
        for army, counts in units.items():
            count = counts.get(column, 0)
            taken = count if room is None else min(count, room)
            if taken:
                sheltered[army][column] = taken
                if room is not None:
                    room -= taken
    return sheltered


def begin(turn: Turn, province: str, besiegers: list[str], garrison: list[str], table: UnitTable) -> str:
    """A siege begins: a Sieges row, besiegers Besieging, the garrison Garrisoned; the news in words."""
    draft = turn.draft
    besieger = strongest_clan(turn, besiegers, table)
    defender = controller(turn, province)
    cause = f"siege of {province}"
    piety5 = piety(draft, defender) >= turn.settings.piety5_level
    timer = turn.settings.siege_timer_piety5 if piety5 else turn.settings.siege_timer
    draft.add_row(
        "Sieges",
        {"Province": province, "Besieger": besieger, "Defender": defender, "Timer": timer,
         "Started Turn": turn.number, "Status": SiegeStatus.ACTIVE.value},
        cause,
    )  # fmt: skip
    for army in besiegers:
        draft.set("Armies", army, "Status", ArmyStatus.BESIEGING.value, cause)
    for army in garrison:
        draft.set("Armies", army, "Status", ArmyStatus.GARRISONED.value, cause)
    turn.summary["sieges begun"] += 1
    return f"{besieger} besieges the fortress of {province}, held by {defender} (siege timer {timer})"


def sieges(turn: Turn) -> None:
    """Step 9, after the battles: every Active siege is lifted, or its timer runs, or it ends."""
    draft = turn.draft
    declared = declarations(draft)
    table = unit_table(draft)
    for key, row in draft.frame("Sieges").iterrows():
        if str(row["Status"] or SiegeStatus.ACTIVE.value).casefold() != SiegeStatus.ACTIVE.value.casefold():
            continue
        province = str(row["Province"])
        here = standing(draft, province)
        garrison = [a for a in here if draft.get("Armies", a, "Status") == ArmyStatus.GARRISONED.value]
        besiegers = [
            a for a in here
            if a not in garrison and friendly(declared, str(draft.get("Armies", a, "Clan")), str(row["Besieger"]))
        ]  # fmt: skip
        if not besiegers:
            _end(turn, key, province, garrison, [], SiegeStatus.LIFTED, "no besieging army remains")
        elif int(row["Started Turn"]) < turn.number:
            _siege_turn(turn, key, province, int(row["Timer"]), garrison, besiegers, table)


def _siege_turn(
    turn: Turn, key: object, province: str, timer: int, garrison: list[str], besiegers: list[str], table: UnitTable
) -> None:
    """The timer decreases; a siege weapon lowers the fortress; at timer 0 the garrison surrenders."""
    draft = turn.draft
    cause = f"siege of {province}"
    timer = max(timer - 1, 0)
    draft.set("Sieges", key, "Timer", timer, cause)
    level = int(draft.get("Provinces", province, "Fortress Level"))
    engine = next((a for a in besiegers if siege_weapons(draft, a, table)), "")
    if engine and level > 0:
        column = next(c for c in table.siege if int(draft.get("Armies", engine, c)) > 0)
        draft.set("Armies", engine, column, int(draft.get("Armies", engine, column)) - 1, cause)
        level -= 1
        draft.set("Provinces", province, "Fortress Level", level, cause)
        turn.notify(
            "public", "world", f"A siege weapon of {engine} brought the fortress of {province} to level {level}."
        )
        if level == 0:
            for slot in SLOT_COLUMNS:
                if draft.get("Provinces", province, slot) == FORTRESS:
                    draft.set("Provinces", province, slot, "", cause)
    if level <= 0:
        _end(turn, key, province, garrison, besiegers, SiegeStatus.BROKEN, "the fortress was destroyed")
    elif timer == 0 or not garrison:
        _surrender(turn, key, province, garrison, besiegers, table)


def _end(
    turn: Turn, key: object, province: str, garrison: list[str], besiegers: list[str], status: SiegeStatus, why: str
) -> None:
    """The siege ends without surrender: everyone is in the field again."""
    cause = f"siege of {province}"
    turn.draft.set("Sieges", key, "Status", status.value, cause)
    for army in garrison + besiegers:
        turn.draft.set("Armies", army, "Status", ArmyStatus.FIELD.value, cause)
    turn.summary[f"sieges {status.value.lower()}"] += 1
    turn.notify("public", "world", f"The siege of {province} is over: {why}.")


def _surrender(
    turn: Turn, key: object, province: str, garrison: list[str], besiegers: list[str], table: UnitTable
) -> None:
    """The garrison surrenders: units disbanded, control to the besieger, no pillage."""
    draft = turn.draft
    cause = f"siege of {province}: the garrison surrendered"
    besieger = str(draft.get("Sieges", key, "Besieger"))
    pass_siege_weapons(turn, garrison, besiegers, cause, table)
    for army in garrison:
        for column in table.columns:
            draft.set("Armies", army, column, 0, cause)
        draft.set("Armies", army, "Status", ArmyStatus.DESTROYED.value, cause)
        draft.set("Armies", army, "Leader", "", cause)
    owner = str(draft.get("Provinces", province, "Province Owner"))
    draft.set("Provinces", province, "Controlled By", "" if besieger == owner else besieger, cause)
    draft.set("Sieges", key, "Status", SiegeStatus.SURRENDERED.value, cause)
    for army in besiegers:
        draft.set("Armies", army, "Status", ArmyStatus.FIELD.value, cause)
    turn.summary["sieges surrendered"] += 1
    turn.notify("public", "world", f"The garrison of {province} surrendered; {besieger} takes control of {province}.")
