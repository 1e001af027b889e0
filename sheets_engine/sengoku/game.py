"""The Game tab: campaign settings as typed values, and the turn calendar."""

from __future__ import annotations

import csv
import functools
import io
from datetime import datetime
from importlib.resources import files
from typing import Annotated

from pydantic import BeforeValidator, Field, ValidationError, field_validator, model_validator

from sheets_engine.core.cells import Count, Text, Whole, split_names
from sheets_engine.core.deadlines import Schedule
from sheets_engine.core.load import game_key_problems
from sheets_engine.core.problems import Problem
from sheets_engine.core.settings import DeadlineKeys
from sheets_engine.core.tables import GameState

TIME_FORMAT = "%Y-%m-%d %H:%M:%S"  # last_resolved_at, UTC
MAX_WAIT_HOURS = 8_760  # min_hours_between_turns: a year; more is a typo that would stop the campaign
LAST_YEAR = 9_000  # last_resolved_at later than this leaves no room for the wait (datetime ends at 9999)


def _engine_time(value: object) -> str:
    """The engine's own UTC time as text: a date a GM retyped comes back as a datetime; text stays
    as typed, for the strict check below (a locale's 01/12/2026 is not guessed at)."""
    if isinstance(value, datetime):
        return value.strftime(TIME_FORMAT)
    return "" if value is None else str(value).strip()


EngineTime = Annotated[str, BeforeValidator(_engine_time)]


class GameSettings(DeadlineKeys):
    """Every key of the Game tab. Defaults live in the template Game tab, not here."""

    ruleset: Text = "sengoku"
    campaign: Text
    turn: Count = Field(ge=1)
    turns_per_year: Count = Field(ge=1)
    winter_turn: Count = Field(ge=1)
    seed: Text
    last_resolved_turn: Count
    shogun_clan: Text
    tech_point_cost: Count = Field(ge=1)
    character_cap: Count
    character_cap_shogun: Count
    hire_samurai_cost: Count
    rally_samurai_cost: Count
    rally_samurai_max: Count
    building_slots: Count
    building_slots_dev3: Count
    tech_titles: Text
    default_levy_unit: Text
    min_hours_between_turns: Count = Field(le=MAX_WAIT_HOURS)
    last_resolved_at: EngineTime  # written as text; a GM's retyped date comes back as a date
    execute_threshold: Count
    execute_authority_cap: Count
    flee_threshold: Whole
    flee_modifier: Whole
    flee_threshold_min: Count
    flee_threshold_max: Count
    exile_hops: Count
    shogun_margin_percent: Count
    samurai_pool_divisor: Count = Field(ge=1)
    samurai_pool_cap: Count
    samurai_pool_cap_piety5: Count
    piety5_level: Count
    retreat_loss_percent: Count = Field(le=100)
    leader_death_casualties: Count = Field(le=100)
    leader_death_chance_min: Count = Field(le=100)
    leader_death_chance_max: Count = Field(le=100)
    garrison_capacity: Annotated[list[Count], BeforeValidator(split_names)]
    garrison_unlimited_piety: Count
    siege_timer: Count = Field(ge=1)
    siege_timer_piety5: Count = Field(ge=1)
    hostile_presence_death_chance: Count = Field(le=100)
    # Deadlines (issue 14): DeadlineKeys', optional so that a workbook from before them keeps today's behaviour.
    reminded_turn: Count = 0  # written by `remind`: the last turn whose players were reminded
    # The linked Google Form (issue 17); optional: `form sync` writes them when it first links the Form.
    form_id: Text = ""
    form_character_item: Text = ""
    form_order_item: Text = ""
    form_target_item: Text = ""

    def schedule(self) -> Schedule:
        """The turn's deadline, the turn length and the cutoffs kept from earlier resolutions."""
        return self.schedule_of(self.turn)

    @field_validator("last_resolved_at")
    @classmethod
    def _a_time(cls, value: str) -> str:
        # text a GM's locale shows ("01/12/2026 08:00") would make every resolve a quiet no-op
        if not value:
            return value
        try:
            moment = datetime.strptime(value, TIME_FORMAT)
        except ValueError:
            raise ValueError(
                "a UTC time written as YYYY-MM-DD HH:MM:SS, as the engine writes it (or an empty cell: "
                "the next resolve is then due at once)"
            ) from None
        if moment.year > LAST_YEAR:
            raise ValueError(
                f"a UTC time before the year {LAST_YEAR + 1} (the engine writes the time of each resolution)"
            )
        return value

    @model_validator(mode="after")
    def _winter_in_year(self) -> GameSettings:
        if self.winter_turn > self.turns_per_year:
            raise ValueError("winter_turn must be a turn of the year (at most turns_per_year)")
        return self

    @property
    def titles_for_tech(self) -> set[str]:
        """Titles that may spend tech points."""
        return {t.strip().casefold() for t in self.tech_titles.split(",") if t.strip()}

    def year(self, turn: int) -> int:
        """The year a turn falls in (1-based)."""
        return (turn - 1) // self.turns_per_year + 1

    def turn_of_year(self, turn: int) -> int:
        """The turn's place in its year (1-based)."""
        return (turn - 1) % self.turns_per_year + 1

    def is_winter(self, turn: int) -> bool:
        """Winter: ((turn - 1) mod turns_per_year) + 1 = winter_turn."""
        return self.turn_of_year(turn) == self.winter_turn


def read_settings(state: GameState) -> GameSettings:
    """The Game tab as settings (the campaign has been validated)."""
    values = dict(state.frame("Game")["Value"].items())
    return GameSettings.model_validate(values)


def settings_problems(state: GameState, problems: list[Problem]) -> GameSettings | None:
    """Read the settings; a missing or bad key adds a problem at its Game row."""
    values = dict(state.frame("Game")["Value"].items())
    try:
        return GameSettings.model_validate(values)
    except ValidationError as error:
        problems += game_key_problems(error, state, _template_defaults(), "sheets-engine init")
        return None


@functools.cache
def _template_defaults() -> dict[str, str]:
    text = (files("sheets_engine.sengoku") / "templates" / "Game.csv").read_text(encoding="utf-8")
    return {row["Key"]: row["Value"] for row in csv.DictReader(io.StringIO(text))}
