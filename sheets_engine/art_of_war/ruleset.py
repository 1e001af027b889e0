"""The Art of War as the engine sees it: tabs, checks, recalc, the run, and the board made at `init`."""

from __future__ import annotations

import secrets
from importlib.resources import files
from typing import Any

from sheets_engine.art_of_war import ENTRY, phases, preview, validate
from sheets_engine.art_of_war.model import PLAYED_TEMPERS, Ground, Kind, ground_row
from sheets_engine.art_of_war.schema import TABS
from sheets_engine.art_of_war.setup import BadOption, check_options, new_world
from sheets_engine.art_of_war.sheet import read_world, record_ledger, world_tabs
from sheets_engine.core.capabilities import Intake, MapPicture, ReportPages
from sheets_engine.core.problems import Problem
from sheets_engine.core.registry import lazy
from sheets_engine.core.ruleset import Outcome, Ruleset, SetupError
from sheets_engine.core.settings import deadline_problems
from sheets_engine.core.store import Choice
from sheets_engine.core.tables import Draft, GameState

DEFAULTS = {"houses": 4, "people": 1, "temper": "steady"}
HEXMAP = "sheets_engine.art_of_war.hexmap"
BOARD, BOARD_PAGE = "sheets_engine.art_of_war.board", "sheets_engine.art_of_war.boardpage"
NO_LAYOUT = "The Art of War's hexes stand where their q,r put them: --save-layout is for Sengoku maps"
MAX_SEED = 1_000  # the seed is kept in a cell: a longer one would be cut there and no longer remake the board


def recalc(state: GameState) -> Outcome:
    """Recompute every house's Mandate (the Game keys as they stand)."""
    world, _ = read_world(state)
    draft = Draft(state)
    record_ledger(draft, world, "recalc", phases.read_ledger(state))
    changed = len({c.key for c in draft.changes})
    return Outcome.of(draft, world.season, {"rows changed": changed}, step="recalc")


def check(state: GameState) -> list[Problem]:
    """Every check across the tabs, and the deadline keys (optional: read as in every ruleset)."""
    return validate.check(state) + deadline_problems(state, {}, "sheets-engine init --ruleset art-of-war")


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
        check=check,
        recalc=recalc,
        turn=phases.PLAN,
        choices=CHOICES,
        ledger_keys=phases.LEDGER_KEYS,
        init_options=tuple(option.name for option in ENTRY.init_options),
        setup=setup,
        preview=preview.preview,
        picture=MapPicture(  # the picture imported when `map` draws it
            draw=lazy(HEXMAP, "draw_view"), reader_problem=lazy(HEXMAP, "reader_problem"), no_layout=NO_LAYOUT, logs=()
        ),
        intake=Intake(responses="Form Responses 1", copy=phases.copy_answers),
        report=ReportPages(  # each house's board page and the GMs', imported when `report` writes them
            readers=lazy(BOARD, "readers"),
            content=lazy(BOARD, "content"),
            page=lazy(BOARD_PAGE, "page"),
            logs=("Notifications",),
        ),
    )
