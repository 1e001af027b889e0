"""Orders in the sheet's words: reading an Orders row (or a Form response) as a house's one order.

An order is `raise` or `march`. A march's Moves give one step list per piece:
`P7: 3,4 > 4,4; P9: 5,5 x 6,5` (the piece, the hex it stands on, then `>` to enter a hex or `x` to
attack one). An order that cannot be read at all (a march none of whose entries can be read, too) is rejected
with the reason and the house may order again; a piece's entry that cannot be read is refused alone
and the rest of the march goes on.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable
from datetime import UTC, datetime, tzinfo

from sheets_engine.art_of_war.hexes import parse_hex
from sheets_engine.art_of_war.model import Kind, OrderKind
from sheets_engine.art_of_war.rules import Order, PieceMarch, Step
from sheets_engine.art_of_war.schema import OrderStatus
from sheets_engine.core.cells import timestamp_text
from sheets_engine.core.deadlines import local_time
from sheets_engine.core.tables import Draft

_ENTRY = re.compile(r"\s*([A-Za-z]\w*)\s*:\s*(.*?)\s*", re.S)
_SEPARATOR = re.compile(r"\s*([>xX])\s*")
ORDER_WORDS = {"raise": OrderKind.RAISE, "raise levies": OrderKind.RAISE, "march": OrderKind.MARCH}
MAX_TEXT = 30_000  # a cell's worth of player text, with room for the engine's words around it


def parse_moves(text: str) -> tuple[PieceMarch, ...]:
    """The Moves column as one entry per piece (an entry that cannot be read carries its error)."""
    entries = []
    for chunk in re.split(r"[;\n]", text):
        if not chunk.strip():
            continue
        found = _ENTRY.fullmatch(chunk)
        hint = f'cannot read "{chunk.strip()}": write a piece\'s march as P7: 3,4 > 4,4 x 5,4'
        if found is None:
            entries.append(PieceMarch(chunk.strip().split(":")[0].strip(), None, (), hint))
            continue
        piece, body = found.group(1), found.group(2)
        parts = _SEPARATOR.split(body)
        start = parse_hex(parts[0])
        steps, bad = [], start is None
        for sign, place in zip(parts[1::2], parts[2::2], strict=False):
            where = parse_hex(place)
            if where is None:
                bad = True
                break
            steps.append(Step(where, attack=sign in "xX"))
        if bad or len(parts) % 2 == 0:
            entries.append(PieceMarch(piece, None, (), hint))
            continue
        entries.append(PieceMarch(piece, start, tuple(steps)))
    return tuple(entries)


def moves_text(marches: tuple[PieceMarch, ...]) -> str:
    """Entries as the Moves column writes them."""
    return "; ".join(m.text() for m in marches)


def parse_order(order: str, moves: str, capital_raises: str) -> Order | str:
    """The order of an Orders row, or why it cannot be taken (in a player's words)."""
    word = " ".join(order.split()).casefold()
    kind = ORDER_WORDS.get(word)
    if kind is None:
        return f'unknown order "{order}": the order is raise or march' if order else "no order given: raise or march"
    if len(moves) > MAX_TEXT:
        return f"the Moves are {len(moves):,} characters long; at most {MAX_TEXT:,}"
    switch_word = capital_raises.strip().casefold()
    switch = None
    if switch_word:
        if switch_word not in (Kind.SETTLER, Kind.SOLDIER):
            return f'Capital Raises "{capital_raises}": the capital raises a settler or a soldier'
        switch = Kind(switch_word)
    if kind is OrderKind.RAISE:
        if moves.strip():
            return "a raise order has no moves: one order a turn, raise levies or march, never both"
        return Order(kind, (), switch)
    marches = parse_moves(moves)
    if marches and all(m.error for m in marches):  # nothing of it can be read: ask again rather than lose the turn
        return marches[0].error
    return Order(kind, marches, switch)


def pending_rows(draft: Draft, season: int, house: str) -> list[Hashable]:
    """The Orders rows of this house for this season still waiting, oldest first."""
    return _waiting(draft, house, lambda given: given == season)


def past_rows(draft: Draft, season: int, house: str) -> list[Hashable]:
    """The Orders rows of this house still waiting for a season before this one (never to be played)."""
    return _waiting(draft, house, lambda given: given < season)


def _waiting(draft: Draft, house: str, seasons: Callable[[int], bool]) -> list[Hashable]:
    """The house's Pending Orders rows whose Season passes `seasons`, in row order."""
    orders = draft.frame("Orders")
    wanted = house.casefold()
    return [
        key
        for key, row in orders.iterrows()
        if row["Status"] == OrderStatus.PENDING
        and seasons(int(row["Season"]))
        and " ".join(str(row["House"]).split()).casefold() == wanted
    ]


def intake(
    draft: Draft,
    seasons: dict[str, int],
    players: dict[str, str],
    season: int,
    cutoff: datetime | None = None,
    zone: tzinfo = UTC,
) -> int:
    """Copy Form responses not yet in Orders into Orders, each for the season of its house's next turn
    (`seasons`; `season` for a house that does not exist); a response from an address that does not play
    the house it names is copied as Rejected. With a `cutoff` (a season's deadline, or the moment of a
    forced run), a response sent after it (its time in `zone`) waits in the form for a later run.
    Returns how many were copied."""
    responses = draft.frame("Form Responses 1")
    if responses.empty:
        return 0
    orders = draft.frame("Orders")
    seen = {(str(r["Email"]).casefold(), str(r["Submitted"])) for _, r in orders.iterrows()}
    copied = 0
    houses = {h.casefold(): h for h in players}
    for _, response in responses.iterrows():
        stamp = timestamp_text(response["Timestamp"])
        email = str(response["Email Address"]).strip()
        if not email or (email.casefold(), stamp) in seen:
            continue
        sent = local_time(stamp, zone) if cutoff is not None else None
        if cutoff is not None and sent is not None and sent > cutoff:
            continue  # sent after the cutoff: it waits for a later run
        house = houses.get(" ".join(str(response["House"]).split()).casefold())
        row = {
            "Season": seasons.get(house or "", season), "House": house or response["House"], "Order": response["Order"],
            "Moves": response["Moves"], "Capital Raises": response["Capital Raises"], "Email": email,
            "Submitted": stamp, "Status": OrderStatus.PENDING.value,
        }  # fmt: skip
        if house is None:
            row.update(Status=OrderStatus.REJECTED.value, Result=f'there is no house "{response["House"]}"')
        elif not players[house]:
            why = f"{house} has no Player yet: a GM writes its person's email in the Houses tab"
            row.update(Status=OrderStatus.REJECTED.value, Result=why)
        elif players[house].casefold() != email.casefold():
            row.update(Status=OrderStatus.REJECTED.value, Result=f"not your house: {email} does not play {house}")
        draft.add_row("Orders", row, f"form response from {email}")
        seen.add((email.casefold(), stamp))
        copied += 1
    return copied
