"""Step 1, intake: form responses become Orders; who may order for whom; the latest order wins.

Rules (docs/orders.md, "How orders work"): a living character orders
for itself; its clan's Daimyo may order for it too, and the Daimyo's order replaces the
clanmate's own. Any other email is "not your character". Free actions (Missions tab) do not use
the character's one order.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable, Mapping
from datetime import datetime, tzinfo
from typing import Any

import pandas as pd

from sheets_engine.core.cells import timestamp_text
from sheets_engine.core.deadlines import local_time
from sheets_engine.core.names import closest, match
from sheets_engine.core.problems import Problem, Severity
from sheets_engine.core.tables import Draft, GameState, plain_records
from sheets_engine.sengoku.order import Refusal, Refused
from sheets_engine.sengoku.schema import SECRET_CHOICES, SECRET_WORDS, CharacterStatus, OrderStatus, OrderType
from sheets_engine.sengoku.turn import Order, Turn


def find(names: Iterable[Hashable], text: str) -> str | None:
    """The name a player meant: exact, else the first one equal ignoring case and spaces (core.names)."""
    if not text.strip():
        return None
    if text in names:  # the common case, a hash lookup in an Index
        return text
    return match(text, names)


def unknown(kind: str, text: str, names: Iterable[Hashable]) -> str:
    """'there is no province "Owarri" (did you mean Owari?)'."""
    close = closest(text, names, cutoff=0.75)
    hint = f" (did you mean {close}?)" if close else ""
    return f'there is no {kind} "{text}"{hint}' if text else f"no {kind} was given"


def _identity(*values: object) -> tuple[str, ...]:
    return tuple(" ".join(str(v if v is not None else "").split()).casefold() for v in values)


MAX_TEXT = 30_000
"""The longest answer a player may give (Excel holds 32,767 characters in a cell, Google 50,000;
the rest is room for the engine's own words around it, in a Result or a Notification)."""
_PLAYER_FIELDS = (("Email Address", "Email"), ("Character", "Character"), ("Order", "Order"),
                  ("Target", "Target"), ("Detail", "Detail"))  # fmt: skip


def secret_answer(value: str) -> bool | None:
    """The form's Secret answer as TRUE/FALSE; None for an answer that is not one of the choices."""
    return SECRET_WORDS.get(" ".join(str(value).split()).casefold())


def response_refusal(response: dict[str, object]) -> tuple[str, str]:
    """The column of a form response that cannot be taken as an order whatever the rules say, and
    why (("", "") if it can)."""
    for column, _ in _PLAYER_FIELDS:
        length = len(str(response[column]))
        if length > MAX_TEXT:
            return column, f"the {column} answer is {length:,} characters long; an answer may hold at most {MAX_TEXT:,}"
    if secret_answer(str(response["Secret"])) is None:
        return "Secret", (
            f'the Secret answer "{response["Secret"]}" is not one of the form\'s choices: '
            + " or ".join(f'"{choice.capitalize()}"' for choice in SECRET_CHOICES)
            + " (an empty answer is public)"
        )
    return "", ""


def _too_long(order: Mapping[str, Any]) -> str:
    """Why an Orders row (a GM may type one) holds an answer too long to carry out ("" if none is)."""
    for column in ("Target", "Detail"):
        length = len(str(order[column]))
        if length > MAX_TEXT:
            return f"the {column} is {length:,} characters long; an answer may hold at most {MAX_TEXT:,}"
    return ""


def _clip(text: str) -> str:
    """A player's answer as the Orders row keeps it: cut to MAX_TEXT, saying so."""
    if len(text) <= MAX_TEXT:
        return text
    marker = f" [... cut: {len(text):,} characters]"
    return text[: MAX_TEXT - len(marker)] + marker


def new_responses(responses: pd.DataFrame, orders: pd.DataFrame) -> list[tuple[int, dict[str, Any], tuple[str, str]]]:
    """Form responses not yet copied into Orders: each one's sheet row, its Orders row values, and
    the column and reason it is refused for (("", "") if it is not)."""
    copied = Counter(
        _identity(r["Submitted"], r["Email"], r["Character"], r["Order"], r["Target"], r["Detail"])
        for r in plain_records(orders, ("Submitted", "Email", "Character", "Order", "Target", "Detail"))
    )
    found = []
    for number, response in zip(responses.index, plain_records(responses), strict=True):
        values: dict[str, Any] = {column: _clip(str(response[source])) for source, column in _PLAYER_FIELDS}
        values["Submitted"] = timestamp_text(response["Timestamp"])
        ident = _identity(values["Submitted"], values["Email"], values["Character"], values["Order"],
                          values["Target"], values["Detail"])  # fmt: skip
        if copied[ident] > 0:
            copied[ident] -= 1
            continue
        refusal = response_refusal(response)
        values["Secret"] = bool(secret_answer(str(response["Secret"])))
        found.append((number, values, refusal))
    return found


def copy_responses(turn: Turn) -> int:
    """Each form response not yet in Orders, sent by the turn's cutoff, becomes an Orders row for this turn.

    A response that cannot be an order (an answer too long, a Secret answer that is not one of the
    form's choices) is copied all the same, and rejected at intake with the reason. A response sent
    after the cutoff (its timestamp is in the spreadsheet's time zone) waits in the form for the
    turn it belongs to; `turn.summary` counts them.
    """
    draft = turn.draft
    zone = turn.settings.schedule().zone
    added = 0
    for _, values, (_, refusal) in new_responses(draft.frame("Form Responses 1"), draft.frame("Orders")):
        if turn.cutoff is not None and not _sent_by(values["Submitted"], zone, turn.cutoff):
            turn.summary["form responses waiting for a later turn"] += 1
            continue
        key = draft.add_row(
            "Orders",
            {"Turn": turn.number, **values, "Status": OrderStatus.PENDING.value, "Result": ""},
            "form response",
        )
        if refusal:
            turn.refused[key] = refusal
        added += 1
    return added


def _sent_by(submitted: str, zone: tzinfo, cutoff: datetime) -> bool:
    """Was a response sent at or before the cutoff? One whose time cannot be read joins now (as before)."""
    moment = local_time(submitted, zone)
    return moment is None or moment <= cutoff


def intake(turn: Turn) -> None:
    """Copy new responses, reject what nobody may order, mark superseded orders.

    Rows a GM typed in are taken as the copied ones are: in the order of their Submitted times (read
    as times; an empty one is the latest), and a row for a later turn waits, its Result saying so.
    A Pending row with no Turn or a turn resolved already never gets here: `validate` stops the run.
    """
    turn.summary["form responses copied"] = copy_responses(turn)
    draft = turn.draft
    characters = draft.frame("Characters")
    missions = draft.frame("Missions")
    frame = draft.frame("Orders")
    pending = frame["Status"] == OrderStatus.PENDING.value
    _waiting(turn, frame[pending & (frame["Turn"] > turn.number)])
    mine = frame[pending & (frame["Turn"] == turn.number)]
    valid: list[tuple[Order, bool]] = []
    # each row as a dict of plain values built column by column (iterrows boxes a Series per row)
    names = list(mine.columns)
    rows = [dict(zip(names, values, strict=True)) for values in zip(*(mine[n].tolist() for n in names), strict=True)]
    taken = sorted(zip(mine.index.tolist(), rows, strict=True), key=lambda kr: _when(kr[1]["Submitted"]))  # stable
    turn.taken = len(taken)
    for key, row in taken:
        name = find(characters.index, row["Character"]) or ""
        order_type = parse_order_type(row["Order"])
        answer = turn.refused.get(key, "") or _too_long(row)
        refused: Refused | None = Refused(Refusal.BAD_ANSWER, answer) if answer else None
        by_daimyo = False
        if refused is None:
            refused, by_daimyo = _authority(draft, name, row["Character"], row["Email"])
        if refused is not None or order_type is None:
            refused = refused or Refused(Refusal.UNKNOWN_ORDER, unknown_order(row["Order"]))
            _reject_row(turn, key, refused, f"intake of {row['Order'] or 'an order'}")
            turn.summary["orders rejected"] += 1
            continue
        order = Order(key, name, row["Email"], order_type, row["Target"], row["Detail"], bool(row["Secret"]),
                      row["Submitted"])  # fmt: skip
        valid.append((order, by_daimyo))
    latest: dict[str, tuple[tuple[bool, tuple[bool, str], int], Order]] = {}
    for position, (order, by_daimyo) in enumerate(valid):
        free = order.type.value in missions.index and bool(missions.at[order.type.value, "Free Action"])
        if free:
            turn.orders.append(order)
            continue
        rank = (by_daimyo, _when(order.submitted), position)
        held = latest.get(order.character)
        if held is None or rank > held[0]:
            if held is not None:
                _supersede(turn, held[1], order, by_daimyo and not held[0][0])
            latest[order.character] = (rank, order)
        else:
            _supersede(turn, order, held[1], held[0][0] and not by_daimyo)
    turn.orders.extend(o for _, o in latest.values())
    turn.orders.sort(key=lambda o: (_when(o.submitted), o.key))  # keys are sheet row numbers: 9 before 10


def _when(submitted: str) -> tuple[bool, str]:
    """An order's place in time: its Submitted (read as a time, so text sorts as time); an order a GM
    typed in with no Submitted counts as the latest of its turn (docs/spreadsheet.md, Orders)."""
    return (not submitted, submitted)


def _waiting(turn: Turn, later: pd.DataFrame) -> None:
    """An Orders row for a later turn is left Pending (a typed row's empty Status says so now), its Result
    saying when it is read: no row is left unanswered."""
    for key, number in zip(later.index.tolist(), later["Turn"].tolist(), strict=True):
        turn.draft.fill("Orders", key, "Status", "an order for a later turn")
        turn.draft.set("Orders", key, "Result", f"for turn {number}: it is read when turn {number} is resolved",
                       "an order for a later turn")  # fmt: skip


def unknown_order(text: str) -> str:
    """'unknown order "tax-provnce" (did you mean tax-province?; orders: ...)'."""
    known = [o.value for o in OrderType]
    close = closest("-".join(text.split()), known, cutoff=0.75)
    hint = f"did you mean {close}?; " if close else ""
    return f'unknown order "{text}" ({hint}orders: {", ".join(known)})'


def response_problems(state: GameState) -> list[Problem]:
    """A warning for every pending form response the next resolution would reject at intake.

    So that a GM or a player can correct it before the deadline: an unknown order (with the closest
    one), an unknown character, not your character, a Secret answer or an answer length the form
    does not allow. The rules of each order (a province of your clan, enough Mon) are judged later.
    """
    draft = Draft(state)
    characters = state.frame("Characters")
    problems = []
    unreadable = set(state.rows["Characters"]) - set(characters.index)  # reported already: not judged
    responses = state.frame("Form Responses 1")
    for number, values, (column, reason) in new_responses(responses, state.frame("Orders")):
        name = find(characters.index, values["Character"]) or ""
        if not name and find(unreadable, values["Character"]):
            continue
        value = responses.at[number, column] if column else ""
        if column == "Secret" or len(str(value)) > MAX_TEXT:
            value = str(value)[:60]  # enough to find it by
        if not reason:
            refused, _ = _authority(draft, name, values["Character"], values["Email"])
            reason = refused.reason if refused is not None else ""
            column, value = "Character", values["Character"]
        if not reason and parse_order_type(values["Order"]) is None:
            column, value, reason = "Order", values["Order"], unknown_order(values["Order"])
        if reason:
            problems.append(
                Problem("Form Responses 1", number, column, value,
                        f"an order the next resolution can take; it would be rejected: {reason}", Severity.WARNING)
            )  # fmt: skip
    return problems


_COMMAND_GROUPS = ("econ-", "army-", "social-", "clan-", "letter-")


def parse_order_type(text: str) -> OrderType | None:
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
    who = {column: draft.get("Characters", name, column) for column in ("Status", "Email", "Clan")}  # not a .loc row
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
    turn.book.supersede(old.key, f"replaced by {by} {new.type.value} {new.given}", cause)


def left_pending(turn: Turn) -> None:
    """Every order ends Resolved, Rejected or Superseded: one no phase settled is rejected, and the GM told.

    Each order type has its phase, so this only catches a rule that forgot to settle an order.
    """
    for order in turn.pending(*OrderType):
        turn.reject(order, f"{order.type.value} could not be carried out this turn; your GM has been told")
        turn.notify("gm", "orders", f"No rule settled {order.cause} (Orders row {order.key}).")
