"""The Clan War campaign ruleset as the engine sees it: tabs, checks and the strategic turn."""

from __future__ import annotations

from importlib.resources import files

from sheets_engine.clan_war import form, phases, preview, validate
from sheets_engine.clan_war.schema import RESPONSES, TABS, Action, ItemKind, MovePhase, UnitStatus
from sheets_engine.clan_war.settings import read_settings
from sheets_engine.core.capabilities import FormQuestions, Intake, MapPicture, Reminders, ReportPages
from sheets_engine.core.registry import lazy
from sheets_engine.core.ruleset import Outcome, Ruleset
from sheets_engine.core.store import Choice
from sheets_engine.core.tables import GameState

REPORT, MAP, REMINDERS = (f"sheets_engine.clan_war.{m}" for m in ("report", "mapping", "reminders"))
NO_LAYOUT = "Clan War's map is laid out afresh from the Provinces' Adjacent roads: --save-layout is for Sengoku maps"

CHOICES: tuple[Choice, ...] = (
    Choice("Catalogue", ("Kind",), words=tuple(k.value for k in ItemKind)),
    Choice("Purchases", ("Action",), words=tuple(a.value for a in Action)),
    Choice("Purchases", ("Item",), source=("Catalogue", "Item")),
    Choice("Moves", ("Phase",), words=tuple(p.value for p in MovePhase)),
    Choice("Moves", ("To",), source=("Provinces", "Province")),
    Choice("Battle Results", ("Final Status",), words=tuple(s.value for s in UnitStatus)),
)


def recalc(state: GameState) -> Outcome:
    """Clan War has no derived columns: nothing to recompute."""
    settings = read_settings(state)
    return Outcome.unchanged(state, settings.turn, {"derived columns": 0}, step="recalc")


def build() -> Ruleset:
    """The ruleset record."""
    return Ruleset(
        name="clan-war",
        title="Clan War",
        tabs=TABS,
        templates=files("sheets_engine.clan_war") / "templates",
        seeded_tabs=("Game", "Catalogue"),
        check=validate.check,
        recalc=recalc,
        turn=phases.PLAN,
        choices=CHOICES,
        ledger_keys=phases.LEDGER_KEYS,
        preview=preview.preview,
        # what players see, each imported when a command uses it (a resolution pays for none of them)
        report=ReportPages(readers=lazy(REPORT, "readers"), content=lazy(REPORT, "content"), page=lazy(REPORT, "page")),
        picture=MapPicture(
            draw=lazy(MAP, "draw_view"),
            prepare=lazy(MAP, "prepare"),
            reader_problem=lazy(MAP, "reader_problem"),
            reader_name=lazy(MAP, "reader_name"),
            no_layout=NO_LAYOUT,
        ),
        reminders=Reminders(
            missing=lazy(REMINDERS, "without_orders"),
            audience="faction",
            group="faction",
            member="player",
            sentence=lazy(REMINDERS, "sentence"),
        ),
        form=FormQuestions(questions=form.QUESTIONS, choices=form.form_choices, notes=form.KEY_NOTES),
        intake=Intake(responses=RESPONSES, copy=phases.copy_answers),
    )
