"""Place new forces (the recovery phase's "Place new forces"): what was paid for in the start phase joins.

"Newly recruited personalities and troops may be deployed to any province the player controlled at the
beginning of the turn. Newly purchased spells may be placed in any library that the player controlled at
the beginning of the turn. Newly purchased special items may be placed on any newly purchased personality,
or any personality who did not battle this turn. Newly purchased mundane equipment becomes available in the
Stockpile." Replacement models join their unit, command group models their personality.

Accepted Purchases rows and won Bids are placed in row order, special items last (so that a personality
placed this turn may receive one). A row whose forces cannot join yet stays Accepted, saying why, and is
placed in a later recovery phase: a special item nobody may receive this turn (clan_war.equipment), a
tattoo or new troops for a unit Yokuni tattooed that did not spend the whole turn in the Togashi province
(clan_war.tattoos).
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from sheets_engine.clan_war import equipment
from sheets_engine.clan_war.bids import join_at
from sheets_engine.clan_war.experience import join_models
from sheets_engine.clan_war.game import Turn
from sheets_engine.clan_war.items import store
from sheets_engine.clan_war.koku import count_of
from sheets_engine.clan_war.schema import (
    RINGS,
    Action,
    BidStatus,
    ItemKind,
    PersonalityStatus,
    PurchaseStatus,
    UnitStatus,
)
from sheets_engine.clan_war.tattoos import place_tattoo, replacements_wait

WAITS = ". Waits: "  # what a row still Accepted after a recovery phase says about why


def place_new_forces(turn: Turn) -> None:
    """Accepted purchases (this turn's, and earlier ones still waiting) and won bids join the army."""
    draft = turn.draft
    frame = draft.frame("Purchases")
    last: list[Hashable] = []
    for key in list(frame.index):
        row = draft.row("Purchases", key)
        if row["Status"] != PurchaseStatus.ACCEPTED.value or row["Turn"] > turn.number:
            continue
        entry = turn.catalogue(str(row["Item"]))
        assert entry is not None
        if entry["Kind"] == ItemKind.SPECIAL_ITEM.value:
            last.append(key)
            continue
        _settle(turn, key, row, place(turn, row, entry, _cause(row)))
    bids = draft.frame("Bids")
    won: list[Hashable] = []
    for key in list(bids.index):
        row = draft.row("Bids", key)
        if row["Turn"] > turn.number or row["Status"] != BidStatus.WON.value:
            continue
        entry = turn.catalogue(str(row["Personality"]))
        assert entry is not None
        if entry["Kind"] == ItemKind.SPECIAL_ITEM.value:
            won.append(key)
            continue
        _settle_bid(turn, key, row, place(turn, as_purchase(turn, row, entry), entry, _bid_cause(row)))
    for key in last:
        row = draft.row("Purchases", key)
        _settle(turn, key, row, equipment.place_special_item(turn, row, _cause(row)))
    for key in won:
        row = draft.row("Bids", key)
        entry = turn.catalogue(str(row["Personality"]))
        placed = equipment.place_special_item(turn, as_purchase(turn, row, entry), _bid_cause(row))
        _settle_bid(turn, key, row, placed)


def as_purchase(turn: Turn, row: dict[str, Any], entry: dict[str, Any] | None) -> dict[str, Any]:
    """A won bid as the purchase it amounts to (what is placed, where)."""
    kind = entry["Kind"] if entry else ""
    stocked = kind in (ItemKind.SPELL.value, ItemKind.EQUIPMENT.value)
    province = join_at(turn, row) if kind == ItemKind.PERSONALITY.value else str(row["Province"])
    return {"Faction": row["Faction"], "Action": Action.STOCKPILE.value if stocked else Action.BUY.value,
            "Item": row["Personality"], "Count": row["Count"], "Target": row["Target"], "Province": province,
            "Result": row["Result"]}  # fmt: skip


def _bid_cause(row: dict[str, Any]) -> str:
    return f"bid for {row['Personality']} by {row['Faction']}: placed"


def _cause(row: dict[str, Any]) -> str:
    return f"{row['Action']} {row['Item']} by {row['Faction']}: placed"


def _settle(turn: Turn, key: Hashable, row: dict[str, Any], placed: tuple[str, bool]) -> None:
    """A purchase: Resolved with what was placed, or still Accepted with why it waits."""
    _placed(turn, "Purchases", key, row, placed, _cause(row))


def _settle_bid(turn: Turn, key: Hashable, row: dict[str, Any], placed: tuple[str, bool]) -> None:
    """A won bid: Placed with what joined, or still Won with why it waits."""
    _placed(turn, "Bids", key, row, placed, _bid_cause(row))


def _placed(turn: Turn, tab: str, key: Hashable, row: dict[str, Any], placed: tuple[str, bool], cause: str) -> None:
    text, done = placed
    paid = str(row["Result"]).split(WAITS)[0]  # what the start phase said, without an earlier wait
    if not done:
        turn.draft.set(tab, key, "Result", f"{paid}{WAITS}{text}", f"{cause}: waits")
        turn.summary[f"{tab.lower()} waiting"] += 1
    elif tab == "Bids":
        turn.draft.set(tab, key, "Status", BidStatus.PLACED.value, cause)
        turn.draft.set(tab, key, "Result", f"{paid}. Placed: {text}", cause)
    else:
        turn.purchases.resolve(key, f"{paid}. Placed: {text}", cause)


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


def new_unit(turn: Turn, name: str, faction: str, entry: dict, province: str, models: int, cause: str,
             **values: Any) -> None:  # fmt: skip
    """A Units row for new forces of a troop type (its ML and TL from the Catalogue)."""
    turn.draft.add_row(
        "Units",
        {
            "Unit": name,
            "Faction": faction,
            "Item": entry["Item"],
            "Province": province,
            "Models": models,
            "Leader": "",
            "ML": entry["ML"],
            "TL": entry["TL"],
            "Status": UnitStatus.READY.value,
            **values,
        },
        cause,
    )


def place(turn: Turn, row: dict[str, Any], entry: dict[str, Any], cause: str) -> tuple[str, bool]:
    """Place what one Accepted row paid for: (what happened, placed); not placed: it waits, saying why."""
    draft = turn.draft
    faction, item, count, target = str(row["Faction"]), str(entry["Item"]), count_of(row), str(row["Target"])
    kind = entry["Kind"]
    clan = str(entry["Clan"])
    ally = clan if clan != faction and clan in draft.frame("Factions").index else ""
    if row["Action"] == Action.STOCKPILE.value:
        library = str(row["Province"]) if kind == ItemKind.SPELL.value else ""
        store(draft, faction, item, count, library, cause)
        return f"{count} {item} in " + (f"the library at {library}" if library else "the stockpile"), True
    if row["Action"] == Action.TATTOO.value:
        return place_tattoo(turn, row, cause)
    if row["Action"] == Action.REPLACE.value:
        if draft.get("Units", target, "Status") == UnitStatus.DESTROYED.value:
            return f"{target} was destroyed before they joined it; the models are lost", True
        wait = replacements_wait(turn, target)
        if wait:
            return wait, False
        lost_trait = join_models(turn, target, count, 0, cause)  # new models: inexperienced
        return f"{count} models join {target}" + (f"; {lost_trait}" if lost_trait else ""), True
    if kind == ItemKind.COMMAND_GROUP.value:
        status = draft.get("Personalities", target, "Status")
        if status in (PersonalityStatus.DEAD.value, PersonalityStatus.RELEASED.value):
            return f"{target} is out of play ({status}): the command group models are lost", True
        name = f"{target} Command Group"
        province = str(draft.get("Personalities", target, "Province"))
        if draft.has("Units", name):
            draft.set("Units", name, "Models", int(draft.get("Units", name, "Models")) + count, cause)
        else:
            new_unit(turn, name, faction, entry, province, count, cause, Leader=target)
        return f"{count} command group models with {target} at {province}", True
    province = str(row["Province"])
    if kind == ItemKind.PERSONALITY.value:
        _new_personality(turn, target or item, faction, entry, province, ally, cause)
        return f"{target or item} at {province}", True
    new_unit(turn, target, faction, entry, province, count, cause, **{"From Ally": ally})
    return f"{target} ({count} models) at {province}; it needs a leader to move", True
