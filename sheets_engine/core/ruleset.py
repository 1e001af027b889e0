"""Rulesets: each is its own tabs, checks, recalculation and turn resolution.

The engine around them (stores, validation of cells, History, the CLI) is shared. A workbook
names its ruleset in the Game tab's `ruleset` key; Sengoku Jidai is the default. Core knows no
ruleset: the registry is sheets_engine.rulesets.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from importlib.resources.abc import Traversable
from typing import TYPE_CHECKING, Any

from sheets_engine.core.lifecycle import RunStatus
from sheets_engine.core.problems import Problem
from sheets_engine.core.store import Choice
from sheets_engine.core.tables import Change, GameState, TabSpec

if TYPE_CHECKING:
    from sheets_engine.core.store import RawTab


@dataclass(frozen=True)
class Outcome:
    """What a pure rules function hands back: the new state, its changes and its log rows."""

    state: GameState
    changes: list[Change]
    logs: dict[str, list[dict[str, Any]]]
    turn: int  # the turn the History rows belong to
    summary: dict[str, Any]  # counts and notes for the CLI and cron logs
    status: RunStatus = RunStatus.RESOLVED  # resolved, paused (waiting for the GM) or nothing to do
    headline: str = ""  # one line saying how the run ended, printed as given
    step: str = "turn"  # the step of the turn the run resolved (History's Step): turn, a phase, recalc


@dataclass(frozen=True)
class Ruleset:
    """One game's rules on the shared engine."""

    name: str
    title: str
    tabs: tuple[TabSpec, ...]
    templates: Traversable  # the package folder of the tabs' template CSVs (importlib.resources)
    check: Callable[[GameState], list[Problem]]
    recalc: Callable[[GameState], Outcome]
    resolve: Callable[[GameState, datetime, bool], Outcome]
    seeded_tabs: tuple[str, ...] = ()  # tabs whose template must hold rows (the data tables)
    choices: tuple[Choice, ...] = ()  # what the dropdowns of its closed columns offer
    ledger_keys: tuple[str, str] = ("turn", "last_resolved_turn")  # Game keys: next period, last resolved
    # `init` options this ruleset takes (e.g. houses, seed), and the function that lays out a new
    # campaign from the template tabs and those options (a generated board); None: the templates as they are.
    init_options: tuple[str, ...] = ()
    setup: Callable[[dict[str, list[list[Any]]], dict[str, Any], bool], dict[str, list[list[Any]]]] | None = None
    # `check` before the deadline: the previews of the pending orders, as an Outcome writing their Results;
    # None: the ruleset has no check (Sengoku Jidai's is sheets_engine.check's own).
    preview: Callable[[GameState, datetime], Outcome] | None = None


class SetupError(ValueError):
    """An `init` option a ruleset cannot lay a campaign out with (the GM's input, said plainly)."""


def detect_ruleset(raw: dict[str, RawTab]) -> str:
    """The ruleset a workbook names in its Game tab (`ruleset` key), else Sengoku Jidai."""
    for title, tab in raw.items():
        if title.strip().casefold() != "game":
            continue
        for _, cells in tab.rows:
            if cells and str(cells[0] or "").strip().casefold() == "ruleset" and len(cells) > 1:
                value = str(cells[1] or "").strip().casefold()
                return value or "sengoku"
    return "sengoku"
