"""The recovery phase (the document's "Recovery"): wounded and maimed personalities return, the others
heal, armies recover part of their casualties, new forces join, taxes are collected."""

from __future__ import annotations

import math

from sheets_engine.clan_war.bids import join_at
from sheets_engine.clan_war.experience import join_models
from sheets_engine.clan_war.game import Turn, share
from sheets_engine.clan_war.purchases import count_of
from sheets_engine.clan_war.schema import (
    RINGS,
    BidStatus,
    ItemKind,
    PersonalityStatus,
    PurchaseStatus,
    UnitStatus,
)


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


def place_new_forces(turn: Turn) -> None:
    """Accepted purchases and won bids of the turn join the army (they were paid in the start phase)."""
    draft = turn.draft
    frame = draft.frame("Purchases")
    for key in list(frame.index):
        row = draft.row("Purchases", key)
        if row["Turn"] != turn.number or row["Status"] != PurchaseStatus.ACCEPTED.value:
            continue
        entry = turn.catalogue(str(row["Item"]))
        assert entry is not None
        cause = f"{row['Action']} {row['Item']} by {row['Faction']}: placed"
        result = _place(turn, row, entry, cause)
        turn.purchases.resolve(key, f"{row['Result']}. Placed: {result}", cause)
    bids = draft.frame("Bids")
    for key in list(bids.index):
        row = draft.row("Bids", key)
        if row["Turn"] != turn.number or row["Status"] != BidStatus.WON.value:
            continue
        entry = turn.catalogue(str(row["Personality"]))
        assert entry is not None
        province = join_at(turn, row)
        cause = f"bid for {row['Personality']} by {row['Faction']}: placed"
        _new_personality(turn, str(row["Personality"]), str(row["Faction"]), entry, province, "", cause)
        draft.set("Bids", key, "Status", BidStatus.PLACED.value, cause)
        draft.set("Bids", key, "Result", f"{row['Result']}. Placed at {province}", cause)


def _new_personality(turn: Turn, name: str, faction: str, entry: dict, province: str, ally: str, cause: str) -> None:
    draft = turn.draft
    if draft.has("Personalities", name):  # Released with a broken alliance, hired again
        for column, value in (("Faction", faction), ("Province", province), ("Unit", ""), ("From Ally", ally),
                              ("Status", PersonalityStatus.READY.value)):  # fmt: skip
            draft.set("Personalities", name, column, value, cause)
        return
    draft.add_row(
        "Personalities",
        {
            "Personality": name,
            "Faction": faction,
            "Item": entry["Item"],
            "Province": province,
            "Unit": "",
            "Unique": entry["Unique"],
            "Experienced": bool(entry["Experienced Of"]),
            **{ring: entry[ring] for ring in RINGS},
            "Wounds": entry["Wounds"],
            "Max Wounds": entry["Wounds"],
            "Void Points": entry["Void"],
            "Max Void": entry["Void"],
            "Status": PersonalityStatus.READY.value,
            "Cavalry": entry["Cavalry"],
            "Flying": entry["Flying"],
            "Command Limit": entry["Command Limit"],
            "Leadership": entry["Leadership"],
            "From Ally": ally,
        },
        cause,
    )


def _place(turn: Turn, row: dict, entry: dict, cause: str) -> str:
    draft = turn.draft
    faction, item, count, target = str(row["Faction"]), str(entry["Item"]), count_of(row), str(row["Target"])
    kind = entry["Kind"]
    clan = str(entry["Clan"])
    ally = clan if clan != faction and clan in draft.frame("Factions").index else ""
    if row["Action"] == "stockpile":
        library = str(row["Province"]) if kind == ItemKind.SPELL.value else ""
        stock = draft.frame("Stockpile")
        same = stock.index[(stock["Faction"] == faction) & (stock["Item"] == item) & (stock["Library"] == library)]
        if len(same):
            draft.set("Stockpile", same[0], "Count", int(stock.at[same[0], "Count"]) + count, cause)
        else:
            draft.add_row("Stockpile", {"Faction": faction, "Item": item, "Count": count, "Library": library}, cause)
        return f"{count} {item} in " + (f"the library at {library}" if library else "the stockpile")
    if row["Action"] == "replace":
        if draft.get("Units", target, "Status") == UnitStatus.DESTROYED.value:
            return f"{target} was destroyed before they joined it; the models are lost"
        lost_trait = join_models(turn, target, count, 0, cause)  # new models: inexperienced
        return f"{count} models join {target}" + (f"; {lost_trait}" if lost_trait else "")
    if kind == ItemKind.SPECIAL_ITEM.value:
        if draft.get("Personalities", target, "Fought"):
            stock = draft.frame("Stockpile")
            draft.add_row("Stockpile", {"Faction": faction, "Item": item, "Count": 1, "Library": ""}, cause)
            return f"{target} battled this turn, so {item} waits in the stockpile"
        items = [i for i in str(draft.get("Personalities", target, "Items")).split(", ") if i]
        draft.set("Personalities", target, "Items", ", ".join([*items, item]), cause)
        return f"{item} given to {target}"
    if kind == ItemKind.COMMAND_GROUP.value:
        if draft.get("Personalities", target, "Status") in (
            PersonalityStatus.DEAD.value,
            PersonalityStatus.RELEASED.value,
        ):
            status = draft.get("Personalities", target, "Status")
            return f"{target} is out of play ({status}): the command group models are lost"
        name = f"{target} Command Group"
        province = str(draft.get("Personalities", target, "Province"))
        if draft.has("Units", name):
            draft.set("Units", name, "Models", int(draft.get("Units", name, "Models")) + count, cause)
        else:
            draft.add_row(
                "Units",
                {
                    "Unit": name,
                    "Faction": faction,
                    "Item": item,
                    "Province": province,
                    "Models": count,
                    "Leader": target,
                    "ML": entry["ML"],
                    "TL": entry["TL"],
                    "Status": UnitStatus.READY.value,
                },
                cause,
            )
        return f"{count} command group models with {target} at {province}"
    province = str(row["Province"])
    if kind == ItemKind.PERSONALITY.value:
        _new_personality(turn, target or item, faction, entry, province, ally, cause)
        return f"{target or item} at {province}"
    draft.add_row(
        "Units",
        {
            "Unit": target,
            "Faction": faction,
            "Item": item,
            "Province": province,
            "Models": count,
            "Leader": "",
            "ML": entry["ML"],
            "TL": entry["TL"],
            "Status": UnitStatus.READY.value,
            "From Ally": ally,
        },
        cause,
    )
    return f"{target} ({count} models) at {province}; it needs a leader to move"


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
