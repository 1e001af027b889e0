"""Guide Section 8, Diplomacy: designate-ally (step 5) and establish-relations (step 6, social).

A declaration is one Alliances row (Clan, Ally, Secret, Since Turn): one-sided until the other
clan has declared too (sheets_engine.sengoku.alliances reads them). It takes effect at step 5, so
this turn's movement and battles already see it. A secret declaration is not announced in
declarations but counts all the same. Relations are the Relations tab's pairs (the guide's
private Discord channels); the Shogun's clan has relations with every clan.
"""

from __future__ import annotations

from collections.abc import Hashable

from sheets_engine.sengoku.orders import find, unknown
from sheets_engine.sengoku.schema import OrderType
from sheets_engine.sengoku.succession import not_the_daimyo
from sheets_engine.sengoku.turn import Order, Turn


def _other_clan(turn: Turn, order: Order) -> tuple[str, str, str]:
    """(own clan, target clan, "") or ("", "", the reason the order cannot be given)."""
    reason = not_the_daimyo(turn, order)
    if reason:
        return "", "", reason
    clans = turn.draft.frame("Clans")
    own = str(turn.draft.get("Characters", order.character, "Clan"))
    other = find(clans.index, order.target)
    if other is None:
        return "", "", unknown("clan", order.target, clans.index)
    if other == own:
        return "", "", f"{order.type.value} names another clan, not your own ({own})"
    return own, other, ""


def designate_allies(turn: Turn) -> None:
    """Step 5: each designate-ally order, in submission order, declares a clan an ally."""
    for order in turn.pending(OrderType.DESIGNATE_ALLY):
        designate_ally(turn, order)


def _declaration(turn: Turn, clan: str, ally: str) -> Hashable | None:
    """The Alliances row where `clan` declares `ally`, if there is one."""
    frame = turn.draft.frame("Alliances")
    found = frame.index[(frame["Clan"] == clan) & (frame["Ally"] == ally)]
    return found[0] if len(found) else None


def designate_ally(turn: Turn, order: Order) -> None:
    """A one-sided declaration (no duplicate row); public ones are announced in declarations."""
    own, ally, reason = _other_clan(turn, order)
    if reason:
        return turn.reject(order, reason)
    draft = turn.draft
    announcement = f"The {own} clan declares the {ally} clan its ally."
    existing = _declaration(turn, own, ally)
    if existing is not None:
        # Declaring again publicly makes a secret declaration public; nothing else changes.
        if bool(draft.get("Alliances", existing, "Secret")) and not order.secret:
            draft.set("Alliances", existing, "Secret", False, order.cause)
            turn.notify("public", "declarations", announcement)
            return turn.resolve(order, f"The {own} clan's declaration of {ally} as its ally is now public")
        return turn.resolve(order, f"The {own} clan has already declared {ally} its ally; nothing changes")
    draft.add_row(
        "Alliances",
        {"Clan": own, "Ally": ally, "Secret": order.secret, "Since Turn": turn.number},
        order.cause,
    )
    if order.secret:
        turn.notify("gm", "declarations", f"Secret declaration: {announcement}")
    else:
        turn.notify("public", "declarations", announcement)
    kind = "secretly declares" if order.secret else "declares"
    turn.resolve(order, f"The {own} clan {kind} {ally} its ally (one-sided until {ally} declares {own} too)")


def _relation_pairs(turn: Turn) -> set[tuple[str, str]]:
    """Every (Clan A, Clan B) pair of the Relations tab as it stands now."""
    frame = turn.draft.frame("Relations")
    return set(zip(frame["Clan A"].tolist(), frame["Clan B"].tolist(), strict=True))


def has_relations(turn: Turn, a: str, b: str) -> bool:
    """True when the pair has a Relations row, in either order."""
    pairs = _relation_pairs(turn)
    return (a, b) in pairs or (b, a) in pairs


def open_relations(turn: Turn, a: str, b: str, cause: str) -> bool:
    """A Relations row for the pair unless one exists (either order); both clans are told, in the
    new channel (diplomacy) and in their orders channels.

    Returns False when the pair already had relations (no new channel).
    """
    if has_relations(turn, a, b):
        return False
    _add_relations(turn, a, b, cause)
    return True


def _add_relations(turn: Turn, a: str, b: str, cause: str) -> None:
    turn.draft.add_row("Relations", {"Clan A": a, "Clan B": b, "Since Turn": turn.number}, cause)
    message = f'Relations established between the {a} and {b} clans: the private channel "{a} - {b}" is open.'
    turn.notify(f"clan:{a}", "diplomacy", message)  # the new channel, under the diplomacy category
    turn.notify(f"clan:{b}", "diplomacy", message)
    # guide: "Both clans' orders channels receive a notification that relations have been established"
    turn.notify(f"clan:{a}", "orders", message)
    turn.notify(f"clan:{b}", "orders", message)


def open_shogun_relations(turn: Turn, shogun_clan: str, cause: str) -> None:
    """The Shogun's clan has relations with every other clan: add the missing pairs, in Clans row order."""
    pairs = _relation_pairs(turn)  # read once and kept up to date here (a frame per clan was 0.35 s at 400 clans)
    for clan in turn.draft.frame("Clans").index:
        other = str(clan)
        if clan != shogun_clan and (shogun_clan, other) not in pairs and (other, shogun_clan) not in pairs:
            _add_relations(turn, shogun_clan, other, cause)
            pairs.add((shogun_clan, other))


def establish_relations(turn: Turn) -> None:
    """Step 6, social: establish-relations; an existing pair still completes the mission (and its Authority)."""
    for order in turn.pending(OrderType.ESTABLISH_RELATIONS):
        own, other, reason = _other_clan(turn, order)
        if reason:
            turn.reject(order, reason)
        elif open_relations(turn, own, other, order.cause):
            turn.resolve(order, f'Relations established with {other}: the channel "{own} - {other}" is open')
        else:
            turn.resolve(order, f"The {own} and {other} clans already have relations; no new channel is opened")
