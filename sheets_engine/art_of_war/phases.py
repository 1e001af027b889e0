"""A run of The Art of War: the houses play in their fixed order until a person's house has not ordered.

The phases of a run, in order:
1. intake: Form responses not yet copied become Orders rows of the season being played;
2. the houses move: the house to move plays its pending Orders row (the latest; earlier ones are
   Superseded) or, for a house no person plays, its bot's order (written as an Orders row of its
   own); then the next standing house moves. A person's house with no order pauses the run;
3. the ledger: the Game keys (season, to_move, status, winner, last_resolved_season) and every
   house's mandate.

A run never goes past the close of a season: the season is the unit of History's Turn and of
rollback (`rollback --turn N` puts the board back as it was when season N began), so one run
resolves (the rest of) one season and the next run opens the next.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sheets_engine.art_of_war import bots, orders
from sheets_engine.art_of_war.model import Event, Status, World
from sheets_engine.art_of_war.rules import Order, next_season_of, play_turn
from sheets_engine.art_of_war.schema import OrderStatus
from sheets_engine.art_of_war.setup import seed_words
from sheets_engine.art_of_war.sheet import read_world, record, record_ledger
from sheets_engine.core.dice import Dice
from sheets_engine.core.lifecycle import RunStatus, nothing_to_do, paused
from sheets_engine.core.orderbook import OrderBook
from sheets_engine.core.ruleset import Outcome
from sheets_engine.core.tables import Draft, GameState

MAX_RESULT = 30_000  # a Result stays well inside a cell


def bot_dice(seed: str, season: int, house: str) -> Dice:
    """The seeded stream a bot draws from on its turn of a season (the same seed, the same draws; spaces and case
    aside, as for the board)."""
    return Dice(seed_words(seed), season).stream("house", house)


def result_text(events: list[Event]) -> str:
    """What happened, for the Orders row's Result."""
    shown = [e.text for e in events if e.kind not in ("season",)]
    text = "; ".join(shown) or "nothing happened"
    return text if len(text) <= MAX_RESULT else text[: MAX_RESULT - 20] + " ... (and more)"


def resolve(state: GameState, now: datetime, force: bool = False) -> Outcome:
    """Play the houses from the one to move until a person's house has not ordered, the season closes,
    or the campaign ends. Pure: the input state is untouched; `now` and `force` change nothing (the game
    has no deadlines: a house moves as soon as it has ordered)."""
    world, keys = read_world(state)
    season = world.season
    if world.status is Status.OVER:
        reason = f"the campaign is over ({world.winner or 'nobody'} won)"
        return Outcome(state, [], {}, season, {"resolved": False, "reason": reason}, RunStatus.NOTHING,
                       nothing_to_do(reason))  # fmt: skip
    draft = Draft(state)
    book = OrderBook(draft)
    players = {h.name: h.player for h in world.houses.values()}
    copied = orders.intake(draft, {h: next_season_of(world, h) for h in players}, players, season)
    played: list[str] = []
    marched = "Marched" in state.layouts["Orders"].columns  # optional: a sheet laid out by hand may lack it
    waiting, rejected = "", ""
    while world.status is Status.PLAYING and world.season == season:
        house = world.houses[world.to_move]
        order, row, refusal = _order_of(draft, book, world, house.name)
        if order is None:
            if house.person:
                waiting, rejected = house.name, refusal
                break
            order = bots.choose(world, bot_dice(str(state.game("seed")), season, house.name))
        cause = f"season {season}, {house.name}: {order.kind.value}" + ("" if house.person else " (bot)")
        before = world.copy()
        events, carried = play_turn(world, order)
        record(draft, keys, before, world, events, cause)
        text = result_text(events)
        if row is None:
            draft.add_row("Orders", {
                "Season": season, "House": house.name, "Order": order.kind.value,
                "Moves": orders.moves_text(order.marches), "Status": OrderStatus.RESOLVED.value,
                "Capital Raises": order.capital_raises.value if order.capital_raises else "",
                "Result": text, **({"Marched": "; ".join(carried)} if marched else {}),
            }, cause)  # fmt: skip
        else:
            book.resolve(row, text, cause)
            if marched:
                draft.set("Orders", row, "Marched", "; ".join(carried), cause)
        draft.notify(season, "public", "orders", f"Season {season}, {house.name} ({order.kind.value}): {text}")
        played.append(house.name)
    record_ledger(draft, world, f"season {season}: {', '.join(played) or 'no house'} played")
    summary: dict[str, Any] = {"resolved": bool(played), "turn": season, "season": season}
    summary["houses played"] = ", ".join(played)
    if copied:
        summary["form responses copied"] = copied
    summary["to move"] = world.to_move
    headline = _headline(world, season, waiting, rejected)
    status = RunStatus.PAUSED if waiting else RunStatus.RESOLVED
    return Outcome(draft.finish(), draft.changes, dict(draft.logs), season, summary, status, headline)


def _headline(world: World, season: int, waiting: str, rejected: str) -> str:
    if waiting:
        house = world.houses[waiting]
        why = f"; its last order was rejected: {rejected}" if rejected else ""
        who = f"played by {house.player}" if house.player else "no Player is written for it in Houses yet"
        return paused("season", season, f"{waiting}'s order ({who}): it is {waiting}'s turn{why}")
    if world.status is Status.OVER:
        return f"Season {season} resolved: the campaign is over, " + (
            f"{world.winner} wins" if world.winner else "with no winner (every house has fallen)"
        )
    nxt = world.houses[world.to_move]
    return f"Season {season} resolved: season {world.season} opens with {nxt.name}" + (
        f" (played by {nxt.player})" if nxt.person else ""
    )


def _order_of(draft: Draft, book: OrderBook, world: World, house: str) -> tuple[Order | None, Any, str]:
    """The house's order for this season from Orders: (order, row, "") or (None, None, why the latest was
    rejected). Earlier pending rows are superseded by the latest."""
    why = ""
    for row in orders.past_rows(draft, world.season, house):  # else it waits, Pending, for a season gone by
        past = int(draft.row("Orders", row)["Season"])
        why = f"season {past} is over: this order was never played (send an order for season {world.season})"
        if past < 1:  # an empty Season reads as 0
            why = f"no season given: write the season of the order ({world.season}) in its Season column"
        book.reject(row, why, f"{house}'s orders", code="past season")
    rows = orders.pending_rows(draft, world.season, house)
    if not rows:
        return None, None, why
    *earlier, latest = rows
    for row in earlier:
        book.supersede(row, f"a later order for season {world.season} (row {latest}) replaced it", f"{house}'s orders")
    found = draft.row("Orders", latest)
    parsed = orders.parse_order(str(found["Order"]), str(found["Moves"]), str(found["Capital Raises"]))
    if isinstance(parsed, str):
        book.reject(latest, parsed + " (send another order for this season)", f"{house}'s order", code="unreadable")
        return None, None, parsed
    return parsed, latest, ""
