"""Cross-reference checks of a typed Sengoku campaign: every name must exist, every rule hold.

Each check names tab, row (as the sheet shows it), column and the value found.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import pandas as pd

from sheets_engine.core.cells import split_names
from sheets_engine.core.names import expected_name
from sheets_engine.core.problems import Problem, Severity
from sheets_engine.core.tables import GameState, plain_records
from sheets_engine.sengoku.game import GameSettings, settings_problems
from sheets_engine.sengoku.orders import response_problems
from sheets_engine.sengoku.schema import (
    SLOT_COLUMNS,
    UNIT_COLUMNS,
    BuildingKind,
    Discipline,
    OrderStatus,
    OrderType,
)


def check(state: GameState) -> list[Problem]:
    """Every cross-reference problem in the campaign (type problems are found when loading)."""
    problems: list[Problem] = []
    settings = settings_problems(state, problems)
    problems += _clans(state)
    problems += _provinces(state, settings)
    problems += _alliances(state)
    problems += _data_tabs(state)
    problems += _armies(state)
    problems += _characters(state, settings)
    problems += _references(state)
    problems += _game_references(state)
    problems += _typed_orders(state, settings)
    problems += response_problems(state)
    return problems


def _typed_orders(state: GameState, settings: GameSettings | None) -> list[Problem]:
    """Pending Orders rows (a GM may type one) the next resolution would never read, or would read
    in a way the GM should know: no Turn, a turn resolved already, a later turn, no Submitted time."""
    if settings is None:
        return []  # the Game tab's turn is reported already
    c = _Checker(state, "Orders")
    orders = state.frame("Orders")
    no_turn = state.blanks.get("Orders", {}).get("Turn", frozenset())
    due = settings.turn  # the turn the next resolution resolves
    for key, row in zip(orders.index, plain_records(orders, ("Turn", "Submitted", "Status")), strict=True):
        if row["Status"] != OrderStatus.PENDING.value:
            continue  # settled: history
        number = row["Turn"]
        if key in no_turn or number == 0:
            c.add(key, "Turn", "" if key in no_turn else number,
                  f"the turn this order is for (the next to resolve is {due}): a Pending order with no turn "
                  "is never read")  # fmt: skip
        elif number < due:
            c.add(key, "Turn", number,
                  f"turn {due} or later: turn {number} is resolved already, so this Pending order would never be "
                  f"read (type {due} for the next turn, or clear the row)")  # fmt: skip
        elif number > due:
            c.add(key, "Turn", number,
                  f"an order for a later turn: the next to resolve is {due}; this one waits until turn {number} "
                  "is resolved", warning=True)  # fmt: skip
        elif not row["Submitted"]:
            c.add(key, "Submitted", "",
                  "the time the order was given, such as 2026-11-28 21:10; empty, it counts as the latest order "
                  "of its turn (after every one with a time)", warning=True)  # fmt: skip
    return c.problems


def _game_references(state: GameState) -> list[Problem]:
    """Game values that name a row of another tab: the Shogun's clan, the default levy unit."""
    c = _Checker(state, "Game")
    game = state.frame("Game")
    for key, target, allow_empty in (("shogun_clan", "Clans", True), ("default_levy_unit", "Units", False)):
        if key not in game.index:
            continue  # reported as a missing key
        value = game.at[key, "Value"]
        known = set(state.rows[target])
        if (value or not allow_empty) and value not in known:
            c.add(key, "Value", value, expected_name(target, value, known))
    return c.problems


class _Checker:
    """Finds rows whose cell does not name a row of another tab."""

    def __init__(self, state: GameState, tab: str) -> None:
        self.state = state
        self.tab = tab
        self.rows = state.rows[tab]
        self.problems: list[Problem] = []

    def row(self, key: Hashable) -> int:
        return self.rows[key]

    def add(self, key: Hashable, column: str, value: Any, expected: str, warning: bool = False) -> None:
        severity = Severity.WARNING if warning else Severity.ERROR
        self.problems.append(Problem(self.tab, self.row(key), column, value, expected, severity))

    def names(self, column: str, target: str, allow_empty: bool = True) -> None:
        frame = self.state.frame(self.tab)
        # membership in a set of the names, row by row: an index union and a pandas isin for each
        # column checked cost more than the check (26 columns, some 8 ms a run); the union, in its
        # order, is built only for the message when a name is unknown
        names = {*self.state.frame(target).index, *self.state.rows[target]}
        known = None
        for key, value in zip(frame.index.tolist(), frame[column].tolist(), strict=True):
            if value in names or (allow_empty and value == ""):
                continue
            if known is None:
                known = self.state.frame(target).index.union(pd.Index(list(self.state.rows[target]), dtype="object"))
            self.add(key, column, value, expected_name(target, value, known))


def _clans(state: GameState) -> list[Problem]:
    c = _Checker(state, "Clans")
    c.names("Capital", "Provinces")
    return c.problems


def _provinces(state: GameState, settings: GameSettings | None) -> list[Problem]:
    c = _Checker(state, "Provinces")
    provinces = state.frame("Provinces")
    buildings = state.frame("Buildings")
    clans = state.frame("Clans")
    c.names("Terrain", "Terrain", allow_empty=False)
    c.names("Province Owner", "Clans")
    c.names("Controlled By", "Clans")
    names = set(state.rows["Provinces"])  # with rows that have a bad cell: named, not checked
    neighbours = {p: split_names(a) for p, a in provinces["Adjacent"].items()}
    for province, adjacent in neighbours.items():
        for other in adjacent:
            if other == province:
                c.add(
                    province,
                    "Adjacent",
                    other,
                    "other provinces (a province is not adjacent to itself)",
                )
            elif other not in names:
                c.add(province, "Adjacent", other, expected_name("Provinces", other, names))
            elif other in neighbours and province not in neighbours[other]:
                c.add(
                    province,
                    "Adjacent",
                    other,
                    f"a two-way link: {other}'s Adjacent must list {province}",
                )
    for column in SLOT_COLUMNS:
        c.names(column, "Buildings")
    slots, dev3 = (settings.building_slots, settings.building_slots_dev3) if settings else (4, 5)
    development_of = dict(zip(clans.index, clans["Development"], strict=True))
    # a clan row with a bad cell is reported already: do not guess its slots
    unreadable = set(state.rows["Clans"]) - set(clans.index)
    kinds = dict(zip(buildings.index, zip(buildings["Kind"], buildings["Resource"], strict=True), strict=True))
    read = ("Province", "Type", "Resource", "Province Owner", "Controlled By", "Fortress Level", *SLOT_COLUMNS)
    for row in plain_records(provinces, read):  # plain dicts, not iterrows: this runs for every province
        province = row["Province"]
        clan = row["Controlled By"] or row["Province Owner"]
        allowed = dev3 if development_of.get(clan, 0) >= 3 or clan in unreadable else slots
        seen: set[str] = set()
        for number, column in enumerate(SLOT_COLUMNS, start=1):
            name = row[column]
            if not name:
                continue
            if number > allowed:
                # a warning, not an error: capture or Winter consolidation hands a province built to a
                # Development 3 clan's five slots to a clan with four, and the building stays (RULES.md)
                c.add(
                    province,
                    column,
                    name,
                    f"an empty slot: {province} has {allowed} slots (a fifth needs Development 3); a building "
                    "beyond them stays and works, and nothing more is built there while the slots are full",
                    warning=True,
                )
            if name in seen:
                c.add(province, column, name, "each building at most once in a province")
            seen.add(name)
            if name not in kinds:
                continue
            kind, resource = kinds[name]
            if kind == BuildingKind.CITY.value and row["Type"] != "City":
                c.add(
                    province,
                    column,
                    name,
                    f"a building that fits: {name} is a City building and {province} is {row['Type']}",
                )
            if kind == BuildingKind.RGO.value and row["Resource"] != resource:
                have = row["Resource"] or "none"
                c.add(
                    province,
                    column,
                    name,
                    f"a building that fits: {name} needs the resource {resource}, {province} has {have}",
                )
        has_fortress = "Fortress" in seen
        level = row["Fortress Level"]
        if has_fortress and level == 0:
            c.add(province, "Fortress Level", level, "1 to 4 where a Fortress stands")
        if level > 0 and not has_fortress and "Fortress" in kinds:
            c.add(province, "Fortress Level", level, "0 where no Fortress building stands")
    return c.problems


def _alliances(state: GameState) -> list[Problem]:
    c = _Checker(state, "Alliances")
    c.names("Clan", "Clans", allow_empty=False)
    c.names("Ally", "Clans", allow_empty=False)
    seen: dict[tuple[str, str], int] = {}
    alliances = state.frame("Alliances")
    for key, pair in zip(alliances.index, zip(alliances["Clan"], alliances["Ally"], strict=True), strict=True):
        if pair[0] == pair[1]:
            c.add(key, "Ally", pair[1], "another clan (a clan cannot declare itself its ally)")
        elif pair in seen:
            c.add(key, "Ally", pair[1], f"one row per declaration; row {seen[pair]} has it already")
        seen.setdefault(pair, c.row(key))
    return c.problems


def _data_tabs(state: GameState) -> list[Problem]:
    problems: list[Problem] = []
    b = _Checker(state, "Buildings")
    b.names("Levy Unit", "Units")
    for key, row in state.frame("Buildings").iterrows():
        if row["Kind"] == BuildingKind.RGO.value and not row["Resource"]:
            b.add(key, "Resource", "", "the resource an RGO building needs")
    u = _Checker(state, "Units")
    for key, column in state.frame("Units")["Army Column"].items():
        if column not in UNIT_COLUMNS:
            u.add(
                key,
                "Army Column",
                column,
                "one of the Armies unit columns: " + ", ".join(UNIT_COLUMNS),
            )
    t = _Checker(state, "Tech")
    seen: dict[tuple[str, int], int] = {}
    for key, row in state.frame("Tech").iterrows():
        pair = (row["Discipline"], row["Level"])
        if pair in seen:
            t.add(key, "Level", row["Level"], f"one row per level; row {seen[pair]} has it already")
        seen.setdefault(pair, t.row(key))
    every_row_read = len(state.rows["Tech"]) == len(state.frame("Tech"))  # else a missing row may be unreadable
    for discipline in (Discipline.WARFARE.value, Discipline.LEARNING.value):
        if (discipline, 0) not in seen and state.rows["Tech"] and every_row_read:
            problems.append(Problem("Tech", None, "Level", "", f"a {discipline} row for level 0"))
    m = _Checker(state, "Missions")
    known = {o.value for o in OrderType}
    for key in state.frame("Missions").index:
        if key not in known:
            m.add(key, "Order", key, "an order the engine knows: " + ", ".join(sorted(known)))
    return problems + b.problems + u.problems + t.problems + m.problems


def _armies(state: GameState) -> list[Problem]:
    c = _Checker(state, "Armies")
    c.names("Clan", "Clans", allow_empty=False)
    c.names("Province", "Provinces", allow_empty=False)
    c.names("Origin", "Provinces")
    c.names("Leader", "Characters")
    characters = state.frame("Characters")
    # each character's Status and Clan by name (a .at lookup a led army cost 15 microseconds)
    who = dict(zip(characters.index, zip(characters["Status"], characters["Clan"], strict=True), strict=True))
    led: dict[str, Hashable] = {}
    armies = state.frame("Armies")
    for army, row in zip(armies.index, plain_records(armies, ("Leader", "Clan")), strict=True):
        leader = row["Leader"]
        if not leader or leader not in who:
            continue
        status, clan = who[leader]
        if status == "Dead":
            c.add(army, "Leader", leader, "a living character (this one is Dead)")
        elif clan != row["Clan"]:
            c.add(army, "Leader", leader, f"a character of the {row['Clan']} clan")
        if leader in led:
            c.add(
                army,
                "Leader",
                leader,
                f"a character who leads no other army (it leads {led[leader]})",
            )
        led.setdefault(leader, army)
    return c.problems


def _characters(state: GameState, settings: GameSettings | None) -> list[Problem]:
    c = _Checker(state, "Characters")
    c.names("Clan", "Clans")
    c.names("Location", "Provinces")
    characters = state.frame("Characters")
    emails: dict[str, Hashable] = {}
    for name, given in zip(characters.index, characters["Email"].tolist(), strict=True):
        email = given.casefold()
        if email and "@" not in email:
            c.add(name, "Email", given, "an email address (the one the order form collects)")
        if email and email in emails:
            c.add(
                name,
                "Email",
                given,
                f"one character per email address ({emails[email]} has it)",
            )
        emails.setdefault(email, name)
    alive = characters[characters["Status"] == "Alive"]
    daimyos = alive[alive["Title"] == "Daimyo"]
    by_clan: dict[str, list[Hashable]] = {}  # as groupby("Clan"): clans in sorted order, names in row order
    for name, clan in zip(daimyos.index, daimyos["Clan"], strict=True):
        by_clan.setdefault(clan, []).append(name)
    for clan in sorted(by_clan):
        first, *others = by_clan[clan]
        for name in others:
            c.add(name, "Title", "Daimyo", f"one Daimyo per clan ({first} is the {clan} Daimyo)")
    if settings is not None:
        counts = alive[alive["Clan"] != ""].groupby("Clan").size()
        for clan, count in counts.items():
            cap = settings.character_cap_shogun if clan == settings.shogun_clan else settings.character_cap
            if count > cap:
                last = alive[alive["Clan"] == clan].index[-1]
                c.add(
                    last,
                    "Clan",
                    clan,
                    f"at most {cap} living characters in a clan ({clan} has {count})",
                    warning=True,
                )
    return c.problems


def _references(state: GameState) -> list[Problem]:
    problems = []
    for tab, column, target in (
        ("Relations", "Clan A", "Clans"),
        ("Relations", "Clan B", "Clans"),
        ("Sieges", "Province", "Provinces"),
        ("Sieges", "Besieger", "Clans"),
        ("Sieges", "Defender", "Clans"),
        ("Tech Choices", "Clan", "Clans"),
        ("Letters", "From", "Characters"),
        ("Letters", "To Clan", "Clans"),
    ):
        c = _Checker(state, tab)
        c.names(column, target, allow_empty=False)
        problems += c.problems
    return problems
