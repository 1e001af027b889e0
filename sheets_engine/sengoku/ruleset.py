"""The Sengoku Jidai ruleset as the engine sees it: tabs, checks, recalc and the turn."""

from __future__ import annotations

from datetime import datetime
from importlib.resources import files

from sheets_engine.core.ruleset import Outcome, Ruleset
from sheets_engine.core.tables import Draft, GameState
from sheets_engine.sengoku import derived, phases, validate
from sheets_engine.sengoku.choices import CHOICES
from sheets_engine.sengoku.game import read_settings
from sheets_engine.sengoku.schema import TABS


def recalc(state: GameState) -> Outcome:
    """Recompute every derived column (guide Section 11)."""
    settings = read_settings(state)
    draft = Draft(state)
    derived.recalculate(draft, settings)
    changed = len({c.key for c in draft.changes})
    return Outcome(
        draft.finish(),
        draft.changes,
        dict(draft.logs),
        settings.turn,
        {"provinces changed": changed},
        step="recalc",
    )


def resolve(state: GameState, now: datetime, force: bool = False) -> Outcome:
    """Resolve one turn (see sengoku.turn)."""
    return phases.resolve_turn(state, now, force=force)


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
        resolve=resolve,
        choices=CHOICES,
    )
