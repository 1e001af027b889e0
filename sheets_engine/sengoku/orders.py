"""Step 1, intake: form responses become Orders; who may order for whom; the latest order wins.

Rules (docs/orders.md, "How orders work"): a living character orders
for itself; its clan's Daimyo may order for it too, and the Daimyo's order replaces the
clanmate's own. Any other email is "not your character". Free actions (Missions tab) do not use
the character's one order.
"""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Hashable, Iterable
from datetime import datetime, tzinfo

from sheets_engine.core.cells import timestamp_text
from sheets_engine.core.deadlines import local_time
from sheets_engine.core.tables import Draft
from sheets_engine.sengoku.order import Refusal, Refused
from sheets_engine.sengoku.schema import CharacterStatus, OrderStatus, OrderType
from sheets_engine.sengoku.turn import Order, Turn


def find(names: Iterable[Hashable], text: str) -> str | None:
    """The name a player meant: exact, else the only one equal ignoring case and spaces."""
    wanted = " ".join(text.split()).casefold()
    if not wanted:
        return None
    if text in names:  # the common case, a hash lookup in an Index
        return text
    for name in names:
        if " ".join(str(name).split()).casefold() == wanted:
            return str(name)
    return None


def unknown(kind: str, text: str, names: Iterable[Hashable]) -> str:
    """'there is no province "Owarri" (did you mean Owari?)'."""
    close = difflib.get_close_matches(text, [str(n) for n in names], n=1, cutoff=0.75)
    hint = f" (did you mean {close[0]}?)" if close else ""
    return f'there is no {kind} "{text}"{hint}' if text else f"no {kind} was given"


def _identity(*values: object) -> tuple[str, ...]:
    return tuple(" ".join(str(v if v is not None else "").split()).casefold() for v in values)


def copy_responses(turn: Turn) -> int:
    """Each form response not yet in Orders, sent by the turn's cutoff, becomes an Orders row for this turn.

    A response sent after the cutoff (its timestamp is in the spreadsheet's time zone) waits in the
    form for the turn it belongs to; `turn.summary` counts them."""
    draft = turn.draft
    zone = turn.settings.schedule().zone
    responses = draft.frame("Form Responses 1")
    orders = draft.frame("Orders")
    copied = Counter(
        _identity(r["Submitted"], r["Email"], r["Character"], r["Order"], r["Target"], r["Detail"])
        for r in orders.to_dict("records")
    )
    added = 0
    for response in responses.to_dict("records"):
        submitted = timestamp_text(response["Timestamp"])
        ident = _identity(
            submitted, response["Email Address"], response["Character"], response["Order"],
            response["Target"], response["Detail"],
        )  # fmt: skip
        if copied[ident] > 0:
            copied[ident] -= 1
            continue
        if turn.cutoff is not None and not _sent_by(submitted, zone, turn.cutoff):
            turn.summary["form responses waiting for a later turn"] += 1
            continue
        secret = str(response["Secret"]).strip().casefold() in ("true", "yes", "y", "1", "secret")
        draft.add_row(
            "Orders",
            {
                "Turn": turn.number,
                "Submitted": submitted,
                "Email": response["Email Address"],
                "Character": response["Character"],
                "Order": response["Order"],
                "Target": response["Target"],
                "Detail": response["Detail"],
                "Secret": secret,
                "Status": OrderStatus.PENDING.value,
                "Result": "",
            },
            "form response",
        )
        added += 1
    return added


def _sent_by(submitted: str, zone: tzinfo, cutoff: datetime) -> bool:
    """Was a response sent at or before the cutoff? One whose time cannot be read joins now (as before)."""
    moment = local_time(submitted, zone)
    return moment is None or moment <= cutoff


def intake(turn: Turn) -> None:
    """Copy new responses, reject what nobody may order, mark superseded orders."""
    turn.summary["form responses copied"] = copy_responses(turn)
    draft = turn.draft
    characters = draft.frame("Characters")
    missions = draft.frame("Missions")
    frame = draft.frame("Orders")
    mine = frame[(frame["Turn"] == turn.number) & (frame["Status"] == OrderStatus.PENDING.value)]
    valid: list[tuple[Order, bool]] = []
    for key, row in mine.sort_values("Submitted", kind="stable").iterrows():
        name = find(characters.index, row["Character"]) or ""
        order_type = _order_type(row["Order"])
        refused, by_daimyo = _authority(draft, name, row["Character"], row["Email"])
        if refused is not None or order_type is None:
            known = ", ".join(o.value for o in OrderType)
            refused = refused or Refused(Refusal.UNKNOWN_ORDER, f'unknown order "{row["Order"]}" (orders: {known})')
            _reject_row(turn, key, refused, f"intake of {row['Order'] or 'an order'}")
            turn.summary["orders rejected"] += 1
            continue
        order = Order(key, name, row["Email"], order_type, row["Target"], row["Detail"], bool(row["Secret"]),
                      row["Submitted"])  # fmt: skip
        valid.append((order, by_daimyo))
    latest: dict[str, tuple[tuple[bool, str, int], Order]] = {}
    for position, (order, by_daimyo) in enumerate(valid):
        free = order.type.value in missions.index and bool(missions.at[order.type.value, "Free Action"])
        if free:
            turn.orders.append(order)
            continue
        rank = (by_daimyo, order.submitted, position)
        held = latest.get(order.character)
        if held is None or rank > held[0]:
            if held is not None:
                _supersede(turn, held[1], order, by_daimyo and not held[0][0])
            latest[order.character] = (rank, order)
        else:
            _supersede(turn, order, held[1], held[0][0] and not by_daimyo)
    turn.orders.extend(o for _, o in latest.values())
    turn.orders.sort(key=lambda o: (o.submitted, o.key))  # keys are sheet row numbers: 9 before 10


_COMMAND_GROUPS = ("econ-", "army-", "social-", "clan-", "letter-")


def _order_type(text: str) -> OrderType | None:
    """The order a player named: "tax-province", "Tax Province" or "/econ tax-province"."""
    cleaned = "-".join(text.strip().lstrip("/").casefold().replace("_", " ").split())
    for group in _COMMAND_GROUPS:
        cleaned = cleaned.removeprefix(group)
    if cleaned == "write":  # "/letter write" in the guide
        return OrderType.WRITE_LETTER
    return next((o for o in OrderType if o.value == cleaned), None)


def _authority(draft: Draft, name: str, typed: str, email: str) -> tuple[Refused | None, bool]:
    """Why this email may not order for this character (None if it may), and if it is the Daimyo."""
    characters = draft.frame("Characters")
    if not name:
        return Refused(Refusal.UNKNOWN_CHARACTER, unknown("character", typed, characters.index)), False
    who = characters.loc[name]
    if who["Status"] == CharacterStatus.DEAD.value:
        return Refused(Refusal.DEAD_CHARACTER, f"{name} is dead and can give no orders"), False
    sender = email.strip().casefold()
    if sender and sender == who["Email"].strip().casefold():
        return None, False
    daimyo = characters[
        (characters["Clan"] == who["Clan"]) & (characters["Title"] == "Daimyo")
        & (characters["Status"] == CharacterStatus.ALIVE.value) & (who["Clan"] != "")
    ]  # fmt: skip
    if sender and any(sender == e.strip().casefold() for e in daimyo["Email"]):
        return None, True
    message = f"not your character: {email or 'an unknown email'} may not give orders for {name}"
    return Refused(Refusal.NOT_YOUR_CHARACTER, message), False


def _reject_row(turn: Turn, key: Hashable, refused: Refused, cause: str) -> None:
    turn.book.reject(key, refused.reason, cause, code=refused.code.value)


def _supersede(turn: Turn, old: Order, new: Order, daimyo: bool) -> None:
    """`daimyo`: the new order won because the clan's Daimyo gave it, not because it came later."""
    cause = f"{old.type.value} by {old.character}"
    by = "the Daimyo's order" if daimyo else "the later order"
    turn.book.supersede(old.key, f"replaced by {by} {new.type.value} submitted {new.submitted}", cause)


def left_pending(turn: Turn) -> None:
    """Every order ends Resolved, Rejected or Superseded: one no phase settled is rejected, and the GM told.

    Each order type has its phase, so this only catches a rule that forgot to settle an order.
    """
    for order in turn.pending(*OrderType):
        turn.reject(order, f"{order.type.value} could not be carried out this turn; your GM has been told")
        turn.notify("gm", "orders", f"No rule settled {order.cause} (Orders row {order.key}).")
