"""The start phase's purchases (the document's "Setup" restrictions and "Start"); sealed bids are in
clan_war.bids.

Every Purchases row of the turn is settled in row order: Accepted (paid now; the new forces join in
the recovery phase, where the row becomes Resolved), Resolved at once (a promotion, an upgrade), or
Rejected with the reason.
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

from sheets_engine.clan_war.game import Turn, is_unaligned, played_clans, share
from sheets_engine.clan_war.schema import (
    Action,
    BidStatus,
    ItemKind,
    PersonalityStatus,
    PurchaseStatus,
    UnitStatus,
)
from sheets_engine.core.cells import is_blank

GONE = (PersonalityStatus.DEAD.value, PersonalityStatus.RELEASED.value)


class Refused(Exception):
    """A purchase the rules do not allow; the message is the player's Result."""


@dataclass(frozen=True)
class Price:
    """What a purchase costs the buyer, and the share its clan's player (an ally) receives."""

    cost: int
    ally: str = ""
    ally_share: int = 0


def purchases(turn: Turn) -> None:
    """Settle this turn's Pending Purchases rows, in row order."""
    draft = turn.draft
    frame = draft.frame("Purchases")
    for key in list(frame.index):
        row = draft.row("Purchases", key)
        if row["Turn"] != turn.number or row["Status"] != PurchaseStatus.PENDING.value:
            continue
        cause = f"{row['Action']} {row['Item']} by {row['Faction']}"
        try:
            result, accepted = _settle(turn, key, row)
        except Refused as refusal:
            turn.purchases.reject(key, str(refusal), cause)
            turn.summary["purchases refused"] += 1
            continue
        if accepted:
            draft.set("Purchases", key, "Status", PurchaseStatus.ACCEPTED.value, cause)
            draft.set("Purchases", key, "Result", result, cause)
        else:
            turn.purchases.resolve(key, result, cause)
        turn.summary["purchases made"] += 1


def _settle(turn: Turn, key: Hashable, row: dict[str, Any]) -> tuple[str, bool]:
    action = row["Action"]
    entry = turn.catalogue(str(row["Item"]))
    assert entry is not None  # validated
    if action in (Action.ASSIGN.value, Action.SWAP.value):
        raise Refused(
            f"{action} is not handled by the engine (it does not track which equipment each model carries); "
            "the GM records assignments and swaps in the Personalities tab's Items column"
        )
    if action in (Action.BUY.value, Action.STOCKPILE.value, Action.REPLACE.value) and count_of(row) < 1:
        raise Refused("Count is 0: nothing to buy (give the number of models or items; an empty Count is 1)")
    if action == Action.STOCKPILE.value:
        return _stockpile(turn, row, entry), True
    if action == Action.PROMOTE.value:
        return _promote(turn, row, entry), False
    if action == Action.UPGRADE.value:
        return _upgrade(turn, row, entry), False
    if action == Action.REPLACE.value:
        return _replace(turn, row, entry), True
    return _buy(turn, row, entry), True


def count_of(row: dict[str, Any]) -> int:
    """The Count of a purchase (empty: 1)."""
    return 1 if row["Count"] is None else int(row["Count"])


def pay(turn: Turn, faction: str, price: Price, cause: str) -> None:
    koku = int(turn.draft.get("Factions", faction, "Koku"))
    if price.cost > koku:
        raise Refused(f"costs {price.cost} koku and {faction} has {koku}")
    turn.draft.set("Factions", faction, "Koku", koku - price.cost, cause)
    if price.ally_share:
        got = int(turn.draft.get("Factions", price.ally, "Koku"))
        turn.draft.set("Factions", price.ally, "Koku", got + price.ally_share, f"{cause}: the ally's share")


def price_of(turn: Turn, faction: str, entry: dict[str, Any], count: int, ally_ok: bool) -> Price:
    """The price of `count` of an item for a faction: its own clan's and unaligned items at cost; another
    player's clan only as an ally with the ally's OK, at the cost modifier, the ally getting its share."""
    base = int(entry["Cost"]) * count
    clan = str(entry["Clan"])
    if clan == faction or is_unaligned(clan):
        return Price(base)
    if clan not in played_clans(turn.draft):
        raise Refused(f"{entry['Item']} belongs to the {clan}, a clan no player plays: recruit it through Bids")
    if clan not in turn.allies(faction):
        raise Refused(f"{entry['Item']} belongs to the {clan}, whom {faction} may buy from only as an ally")
    if not ally_ok:
        raise Refused(f"{entry['Item']} is the {clan}'s: buying it needs the ally's OK (Ally OK TRUE)")
    cost = math.ceil(base * turn.settings.ally_cost_percent / 100)
    return Price(cost, clan, share(base, turn.settings.rate("ally_share")))


def _placed_at(turn: Turn, faction: str, province: str) -> str:
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
    return int(sum(1 if c is None else int(c) for c in rows["Count"]))


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
    total += int(
        (
            (units["Faction"] == faction) & (units["Leader"] == item) & (units["Status"] != UnitStatus.DESTROYED.value)
        ).sum()
    )
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
        raise Refused(f"a force may have {limit} unit(s) of {entry['Item']}, and {faction} has {have}")


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


def _free_name(turn: Turn, name: str) -> None:
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


def _buy(turn: Turn, row: dict[str, Any], entry: dict[str, Any]) -> str:
    faction, item, count = str(row["Faction"]), str(entry["Item"]), count_of(row)
    kind = entry["Kind"]
    cause = f"buy {item} by {faction}"
    if kind in (ItemKind.SPELL.value, ItemKind.EQUIPMENT.value):
        raise Refused(f"{item} is a {kind.lower()}: buy it with the stockpile action")
    if kind == ItemKind.LEADERSHIP_PACKAGE.value:
        raise Refused(f"{item} is a leadership package: use the promote action on the unit that gets it")
    if kind == ItemKind.TATTOO.value:
        raise Refused("tattoos (Togashi Yokuni's campaign rules) are not handled by the engine: the GM records them")
    if kind == ItemKind.PERSONALITY.value and is_unaligned(str(entry["Clan"])) and entry["Unique"]:
        raise Refused(f"{item} is an unaligned unique personality: recruit it through Bids")
    check_unique(turn, entry)
    if kind == ItemKind.COMMAND_GROUP.value:
        return _command_group(turn, row, entry, count, cause)
    if kind == ItemKind.SPECIAL_ITEM.value:
        target = str(row["Target"])
        mine = turn.draft.has("Personalities", target) and turn.draft.get("Personalities", target, "Faction") == faction
        if not (mine or _bought_personality(turn, faction, target)):
            raise Refused(f"a special item must be assigned to a personality of {faction}: name one as Target")
        _in_play(turn, target)
        check_three(turn, faction, entry, 1)
        price = price_of(turn, faction, entry, 1, bool(row["Ally OK"]))
        pay(turn, faction, price, cause)
        return f"bought {item} for {price.cost} koku; {target} receives it in the recovery phase"
    if kind == ItemKind.PERSONALITY.value:
        count = 1
    check_three(turn, faction, entry, count if kind != ItemKind.UNIT.value else 0)
    if kind == ItemKind.UNIT.value:
        check_units(turn, faction, entry)
        check_models(turn, faction, entry, count)
    province = _placed_at(turn, faction, str(row["Province"]))
    name = str(row["Target"]) or (item if entry["Unique"] else "")
    if not name:
        raise Refused("name the new unit or personality in Target")
    _free_name(turn, name)
    price = price_of(turn, faction, entry, count, bool(row["Ally OK"]))
    pay(turn, faction, price, cause)
    what = f"{count} models of {item}" if kind == ItemKind.UNIT.value else item
    ally = f" ({price.ally} receives {price.ally_share} koku)" if price.ally else ""
    return f"bought {what} as {name} for {price.cost} koku{ally}; joins the army at {province} in the recovery phase"


def _in_play(turn: Turn, person: str) -> None:
    """A Target personality must be in play: a dead or released one carries nothing and leads nobody."""
    status = turn.draft.get("Personalities", person, "Status") if turn.draft.has("Personalities", person) else ""
    if status in GONE:
        raise Refused(f"{person} is {status}: name a personality in play as Target")


def _bought_personality(turn: Turn, faction: str, name: str) -> bool:
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


def _stockpile(turn: Turn, row: dict[str, Any], entry: dict[str, Any]) -> str:
    faction, item, count = str(row["Faction"]), str(entry["Item"]), count_of(row)
    kind = entry["Kind"]
    if kind not in (ItemKind.EQUIPMENT.value, ItemKind.SPELL.value):
        raise Refused(f"only mundane equipment and spells may be stockpiled, and {item} is a {kind}")
    if entry["Ranged"]:
        raise Refused(f"{item} is a ranged weapon: ranged weapons may not be stockpiled")
    check_unique(turn, entry)
    if kind == ItemKind.SPELL.value:
        library = str(row["Province"])
        if not library or not turn.draft.get("Provinces", library, "Library"):
            raise Refused("spells are kept at a library: name a province with a library as Province")
        if turn.start_control.get(library) != faction:
            raise Refused(f"new spells go to a library {faction} controlled at the start of the turn, not {library}")
        check_three(turn, faction, entry, count)
        where = f"the library at {library}"
    else:
        where = "the stockpile"
    price = price_of(turn, faction, entry, count, bool(row["Ally OK"]))
    pay(turn, faction, price, f"stockpile {item} by {faction}")
    return f"bought {count} {item} for {price.cost} koku; in {where} from the recovery phase"


def _replace(turn: Turn, row: dict[str, Any], entry: dict[str, Any]) -> str:
    faction, unit, count = str(row["Faction"]), str(row["Target"]), count_of(row)
    if not turn.draft.has("Units", unit) or turn.draft.get("Units", unit, "Faction") != faction:
        raise Refused(f"name a unit of {faction} as Target")
    if turn.draft.get("Units", unit, "Status") == UnitStatus.DESTROYED.value:
        raise Refused(f"{unit} was destroyed: buy a new unit instead")
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
    ally = str(turn.draft.get("Units", unit, "From Ally"))
    base = int(entry["Cost"]) * count
    price = price_of(turn, faction, entry, count, True) if ally else Price(base)
    pay(turn, faction, price, f"replace {entry['Item']} by {faction}")
    return f"bought {count} models for {unit} for {price.cost} koku; they join it in the recovery phase"


def _promote(turn: Turn, row: dict[str, Any], entry: dict[str, Any]) -> str:
    faction, unit = str(row["Faction"]), str(row["Target"])
    if entry["Kind"] != ItemKind.LEADERSHIP_PACKAGE.value:
        raise Refused(f"{entry['Item']} is not a leadership package: only models are promoted")
    if not turn.draft.has("Units", unit) or turn.draft.get("Units", unit, "Faction") != faction:
        raise Refused(f"name a unit of {faction} as Target")
    if turn.draft.get("Units", unit, "Status") == UnitStatus.DESTROYED.value:
        raise Refused(f"{unit} was destroyed: there is no model to promote")
    clan = str(entry["Clan"])
    if clan != faction and not is_unaligned(clan):
        raise Refused(f"{entry['Item']} is the {clan}'s leadership package: clan packages stay in the clan")
    leader = str(turn.draft.get("Units", unit, "Leader"))
    if leader and turn.draft.has("Personalities", leader):
        raise Refused(
            f"{unit} is led by {leader}: the Leader column holds one leader, so the GM adds the package by hand"
        )
    check_three(turn, faction, entry, 1)
    cause = f"promote {entry['Item']} by {faction}"
    pay(turn, faction, Price(int(entry["Cost"])), cause)
    turn.draft.set("Units", unit, "Leader", str(entry["Item"]), cause)
    return f"a model of {unit} promoted to {entry['Item']} for {entry['Cost']} koku"


def _upgrade(turn: Turn, row: dict[str, Any], entry: dict[str, Any]) -> str:
    faction, person = str(row["Faction"]), str(row["Target"])
    if not turn.draft.has("Personalities", person) or turn.draft.get("Personalities", person, "Faction") != faction:
        raise Refused(f"name a personality of {faction} as Target")
    current = str(turn.draft.get("Personalities", person, "Item"))
    if entry["Experienced Of"] != current:
        raise Refused(f"{entry['Item']} is not the experienced version of {current}")
    if turn.draft.get("Personalities", person, "Status") in GONE:
        raise Refused(f"{person} is out of play")
    if entry["Unique"]:
        holder, dead = in_play(turn, str(entry["Item"]))
        if dead or (holder and holder != faction):
            raise Refused(f"{entry['Item']} is unique and is in play already or has died")
    old = turn.catalogue(current)
    cost = max(0, int(entry["Cost"]) - (int(old["Cost"]) if old else 0))
    cause = f"upgrade {person} to {entry['Item']} by {faction}"
    pay(turn, faction, Price(cost), cause)
    draft = turn.draft
    draft.set("Personalities", person, "Item", str(entry["Item"]), cause)
    draft.set("Personalities", person, "Experienced", True, cause)
    for ring in ("Air", "Earth", "Fire", "Water", "Void"):
        draft.set("Personalities", person, ring, int(entry[ring]), cause)
    draft.set("Personalities", person, "Max Wounds", int(entry["Wounds"]), cause)
    draft.set("Personalities", person, "Max Void", int(entry["Void"]), cause)
    draft.set("Personalities", person, "Command Limit", int(entry["Command Limit"]), cause)
    draft.set("Personalities", person, "Leadership", int(entry["Leadership"]), cause)
    return f"{person} is now {entry['Item']}, for the difference of {cost} koku"
