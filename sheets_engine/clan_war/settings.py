"""The Clan War Game tab: campaign settings as typed values (defaults live in the template Game tab)."""

from __future__ import annotations

import csv
import functools
import io
from importlib.resources import files

from pydantic import Field, ValidationError

from sheets_engine.clan_war.schema import Phase
from sheets_engine.core.cells import Count, Flag, Fraction, Text, enum_of
from sheets_engine.core.deadlines import Schedule
from sheets_engine.core.load import game_key_problems
from sheets_engine.core.problems import Problem
from sheets_engine.core.settings import DeadlineKeys
from sheets_engine.core.tables import GameState


class Settings(DeadlineKeys):
    """Every key of a Clan War Game tab."""

    ruleset: Text = "clan-war"
    campaign: Text
    turn: Count = Field(ge=1)
    phase: enum_of(Phase, Phase.START)  # type: ignore[valid-type]
    seed: Text
    last_resolved_turn: Count
    koku_per_province: Count
    starting_koku_per_province: Count
    max_non_unique: Count = Field(ge=1)
    routed_regroup: Fraction
    win_recovery: Fraction
    loss_recovery: Fraction
    ally_cost_percent: Count
    ally_share: Fraction
    entourage_share: Fraction
    experienced_share: Fraction = 0.75  # an Experienced unit keeps the trait while this share of its models are
    # the special rules' personalities and province, by name (a Catalogue item; a Provinces row)
    tattoo_master: Text = "Togashi Yokuni"
    togashi_province: Text = "Togashi"
    tattoos_per_unit: Count = 2
    reincarnating_personality: Text = "Shiba Ujimitsu"
    unique_item_bids: Flag = False  # the document's option: unique items are recruited through Bids as well
    naga_warned: Text = ""  # written by `check`: the Naga duty it last told of (so that it tells each once)
    broken_penalty: Count
    routed_penalty: Count
    # The turn's deadline keys are DeadlineKeys' (as in every ruleset): a cron run resolves the start of
    # a turn only once it has passed; without one, only a turn that has orders (or `resolve --force`).

    def schedule(self) -> Schedule:
        """The turn's deadline, the turn length and the cutoffs kept from earlier resolutions."""
        return self.schedule_of(self.turn)

    def rate(self, name: str) -> float:
        """A fraction setting (an empty cell reads as 0)."""
        value = getattr(self, name)
        return 0.0 if value is None else float(value)


def read_settings(state: GameState) -> Settings:
    """The Game tab as settings (the campaign has been validated)."""
    return Settings.model_validate(dict(state.frame("Game")["Value"].items()))


def settings_problems(state: GameState, problems: list[Problem]) -> Settings | None:
    """Read the settings; a missing or bad key adds a problem at its Game row."""
    values = dict(state.frame("Game")["Value"].items())
    try:
        settings = Settings.model_validate(values)
    except ValidationError as error:
        problems += game_key_problems(error, state, _defaults(), "sheets-engine init --ruleset clan-war")
        return None
    if settings.phase not in (Phase.START.value, Phase.BATTLE.value):
        problems.append(
            Problem(
                "Game",
                state.rows["Game"].get("phase"),
                "Value",
                settings.phase,
                "start or battle: a turn rests only before its start phase or while it waits for battle results",
            )
        )
    return settings


@functools.cache
def _defaults() -> dict[str, str]:
    text = (files("sheets_engine.clan_war") / "templates" / "Game.csv").read_text(encoding="utf-8")
    return {row["Key"]: row["Value"] for row in csv.DictReader(io.StringIO(text))}
