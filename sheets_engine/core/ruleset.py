"""Rulesets: each is its own tabs, checks, recalculation and turn resolution.

The engine around them (stores, validation of cells, History, the CLI) is shared. A workbook
names its ruleset in the Game tab's `ruleset` key (none: the registry's default). Core knows no
ruleset: the registry is sheets_engine.rulesets.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from importlib.resources.abc import Traversable
from typing import TYPE_CHECKING, Any

from sheets_engine.core import turn as skeleton
from sheets_engine.core.capabilities import FormQuestions, Intake, MapPicture, Preview, Reminders, ReportPages
from sheets_engine.core.lifecycle import Outcome as Outcome  # where every caller of a ruleset finds it
from sheets_engine.core.problems import Problem
from sheets_engine.core.store import Choice
from sheets_engine.core.tables import GameState, TabSpec

if TYPE_CHECKING:
    from sheets_engine.core.store import RawTab


@dataclass(frozen=True)
class Ruleset:
    """One game's rules on the shared engine."""

    name: str
    title: str
    tabs: tuple[TabSpec, ...]
    templates: Traversable  # the package folder of the tabs' template CSVs (importlib.resources)
    check: Callable[[GameState], list[Problem]]
    recalc: Callable[[GameState], Outcome]
    turn: skeleton.TurnPlan[Any]  # its parts of the turn skeleton (core.turn): the ledger, the steps, the pauses
    seeded_tabs: tuple[str, ...] = ()  # tabs whose template must hold rows (the data tables)
    choices: tuple[Choice, ...] = ()  # what the dropdowns of its closed columns offer
    ledger_keys: tuple[str, str] = ("turn", "last_resolved_turn")  # Game keys: next period, last resolved
    # `init` options this ruleset takes (e.g. houses, seed), and the function that lays out a new
    # campaign from the template tabs and those options (a generated board); None: the templates as they are.
    init_options: tuple[str, ...] = ()
    setup: Callable[[dict[str, list[list[Any]]], dict[str, Any], bool], dict[str, list[list[Any]]]] | None = None
    # Capabilities (core.capabilities), each the ruleset's own; None: the command says the ruleset has none.
    preview: Preview | None = None  # check: the previews of the pending orders, as an Outcome writing their Results
    report: ReportPages | None = None  # report: each reader's private page after a turn
    picture: MapPicture | None = None  # map: the campaign drawn (and the picture in each report)
    reminders: Reminders | None = None  # remind: who has not ordered yet
    form: FormQuestions | None = None  # form sync: the Google Form's dropdown questions
    intake: Intake | None = None  # how the Form's answers become order rows

    def resolve(self, state: GameState, now: datetime, force: bool = False, empty: bool = True) -> Outcome:
        """The next part of the campaign's turn, through the turn skeleton (core.turn); with `force` and not
        `empty`, a turn that would settle no order raises core.turn.EmptyTurn."""
        return skeleton.resolve_turn(self.turn, state, now, force, empty=empty)


class SetupError(ValueError):
    """An `init` option a ruleset cannot lay a campaign out with (the GM's input, said plainly)."""


def detect_ruleset(raw: dict[str, RawTab]) -> str:
    """The ruleset a workbook names in its Game tab (`ruleset` key); "" when it names none (the registry's default)."""
    for title, tab in raw.items():
        if title.strip().casefold() != "game":
            continue
        for _, cells in tab.rows:
            if cells and str(cells[0] or "").strip().casefold() == "ruleset" and len(cells) > 1:
                return str(cells[1] or "").strip().casefold()
    return ""
