"""Guide Section 7, Claim Daimyo (step 6, social): a coup against the clan's Daimyo.

Of several clanmates claiming in one turn only the one with the highest Authority challenges
(ties: a logged die among them); the others are cancelled. The higher Authority wins, a tie goes
to a coin (1: the claimant). The winner is Daimyo. The loser's flee check: d20 against
clamp(flee_threshold - (winner's - loser's Authority) + flee_modifier, flee_threshold_min,
flee_threshold_max); at or under it the loser flees (keeps Clan, loses the Title, leads the clan's
first leaderless army outside the capital, else is exiled to a random province within
exile_hops of the capital), over it the loser dies. Authority is the value at the start of the
resolution. Only a usurper's victory is announced publicly; the Missions Authority for
claim-daimyo goes to the winner only when the winner is the claimant.
"""

from __future__ import annotations

from sheets_engine.sengoku.characters import alive, kill
from sheets_engine.sengoku.execution import clamp, settle
from sheets_engine.sengoku.schema import ArmyStatus, OrderType
from sheets_engine.sengoku.succession import DAIMYO, daimyo_of, start_authority
from sheets_engine.sengoku.turn import Order, Turn


def flee_threshold(winner: int, loser: int, base: int, modifier: int, low: int, high: int) -> int:
    """clamp(base - (winner - loser) + modifier, low, high): the highest d20 at which the loser flees."""
    return clamp(base - (winner - loser) + modifier, low, high)


def claim_daimyo(turn: Turn) -> None:
    """Step 6, social: the valid claims of each clan, clans in Clans row order."""
    claims: dict[str, list[Order]] = {}
    for order in turn.pending(OrderType.CLAIM_DAIMYO):
        reason = _why_not(turn, order)
        if reason:
            turn.reject(order, reason)
            continue
        claims.setdefault(str(turn.draft.get("Characters", order.character, "Clan")), []).append(order)
    for clan in turn.draft.frame("Clans").index:
        if clan in claims:
            challenger = _one_challenger(turn, str(clan), claims[clan])
            _challenge(turn, str(clan), challenger)


def _why_not(turn: Turn, order: Order) -> str:
    """Why this character cannot claim its clan's Daimyo title now ("" if it can)."""
    who = order.character
    if not alive(turn, who):
        return f"{who} died before the claim was heard"
    clan = turn.draft.get("Characters", who, "Clan")
    if not clan:
        return f"{who} belongs to no clan"
    if turn.draft.get("Characters", who, "Title") == DAIMYO:
        return f"{who} is already the Daimyo of the {clan} clan"
    if daimyo_of(turn.draft, clan) is None:
        return f"the {clan} clan has no living Daimyo to challenge; its successor is chosen at the end of the turn"
    return ""


def _one_challenger(turn: Turn, clan: str, orders: list[Order]) -> Order:
    """The claimant with the highest Authority challenges; the others' orders are cancelled."""
    authority = {o.character: start_authority(turn, o.character) for o in orders}
    best = max(authority.values())
    tied = [o for o in orders if authority[o.character] == best]
    chosen, roll_text, lot = tied[0], "", ""
    if len(tied) > 1:
        names = ", ".join(o.character for o in tied)
        roll = turn.dice.choice_index(len(tied), f"claim-daimyo tie in {clan}: {names}")
        chosen, roll_text = tied[roll.value - 1], str(roll)
        lot = f", chosen by lot among those tied ({roll_text})"
    for order in orders:
        if order is chosen:
            continue
        reason = (
            f"cancelled: only one clanmate may challenge the Daimyo in a turn, the claimant with the highest "
            f"Authority: {chosen.character} (Authority {best}{lot}); your Authority is {authority[order.character]}"
        )
        turn.reject(order, reason, roll_text)
    return chosen


def _challenge(turn: Turn, clan: str, order: Order) -> None:
    """The claimant against the Daimyo: the higher Authority wins; the loser flees or dies."""
    draft, settings = turn.draft, turn.settings
    claimant = order.character
    daimyo = str(daimyo_of(draft, clan))
    mine, theirs = start_authority(turn, claimant), start_authority(turn, daimyo)
    tie = ""
    if mine == theirs:
        coin = turn.dice.coin(f"claim-daimyo by {claimant}: Authority tie with {daimyo} (1: {claimant} wins)")
        usurped, tie = coin.value == 1, str(coin)
    else:
        usurped = mine > theirs
    winner, loser = (claimant, daimyo) if usurped else (daimyo, claimant)
    won, lost = (mine, theirs) if usurped else (theirs, mine)
    threshold = flee_threshold(
        won, lost, settings.flee_threshold, settings.flee_modifier, settings.flee_threshold_min,
        settings.flee_threshold_max,
    )  # fmt: skip
    check = turn.dice.d20(f"flee check of {loser} (claim-daimyo by {claimant})")
    rolls = [r for r in (tie, str(check)) if r]
    contest = f"Authority {won} against {lost}" + (f", tie decided by {tie}" if tie else "")
    odds = f"flee check: d20 rolled {check.value}, threshold {threshold}"
    if check.value <= threshold:
        fate = _flee(turn, loser, clan, order.cause, rolls)
        turn.notify(f"character:{loser}", "private", f"You lost the contest for the {clan} Daimyo title and {fate}.")
    else:
        kill(turn, loser, order.cause, "; ".join(rolls), how=f"killed in the coup of {claimant}" if usurped else "")
        fate = "died"
    turn.summary["claims to be Daimyo"] += 1
    if not usurped:
        turn.notify(
            f"character:{daimyo}", "private",
            f"{claimant} challenged you for the {clan} Daimyo title and failed ({contest}); {claimant} {fate}.",
        )  # fmt: skip
        return settle(turn, order, f"Your claim failed: {daimyo} kept the title ({contest}); you {fate} ({odds})",
                      "; ".join(rolls))  # fmt: skip
    draft.set("Characters", winner, "Title", DAIMYO, order.cause, tie)
    turn.notify("public", "world", f"{claimant} has overthrown {daimyo} as Daimyo of the {clan} clan.")
    turn.notify(f"clan:{clan}", "capital", f"{claimant} is now Daimyo of the {clan} clan; {daimyo} {fate}.")
    turn.resolve(
        order, f"You overthrew {daimyo} and are Daimyo of the {clan} clan ({contest}); {daimyo} {fate} ({odds})"
    )


def _flee(turn: Turn, loser: str, clan: str, cause: str, rolls: list[str]) -> str:
    """The loser keeps Clan, loses the Title, and leads an army outside the capital or goes into exile.

    Returns what became of the loser, in a player's words; an exile's die joins `rolls`.
    """
    draft = turn.draft
    capital = str(draft.get("Clans", clan, "Capital"))
    armies = draft.frame("Armies")
    led = [str(a) for a in armies.index[armies["Leader"] == loser]]
    refuge = armies.index[
        (armies["Clan"] == clan) & (armies["Leader"] == "") & (armies["Province"] != capital)
        & (armies["Status"] != ArmyStatus.DESTROYED.value)
    ]  # fmt: skip
    if len(refuge):
        army = str(refuge[0])  # Armies row order
        where = str(armies.at[army, "Province"])
        fate = f"fled to lead {army} in {where}"
    else:
        army = ""
        places = _exile_places(turn, capital)
        if not places:
            where = str(draft.get("Characters", loser, "Location"))
            fate = f"found no refuge within {turn.settings.exile_hops} provinces of {capital} and remained in {where}"
        else:
            pick = turn.dice.choice_index(
                len(places), f"exile of {loser} within {turn.settings.exile_hops} hops of {capital}"
            )
            rolls.append(str(pick))
            where = places[pick.value - 1]
            fate = f"fled into exile in {where}"
    roll_text = "; ".join(rolls)
    for old in led:
        if old != army:  # one army at a time: the one it led before is left leaderless
            draft.set("Armies", old, "Leader", "", cause, roll_text)
    if army:
        draft.set("Armies", army, "Leader", loser, cause, roll_text)
    draft.set("Characters", loser, "Title", "", cause, roll_text)
    draft.set("Characters", loser, "Location", where, cause, roll_text)
    return fate


def _exile_places(turn: Turn, capital: str) -> list[str]:
    """Provinces within exile_hops of the capital (not the capital), in Provinces row order."""
    provinces = turn.draft.frame("Provinces")
    links = turn.neighbours
    if capital not in links:
        return []
    near, frontier = {capital}, [capital]
    for _hop in range(turn.settings.exile_hops):  # breadth first, one hop at a time
        reached = []
        for place in frontier:
            for other in links[place]:
                if other not in near:
                    near.add(other)
                    reached.append(other)
        frontier = reached
    return [str(p) for p in provinces.index if p in near and p != capital]
