"""The Sengoku Jidai ruleset as the engine sees it: tabs, checks, recalc, the turn, and what players see."""

from __future__ import annotations

from datetime import datetime
from importlib.resources import files

from sheets_engine.core.capabilities import FormQuestions, Intake, MapPicture, Reminders, ReportPages
from sheets_engine.core.dice import Dice
from sheets_engine.core.ruleset import Outcome, Ruleset
from sheets_engine.core.tables import Draft, GameState
from sheets_engine.sengoku import check, derived, form, mapping, phases, report, validate
from sheets_engine.sengoku.choices import CHOICES
from sheets_engine.sengoku.game import read_settings
from sheets_engine.sengoku.orders import copy_responses
from sheets_engine.sengoku.reminders import without_orders
from sheets_engine.sengoku.schema import TABS
from sheets_engine.sengoku.turn import Turn


def recalc(state: GameState) -> Outcome:
    """Recompute every derived column (guide Section 11)."""
    settings = read_settings(state)
    draft = Draft(state)
    derived.recalculate(draft, settings)
    changed = len({c.key for c in draft.changes})
    return Outcome.of(draft, settings.turn, {"provinces changed": changed}, step="recalc")


def copy_answers(draft: Draft, period: int, cutoff: datetime | None) -> int:
    """The Form's answers sent by the cutoff, copied into Orders as rows of the turn."""
    settings = read_settings(draft.state)
    return copy_responses(Turn(draft, settings, Dice(settings.seed, period), period, cutoff=cutoff))


def build() -> Ruleset:
    """The ruleset record."""
    return Ruleset(
        name="sengoku",
        title="Sengoku Jidai",
        tabs=TABS,
        templates=files("sheets_engine.sengoku") / "templates",
        seeded_tabs=("Game", "Buildings", "Units", "Terrain", "Tech", "Missions"),
        check=validate.check,
        recalc=recalc,
        turn=phases.PLAN,
        choices=CHOICES,
        ledger_keys=phases.LEDGER_KEYS,
        preview=check.check_turn,
        report=ReportPages(readers=report.readers, content=report.content, page=report.page, gm=report.GM),
        picture=MapPicture(
            draw=mapping.draw_view,
            prepare=mapping.prepare,
            reader_problem=mapping.reader_problem,
            layout=mapping.kept_layout,
        ),
        reminders=Reminders(missing=without_orders),
        form=FormQuestions(questions=form.QUESTIONS, choices=form.form_choices, notes=form.KEY_NOTES),
        intake=Intake(responses="Form Responses 1", copy=copy_answers),
    )
