"""Guide Section 7, Claim Shogunate (step 6, social), and the Shogun's character cap.

Only a Daimyo may claim. Against a sitting Shogun (the Daimyo of the Game's `shogun_clan`) the
claimant needs all three: its clan owns at least (100 + shogun_margin_percent)% of the Shogun's
clan's provinces (Province Owner), deploys at least as much more units (Armies, Siege Weapons
left out, destroyed armies none), and its Authority (at the start of the resolution) exceeds the
Shogun's. Of several qualifying claimants the most provinces wins, then Authority, then a logged
die. With no Shogun the best claimant wins outright. The winner's clan becomes `shogun_clan` and
opens relations with every clan.
"""

from __future__ import annotations

from dataclasses import dataclass

from sheets_engine.core.tables import Draft
from sheets_engine.sengoku.diplomacy import open_shogun_relations
from sheets_engine.sengoku.game import GameSettings
from sheets_engine.sengoku.schema import ArmyStatus, CharacterStatus, OrderType
from sheets_engine.sengoku.succession import daimyo_of, not_the_daimyo, start_authority
from sheets_engine.sengoku.turn import Order, Turn


def character_cap(settings: GameSettings, shogun_clan: str, clan: str) -> int:
    """Living characters a clan may have: character_cap_shogun for the Shogun's clan, else character_cap."""
    return settings.character_cap_shogun if clan and clan == shogun_clan else settings.character_cap


def provinces_owned(draft: Draft, clan: str) -> int:
    """Provinces whose Province Owner is the clan (the political map, not who controls them)."""
    return int((draft.frame("Provinces")["Province Owner"] == clan).sum())


def deployed_units(draft: Draft, clan: str) -> int:
    """Units in the clan's armies, Siege Weapons left out; a destroyed army has none."""
    units = draft.frame("Units")
    columns = [str(c) for c in units.loc[~units["Siege"].astype(bool), "Army Column"]]
    armies = draft.frame("Armies")
    mine = armies[(armies["Clan"] == clan) & (armies["Status"] != ArmyStatus.DESTROYED.value)]
    return int(mine[columns].to_numpy().sum())


def at_least_more(value: int, other: int, percent: int) -> bool:
    """value >= other x (100 + percent)% ("25% or more" is at least 1.25 times), in whole numbers."""
    return value * 100 >= other * (100 + percent)


@dataclass(frozen=True)
class Claim:
    """A claimant's standing, with why it falls short of a sitting Shogun (empty when it qualifies)."""

    order: Order
    clan: str
    provinces: int
    units: int
    authority: int
    shortfalls: tuple[str, ...]


def claim_shogunate(turn: Turn) -> None:
    """Step 6, social: every valid claim is weighed; at most one clan takes the Shogunate."""
    sitting = str(turn.draft.game("shogun_clan"))
    claims: list[Claim] = []
    for order in turn.pending(OrderType.CLAIM_SHOGUNATE):
        reason = not_the_daimyo(turn, order)
        clan = str(turn.draft.get("Characters", order.character, "Clan"))
        if not reason and clan == sitting:
            reason = f"the {clan} clan already holds the Shogunate"
        if reason:
            turn.reject(order, reason)
            continue
        claims.append(_standing(turn, order, clan, sitting))
    for claim in claims:
        if claim.shortfalls:
            turn.reject(claim.order, "your claim to the Shogunate falls short: " + "; ".join(claim.shortfalls))
    qualified = [c for c in claims if not c.shortfalls]
    if not qualified:
        return
    winner, roll = _best(turn, qualified)
    for claim in qualified:
        if claim is not winner:
            turn.reject(
                claim.order,
                f"{winner.order.character} of the {winner.clan} clan claimed the Shogunate with a stronger claim "
                f"({winner.provinces} provinces, Authority {winner.authority}; yours: {claim.provinces}, "
                f"{claim.authority})",
            )
    _proclaim(turn, winner, sitting, roll)


def _standing(turn: Turn, order: Order, clan: str, sitting: str) -> Claim:
    """The claimant's provinces, units and Authority, held against the sitting Shogun if any."""
    draft, percent = turn.draft, turn.settings.shogun_margin_percent
    provinces, units = provinces_owned(draft, clan), deployed_units(draft, clan)
    authority = start_authority(turn, order.character)
    shortfalls: list[str] = []
    if sitting:
        theirs_p, theirs_u = provinces_owned(draft, sitting), deployed_units(draft, sitting)
        if not at_least_more(provinces, theirs_p, percent):
            shortfalls.append(
                f"the {clan} clan owns {provinces} provinces, the Shogun's {sitting} clan {theirs_p} "
                f"(at least {percent}% more are needed)"
            )
        if not at_least_more(units, theirs_u, percent):
            shortfalls.append(
                f"the {clan} clan deploys {units} units, the Shogun's {sitting} clan {theirs_u} "
                f"(at least {percent}% more are needed)"
            )
        shogun = daimyo_of(draft, sitting)
        # A Shogun's clan without a living Daimyo has no Authority to exceed.
        if shogun is not None and authority <= start_authority(turn, shogun):
            shortfalls.append(
                f"your Authority {authority} does not exceed the Shogun {shogun}'s {start_authority(turn, shogun)}"
            )
    return Claim(order, clan, provinces, units, authority, tuple(shortfalls))


def _best(turn: Turn, qualified: list[Claim]) -> tuple[Claim, str]:
    """Most provinces, then the highest Authority, then a logged die among those still tied.

    Returns the winning claim and the roll that chose it ("" when no die was needed).
    """
    top = max((c.provinces, c.authority) for c in qualified)
    tied = [c for c in qualified if (c.provinces, c.authority) == top]
    if len(tied) == 1:
        return tied[0], ""
    names = ", ".join(c.order.character for c in tied)
    roll = turn.dice.choice_index(len(tied), f"claim-shogunate tie: {names}")
    return tied[roll.value - 1], str(roll)


def _proclaim(turn: Turn, claim: Claim, sitting: str, roll: str) -> None:
    """The claimant's clan takes the Shogunate, opens relations with every clan; the world is told."""
    draft, order = turn.draft, claim.order
    draft.set("Game", "shogun_clan", "Value", claim.clan, order.cause, roll)
    replaced = f", ending the {sitting} clan's Shogunate" if sitting else ""
    turn.notify(
        "public", "world",
        f"{order.character}, Daimyo of the {claim.clan} clan, is proclaimed Shogun{replaced}.",
    )  # fmt: skip
    turn.resolve(order, f"You are Shogun: the {claim.clan} clan holds the Shogunate{replaced}")
    turn.summary["shogunate claimed"] += 1
    if sitting:
        turn.notify(
            f"clan:{sitting}", "capital", f"The {sitting} clan has lost the Shogunate to the {claim.clan} clan."
        )
        _over_cap(turn, sitting, claim.clan)
    open_shogun_relations(turn, claim.clan, order.cause)


def _over_cap(turn: Turn, clan: str, shogun_clan: str) -> None:
    """A clan that lost the Shogunate may now have more characters than its cap: the GM is told."""
    characters = turn.draft.frame("Characters")
    count = int(((characters["Clan"] == clan) & (characters["Status"] == CharacterStatus.ALIVE.value)).sum())
    cap = character_cap(turn.settings, shogun_clan, clan)
    if count > cap:
        turn.notify(
            "gm", "capital",
            f"The {clan} clan has {count} living characters, over the cap of {cap} now that it lost the Shogunate.",
        )  # fmt: skip
