"""The recovery phase (the document's "Recovery"): wounded and maimed personalities return, the others
heal, armies recover part of their casualties, taxes are collected; new forces join in clan_war.new_forces."""

from __future__ import annotations

import math

from sheets_engine.clan_war.experience import join_models
from sheets_engine.clan_war.game import Turn, share
from sheets_engine.clan_war.schema import PersonalityStatus, UnitStatus


def recover_personalities(turn: Turn) -> None:
    """Wounded and Maimed personalities return at 1 wound and 0 void. Those that moved or battled heal
    1d10/2 (rounded up) void and wounds; those that did neither recover all of both."""
    draft = turn.draft
    dice = turn.dice.stream("recovery")
    for person in turn.personalities():
        row = draft.row("Personalities", person)
        if row["Status"] in (PersonalityStatus.WOUNDED.value, PersonalityStatus.MAIMED.value):
            cause = f"recovery: {person} was {row['Status']} and returns"
            draft.set("Personalities", person, "Wounds", 1, cause)
            draft.set("Personalities", person, "Void Points", 0, cause)
            draft.set("Personalities", person, "Status", PersonalityStatus.READY.value, cause)
            continue
        if not (row["Moved"] or row["Fought"]):
            cause = "recovery: did not move or battle, recovers all"
            draft.set("Personalities", person, "Void Points", row["Max Void"], cause)
            draft.set("Personalities", person, "Wounds", row["Max Wounds"], cause)
            continue
        for column, top in (("Void Points", "Max Void"), ("Wounds", "Max Wounds")):
            if row[column] >= row[top]:
                continue
            roll = dice.roll(10, f"{column.lower()} recovered by {person}")
            healed = min(int(row[top]), int(row[column]) + math.ceil(roll.value / 2))
            draft.set("Personalities", person, column, healed, "recovery: moved or battled, recovers 1d10/2", str(roll))


def recover_casualties(turn: Turn) -> None:
    """An army that won recovers win_recovery of its casualties, one that lost loss_recovery (rounded
    down, per unit); Broken and Routed units rally to Ready."""
    draft = turn.draft
    for unit, (lost, won) in sorted(turn.casualties.items()):
        if draft.get("Units", unit, "Status") == UnitStatus.DESTROYED.value or not lost:
            continue
        rate = turn.settings.rate("win_recovery" if won else "loss_recovery")
        back = share(lost, rate)
        if back:
            why = f"recovery: {back} of {lost} casualties return ({'won' if won else 'lost'}: {rate:.0%})"
            join_models(turn, unit, back, turn.veterans_lost.get(unit, 0), why)  # the experienced ones first
    for unit in turn.units():
        if draft.get("Units", unit, "Status") in (UnitStatus.BROKEN.value, UnitStatus.ROUTED.value):
            draft.set("Units", unit, "Status", UnitStatus.READY.value, "recovery: the unit rallies")


def taxes(turn: Turn) -> None:
    """koku_per_province for each province a faction controls now, and as much for each Monk Ring."""
    draft = turn.draft
    provinces = draft.frame("Provinces")
    rate = turn.settings.koku_per_province
    for faction in draft.frame("Factions").index:
        held = int((provinces["Controller"] == faction).sum())
        rings = int(draft.get("Factions", faction, "Rings"))
        gain = rate * (held + rings)
        if gain:
            koku = int(draft.get("Factions", faction, "Koku"))
            why = f"taxes: {held} provinces" + (f" and {rings} Rings" if rings else "") + f" at {rate} koku"
            draft.set("Factions", faction, "Koku", koku + gain, why)
