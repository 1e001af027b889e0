"""The Sengoku Jidai ruleset as the engine sees it: tabs, checks, recalc, the turn, and what players see."""

from __future__ import annotations

from datetime import datetime
from importlib.resources import files

from sheets_engine.core.capabilities import FormQuestions, Intake, MapPicture, Reminders, ReportPages
from sheets_engine.core.dice import Dice
from sheets_engine.core.registry import lazy
from sheets_engine.core.ruleset import Outcome, Ruleset
from sheets_engine.core.tables import Draft, GameState
from sheets_engine.sengoku import derived, form, phases, validate
from sheets_engine.sengoku.choices import CHOICES
from sheets_engine.sengoku.game import read_settings
from sheets_engine.sengoku.orders import copy_responses
from sheets_engine.sengoku.schema import TABS
from sheets_engine.sengoku.turn import Turn

CHECK, REPORT, MAP, FORM = (f"sheets_engine.sengoku.{m}" for m in ("check", "report", "mapping", "form"))


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
        # what players see, each imported when a command uses it (a resolution pays for none of them)
        preview=lazy(CHECK, "check_turn"),
        report=ReportPages(readers=lazy(REPORT, "readers"), content=lazy(REPORT, "content"), page=lazy(REPORT, "page")),
        picture=MapPicture(
            draw=lazy(MAP, "draw_view"),
            svg=lazy(MAP, "svg_view"),
            prepare=lazy(MAP, "prepare"),
            reader_problem=lazy(MAP, "reader_problem"),
            reader_name=lazy(MAP, "reader_name"),
            layout=lazy(MAP, "kept_layout"),
        ),
        reminders=Reminders(missing=lazy("sheets_engine.sengoku.reminders", "without_orders")),
        form=FormQuestions(questions=form.QUESTIONS, choices=lazy(FORM, "form_choices"), notes=form.KEY_NOTES),
        intake=Intake(responses="Form Responses 1", copy=copy_answers),
    )
