"""Spending koku (the start phase's "Spend Koku"), and what an out-of-clan purchase costs (the document's
"Allied units and personalities": "You pay the regular cost modifier for your clan and theirs (example:
Crane recruiting Phoenix pay 120%)", "Your ally gains 20% of the base cost of the unit in Koku").

The cost modifier is per pair of clans: the buying faction's `Ally Costs` (Factions tab) lists its clan's
modifiers for other clans ("Phoenix 120%, Unicorn 110%"); a clan it does not list costs the Game key
`ally_cost_percent`. The same modifier is "the recruitment multiplier for allied troops" a bid for forces
of a clan no player plays pays on its bid (clan_war.bids).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from sheets_engine.clan_war.game import Turn, is_unaligned, played_clans, share
from sheets_engine.clan_war.schema import UnitStatus
from sheets_engine.core.cells import split_names


class Refused(Exception):
    """An order the rules do not allow; the message is the player's Result (every start-phase order's)."""


@dataclass(frozen=True)
class Price:
    """What a purchase costs the buyer, and the share its clan's player (an ally) receives."""

    cost: int
    ally: str = ""
    ally_share: int = 0


def own_unit(turn: Turn, faction: str, unit: str, destroyed: str, column: str = "Target") -> None:
    """Refused unless `unit` is one of the faction's units still in the field (`destroyed`: why not, if it is not)."""
    if not unit or not turn.draft.has("Units", unit) or turn.draft.get("Units", unit, "Faction") != faction:
        raise Refused(f"name a unit of {faction} as {column}")
    if turn.draft.get("Units", unit, "Status") == UnitStatus.DESTROYED.value:
        raise Refused(f"{unit} {destroyed}")


def count_of(row: dict[str, Any]) -> int:
    """The Count of an order (empty: 1; a row added this run holds an empty count as "")."""
    return 1 if row["Count"] is None or row["Count"] == "" else int(row["Count"])


def pay(turn: Turn, faction: str, price: Price, cause: str) -> None:
    """The buyer pays (Refused if it cannot); its ally receives its share."""
    koku = int(turn.draft.get("Factions", faction, "Koku"))
    if price.cost > koku:
        raise Refused(f"costs {price.cost} koku and {faction} has {koku}")
    turn.draft.set("Factions", faction, "Koku", koku - price.cost, cause)
    if price.ally_share:
        got = int(turn.draft.get("Factions", price.ally, "Koku"))
        turn.draft.set("Factions", price.ally, "Koku", got + price.ally_share, f"{cause}: the ally's share")


_MODIFIER = re.compile(r"^(?P<clan>.+?)\s+(?P<percent>\d+)\s*%?$")


def parse_costs(text: str) -> tuple[dict[str, int], list[str]]:
    """An `Ally Costs` cell as {clan (casefolded): percent}, and the parts that are not "Clan NN%"."""
    found: dict[str, int] = {}
    bad: list[str] = []
    for part in split_names(text):
        match = _MODIFIER.match(part)
        if match is None:
            bad.append(part)
        else:
            found[match["clan"].strip().casefold()] = int(match["percent"])
    return found, bad


def cost_percent(turn: Turn, faction: str, clan: str) -> int:
    """The regular cost modifier for the faction's clan recruiting the clan's forces, in percent."""
    listed, _ = parse_costs(str(turn.draft.get("Factions", faction, "Ally Costs")))
    return listed.get(clan.casefold(), turn.settings.ally_cost_percent)


def modified(amount: int, percent: int) -> int:
    """An amount at a cost modifier (rounded up)."""
    return math.ceil(amount * percent / 100)


def price_of(turn: Turn, faction: str, entry: dict[str, Any], count: int, ally_ok: bool) -> Price:
    """The price of `count` of an item for a faction: its own clan's and unaligned items at cost; another
    player's clan only as an ally with the ally's OK, at the pair's cost modifier, the ally getting its share."""
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
    cost = modified(base, cost_percent(turn, faction, clan))
    return Price(cost, clan, share(base, turn.settings.rate("ally_share")))
