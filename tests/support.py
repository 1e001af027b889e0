"""Building small campaigns for tests: the template data tabs plus the rows a test gives."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from collections.abc import Mapping
from typing import Any

from sheets_engine.core.dice import Dice, Roll
from sheets_engine.core.load import load_state
from sheets_engine.core.problems import Severity
from sheets_engine.core.tables import Draft, GameState
from sheets_engine.rulesets import get_ruleset
from sheets_engine.sengoku.game import read_settings
from sheets_engine.sengoku.turn import Turn
from sheets_engine.sengoku.validate import check
from sheets_engine.stores.memory import MemoryStore
from sheets_engine.templates import template_tabs

RULESET = get_ruleset("sengoku")

# How many examples the property tests draw: a third of each test's own count by default (the suite
# stays under five minutes on two shared cores), the whole count with SHEETS_ENGINE_HYPOTHESIS=thorough.
HYPOTHESIS = os.environ.get("SHEETS_ENGINE_HYPOTHESIS", "").strip().casefold() or "quick"
if HYPOTHESIS not in ("quick", "thorough"):
    raise RuntimeError(f"SHEETS_ENGINE_HYPOTHESIS={HYPOTHESIS!r}: give quick (the default) or thorough")


def examples(count: int) -> int:
    """A property test's examples: `count` when thorough, else a third of it (at least 5, or `count`)."""
    return count if HYPOTHESIS == "thorough" else max(min(count, 5), math.ceil(count / 3))


def tabs(
    game: dict[str, Any] | None = None, demo: bool = False, **rows: list[dict[str, Any]]
) -> dict[str, list[list[Any]]]:
    """Template tabs with Game overrides and whole tabs replaced by the given rows.

    Tab names with spaces are passed with underscores (form_responses_1, tech_choices).
    """
    laid = template_tabs(RULESET, demo=demo)
    if game:
        header = laid["Game"][0]
        by_key = {r[0]: r for r in laid["Game"][1:]}
        for key, value in game.items():
            if key in by_key:
                by_key[key][1] = value
            else:
                laid["Game"].append([key, value, None][: len(header)])
    for name, records in rows.items():
        tab = next(t for t in laid if t.replace(" ", "_").casefold() == name.casefold())
        header = laid[tab][0]
        laid[tab] = [header] + [[r.get(c) for c in header] for r in records]
    return laid


def store(game: dict[str, Any] | None = None, demo: bool = False, **rows: list[dict[str, Any]]) -> MemoryStore:
    """A MemoryStore holding such a campaign."""
    return MemoryStore(tabs(game, demo=demo, **rows))


def state(game: dict[str, Any] | None = None, demo: bool = False, **rows: list[dict[str, Any]]) -> GameState:
    """A validated GameState; fails the test if the campaign has errors."""
    loaded, problems = load_state(MemoryStore(tabs(game, demo=demo, **rows)).read(), RULESET.tabs)
    problems += check(loaded)
    errors = [str(p) for p in problems if p.severity is Severity.ERROR]
    assert not errors, errors
    return loaded


def province(name: str, **values: Any) -> dict[str, Any]:
    """A Provinces row with sensible defaults (Rural, Plains, no buildings)."""
    row = {"Province": name, "Type": "Rural", "Terrain": "Plains", "Province Owner": "Oda", "Adjacent": ""}
    row.update({k.replace("_", " "): v for k, v in values.items()})
    return row


def clan(name: str, **values: Any) -> dict[str, Any]:
    """A Clans row (tech levels 0 unless given)."""
    row = {"Clan": name, "Treasury": 0, "Knowledge": 0, "Capital": ""}
    row.update({k.replace("_", " "): v for k, v in values.items()})
    return row


def make_turn(game_state: GameState, rolls: list[int] | None = None) -> Turn:
    """A Turn over a fresh Draft of the state, for calling one phase directly.

    With `rolls`, the dice give exactly these values in order (and fail the test if a phase asks
    for more): dice-dependent rules are tested at chosen rolls.
    """
    settings = read_settings(game_state)
    dice: Dice = (
        FixedDice(rolls, settings.seed, settings.turn) if rolls is not None else Dice(settings.seed, settings.turn)
    )
    return Turn(Draft(game_state), settings, dice, settings.turn)


class FixedDice(Dice):
    """Dice that give chosen values, logged like real ones."""

    def __init__(self, values: list[int], seed: str = "test", turn: int = 1) -> None:
        super().__init__(seed, turn)
        self._values = list(values)

    def roll(self, sides: int, purpose: str) -> Roll:
        """The next chosen value (it must fit the die)."""
        assert self._values, f"a phase rolled more dice than the test gave (wanted d{sides} for {purpose})"
        value = self._values.pop(0)
        assert 1 <= value <= sides, f"d{sides} cannot roll {value}"
        result = Roll(purpose, sides, value)
        self.rolls.append(result)
        return result


def run_main(*args: str, env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`sheets-engine ARGS` through the console script's main() in this process, as a subprocess would
    answer: its exit code, stdout and stderr. For the tests of what a command says and does, not of
    the process (some 0.6 s of CPU saved a run); an exception main() lets out fails the test, as a
    traceback would have shown in the process."""
    from click.testing import CliRunner

    from sheets_engine.cli import main

    argv = sys.argv
    with CliRunner().isolation(env=dict(env or {})) as (out, err, _):
        sys.argv = ["sheets-engine", *args]
        try:
            main()
            code = 0
        except SystemExit as done:
            code = done.code if isinstance(done.code, int) else int(done.code is not None)
        finally:
            sys.argv = argv
        stdout, stderr = out.getvalue().decode(), err.getvalue().decode()
    return subprocess.CompletedProcess(["sheets-engine", *args], code, stdout, stderr)
