"""Sealed bids (the start phase): "If more than one player wishes to recruit the same unaligned personality,
they must bid for it ... The player with the higher bid recruits the personality at the higher price. If all
players bid the same, then no player recruits the personality (but may attempt to recruit in later turns by
the same process)." "Clan personalities and units belonging to clans which no player is playing use a
similar process for recruiting. The recruitment multiplier for allied troops is then applied to the bid
price, not the base cost of the unit." "You may optionally use the bidding rules for unique items as well."

What is bid for (the Bids tab's `Personality`): a unique unaligned personality; a personality, unit,
special item, spell or mundane equipment of a clan no player plays; with the Game key `unique_item_bids`,
an unaligned unique special item. The `Bid` is the koku offered for one (a personality, an item, a model of
a unit: `Count` says how many models; `Target` names the new unit, or the personality a special item goes
to). Every valid bid of the turn for the same thing is revealed at once: the highest bid recruits it and
pays its bid for each one, times the cost modifier of its clan and the item's clan (clan_war.koku); when the
top bids are equal, nobody does. A bid below the Catalogue cost is refused; so is one that breaks a limit
a purchase would (uniqueness, three of a kind, Unit Size, Max Units, Max Models). What is won joins in the
recovery phase, as a purchase does (clan_war.new_forces).
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from sheets_engine.clan_war.game import Turn, is_unaligned, played_clans
from sheets_engine.clan_war.koku import Price, Refused, cost_percent, count_of, modified, pay
from sheets_engine.clan_war.purchases import (
    check_models,
    check_size,
    check_three,
    check_unique,
    check_units,
    free_name,
    new_library,
    placed_at,
    special_item_target,
)
from sheets_engine.clan_war.schema import BidStatus, ItemKind

BID_KINDS = (ItemKind.PERSONALITY, ItemKind.UNIT, ItemKind.SPECIAL_ITEM, ItemKind.SPELL, ItemKind.EQUIPMENT)


def bids(turn: Turn) -> None:
    """Every valid bid for the same thing is revealed at once; the highest recruits it; equal: nobody."""
    draft = turn.draft
    frame = draft.frame("Bids")
    mine = frame[(frame["Turn"] == turn.number) & (frame["Status"] == BidStatus.PENDING.value)]
    for item in sorted({str(i) for i in mine["Personality"]}):
        entry = turn.catalogue(item)
        assert entry is not None  # validated
        valid: list[tuple[Hashable, int]] = []
        for key in [k for k in mine.index if mine.at[k, "Personality"] == item]:
            row = draft.row("Bids", key)
            cause = f"bid for {item} by {row['Faction']}"
            try:
                valid.append((key, bid_price(turn, row, entry)))
            except Refused as refusal:
                turn.bids.reject(key, str(refusal), cause)
        if not valid:
            continue
        top = max(int(draft.get("Bids", key, "Bid")) for key, _ in valid)
        best = [key for key, _ in valid if int(draft.get("Bids", key, "Bid")) == top]
        for key, price in valid:
            row = draft.row("Bids", key)
            cause = f"bid for {item} by {row['Faction']}"
            if len(best) > 1:
                draft.set("Bids", key, "Status", BidStatus.TIED.value, cause)
                draft.set("Bids", key, "Result", f"tied at {row['Bid']} koku: nobody recruits {item} this turn", cause)
            elif key == best[0]:
                pay(turn, str(row["Faction"]), Price(price), cause)
                turn.bids.resolve(key, f"won {_what(row, entry)} for {price} koku; {_joins(turn, row, entry)}", cause)
            else:
                turn.bids.supersede(key, f"outbid: {draft.get('Bids', best[0], 'Faction')} recruits {item}", cause)
        turn.summary["recruitments bid for"] += 1


def _what(row: dict[str, Any], entry: dict[str, Any]) -> str:
    if entry["Kind"] == ItemKind.UNIT.value:
        return f"{count_of(row)} models of {entry['Item']} as {row['Target']}"
    if entry["Kind"] in (ItemKind.SPELL.value, ItemKind.EQUIPMENT.value):
        return f"{count_of(row)} {entry['Item']}"
    return str(entry["Item"])


def _joins(turn: Turn, row: dict[str, Any], entry: dict[str, Any]) -> str:
    kind = entry["Kind"]
    if kind == ItemKind.SPECIAL_ITEM.value:
        return f"{row['Target']} receives it in the recovery phase"
    if kind == ItemKind.SPELL.value:
        return f"in the library at {row['Province']} from the recovery phase"
    if kind == ItemKind.EQUIPMENT.value:
        return "in the stockpile from the recovery phase"
    return f"joins the army at {join_at(turn, row)} in the recovery phase"


def join_at(turn: Turn, row: dict[str, Any]) -> str:
    """Where a personality won by a bid joins the army: the bid's Province; empty: with the Daimyo, while the
    Daimyo stands in a province the faction controlled at the start of the turn (new forces join only there),
    else at the first of those provinces in the Provinces tab's order."""
    faction = str(row["Faction"])
    if row["Province"]:
        return str(row["Province"])
    daimyo = str(turn.draft.get("Factions", faction, "Daimyo"))
    where = str(turn.draft.get("Personalities", daimyo, "Province")) if turn.draft.has("Personalities", daimyo) else ""
    if turn.start_control.get(where) == faction:
        return where
    return next((p for p, holder in turn.start_control.items() if holder == faction), "")


def biddable(turn: Turn, entry: dict[str, Any]) -> str:
    """Why the item is not recruited by bidding ("" when it is)."""
    item, clan, kind = str(entry["Item"]), str(entry["Clan"]), entry["Kind"]
    if kind not in {k.value for k in BID_KINDS}:
        return f"{item} is a {kind}: it is not recruited by bidding"
    if not is_unaligned(clan):
        if clan in played_clans(turn.draft):
            return f"{item} belongs to the {clan}, a clan a player plays: it is not recruited by bidding"
        return ""  # a clan no player plays: everything of it is bid for
    if kind == ItemKind.PERSONALITY.value and entry["Unique"]:
        return ""
    if kind == ItemKind.SPECIAL_ITEM.value and entry["Unique"] and turn.settings.unique_item_bids:
        return ""
    return f"{item} is unaligned and {'not ' if not entry['Unique'] else ''}unique: buy it in Purchases"


def bid_price(turn: Turn, row: dict[str, Any], entry: dict[str, Any]) -> int:
    """What the bid costs if it wins (the bid for each one, times the cost modifier for the item's clan)."""
    faction, item, clan, kind = str(row["Faction"]), str(entry["Item"]), str(entry["Clan"]), entry["Kind"]
    why = biddable(turn, entry)
    if why:
        raise Refused(why)
    check_unique(turn, entry)
    count = count_of(row)
    if count < 1:
        raise Refused("Count is 0: nothing to recruit (an empty Count is 1)")
    if kind in (ItemKind.PERSONALITY.value, ItemKind.SPECIAL_ITEM.value) and count != 1:
        raise Refused(f"a bid recruits one {kind.lower()}: leave Count empty")
    if int(row["Bid"]) < int(entry["Cost"]):
        each = " a model" if kind == ItemKind.UNIT.value else ""
        raise Refused(f"a bid must be at least {item}'s cost of {entry['Cost']} koku{each}")
    _check_limits(turn, row, entry, count)
    total = int(row["Bid"]) * count
    price = total if is_unaligned(clan) else modified(total, cost_percent(turn, faction, clan))
    koku = int(turn.draft.get("Factions", faction, "Koku"))
    if price > koku:
        raise Refused(f"the bid costs {price} koku and {faction} has {koku}")
    return price


def _check_limits(turn: Turn, row: dict[str, Any], entry: dict[str, Any], count: int) -> None:
    """What a purchase of the same would be refused for, and where it goes."""
    faction, kind, target = str(row["Faction"]), entry["Kind"], str(row["Target"])
    if kind == ItemKind.UNIT.value:
        check_size(entry, count)
        check_units(turn, faction, entry)
        check_models(turn, faction, entry, count)
        if not target:
            raise Refused("name the new unit in Target")
        free_name(turn, target)
        placed_at(turn, faction, str(row["Province"]))
        return
    check_three(turn, faction, entry, count if kind != ItemKind.EQUIPMENT.value else 0)
    if kind == ItemKind.SPECIAL_ITEM.value:
        special_item_target(turn, faction, target)
    elif kind == ItemKind.SPELL.value:
        new_library(turn, faction, str(row["Province"]))
    elif kind == ItemKind.PERSONALITY.value:
        province = str(row["Province"])
        if province and turn.start_control.get(province) != faction:
            raise Refused(f"the personality joins only in a province {faction} controlled at the start of the turn")
        if not province:
            daimyo = str(turn.draft.get("Factions", faction, "Daimyo"))
            where = str(turn.draft.get("Personalities", daimyo, "Province")) if daimyo else ""
            if turn.start_control.get(where) != faction:
                raise Refused("name the Province where the personality joins the army")
