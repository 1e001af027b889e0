"""Intake: the Google Form's answers (Form Responses 1) become Purchases, Bids and Moves rows.

No sentence of the rules document: its players handed their orders to the GM. Here each response is
one order, copied once into the tab its Order answer names (an action of the start phase: Purchases;
"bid": Bids; "primary move", "cavalry move", "reserve move": Moves), as a row of the turn being
resolved, with `Submitted` (when it was sent) and `Email` (who sent it). A response is copied once:
a row of one of the three tabs with the same Submitted and Email is that response.

- Impersonation is refused: the response's (verified) email must be the faction's player's, the
  Factions tab's `Email` (several addresses may be given, comma-separated). A response from anyone
  else is copied all the same, Rejected, its Result saying whose email it was sent from.
- The deadline cut-off: a response sent after the turn's cutoff (its Timestamp is in the Game key
  time_zone) waits in the Form's tab for the next turn, and is copied then.
- A response that cannot be a row at all (a faction, item, province or mover that is not in the sheet,
  a count that is no whole number, an unknown order) is not copied: `validate` and `check` name its
  row, column and value as a warning, and it is copied once the GM corrects the answer in its row.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from datetime import datetime, tzinfo
from typing import Any

from sheets_engine.clan_war.bids import BID_KINDS
from sheets_engine.clan_war.knowledge import standing_people, standing_units
from sheets_engine.clan_war.schema import (
    FORM_COLUMNS,
    ITEMLESS,
    RESPONSES,
    Action,
    BidStatus,
    MovePhase,
    MoveStatus,
    PurchaseStatus,
)
from sheets_engine.core.cells import timestamp_text
from sheets_engine.core.deadlines import local_time
from sheets_engine.core.problems import Problem, Severity
from sheets_engine.core.tables import Draft, GameState, plain_records

BID = "bid"
MOVES = {f"{phase.value} move": phase.value for phase in MovePhase}  # "primary move" -> primary
ORDERS: tuple[str, ...] = (*(a.value for a in Action), BID, *MOVES)  # the Form's Order choices, in this order
ORDER_TABS = ("Purchases", "Bids", "Moves")
YES = {"yes", "true", "y", "1", "ok"}
NO = {"", "no", "false", "n", "0"}
CAUSE = "form response"


@dataclass(frozen=True)
class Response:
    """One response not yet copied: its key (sheet row) in the Form's tab, and either the row it becomes
    (`tab`, `values`, with `refusal` when it is copied Rejected) or why it cannot be one (`column`, `expected`)."""

    key: Hashable
    submitted: str
    tab: str = ""
    values: dict[str, Any] | None = None
    refusal: str = ""
    column: str = ""
    value: Any = ""
    expected: str = ""


def find(names: Iterable[Hashable], text: str) -> str | None:
    """The name a player meant: exact, else the only one equal ignoring case and spaces."""
    wanted = " ".join(str(text).split()).casefold()
    if not wanted:
        return None
    listed = [str(n) for n in names]
    if text in listed:
        return str(text)
    found = [n for n in listed if " ".join(n.split()).casefold() == wanted]
    return found[0] if len(found) == 1 else None


def _count(text: str) -> int | None:
    """A whole number answer (None: not one)."""
    try:
        value = float(str(text).strip().replace(",", ""))
    except ValueError:
        return None
    return int(value) if value.is_integer() and value >= 0 else None


def emails(cell: Any) -> set[str]:
    """The addresses a Factions Email cell holds (comma- or semicolon-separated), compared ignoring case."""
    return {part.strip().casefold() for part in str(cell or "").replace(";", ",").split(",") if part.strip()}


def has_form_tab(state: GameState) -> bool:
    """Does the workbook have the Form's tab (a workbook made before the players' loop has none)?"""
    layout = state.layouts.get(RESPONSES)
    return layout is not None and bool(layout.columns)


def copied(state: GameState | Draft) -> Counter[tuple[str, str]]:
    """(Submitted, Email) of every row the Form's responses became, in the three order tabs."""
    seen: Counter[tuple[str, str]] = Counter()
    for tab in ORDER_TABS:
        for row in plain_records(state.frame(tab), FORM_COLUMNS):
            if str(row["Submitted"] or "").strip():
                seen[(str(row["Submitted"]).strip(), str(row["Email"] or "").strip().casefold())] += 1
    return seen


def new_responses(state: GameState | Draft) -> list[Response]:
    """Every response of the Form's tab not yet copied, as the row it becomes or why it cannot be one."""
    frame = state.frame(RESPONSES)
    if frame.empty or not has_form_tab(state if isinstance(state, GameState) else state.state):
        return []
    seen = copied(state)
    found = []
    for key, row in zip(frame.index, plain_records(frame), strict=True):
        submitted = timestamp_text(row["Timestamp"])
        ident = (submitted.strip(), str(row["Email Address"] or "").strip().casefold())
        if seen[ident] > 0:
            seen[ident] -= 1
            continue
        found.append(_read(state, key, submitted, row))
    return found


def _read(state: GameState | Draft, key: Hashable, submitted: str, row: dict[str, Any]) -> Response:
    """A response as the row it becomes, or the first answer that keeps it from being one."""

    def bad(column: str, expected: str) -> Response:
        return Response(key, submitted, column=column, value=row.get(column, ""), expected=expected)

    def text(column: str) -> str:
        return " ".join(str(row.get(column) or "").split())

    factions = state.frame("Factions")
    faction = find(factions.index, text("Faction"))
    if faction is None:
        return bad("Faction", "a faction of the Factions tab")
    order = text("Order").casefold()
    if order not in ORDERS:
        return bad("Order", "one of the Form's orders: " + ", ".join(ORDERS))
    catalogue, provinces = state.frame("Catalogue"), state.frame("Provinces")
    province = find(provinces.index, text("Province"))
    if text("Province") and province is None:
        return bad("Province", "a province of the Provinces tab (or no answer)")
    count = _count(text("Count")) if text("Count") else None
    if text("Count") and count is None:
        return bad("Count", "a whole number (or no answer)")
    item = find(catalogue.index, text("Item"))
    if text("Item") and item is None:
        return bad("Item", "an item of the Catalogue tab (or no answer)")
    base = {"Turn": 0, "Faction": faction, "Status": "Pending", "Result": "", "Submitted": submitted,
            "Email": text("Email Address")}  # fmt: skip
    if order in MOVES:
        movers = [*state.frame("Units").index, *state.frame("Personalities").index]
        mover = find(movers, text("Mover"))
        if mover is None:
            return bad("Mover", "a unit or personality of the Units or Personalities tab")
        to = find(provinces.index, text("To"))
        if to is None:
            return bad("To", "a province of the Provinces tab")
        return Response(key, submitted, "Moves", {**base, "Phase": MOVES[order], "Mover": mover, "To": to})
    if order == BID:
        kinds = {k.value for k in BID_KINDS}
        if item is None or str(catalogue.at[item, "Kind"]) not in kinds:
            return bad("Item", "the Catalogue item bid for (" + ", ".join(sorted(kinds)) + ")")
        bid = _count(text("Bid"))
        if bid is None:
            return bad("Bid", "the koku bid, a whole number")
        values = {**base, "Personality": item, "Bid": bid, "Count": count, "Target": text("Target"),
                  "Province": province or ""}  # fmt: skip
        return Response(key, submitted, "Bids", values)
    if item is None and order not in {a.value for a in ITEMLESS}:
        return bad("Item", f"the Catalogue item to {order} (a name from the Catalogue tab)")
    movers = [*state.frame("Units").index, *state.frame("Personalities").index]
    source = find(movers, text("From")) if text("From") else ""
    if source is None:
        return bad("From", "a unit or personality of the Units or Personalities tab (or no answer)")
    ally = text("Ally OK").casefold()
    if ally not in YES | NO:
        return bad("Ally OK", "Yes or No (or no answer)")
    values = {**base, "Action": order, "Item": item or "", "Count": count, "From": source, "Target": text("Target"),
              "Province": province or "", "Ally OK": ally in YES}  # fmt: skip
    return Response(key, submitted, "Purchases", values)


def refusal(state: GameState | Draft, faction: str, email: str) -> str:
    """Why a response sent from `email` may not order for `faction` ("" when it is the faction's player's)."""
    row = state.frame("Factions").loc[faction]
    allowed = emails(row["Email"])
    if not allowed:
        return f"refused: the {faction} faction has no Email in the Factions tab, so no Form response may order for it"
    if email.strip().casefold() in allowed:
        return ""
    player = str(row["Player"] or "").strip()
    whose = f"the {faction} faction's player ({player})" if player else f"the {faction} faction's player"
    return f"refused: sent from {email or 'no email address'}, not from the email of {whose}"


REJECTED = {"Purchases": PurchaseStatus.REJECTED.value, "Bids": BidStatus.REJECTED.value,
            "Moves": MoveStatus.REJECTED.value}  # fmt: skip


def copy_responses(draft: Draft, turn: int, cutoff: datetime | None, zone: tzinfo) -> Counter[str]:
    """Copy every new response sent by `cutoff` (None: every one) as a row of `turn`; the counts: copied,
    refused (impersonation), waiting for a later turn, not taken (named by `response_problems`)."""
    counts: Counter[str] = Counter()
    if not has_form_tab(draft.state):
        return counts  # a workbook without the Form's tab
    for response in new_responses(draft):
        if response.values is None:
            counts["form responses not taken"] += 1
            continue
        sent = local_time(response.submitted, zone)
        if cutoff is not None and sent is not None and sent > cutoff:
            counts["form responses waiting for a later turn"] += 1
            continue
        values = {**response.values, "Turn": turn}
        why = refusal(draft, str(values["Faction"]), str(values["Email"]))
        if why:
            values.update({"Status": REJECTED[response.tab], "Result": why})
            counts["form responses refused"] += 1
        draft.add_row(response.tab, values, CAUSE)
        counts["form responses copied"] += 1
    return counts


def response_problems(state: GameState) -> list[Problem]:
    """What keeps the Form's responses from being copied: the order tabs' Submitted and Email columns missing
    (an error: without them a response would be copied again every run), and each response that cannot be a
    row (a warning naming its row, column and value: copied once the answer is corrected)."""
    if not has_form_tab(state) or state.frame(RESPONSES).empty:
        return []
    problems = []
    for tab in ORDER_TABS:
        for column in FORM_COLUMNS:
            if column not in state.layouts[tab].columns:
                problems.append(
                    Problem(tab, 1, column, "", f"a column headed '{column}' (after the last header): Form "
                            "responses are copied with when and from whom they were sent, so that each is copied once")
                )  # fmt: skip
    if problems:
        return problems
    rows = state.rows[RESPONSES]
    return [
        Problem(
            RESPONSES,
            rows.get(r.key),
            r.column,
            r.value,
            r.expected + ": the response is not copied until its answer is corrected",
            Severity.WARNING,
        )
        for r in new_responses(state)
        if r.values is None
    ]


def living(state: GameState) -> list[str]:
    """The units not Destroyed and the personalities not Dead or Released (the Form's Mover choices)."""
    return standing_units(state) + standing_people(state)
