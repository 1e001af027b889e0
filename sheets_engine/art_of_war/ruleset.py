"""The Art of War as the engine sees it: tabs, checks, recalc, the run, and the board made at `init`."""

from __future__ import annotations

import secrets
from datetime import datetime
from importlib.resources import files
from typing import Any

from sheets_engine.art_of_war import phases, preview, validate
from sheets_engine.art_of_war.model import PLAYED_TEMPERS, Ground, Kind, ground_row
from sheets_engine.art_of_war.schema import TABS
from sheets_engine.art_of_war.setup import BadOption, check_options, new_world
from sheets_engine.art_of_war.sheet import read_world, record_ledger, world_tabs
from sheets_engine.core.ruleset import Outcome, Ruleset, SetupError
from sheets_engine.core.store import Choice
from sheets_engine.core.tables import Draft, GameState

DEFAULTS = {"houses": 4, "people": 1, "temper": "steady"}
MAX_SEED = 1_000  # the seed is kept in a cell: a longer one would be cut there and no longer remake the board


def recalc(state: GameState) -> Outcome:
    """Recompute every house's Mandate (the Game keys as they stand)."""
    world, _ = read_world(state)
    draft = Draft(state)
    record_ledger(draft, world, "recalc")
    changed = len({c.key for c in draft.changes})
    return Outcome(draft.finish(), draft.changes, dict(draft.logs), world.season, {"rows changed": changed},
                   step="recalc")  # fmt: skip


def resolve(state: GameState, now: datetime, force: bool = False) -> Outcome:
    """Play on from the house to move (see art_of_war.phases)."""
    return phases.resolve(state, now, force)


def template_grounds(tabs: dict[str, list[list[Any]]]) -> dict[str, Ground]:
    """The Terrain template's rows as the rules read them."""
    header, *rows = tabs["Terrain"]
    records = [dict(zip(header, row, strict=False)) for row in rows]
    return {str(r["Terrain"]).casefold(): ground_row(r["Terrain"], r["Cost"], r["Cover"], r["Raises"]) for r in records}


def setup(tabs: dict[str, list[list[Any]]], options: dict[str, Any], demo: bool) -> dict[str, list[list[Any]]]:
    """A new campaign's board from --houses, --people, --temper and --seed (a fresh seed when none is given,
    kept in the Game tab so the board can be made again)."""
    if demo:
        raise SetupError("--demo: The Art of War has no demo campaign; the board is made from --seed")
    chosen = {**DEFAULTS, **options}
    try:
        temper, people = check_options(int(chosen["houses"]), chosen["people"], str(chosen["temper"]))
    except BadOption as error:
        raise SetupError(str(error)) from error
    seed = str(chosen.get("seed") or "").strip() or f"fresh {secrets.token_hex(4)}"
    if len(seed) > MAX_SEED:
        raise SetupError(
            f"--seed: {len(seed):,} characters; a seed is at most {MAX_SEED:,} (it is kept in the Game tab to remake "
            "the board)"
        )
    world = new_world(template_grounds(tabs), int(chosen["houses"]), people, temper, seed)
    return world_tabs(world, tabs, seed)


CHOICES: tuple[Choice, ...] = (
    Choice("Board", ("Terrain",), source=("Terrain", "Terrain")),
    Choice("Pieces", ("Kind",), words=tuple(k.value for k in Kind)),
    Choice("Houses", ("Capital Raises",), words=tuple(k.value for k in Kind)),
    Choice("Houses", ("Temper",), words=tuple(t.value for t in PLAYED_TEMPERS)),
    Choice("Orders", ("Order",), words=("raise", "march")),
    Choice("Orders", ("Capital Raises",), words=tuple(k.value for k in Kind)),
)


def build() -> Ruleset:
    """The ruleset record."""
    return Ruleset(
        name="art-of-war",
        title="Art of War",  # "the Art of War ruleset", as the engine's messages put it
        tabs=TABS,
        templates=files("sheets_engine.art_of_war") / "templates",
        seeded_tabs=("Game", "Terrain"),
        check=validate.check,
        recalc=recalc,
        resolve=resolve,
        choices=CHOICES,
        ledger_keys=("season", "last_resolved_season"),
        init_options=("houses", "people", "temper", "seed"),
        setup=setup,
        preview=preview.preview,
    )
