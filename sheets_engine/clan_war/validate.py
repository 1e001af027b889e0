"""Cross-tab checks of a typed Clan War campaign: every name must exist, the map must be symmetric.

Each problem names tab, row (as the sheet shows it), column and the value found. Type problems
(a bad number, a word not in a closed set) are found when the tabs are loaded.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import Any

from sheets_engine.clan_war import battles, naga, results
from sheets_engine.clan_war.alliances import broken_by_the_gm
from sheets_engine.clan_war.bids import BID_KINDS
from sheets_engine.clan_war.game import Turn
from sheets_engine.clan_war.intake import has_form_tab, response_problems
from sheets_engine.clan_war.koku import parse_costs
from sheets_engine.clan_war.schema import ITEMLESS, NEUTRAL, RESPONSES, ItemKind, PersonalityStatus, Phase
from sheets_engine.clan_war.settings import Settings, settings_problems
from sheets_engine.core.cells import split_names
from sheets_engine.core.dice import Dice
from sheets_engine.core.names import expected_name
from sheets_engine.core.problems import Problem, Severity
from sheets_engine.core.tables import Draft, GameState


class _Tab:
    """The problems of one tab, each at its sheet row."""

    def __init__(self, state: GameState, tab: str, problems: list[Problem]) -> None:
        self.state, self.tab, self.problems = state, tab, problems
        self.frame = state.frame(tab)
        self.rows = state.rows[tab]

    def add(self, key: Hashable, column: str, value: Any, expected: str) -> None:
        self.problems.append(Problem(self.tab, self.rows.get(key), column, value, expected))

    def names(self, column: str, target: str, allow_empty: bool = True, extra: Iterable[str] = ()) -> None:
        known = set(self.state.rows[target]) | set(extra)
        for key, value in self.frame[column].items():
            if value == "" and allow_empty:
                continue
            if value not in known:
                self.add(key, column, value, expected_name(target, value, known))

    def kinds(self, column: str, kinds: tuple[ItemKind, ...], allow_empty: bool = False, listed: bool = False) -> None:
        """Each cell names a Catalogue item of one of the kinds (with `listed`, each of its comma-separated names)."""
        catalogue = self.state.frame("Catalogue")
        words = ", ".join(k.value for k in kinds)
        for key, cell in self.frame[column].items():
            for value in split_names(str(cell)) if listed else [cell]:
                if value == "" and allow_empty:
                    continue
                if value not in catalogue.index:
                    self.add(key, column, value, expected_name("Catalogue", value, catalogue.index))
                elif catalogue.at[value, "Kind"] not in {k.value for k in kinds}:
                    kind = catalogue.at[value, "Kind"]
                    self.add(key, column, value, f"a Catalogue item of kind {words} (it is a {kind})")


def check(state: GameState) -> list[Problem]:
    """Every cross-reference problem in the campaign."""
    problems: list[Problem] = []
    settings = settings_problems(state, problems)
    _provinces(state, problems)
    factions = _Tab(state, "Factions", problems)
    factions.names("Daimyo", "Personalities")  # an empty cell: below
    for key, costs in factions.frame["Ally Costs"].items():
        for part in parse_costs(str(costs))[1]:
            factions.add(key, "Ally Costs", part, "a clan and its cost modifier, as 'Phoenix 120%', comma-separated")
    people_frame = state.frame("Personalities")
    for key, daimyo in factions.frame["Daimyo"].items():
        if daimyo == "":
            factions.add(key, "Daimyo", daimyo, f"a personality of {key}: you must pick a Daimyo for your clan")
        elif daimyo in people_frame.index and people_frame.at[daimyo, "Faction"] != key:
            factions.add(key, "Daimyo", daimyo, f"a personality of {key} (the Daimyo leads the faction's clan)")
        elif daimyo in people_frame.index and people_frame.at[daimyo, "Status"] == PersonalityStatus.DEAD.value:
            problems.append(
                Problem(
                    "Factions",
                    factions.rows.get(key),
                    "Daimyo",
                    daimyo,
                    f"a living personality of {key}: {daimyo} is Dead, so the faction names a new Daimyo",
                    Severity.WARNING,
                )
            )
    movers = set(state.rows["Units"]) | set(state.rows["Personalities"])
    catalogue = _Tab(state, "Catalogue", problems)
    catalogue.names("Experienced Of", "Catalogue")
    for key, clan in catalogue.frame["Clan"].items():
        if clan == "":
            catalogue.add(key, "Clan", clan, "the clan the item belongs to, or Unaligned")
    units = _Tab(state, "Units", problems)
    units.names("Faction", "Factions", allow_empty=False)
    units.kinds("Item", (ItemKind.UNIT, ItemKind.COMMAND_GROUP))
    units.names("Province", "Provinces", allow_empty=False)
    units.names("From Ally", "Factions")
    _leaders(state, units)
    units.kinds("Package", (ItemKind.LEADERSHIP_PACKAGE,), allow_empty=True)
    units.kinds("Tattoos", (ItemKind.TATTOO,), listed=True)
    for key, row in units.frame.iterrows():
        if row["Experienced Models"] is not None and row["Experienced Models"] > row["Models"]:
            units.add(key, "Experienced Models", row["Experienced Models"], f"at most its Models ({row['Models']})")
    people = _Tab(state, "Personalities", problems)
    people.names("Faction", "Factions", allow_empty=False)
    people.kinds("Item", (ItemKind.PERSONALITY,))
    people.names("Province", "Provinces", allow_empty=False)
    people.names("Unit", "Units")
    people.names("From Ally", "Factions")
    carried = (ItemKind.SPECIAL_ITEM, ItemKind.SPELL, ItemKind.EQUIPMENT, ItemKind.TATTOO)
    people.kinds("Items", carried, listed=True)
    people.kinds("Profile", (ItemKind.PERSONALITY,), allow_empty=True)
    for key, row in people.frame.iterrows():
        if row["Wounds"] > row["Max Wounds"]:
            people.add(key, "Wounds", row["Wounds"], f"at most Max Wounds ({row['Max Wounds']})")
        if row["Void Points"] > row["Max Void"]:
            people.add(key, "Void Points", row["Void Points"], f"at most Max Void ({row['Max Void']})")
        if row["Unit"] and row["Unit"] in state.frame("Units").index:
            where = state.frame("Units").at[row["Unit"], "Province"]
            if where != row["Province"]:
                people.add(key, "Province", row["Province"], f"{where}, where its unit {row['Unit']} stands")
    stock = _Tab(state, "Stockpile", problems)
    stock.names("Faction", "Factions", allow_empty=False)
    stock.kinds("Item", (ItemKind.EQUIPMENT, ItemKind.SPELL))
    stock.names("Library", "Provinces")
    provinces = state.frame("Provinces")
    for key, row in stock.frame.iterrows():
        kind = state.frame("Catalogue")["Kind"].get(row["Item"])
        if kind == ItemKind.SPELL.value and not (
            row["Library"] in provinces.index and provinces.at[row["Library"], "Library"]
        ):
            stock.add(key, "Library", row["Library"], "a province with a library (spells are kept at a library)")
    purchases = _Tab(state, "Purchases", problems)
    purchases.names("Faction", "Factions", allow_empty=False)
    purchases.names("Item", "Catalogue")
    purchases.names("Province", "Provinces")
    itemless = {a.value for a in ITEMLESS}
    for key, row in purchases.frame.iterrows():
        if row["Item"] == "" and row["Action"] not in itemless:
            purchases.add(key, "Item", "", f"the Catalogue item to {row['Action']} (a name from the Catalogue tab)")
        if row["From"] and row["From"] not in movers:
            purchases.add(key, "From", row["From"], expected_name("Units or Personalities", row["From"], movers))
    bids = _Tab(state, "Bids", problems)
    bids.names("Faction", "Factions", allow_empty=False)
    bids.kinds("Personality", BID_KINDS)
    bids.names("Province", "Provinces")
    moves = _Tab(state, "Moves", problems)
    moves.names("Faction", "Factions", allow_empty=False)
    moves.names("To", "Provinces", allow_empty=False)
    for key, mover in moves.frame["Mover"].items():
        if mover not in movers:
            moves.add(key, "Mover", mover, expected_name("Units or Personalities", mover, movers))
    _battle_results(state, problems)
    alliances = _Tab(state, "Alliances", problems)
    alliances.names("Faction A", "Factions", allow_empty=False)
    alliances.names("Faction B", "Factions", allow_empty=False)
    for key, row in alliances.frame.iterrows():
        if row["Faction A"] and row["Faction A"] == row["Faction B"]:
            alliances.add(key, "Faction B", row["Faction B"], "another faction (a faction cannot ally with itself)")
    if not problems and settings is not None and settings.phase == Phase.BATTLE.value:
        problems += _typed_results(state, settings)
    if settings is not None and settings.phase == Phase.START.value and not _errors(problems):
        problems += _naga_duties(state, settings)
    return problems + _form(state)


def _form(state: GameState) -> list[Problem]:
    """The Form's responses that cannot be copied, and a Form linked (Game key form_id) to a workbook with no
    tab for its answers."""
    if str(state.game("form_id", "") or "").strip() and not has_form_tab(state):
        return [
            Problem(
                RESPONSES,
                None,
                "",
                "",
                f"a tab named '{RESPONSES}' (the Form's answers arrive there: in the "
                "Form, Responses > Link to Sheets; in a workbook, add the tab with the Form's questions as headers)",
                Severity.WARNING,
            )
        ]
    return response_problems(state)


def _errors(problems: list[Problem]) -> bool:
    return any(p.severity is Severity.ERROR for p in problems)


def _naga_duties(state: GameState, settings: Settings) -> list[Problem]:
    """Warnings for the GM: a Naga unit that could attack the Shadowlands or the corrupt and is not ordered to."""
    turn = Turn(Draft(state), settings, Dice(settings.seed, settings.turn), settings.turn)
    rows = state.rows["Units"]
    return [
        Problem("Units", rows.get(d.unit), "Province", d.province, f"a Moves row: {d.sentence()}", Severity.WARNING)
        for d in naga.unmet(turn)
    ]


def _typed_results(state: GameState, settings: Settings) -> list[Problem]:
    """A paused turn: the battles it still waits for (warnings: the turn is simply waiting), and the Battle
    Results typed so far that the next resolve would refuse (every name is known)."""
    turn = Turn(Draft(state), settings, Dice(settings.seed, settings.turn), settings.turn)
    broken_by_the_gm(turn)  # as the resolve does before it finds the battles again
    found = battles.find(turn)
    return results.missing(turn, found) + results.problems(turn, found)


def _provinces(state: GameState, problems: list[Problem]) -> None:
    tab = _Tab(state, "Provinces", problems)
    tab.names("Controller", "Factions")
    tab.names("Original Owner", "Factions")
    names = set(state.rows["Provinces"])
    neighbours = {p: split_names(a) for p, a in tab.frame["Adjacent"].items()}
    for province, adjacent in neighbours.items():
        for other in adjacent:
            if other == province:
                tab.add(province, "Adjacent", other, "other provinces (a province is not adjacent to itself)")
            elif other not in names:
                tab.add(province, "Adjacent", other, expected_name("Provinces", other, names))
            elif other in neighbours and province not in neighbours[other]:
                tab.add(province, "Adjacent", other, f"a road both ways: {other}'s Adjacent does not name {province}")


def _leaders(state: GameState, units: _Tab) -> None:
    people = state.frame("Personalities")
    catalogue = state.frame("Catalogue")
    for key, leader in units.frame["Leader"].items():
        if leader == "" or leader in state.rows["Personalities"]:
            if leader and leader in people.index and people.at[leader, "Faction"] != units.frame.at[key, "Faction"]:
                units.add(key, "Leader", leader, f"a personality of {units.frame.at[key, 'Faction']}")
            continue
        if leader in catalogue.index and catalogue.at[leader, "Kind"] == ItemKind.LEADERSHIP_PACKAGE.value:
            if units.frame.at[key, "Package"]:
                one = f"an empty cell: a unit has one leadership package, and its Leader names {leader}"
                units.add(key, "Package", units.frame.at[key, "Package"], one)
            continue
        units.add(key, "Leader", leader, "a personality, a Leadership Package of the Catalogue, or an empty cell")


ONE_OF = "one of Winner (the battle's row), Unit, Personality or Switched Sides on each row"


def _battle_results(state: GameState, problems: list[Problem]) -> None:
    tab = _Tab(state, "Battle Results", problems)
    tab.names("Province", "Provinces", allow_empty=False)
    tab.names("Winner", "Factions")
    tab.names("Control", "Factions", extra=(NEUTRAL,))
    tab.names("Unit", "Units")
    tab.names("Personality", "Personalities")
    tab.names("Withdraw To", "Provinces")
    tab.names("Switched Sides", "Factions")
    tab.names("Sided With", "Factions")
    tab.names("Reincarnate Into", "Personalities")
    for key, row in tab.frame.iterrows():
        filled = [c for c in ("Winner", "Unit", "Personality", "Switched Sides") if row[c]]
        if len(filled) != 1:
            tab.add(key, "Unit", row["Unit"], ONE_OF)
        if row["Final Status"] and not row["Unit"]:
            tab.add(key, "Final Status", row["Final Status"], "a Final Status only on a unit's row")
        if bool(row["Sided With"]) != bool(row["Switched Sides"]):
            column = "Sided With" if row["Sided With"] else "Switched Sides"
            tab.add(key, column, row[column], "both Switched Sides and Sided With on a row, or neither")
        for column in ("Reincarnated", "Reincarnate Into"):
            if row[column] and not row["Personality"]:
                tab.add(key, column, row[column], f"{column} only on a personality's row (Shiba Ujimitsu's)")
