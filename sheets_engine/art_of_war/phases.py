"""A run of The Art of War: the houses play in their fixed order until a person's house has not ordered.

The phases of a run, in order:
1. intake: Form responses not yet copied become Orders rows of the season being played;
2. the houses move: the house to move plays its pending Orders row (the latest; earlier ones are
   Superseded) or, for a house no person plays, its bot's order (written as an Orders row of its
   own); then the next standing house moves. A person's house with no order pauses the run;
3. the ledger: the Game keys (season, to_move, status, winner, last_resolved_season) and every
   house's mandate.

A run plays on through the close of a season when a person plays a standing house: after a person's
order, one run plays the rest of the season, closes it, and plays the next season's houses up to the
next person's house that has not ordered (a Game `deadline` still to come stops it at the close). The
season stays the unit of History's Turn and of rollback: each season's History rows carry a run id
of their own (`abc123-4`), so `rollback --turn N` puts the board back as it was when season N began
and undoes no season before it. A campaign that only bots play resolves one season a run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sheets_engine.art_of_war import bots, orders
from sheets_engine.art_of_war.model import Event, Status, World
from sheets_engine.art_of_war.rules import Order, next_season_of, play_turn
from sheets_engine.art_of_war.schema import OrderStatus
from sheets_engine.art_of_war.setup import seed_words
from sheets_engine.art_of_war.sheet import Keys, read_world, record, record_ledger, whole
from sheets_engine.core import turn as skeleton
from sheets_engine.core.dice import Dice
from sheets_engine.core.lifecycle import Outcome, RunLedger
from sheets_engine.core.orderbook import OrderBook
from sheets_engine.core.settings import deadline_keys
from sheets_engine.core.tables import Draft, GameState
from sheets_engine.core.turn import Begun, Ended, Pause, Step, TurnPlan, deadline_summary

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


LEDGER_KEYS = ("season", "last_resolved_season")


def read_ledger(state: GameState) -> RunLedger:
    """Where the campaign stands: the season being played, the last one completed, its deadlines, and
    whether the campaign is over."""
    world, _ = read_world(state)
    over = f"the campaign is over ({world.winner or 'nobody'} won)" if world.status is Status.OVER else ""
    last = whole(state.game("last_resolved_season"), 0)
    plan = deadline_keys(state).schedule_of(world.season)
    return RunLedger(world.season, last, plan, unit="season", keys=LEDGER_KEYS, finished=over)


@dataclass
class Play:
    """A run's play: the world, its Draft and order book, the dice, and who has moved so far."""

    draft: Draft
    world: World
    keys: Keys
    book: OrderBook
    dice: Dice
    ledger: RunLedger
    cutoff: datetime | None
    season: int
    played: list[str] = field(default_factory=list)
    copied: int = 0
    waiting: str = ""  # the person's house the run stopped at
    rejected: str = ""  # why that house's last order was rejected


def begin(begun: Begun) -> Play:
    """The play of a run, over the skeleton's draft and dice (each bot draws from its house's stream)."""
    world, keys = read_world(begun.state)
    draft = begun.draft
    return Play(draft, world, keys, OrderBook(draft), begun.dice, begun.ledger, begun.cutoff, world.season)


def intake(play: Play) -> None:
    """Form responses not yet copied become Orders rows, each for its house's next season."""
    world = play.world
    players = {h.name: h.player for h in world.houses.values()}
    seasons = {h: next_season_of(world, h) for h in players}
    play.copied = orders.intake(play.draft, seasons, players, play.season, play.cutoff, play.ledger.schedule.zone)


def copy_answers(draft: Draft, period: int, cutoff: datetime | None) -> int:
    """The intake capability: the Form's answers sent by the cutoff, copied as Orders rows."""
    state = draft.state
    world, _ = read_world(state)
    players = {h.name: h.player for h in world.houses.values()}
    seasons = {h: next_season_of(world, h) for h in players}
    return orders.intake(draft, seasons, players, period, cutoff, read_ledger(state).schedule.zone)


def houses_move(play: Play) -> None:
    """The house to move plays its order (a bot's own), then the next, until a person's house has not
    ordered, the season closes or the campaign ends."""
    draft, book, world, season = play.draft, play.book, play.world, play.season
    marched = "Marched" in draft.state.layouts["Orders"].columns  # optional: a sheet laid out by hand may lack it
    while world.status is Status.PLAYING and world.season == season:
        house = world.houses[world.to_move]
        order, row, refusal = _order_of(draft, book, world, house.name)
        if order is None:
            if house.person:
                play.waiting, play.rejected = house.name, refusal
                break
            order = bots.choose(world, play.dice.stream("house", house.name))
        cause = f"season {season}, {house.name}: {order.kind.value}" + ("" if house.person else " (bot)")
        before = world.copy()
        events, carried = play_turn(world, order)
        record(draft, play.keys, before, world, events, cause)
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
        play.played.append(house.name)


def ledger(play: Play) -> None:
    """Where the campaign stands now (the season closed by the rules when every house has moved)."""
    cause = f"season {play.season}: {', '.join(play.played) or 'no house'} played"
    record_ledger(play.draft, play.world, cause, play.ledger)


def person_to_move(play: Play) -> str:
    """The pause point: a person's house has not ordered (the next run starts again from intake)."""
    if not play.waiting:
        return ""
    house = play.world.houses[play.waiting]
    why = f"; its last order was rejected: {play.rejected}" if play.rejected else ""
    who = f"played by {house.player}" if house.player else "no Player is written for it in Houses yet"
    return f"{play.waiting}'s order ({who}): it is {play.waiting}'s turn{why}"


def play_on(play: Play) -> str:
    """After a season closed: play on into the next while a person plays a standing house (the run stops at
    that house), as the season's line in the run's summary; "" (one season a run) when only bots are left."""
    world = play.world
    if world.status is not Status.PLAYING or world.season == play.season:
        return ""
    if not any(world.houses[name].person for name in world.standing()):
        return ""
    return f"season {play.season}: {', '.join(play.played) or 'no house'} played"


PERSON_STEP = "to-person"  # History's Step of a run that stops at a person's house (a season partly played)


def steps() -> list[Step[Play] | Pause[Play]]:
    """A run, in order: intake, the houses move, the ledger, and the pause for a person's house."""
    return [
        Step("intake", intake),
        Step("the houses move", houses_move),
        Step("the ledger", ledger),
        Pause("", person_to_move, before=PERSON_STEP),
    ]


def summary(play: Play, ended: Ended) -> dict[str, Any]:
    """Who played, how many form responses were copied, and who moves next."""
    found: dict[str, Any] = {"resolved": bool(play.played), "turn": play.season, "season": play.season}
    found["houses played"] = ", ".join(play.played)
    if play.copied:
        found["form responses copied"] = play.copied
    found["to move"] = play.world.to_move
    return {**found, **deadline_summary(ended.ledger, ended.cutoff)}


def headline(play: Play, ended: Ended) -> str:
    """How the season went on: the campaign over, or the next season opening."""
    return _headline(play.world, play.season)


PLAN: TurnPlan[Play] = TurnPlan(
    ledger=read_ledger,
    begin=begin,
    steps=steps,
    summary=summary,
    headline=headline,
    seed=lambda state: seed_words(str(state.game("seed"))),
    log_dice=False,  # the bots' draws are replayed from the seed, not logged (as before the skeleton)
    rules_close_period=True,  # a season closes when the last standing house has moved
    play_on=play_on,
    settles=lambda play: bool(play.played),  # a house moved (a person's order or a bot's)
)


def resolve(state: GameState, now: datetime, force: bool = False) -> Outcome:
    """Play the houses from the one to move until a person's house has not ordered (across the seasons'
    closes), the season closes with only bots left, or the campaign ends, through the turn skeleton (core.turn).
    Pure: the input state is untouched.
    With a Game `deadline`, a season is played once it has passed (or with `force`)."""
    return skeleton.resolve_turn(PLAN, state, now, force)


def _headline(world: World, season: int) -> str:
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
