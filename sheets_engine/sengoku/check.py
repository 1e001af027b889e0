"""Sengoku Jidai's check (`sheets-engine check`): before the deadline, tell each player what the turn would do
with their orders.

No rule lives here. The check copies new form responses into Orders (the resolution's own intake),
then resolves the turn on copies of the state, never written back:

- once with every clan's orders, to judge intake (not your character, unknown orders, replaced orders);
- for each clan, with that clan's orders alone (so a tax before a build of the same clan counts),
  three times: with the turn's seeded dice, with every die at its lowest and with every die at its
  highest. An outcome that differs between them depends on the dice;
- an outcome that differs from the run with every clan's orders, or that the rules let another
  clan's order reach (sengoku.preview), depends on other clans' orders.

What every run shares (step 1's tech choices and step 2, which read no order) is played once before the
runs, which skip it.

Each Pending order's Result becomes "Check: ..." (its Status stays Pending); `resolve` later writes
the real Result over it. Only Orders cells are written, each with its History row.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable
from dataclasses import dataclass, replace
from datetime import datetime

from sheets_engine.core.dice import Dice, Roll
from sheets_engine.core.ruleset import Outcome
from sheets_engine.core.tables import Draft, GameState
from sheets_engine.core.turn import Step, TurnPlan, resolve_turn
from sheets_engine.sengoku.game import GameSettings, read_settings
from sheets_engine.sengoku.orders import copy_responses, find, intake, parse_order_type
from sheets_engine.sengoku.phases import PLAN, phase_list
from sheets_engine.sengoku.preview import other_clans_may_change
from sheets_engine.sengoku.schema import OrderStatus
from sheets_engine.sengoku.turn import Turn

PREFIX = "Check: "
CAUSE = "check before the deadline"


@dataclass
class ExtremeDice(Dice):
    """Dice that always show their lowest face (or, with `high`, their highest): the two ends of every check."""

    high: bool = False

    def roll(self, sides: int, purpose: str) -> Roll:
        """The extreme face, logged like a real roll."""
        result = Roll(purpose, sides, sides if self.high else 1)
        self.rolls.append(result)
        return result


@dataclass(frozen=True)
class Verdict:
    """What the check says about one Orders row."""

    key: Hashable
    clan: str
    kind: str  # "valid", "fail", "replaced", "depends"
    text: str  # the Result cell, "Check: ..."


def check_turn(state: GameState, now: datetime) -> Outcome:
    """The check as a pure function: the Orders rows to add and the previews to write, as an Outcome.

    A turn already resolved is left alone (summary "checked": False with the reason).
    """
    settings = read_settings(state)
    if settings.last_resolved_turn >= settings.turn:
        reason = f"turn {settings.turn} was already resolved (last_resolved_turn is {settings.last_resolved_turn})"
        return Outcome.unchanged(state, settings.turn, {"checked": False, "reason": reason})
    draft = Draft(state)
    copied = copy_responses(Turn(draft, settings, Dice(settings.seed, settings.turn), settings.turn))
    base = draft.finish()
    verdicts = judge(base, now)
    for verdict in verdicts:
        draft.set("Orders", verdict.key, "Result", verdict.text, CAUSE)
    counts = Counter(v.kind for v in verdicts)
    summary = {
        "checked": True,
        "turn": settings.turn,
        "form responses copied": copied,
        "orders checked": len(verdicts),
        "valid now": counts["valid"],
        "will fail": counts["fail"],
        "will not count": counts["replaced"],
        "depend on dice or other clans": counts["depends"],
    }
    return Outcome.of(draft, settings.turn, summary)


def judge(state: GameState, now: datetime) -> list[Verdict]:
    """A verdict for every Pending order of the current turn (its responses already copied into Orders)."""
    settings = read_settings(state)
    orders = state.frame("Orders")
    pending = [
        k for k in orders.index[(orders["Turn"] == settings.turn) & (orders["Status"] == OrderStatus.PENDING.value)]
    ]
    if not pending:
        return []
    # Intake as the resolution does it, over every clan's orders at once.
    draft = Draft(state)
    turn = Turn(draft, settings, Dice(settings.seed, settings.turn), settings.turn)
    intake(turn)
    characters = state.frame("Characters")
    verdicts: dict[Hashable, Verdict] = {}
    by_clan: dict[str, list[Hashable]] = {}
    for key in pending:
        status, result = draft.get("Orders", key, "Status"), draft.get("Orders", key, "Result")
        if status == OrderStatus.REJECTED.value:
            verdicts[key] = Verdict(key, "", "fail", f"{PREFIX}will fail: {result}")
            continue
        name = find(characters.index, str(orders.at[key, "Character"])) or ""
        by_clan.setdefault(str(characters.at[name, "Clan"]), []).append(key)
    current, plan = _played_once(state, settings)
    everyone = _outcomes(resolve_turn(plan, current, now, force=True).state, pending)
    nobody = _only(current, pending, set())  # every pending order set aside, once; each clan's put back below
    for clan, keys in by_clan.items():
        alone = _put_back(nobody, keys)
        runs = []
        for dice in (
            Dice(settings.seed, settings.turn),
            ExtremeDice(settings.seed, settings.turn),
            ExtremeDice(settings.seed, settings.turn, high=True),
        ):
            outcome = resolve_turn(plan, alone, now, force=True, dice=dice)
            runs.append((_outcomes(outcome.state, keys), [r.purpose for r in dice.rolls]))
            if not dice.rolls:  # no die was cast: other faces cannot change anything (and a check stays quick)
                break
        for key in keys:
            verdicts[key] = _verdict(state, key, clan, [r[0][key] for r in runs], everyone[key], runs[0][1])
    return [verdicts[k] for k in pending]


# Step 1's tech choices and step 2 read no order and no cell intake writes (intake reads Orders, Characters,
# Missions and the form; these read Tech Choices, Characters, Clans, Provinces and Buildings, and write only
# the last three and Tech Choices), and roll no die: they come out the same in every run of the check.
PLAYED_ONCE = frozenset(
    {
        (1, "tech choices"),
        (2, "recalculate derived stats"),
        (2, "stockpiles regenerate"),
        (2, "knowledge from buildings"),
    }
)


def _played_once(state: GameState, settings: GameSettings) -> tuple[GameState, TurnPlan[Turn]]:
    """The state with the PLAYED_ONCE steps played, and the turn's plan without them (each run then starts
    at intake and goes on at step 3): what every run shares is done once instead of once a run (10,000
    provinces' stockpiles and derived cells, each recorded as a change). Every Result is the same. A step
    that rolled a die would make the runs' dice differ: then nothing is played once."""
    draft = Draft(state)
    turn = Turn(draft, settings, Dice(settings.seed, settings.turn), settings.turn)
    for step, name, phase in phase_list():
        if (step, name) in PLAYED_ONCE:
            phase(turn)
    if turn.dice.rolls:
        return state, PLAN

    def rest() -> list[Step[Turn]]:
        return [Step(name, phase) for step, name, phase in phase_list() if (step, name) not in PLAYED_ONCE]

    return draft.finish(), replace(PLAN, steps=rest)


def _only(state: GameState, pending: list[Hashable], keep: set[Hashable]) -> GameState:
    """The state with every other Pending order of the turn set aside (as if never given)."""
    draft = Draft(state)
    for key in pending:
        if key not in keep:
            draft.set("Orders", key, "Status", OrderStatus.SUPERSEDED.value, CAUSE)
    return draft.finish()


def _put_back(nobody: GameState, keys: list[Hashable]) -> GameState:
    """The state with only these Pending orders (`nobody` has every one set aside): the same frames `_only`
    gives, for a clan's few cells instead of every other clan's."""
    draft = Draft(nobody)
    for key in keys:
        draft.set("Orders", key, "Status", OrderStatus.PENDING.value, CAUSE)
    return draft.finish()


def _outcomes(state: GameState, keys: list[Hashable]) -> dict[Hashable, tuple[str, str]]:
    orders = state.frame("Orders")
    return {k: (str(orders.at[k, "Status"]), str(orders.at[k, "Result"])) for k in keys}


def _verdict(
    state: GameState,
    key: Hashable,
    clan: str,
    outcomes: list[tuple[str, str]],
    everyone: tuple[str, str],
    purposes: list[str],
) -> Verdict:
    """One order's preview from its outcome under the seeded dice and the two extremes, alone and with all."""
    status, result = outcomes[0]
    if status == OrderStatus.SUPERSEDED.value:
        return Verdict(key, clan, "replaced", f"{PREFIX}will not count: {result}")
    row = state.frame("Orders").loc[key]
    character = find(state.frame("Characters").index, str(row["Character"])) or ""
    kind = parse_order_type(str(row["Order"]))
    dice = len(set(outcomes)) > 1
    others = ""
    if kind is not None and status != OrderStatus.REJECTED.value:
        others = other_clans_may_change(state, clan, character, kind, str(row["Target"]), str(row["Detail"]))
    if not others and everyone != outcomes[0]:
        others = "orders other clans have given already change it"
    if not dice and not others:
        if status == OrderStatus.REJECTED.value:
            return Verdict(key, clan, "fail", f"{PREFIX}will fail: {result}")
        return Verdict(key, clan, "valid", f"{PREFIX}valid now: {result}")
    parts = []
    if dice:
        mine = [p for p in dict.fromkeys(purposes) if character and character in p]
        parts.append("on the dice" + (f" ({'; '.join(mine)})" if mine else ""))
    if others:
        parts.append(f"on other clans' orders ({others})")
    valid = all(s == OrderStatus.RESOLVED.value for s, _ in outcomes)
    lead = "valid now; the outcome depends " if valid else "depends "
    return Verdict(key, clan, "depends", PREFIX + lead + " and ".join(parts))
