"""`sheets-engine check` for The Art of War: before a house moves, tell its player what the order waiting
in Orders would do, and name every waiting row that cannot be played and why.

Every Pending Orders row gets a Result starting "Check: " (its Status stays Pending, the board does not
change):
- a house's latest order for the season of its next turn is previewed: the house to move on the board as
  it stands (the board it will move on); a house whose turn comes later on today's board too, the Result
  saying that the houses before it move first. A GM's row for a bot's house is previewed like a person's
  (it is played instead of the bot's choice);
- an earlier row for the same season will not count (the latest replaces it);
- a row for a season still to come waits;
- a row that cannot be read says why: no Season, a season that is over, a house that does not exist or has
  fallen, an order that cannot be read.
The summary lists each row that cannot be read (`not read`), and the headline names them with their reasons.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable
from datetime import datetime

from sheets_engine.art_of_war import orders
from sheets_engine.art_of_war.model import Status, World
from sheets_engine.art_of_war.phases import result_text
from sheets_engine.art_of_war.rules import next_season_of, play_turn
from sheets_engine.art_of_war.schema import OrderStatus
from sheets_engine.art_of_war.sheet import read_world
from sheets_engine.core.names import plural
from sheets_engine.core.ruleset import Outcome
from sheets_engine.core.tables import Draft, GameState

PREFIX = "Check: "
CAUSE = "check before the house moves"
MAX_RESULT = 30_000  # a Result stays well inside a cell


def preview(state: GameState, now: datetime) -> Outcome:
    """The previews to write, as an Outcome (Form responses copied into Orders, and Result cells of
    Pending orders). `now` changes nothing: the game has no deadlines."""
    world, _ = read_world(state)
    if world.status is Status.OVER:
        reason = f"the campaign is over ({world.winner or 'nobody'} won)"
        return Outcome.unchanged(state, world.season, {"checked": False, "reason": reason})
    draft = Draft(state)
    players = {h.name: h.player for h in world.houses.values()}
    copied = orders.intake(draft, {h: next_season_of(world, h) for h in players}, players, world.season)
    counts: Counter[str] = Counter()
    unread: list[str] = []
    for key, (kind, text) in verdicts(draft, world).items():
        counts[kind] += 1
        if kind == "unread":
            unread.append(f"Orders row {key}: {text}")
        full = PREFIX + (f"cannot be read: {text}" if kind == "unread" else text)
        draft.set("Orders", key, "Result", full if len(full) <= MAX_RESULT else full[: MAX_RESULT - 3] + "...",
                  CAUSE)  # fmt: skip
    summary = {
        "checked": True,
        "turn": world.season,
        "season": world.season,
        "form responses copied": copied,
        "orders checked": counts["valid"] + counts["fail"] + counts["depends"],
        "valid now": counts["valid"],
        "will fail": counts["fail"],
        "will not count": counts["replaced"],
        "depend on dice or other clans": counts["depends"],
        "not read": unread,
    }
    said = headline(world.season, copied, counts, unread)
    return Outcome.of(draft, world.season, summary, headline=said, step="check")


def headline(season: int, copied: int, counts: Counter[str], unread: list[str]) -> str:
    """The one line `check` prints: the season, the orders checked and what they will do, the rows not read."""
    kinds = (
        ("valid", "valid now"), ("fail", "will fail"), ("replaced", "will not count"),
        ("depends", "depend on the houses before"), ("waits", "wait for a later season"),
    )  # fmt: skip
    said = [f"{counts[k]} {words}" for k, words in kinds if counts[k]]
    checked = counts["valid"] + counts["fail"] + counts["depends"]
    line = f"Season {season}: {plural(copied, 'form response')} copied, {plural(checked, 'order')} checked"
    line += f" ({', '.join(said)})" if said else ""
    if unread:
        line += f"; {plural(len(unread), 'row')} cannot be read: " + "; ".join(unread)
    return line


def verdicts(draft: Draft, world: World) -> dict[Hashable, tuple[str, str]]:
    """What check says of every Pending Orders row: (kind, text), kind one of valid, fail, depends (the houses
    before it move first), replaced (a later row counts), waits (a later season's) and unread (why it cannot be
    read)."""
    frame = draft.frame("Orders")
    houses = {name.casefold(): name for name in world.houses}
    found: dict[Hashable, tuple[str, str]] = {}
    latest: dict[str, Hashable] = {}
    for key, row in frame.iterrows():
        if row["Status"] != OrderStatus.PENDING:
            continue
        typed = " ".join(str(row["House"]).split())
        name = houses.get(typed.casefold())
        season = int(row["Season"])
        if name is None:
            listed = ", ".join(world.houses)
            found[key] = ("unread", f"there is no house \"{typed}\" (the houses: {listed}): it is never played"
                          if typed else f"no House given: write the house that orders (one of {listed})")  # fmt: skip
            continue
        due = next_season_of(world, name)
        if world.houses[name].fallen:
            found[key] = ("unread", f"{name} has fallen: it gives no more orders")
        elif season < 1:
            found[key] = ("unread", f"no season given: write the season of the order ({due}) in its Season column")
        elif season < due:
            found[key] = ("unread", f"season {season} is over for {name}: send an order for season {due}")
        elif season > due:
            found[key] = ("waits", f"waits: it is for season {season}, and {name}'s next turn is in season {due}")
        else:
            if name in latest:
                found[latest[name]] = ("replaced", f"will not count: a later order for season {due} (row {key}) "
                                       "replaces it")  # fmt: skip
            latest[name] = key
    for name, key in latest.items():
        found[key] = _preview(world, name, draft.row("Orders", key))
    return {key: found[key] for key in frame.index if key in found}


def _preview(world: World, house: str, row: dict[str, object]) -> tuple[str, str]:
    """One house's order tried on a copy of today's board, as if it were that house's turn now."""
    parsed = orders.parse_order(str(row["Order"]), str(row["Moves"]), str(row["Capital Raises"]))
    if isinstance(parsed, str):
        return "unread", parsed
    trial = world.copy()
    trial.to_move = house  # its own turn, on the board as it stands now
    events, _ = play_turn(trial, parsed)
    said = result_text(events)
    if house != world.to_move:
        return "depends", f"the houses before {house} move first; on today's board: {said}"
    if any(e.kind == "refused" for e in events):
        return "fail", f"part of it will be refused: {said}"
    return "valid", f"valid now: {said}"
