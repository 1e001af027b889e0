"""Sealed bids (the start phase): every valid bid for a personality is revealed at once; the higher bid
recruits it at that price; when the top bids are equal nobody does."""

from __future__ import annotations

import math
from collections.abc import Hashable
from typing import Any

from sheets_engine.clan_war.game import Turn, is_unaligned, played_clans
from sheets_engine.clan_war.koku import Price, Refused, pay
from sheets_engine.clan_war.purchases import check_unique
from sheets_engine.clan_war.schema import BidStatus, ItemKind


def bids(turn: Turn) -> None:
    """Sealed bids: every valid bid for a personality is revealed at once; the higher bid recruits it at
    that price; when the top bids are equal nobody does (they may bid again in a later turn)."""
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
                valid.append((key, _bid_price(turn, row, entry)))
            except Refused as refusal:
                turn.bids.reject(key, str(refusal), cause)
        if not valid:
            continue
        top = max(price for _, price in valid)
        best = [key for key, price in valid if price == top]
        for key, price in valid:
            row = draft.row("Bids", key)
            cause = f"bid for {item} by {row['Faction']}"
            if len(best) > 1:
                draft.set("Bids", key, "Status", BidStatus.TIED.value, cause)
                draft.set("Bids", key, "Result", f"tied at {row['Bid']} koku: nobody recruits {item} this turn", cause)
            elif key == best[0]:
                pay(turn, str(row["Faction"]), Price(price), cause)
                where = join_at(turn, row)
                turn.bids.resolve(
                    key, f"won {item} for {price} koku; joins the army at {where} in the recovery phase", cause
                )
            else:
                turn.bids.supersede(key, f"outbid: {draft.get('Bids', best[0], 'Faction')} recruits {item}", cause)
        turn.summary["personalities bid for"] += 1


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


def _bid_price(turn: Turn, row: dict[str, Any], entry: dict[str, Any]) -> int:
    """What the bid costs if it wins (the allied recruitment multiplier on the bid for a clan's personality)."""
    faction, item, clan = str(row["Faction"]), str(entry["Item"]), str(entry["Clan"])
    if entry["Kind"] != ItemKind.PERSONALITY.value:
        raise Refused("bids recruit personalities; units of clans no player plays are not recruited by the engine")
    if not is_unaligned(clan) and clan in played_clans(turn.draft):
        raise Refused(f"{item} belongs to the {clan}, a clan a player plays: it is not recruited by bidding")
    if not entry["Unique"]:
        raise Refused(f"{item} is not unique: buy it in Purchases (there is one for everyone)")
    check_unique(turn, entry)
    if int(row["Bid"]) < int(entry["Cost"]):
        raise Refused(f"a bid must be at least {item}'s cost of {entry['Cost']} koku")
    province = str(row["Province"])
    if province and turn.start_control.get(province) != faction:
        raise Refused(f"the personality joins only in a province {faction} controlled at the start of the turn")
    if not province:
        daimyo = str(turn.draft.get("Factions", faction, "Daimyo"))
        if not daimyo or turn.start_control.get(str(turn.draft.get("Personalities", daimyo, "Province"))) != faction:
            raise Refused("name the Province where the personality joins the army")
    price = int(row["Bid"])
    if not is_unaligned(clan):
        price = math.ceil(price * turn.settings.ally_cost_percent / 100)
    koku = int(turn.draft.get("Factions", faction, "Koku"))
    if price > koku:
        raise Refused(f"the bid costs {price} koku and {faction} has {koku}")
    return price
