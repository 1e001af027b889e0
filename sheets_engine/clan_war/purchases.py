"""The start phase's purchases under the document's "Setup" restrictions (uniqueness, three of a kind,
model and unit limits, allied units, stockpiles, the Daimyo's command group) and replacements for
casualties. clan_war.start settles each Purchases row; sealed bids are in clan_war.bids.

A purchase is Accepted (paid now; the new forces join in the recovery phase, where the row becomes
Resolved: clan_war.new_forces) or Rejected with the reason.
"""

from __future__ import annotations

from typing import Any

from sheets_engine.clan_war.game import Turn, is_unaligned, share
from sheets_engine.clan_war.koku import Price, Refused, count_of, own_unit, pay, price_of
from sheets_engine.clan_war.leadership import room
from sheets_engine.clan_war.schema import (
    Action,
    BidStatus,
    ItemKind,
    PersonalityStatus,
    PurchaseStatus,
    UnitStatus,
)
from sheets_engine.clan_war.tattoos import replacement_surcharge
from sheets_engine.core.cells import is_blank
from sheets_engine.core.names import plural

GONE = (PersonalityStatus.DEAD.value, PersonalityStatus.RELEASED.value)


def placed_at(turn: Turn, faction: str, province: str) -> str:
    if not province:
        raise Refused("name the Province where the new forces join the army")
    if turn.start_control.get(province) != faction:
        raise Refused(
            f"new forces join only in a province {faction} controlled at the start of the turn, not {province}"
        )
    return province


def _accepted(turn: Turn, item: str, faction: str | None = None) -> int:
    """How many of an item accepted purchases bring (for the faction, or anyone): this turn's, and a special item
    of an earlier turn still waiting for a personality to receive it."""
    frame = turn.draft.frame("Purchases")
    rows = frame[frame["Status"] == PurchaseStatus.ACCEPTED.value]
    rows = (
        rows[rows["Item"] == item] if faction is None else rows[(rows["Item"] == item) & (rows["Faction"] == faction)]
    )
    return int(sum(1 if c is None or c == "" else int(c) for c in rows["Count"]))


def in_play(turn: Turn, item: str) -> tuple[str, bool]:
    """(who holds a unique personality or item, whether it is dead) across every faction."""
    people = turn.draft.frame("Personalities")
    rows = people[people["Item"] == item]
    dead = bool((rows["Status"] == PersonalityStatus.DEAD.value).any())
    alive = rows[~rows["Status"].isin(GONE)]
    if len(alive):
        return str(alive["Faction"].iloc[0]), dead
    for person, items in people["Items"].items():
        if item in [i.strip() for i in str(items).split(",")]:
            return str(people.at[person, "Faction"]), dead
    frame = turn.draft.frame("Purchases")
    taken = frame[(frame["Status"] == PurchaseStatus.ACCEPTED.value) & (frame["Item"] == item)]  # paid, to come
    if len(taken):
        return str(taken["Faction"].iloc[0]), dead
    bids = turn.draft.frame("Bids")
    won = bids[(bids["Status"] == BidStatus.WON.value) & (bids["Personality"] == item)]
    return (str(won["Faction"].iloc[0]) if len(won) else ""), dead


def check_unique(turn: Turn, entry: dict[str, Any]) -> None:
    """Only one of a unique item; a dead unique personality never again, by anyone."""
    if not entry["Unique"]:
        return
    item = str(entry["Item"])
    holder, dead = in_play(turn, item)
    if dead:
        raise Refused(f"{item} is unique and has died: a dead unique personality may never be bought again")
    if holder:
        raise Refused(f"{item} is unique and {holder} has it already")
    for other in versions(turn, item):
        holder, dead = in_play(turn, other)
        if dead:
            raise Refused(
                f"{item} is a version of {other}, a unique personality who has died: "
                "a dead unique personality may never be bought again"
            )
        if holder:
            raise Refused(f"{item} is a version of {other}, which is unique and {holder} has it already")


def versions(turn: Turn, item: str) -> list[str]:
    """The other unique versions of a personality (experienced or not, through the Catalogue's Experienced Of):
    for uniqueness they are one personality."""
    catalogue = turn.draft.frame("Catalogue")
    base = str(catalogue.at[item, "Experienced Of"]) or item
    family = {base} | {str(k) for k in catalogue.index[catalogue["Experienced Of"] == base]}
    return sorted(k for k in family - {item} if k in catalogue.index and catalogue.at[k, "Unique"])


def force_count(turn: Turn, faction: str, item: str) -> int:
    """How many of an item a faction's force holds: personalities, special items, leadership packages,
    spells in its stockpile, and this turn's accepted purchases."""
    draft = turn.draft
    people = draft.frame("Personalities")
    mine = people[(people["Faction"] == faction) & ~people["Status"].isin(GONE)]
    total = int((mine["Item"] == item).sum())
    total += sum([i.strip() for i in str(items).split(",")].count(item) for items in mine["Items"])
    units = draft.frame("Units")
    alive = (units["Faction"] == faction) & (units["Status"] != UnitStatus.DESTROYED.value)
    total += int((alive & ((units["Leader"] == item) | (units["Package"] == item))).sum())
    stock = draft.frame("Stockpile")
    total += int(stock[(stock["Faction"] == faction) & (stock["Item"] == item)]["Count"].sum())
    return total + _accepted(turn, item, faction)


def check_three(turn: Turn, faction: str, entry: dict[str, Any], count: int) -> None:
    """At most max_non_unique of a non-unique personality, clan leadership package, spell or special
    item across the whole force (generic leadership packages and mundane equipment are unlimited)."""
    kind = entry["Kind"]
    limited = {ItemKind.PERSONALITY.value, ItemKind.SPECIAL_ITEM.value, ItemKind.SPELL.value}
    if entry["Unique"] or not (
        kind in limited or (kind == ItemKind.LEADERSHIP_PACKAGE.value and not is_unaligned(entry["Clan"]))
    ):
        return
    limit = turn.settings.max_non_unique
    have = force_count(turn, faction, str(entry["Item"]))
    if have + count > limit:
        raise Refused(f"{faction} may have at most {limit} of {entry['Item']} across its force, and has {have}")


def check_units(turn: Turn, faction: str, entry: dict[str, Any]) -> None:
    """A troop type restricted to a number of units: the restriction counts across the whole force."""
    if is_blank(entry["Max Units"]):
        return
    limit = int(entry["Max Units"])
    units = turn.draft.frame("Units")
    alive = units["Status"] != UnitStatus.DESTROYED.value
    have = int(((units["Faction"] == faction) & (units["Item"] == entry["Item"]) & alive).sum())
    frame = turn.draft.frame("Purchases")
    bought = (frame["Turn"] == turn.number) & (frame["Status"] == PurchaseStatus.ACCEPTED.value)
    bought &= (frame["Item"] == entry["Item"]) & (frame["Faction"] == faction) & (frame["Action"] == Action.BUY.value)
    have += int(bought.sum())
    if have + 1 > limit:
        raise Refused(f"a force may have {plural(limit, 'unit')} of {entry['Item']}, and {faction} has {have}")


def check_size(entry: dict[str, Any], count: int) -> None:
    """A new unit holds at most its troop type's Unit Size of models (the force profile's restriction)."""
    if not is_blank(entry["Unit Size"]) and count > int(entry["Unit Size"]):
        raise Refused(f"a unit of {entry['Item']} holds at most {entry['Unit Size']} models, not {count}")


def check_models(turn: Turn, faction: str, entry: dict[str, Any], count: int) -> None:
    """A troop type's model limit counts across the whole force."""
    if is_blank(entry["Max Models"]):
        return
    limit = int(entry["Max Models"])
    units = turn.draft.frame("Units")
    mine = units[
        (units["Faction"] == faction)
        & (units["Item"] == entry["Item"])
        & (units["Status"] != UnitStatus.DESTROYED.value)
    ]
    have = int(mine["Models"].sum()) + _accepted(turn, str(entry["Item"]), faction)
    if have + count > limit:
        raise Refused(f"only {limit} models of {entry['Item']} exist for a force, and {faction} has {have}")


def _accepted_for(turn: Turn, unit: str) -> int:
    """Replacement models this turn's accepted purchases bring to a unit."""
    frame = turn.draft.frame("Purchases")
    rows = frame[
        (frame["Status"] == PurchaseStatus.ACCEPTED.value)
        & (frame["Action"] == Action.REPLACE.value)
        & (frame["Target"] == unit)
    ]
    return int(sum(1 if c is None or c == "" else int(c) for c in rows["Count"]))


def free_name(turn: Turn, name: str) -> None:
    released = turn.draft.has("Personalities", name) and (
        turn.draft.get("Personalities", name, "Status") == PersonalityStatus.RELEASED.value
    )  # a personality lost with a broken alliance is not Dead: hired again, its row comes back
    if (turn.draft.has("Personalities", name) and not released) or turn.draft.has("Units", name):
        raise Refused(f"the name {name} is taken already: give the new forces another Target")
    frame = turn.draft.frame("Purchases")
    same = frame[
        (frame["Turn"] == turn.number) & (frame["Status"] == PurchaseStatus.ACCEPTED.value) & (frame["Target"] == name)
    ]
    if len(same):
        raise Refused(f"the name {name} is taken by another purchase this turn")


def buy(turn: Turn, row: dict[str, Any], entry: dict[str, Any]) -> str:
    faction, item, count = str(row["Faction"]), str(entry["Item"]), count_of(row)
    kind = entry["Kind"]
    cause = f"buy {item} by {faction}"
    if kind in (ItemKind.SPELL.value, ItemKind.EQUIPMENT.value):
        raise Refused(f"{item} is a {kind.lower()}: buy it with the stockpile action")
    if kind == ItemKind.LEADERSHIP_PACKAGE.value:
        raise Refused(f"{item} is a leadership package: use the promote action on the unit that gets it")
    if kind == ItemKind.TATTOO.value:
        raise Refused(f"{item} is a tattoo: use the tattoo action on the unit Togashi Yokuni leads")
    if kind == ItemKind.PERSONALITY.value and is_unaligned(str(entry["Clan"])) and entry["Unique"]:
        raise Refused(f"{item} is an unaligned unique personality: recruit it through Bids")
    unique_item = kind == ItemKind.SPECIAL_ITEM.value and is_unaligned(str(entry["Clan"])) and entry["Unique"]
    if unique_item and turn.settings.unique_item_bids:
        raise Refused(f"{item} is an unaligned unique item, and this campaign bids for those: recruit it through Bids")
    check_unique(turn, entry)
    if kind == ItemKind.COMMAND_GROUP.value:
        return _command_group(turn, row, entry, count, cause)
    if kind == ItemKind.SPECIAL_ITEM.value:
        target = str(row["Target"])
        special_item_target(turn, faction, target)
        check_three(turn, faction, entry, 1)
        price = price_of(turn, faction, entry, 1, bool(row["Ally OK"]))
        pay(turn, faction, price, cause)
        return f"bought {item} for {price.cost} koku; {target} receives it in the recovery phase"
    if kind == ItemKind.PERSONALITY.value:
        count = 1
    check_three(turn, faction, entry, count if kind != ItemKind.UNIT.value else 0)
    if kind == ItemKind.UNIT.value:
        check_size(entry, count)
        check_units(turn, faction, entry)
        check_models(turn, faction, entry, count)
    province = placed_at(turn, faction, str(row["Province"]))
    name = str(row["Target"]) or (item if entry["Unique"] else "")
    if not name:
        raise Refused("name the new unit or personality in Target")
    free_name(turn, name)
    price = price_of(turn, faction, entry, count, bool(row["Ally OK"]))
    pay(turn, faction, price, cause)
    what = f"{count} models of {item}" if kind == ItemKind.UNIT.value else item
    ally = f" ({price.ally} receives {price.ally_share} koku)" if price.ally else ""
    return f"bought {what} as {name} for {price.cost} koku{ally}; joins the army at {province} in the recovery phase"


def special_item_target(turn: Turn, faction: str, target: str) -> None:
    """A special item must be assigned to a personality of the faction in play (or one bought this turn)."""
    mine = turn.draft.has("Personalities", target) and turn.draft.get("Personalities", target, "Faction") == faction
    if not (mine or bought_personality(turn, faction, target)):
        raise Refused(f"a special item must be assigned to a personality of {faction}: name one as Target")
    _in_play(turn, target)


def new_library(turn: Turn, faction: str, library: str) -> str:
    """Where a newly purchased spell goes: a library the faction controlled at the start of the turn."""
    if not library or not turn.draft.get("Provinces", library, "Library"):
        raise Refused("spells are kept at a library: name a province with a library as Province")
    if turn.start_control.get(library) != faction:
        raise Refused(f"new spells go to a library {faction} controlled at the start of the turn, not {library}")
    return library


def _in_play(turn: Turn, person: str) -> None:
    """A Target personality must be in play: a dead or released one carries nothing and leads nobody."""
    status = turn.draft.get("Personalities", person, "Status") if turn.draft.has("Personalities", person) else ""
    if status in GONE:
        raise Refused(f"{person} is {status}: name a personality in play as Target")


def bought_personality(turn: Turn, faction: str, name: str) -> bool:
    """Is `name` a personality the faction bought earlier this turn? (Placed in row order, before its items.)"""
    frame = turn.draft.frame("Purchases")
    rows = frame[
        (frame["Turn"] == turn.number)
        & (frame["Status"] == PurchaseStatus.ACCEPTED.value)
        & (frame["Faction"] == faction)
        & (frame["Action"] == Action.BUY.value)
    ]
    for item, target in zip(rows["Item"], rows["Target"], strict=True):
        entry = turn.catalogue(str(item))
        if entry and entry["Kind"] == ItemKind.PERSONALITY.value and (str(target) or str(item)) == name:
            return True
    return False


def _command_group(turn: Turn, row: dict[str, Any], entry: dict[str, Any], count: int, cause: str) -> str:
    """Command group models for a personality: the Daimyo's entourage is free up to entourage_share of the
    Daimyo's cost; more models (and other generals' groups) at regular cost."""
    faction, target = str(row["Faction"]), str(row["Target"])
    if not turn.draft.has("Personalities", target) or turn.draft.get("Personalities", target, "Faction") != faction:
        raise Refused(f"name the personality of {faction} the command group accompanies as Target")
    _in_play(turn, target)
    if str(entry["Clan"]) != faction:
        raise Refused(f"{entry['Item']} is the {entry['Clan']}'s command group, not {faction}'s")
    free = 0
    if target == turn.draft.get("Factions", faction, "Daimyo"):
        daimyo = turn.catalogue(str(turn.draft.get("Personalities", target, "Item")))
        allowance = share(int(daimyo["Cost"]) if daimyo else 0, turn.settings.rate("entourage_share"))
        left = allowance - int(turn.draft.get("Factions", faction, "Entourage Used"))
        per_model = max(int(entry["Cost"]), 1)
        free = max(0, min(count, left // per_model))
        if free:
            used = int(turn.draft.get("Factions", faction, "Entourage Used")) + free * int(entry["Cost"])
            turn.draft.set("Factions", faction, "Entourage Used", used, f"{cause}: the Daimyo's free entourage")
    paid = count - free
    cost = paid * int(entry["Cost"])
    pay(turn, faction, Price(cost), cause)
    where = str(turn.draft.get("Personalities", target, "Province"))
    parts = [f"{free} free (the Daimyo's entourage)"] if free else []
    if paid:
        parts.append(f"{paid} for {cost} koku")
    joined = " and ".join(parts)
    return f"{count} models of {entry['Item']} for {target}: {joined}; they join at {where} in the recovery phase"


def stockpile(turn: Turn, row: dict[str, Any], entry: dict[str, Any]) -> str:
    faction, item, count = str(row["Faction"]), str(entry["Item"]), count_of(row)
    kind = entry["Kind"]
    if kind not in (ItemKind.EQUIPMENT.value, ItemKind.SPELL.value):
        raise Refused(f"only mundane equipment and spells may be stockpiled, and {item} is a {kind}")
    if entry["Ranged"]:
        raise Refused(f"{item} is a ranged weapon: ranged weapons may not be stockpiled")
    check_unique(turn, entry)
    if kind == ItemKind.SPELL.value:
        library = new_library(turn, faction, str(row["Province"]))
        check_three(turn, faction, entry, count)
        where = f"the library at {library}"
    else:
        where = "the stockpile"
    price = price_of(turn, faction, entry, count, bool(row["Ally OK"]))
    pay(turn, faction, price, f"stockpile {item} by {faction}")
    return f"bought {count} {item} for {price.cost} koku; in {where} from the recovery phase"


def replace(turn: Turn, row: dict[str, Any], entry: dict[str, Any]) -> str:
    faction, unit, count = str(row["Faction"]), str(row["Target"]), count_of(row)
    own_unit(turn, faction, unit, "was destroyed: buy a new unit instead")
    if turn.draft.get("Units", unit, "Item") != entry["Item"]:
        raise Refused(
            f"{unit} is a unit of {turn.draft.get('Units', unit, 'Item')}: replacements must be the same troops"
        )
    where = str(turn.draft.get("Units", unit, "Province"))
    if turn.controller(where) != faction:
        raise Refused(
            f"{unit} stands at {where}, which {faction} does not control: "
            "replacements reach a unit in a friendly province"
        )
    check_models(turn, faction, entry, count)
    limit = room(turn, unit)
    coming = _accepted_for(turn, unit)
    if limit is not None and count + coming > limit[0]:
        more = f" ({coming} bought already this turn)" if coming else ""
        raise Refused(f"{unit} may take {max(limit[0] - coming, 0)} more models{more}: {limit[1]}")
    ally = str(turn.draft.get("Units", unit, "From Ally"))
    base = int(entry["Cost"]) * count
    price = price_of(turn, faction, entry, count, True) if ally else Price(base)
    inked = replacement_surcharge(turn, unit, count)  # a Tattooed unit's new models bear its tattoos
    price = Price(price.cost + inked, price.ally, price.ally_share)
    pay(turn, faction, price, f"replace {entry['Item']} by {faction}")
    tattoos = f" ({inked} of it for their tattoos)" if inked else ""
    return f"bought {count} models for {unit} for {price.cost} koku{tattoos}; they join it in the recovery phase"
