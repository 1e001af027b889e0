"""Small Clan War campaigns for tests: the template Game and Catalogue tabs, a map of eight provinces,
and the rows a test gives."""

from __future__ import annotations

from typing import Any

from sheets_engine.clan_war.game import Turn
from sheets_engine.clan_war.settings import read_settings
from sheets_engine.clan_war.validate import check
from sheets_engine.core.dice import Dice
from sheets_engine.core.load import load_state
from sheets_engine.core.problems import Problem, Severity
from sheets_engine.core.tables import Draft, GameState
from sheets_engine.rulesets import get_ruleset
from sheets_engine.stores.memory import MemoryStore
from sheets_engine.templates import template_tabs
from tests.support import FixedDice

RULESET = get_ruleset("clan-war")

#   Temple - Pass - Kakita - Doji
#             |                |
#   Pit - Shiro - Kuni ----- Hida
_ROADS = {
    "Hida": "Kuni, Pass, Doji",
    "Kuni": "Hida, Shiro",
    "Shiro": "Kuni, Pit",
    "Pit": "Shiro",
    "Pass": "Hida, Kakita, Temple",
    "Kakita": "Pass, Doji",
    "Doji": "Kakita, Hida",
    "Temple": "Pass",
}
_HOLDERS = {"Hida": "Crab", "Kuni": "Crab", "Shiro": "Shadowlands", "Pit": "Shadowlands", "Kakita": "Crane",
            "Doji": "Crane", "Pass": "", "Temple": "Monk"}  # fmt: skip


def provinces(**holders: str) -> list[dict[str, Any]]:
    """The eight provinces, with controllers changed as given (Original Owner stays)."""
    rows = []
    for name, roads in _ROADS.items():
        owner = _HOLDERS[name]
        rows.append({"Province": name, "Controller": holders.get(name, owner), "Original Owner": owner,
                     "Adjacent": roads, "Library": name == "Kuni", "Terrain": "Plains"})  # fmt: skip
    return rows


def factions(**koku: int) -> list[dict[str, Any]]:
    """Crab, Crane, Shadowlands, Monk and Naga, 1000 koku each unless given."""
    rows = [
        {"Faction": "Crab", "Daimyo": "Hida Kisada"},
        {"Faction": "Crane", "Daimyo": "Doji Hoturi"},
        {"Faction": "Shadowlands", "Daimyo": "Yogo Junzo", "Special": "Shadowlands", "Corrupted": True},
        {"Faction": "Monk", "Daimyo": "Togashi Mitsu", "Special": "Monk"},
        {"Faction": "Naga", "Daimyo": "Shahadet", "Special": "Naga"},
    ]
    for row in rows:
        row["Koku"] = koku.get(row["Faction"], 1000)
    return rows


def unit(name: str, faction: str, item: str, province: str, models: int, leader: str = "", **values: Any) -> dict:
    """A Units row."""
    row = {"Unit": name, "Faction": faction, "Item": item, "Province": province, "Models": models, "Leader": leader,
           "ML": 5, "TL": 5, "Status": "Ready"}  # fmt: skip
    row.update({k.replace("_", " "): v for k, v in values.items()})
    return row


def person(name: str, faction: str, item: str, province: str, unit_: str = "", **values: Any) -> dict:
    """A Personalities row (rings 3, 4 wounds, 3 void, Command Limit 30 models, Leadership 1 unless given)."""
    row = {"Personality": name, "Faction": faction, "Item": item, "Province": province, "Unit": unit_,
           "Air": 3, "Earth": 3, "Fire": 3, "Water": 3, "Void": 3, "Wounds": 4, "Max Wounds": 4,
           "Void Points": 3, "Max Void": 3, "Status": "Ready", "Command Limit": 30, "Leadership": 1}  # fmt: skip
    row.update({k.replace("_", " "): v for k, v in values.items()})
    return row


def default_people() -> list[dict[str, Any]]:
    """The Crab and Crane Daimyos (the others' are added where a test leaves them out: see `tabs`)."""
    return [person("Hida Kisada", "Crab", "Hida Kisada", "Hida", Unique=True),
            person("Doji Hoturi", "Crane", "Doji Hoturi", "Doji", Unique=True)]  # fmt: skip


# Every faction must have a Daimyo: those a test does not place stay at home, away from its battles (the
# Naga hold no province of the small map: theirs waits at the Monks' Temple, where nobody fights them).
_HOMES = {"Yogo Junzo": ("Shadowlands", "Pit"), "Togashi Mitsu": ("Monk", "Temple"), "Shahadet": ("Naga", "Temple")}


def _with_daimyos(people: list[dict[str, Any]], factions_: list[dict[str, Any]]) -> list[dict[str, Any]]:
    named = {str(p.get("Personality")) for p in people}
    extra = []
    for row in factions_:
        daimyo = str(row.get("Daimyo") or "")
        if daimyo in _HOMES and daimyo not in named and _HOMES[daimyo][0] == row["Faction"]:
            faction, home = _HOMES[daimyo]
            extra.append(person(daimyo, faction, daimyo, home, Unique=True))
    return [*people, *extra]


def tabs(game: dict[str, Any] | None = None, **rows: list[dict[str, Any]]) -> dict[str, list[list[Any]]]:
    """Template tabs with the small world, Game overrides and whole tabs replaced by the given rows
    (tab names with spaces are passed with underscores: battle_results)."""
    laid = template_tabs(RULESET)
    given = {"provinces": provinces(), "factions": factions(), "personalities": default_people(), **rows}
    given["personalities"] = _with_daimyos(given["personalities"], given["factions"])
    if game:
        by_key = {r[0]: r for r in laid["Game"][1:]}
        for key, value in game.items():
            if key in by_key:
                by_key[key][1] = value
            else:
                laid["Game"].append([key, value, None])
    for name, records in given.items():
        tab = next(t for t in laid if t.replace(" ", "_").casefold() == name.casefold())
        header = laid[tab][0]
        laid[tab] = [header] + [[r.get(c) for c in header] for r in records]
    return laid


def problems(game: dict[str, Any] | None = None, **rows: list[dict[str, Any]]) -> list[Problem]:
    """Every problem of such a campaign."""
    loaded, found = load_state(MemoryStore(tabs(game, **rows)).read(), RULESET.tabs)
    return found + check(loaded)


def state(game: dict[str, Any] | None = None, **rows: list[dict[str, Any]]) -> GameState:
    """A validated GameState; fails the test if the campaign has errors."""
    loaded, found = load_state(MemoryStore(tabs(game, **rows)).read(), RULESET.tabs)
    found += check(loaded)
    errors = [str(p) for p in found if p.severity is Severity.ERROR]
    assert not errors, errors
    return loaded


class Fixed(FixedDice):
    """Chosen dice for every stream: a battle's or the recovery's rolls come from the same list, in order."""

    def stream(self, *names: str) -> Dice:
        """This same list of values (streams only separate seeded rolls)."""
        return self


def make_turn(game_state: GameState, rolls: list[int] | None = None) -> Turn:
    """A Turn over a fresh Draft; with `rolls`, the dice give exactly these values in order, in every stream."""
    settings = read_settings(game_state)
    dice: Dice = Fixed(rolls, settings.seed, settings.turn) if rolls is not None else Dice(settings.seed, 1)
    return Turn(Draft(game_state), settings, dice, settings.turn)


def cell(turn: Turn, tab: str, key: Any, column: str) -> Any:
    """One cell as the turn left it."""
    return turn.draft.get(tab, key, column)


def results(turn: Turn, tab: str) -> list[tuple[Any, Any]]:
    """(Status, Result) of every row of an order tab, in row order."""
    frame = turn.draft.frame(tab)
    return [(r["Status"], r["Result"]) for r in frame.to_dict("records")]


RESPONSE_HEADER = ["Timestamp", "Email Address", "Faction", "Order", "Item", "Count", "From", "Target", "Province",
                   "Ally OK", "Bid", "Mover", "To"]  # fmt: skip


def demo_tabs(game: dict[str, Any] | None = None, responses: list[dict[str, Any]] = ()) -> dict[str, list[list[Any]]]:
    """The Clan War demo's tabs, with Game keys changed or added and Form responses (dicts by question)."""
    laid = template_tabs(RULESET, demo=True)
    header = laid["Game"][0]
    by_key = {row[0]: row for row in laid["Game"][1:]}
    for key, value in (game or {}).items():
        if key in by_key:
            by_key[key][1] = value
        else:
            laid["Game"].append([key, value, ""][: len(header)])
    laid["Form Responses 1"] = [RESPONSE_HEADER] + [[r.get(c, "") for c in RESPONSE_HEADER] for r in responses]
    return laid
