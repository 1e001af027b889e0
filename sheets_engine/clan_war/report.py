"""Clan War's reports (`sheets-engine report`): what each faction may know after a turn, and the GMs.

`content` gathers what one reader may know (a faction, or the GMs with `faction=None`) as plain data
(the same data `--json` writes); `page` lays it out in sections, which the service (sheets_engine.views)
renders as one self-contained HTML page with the faction's map inside.

What a faction may know: its treasury (koku), Daimyo and Rings; the provinces it controls; its own
units, personalities and stockpile; its own Purchases, Bids and Moves of the turn with their Status and
Result; the other factions' units and personalities it can see (clan_war.knowledge: in or next to the
provinces it controls or where its forces stand); the turn's battles it fought in, with their Battle
Results; its alliances; the notifications to it or to everyone. Never another faction's koku, orders,
stockpile or forces out of its sight. The GMs' page holds everything, the problems `validate` finds first.

The turn shown (`--turn N`, else a turn paused for its battles, else the last resolved) picks the
orders, battles and notifications; forces and treasuries are as the sheet holds them now.
"""

from __future__ import annotations

from typing import Any

from sheets_engine.clan_war.knowledge import visible_people, visible_units
from sheets_engine.clan_war.mapping import shown_turn
from sheets_engine.clan_war.schema import BATTLE_HEADERS
from sheets_engine.clan_war.validate import check
from sheets_engine.core.capabilities import Page, View
from sheets_engine.core.cells import split_names
from sheets_engine.core.tables import GameState, plain_records

GM = "GMs"  # the name the GMs' report goes by (its file is gm.html)
ORDER_COLUMNS = {
    "Purchases": ("Action", "Item", "Count", "From", "Target", "Province", "Ally OK"),
    "Bids": ("Personality", "Bid", "Count", "Target", "Province"),
    "Moves": ("Phase", "Mover", "To"),
}
UNIT_COLUMNS = ("Unit", "Faction", "Item", "Province", "Models", "Leader", "Package", "ML", "TL", "Experienced",
                "Tattooed", "Status")  # fmt: skip
PERSON_COLUMNS = ("Personality", "Faction", "Item", "Province", "Unit", "Status", "Wounds", "Max Wounds",
                  "Void Points", "Max Void", "Items")  # fmt: skip
SEEN_UNIT = ("Unit", "Faction", "Item", "Province", "Models", "Status")  # what a faction sees of another's unit
SEEN_PERSON = ("Personality", "Faction", "Province", "Unit", "Status")


def _plain(value: Any) -> Any:
    """A cell as JSON can hold it (numpy scalars as Python values, NaN as None)."""
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and value != value:
        return None
    return value


def _number(value: Any) -> int | None:
    try:
        return int(float(value))
    except (TypeError, ValueError):
        return None


def _rows(state: GameState, tab: str, keys: list[str], columns: tuple[str, ...]) -> list[dict[str, Any]]:
    frame = state.frame(tab)
    return [{c: _plain(frame.at[k, c]) for c in columns} for k in keys]


def content(view: View, faction: str | None, turn: int | None = None) -> dict[str, Any]:
    """What one reader may know at `turn` (see `shown_turn`); `faction=None` is the GMs."""
    state = view.state
    number = shown_turn(state, turn)

    def mine(who: Any) -> bool:
        return faction is None or str(who) == faction

    report: dict[str, Any] = {"campaign": str(state.game("campaign")), "turn": number, "reader": faction or GM}
    if faction is None:
        report["problems"] = [
            {"Severity": p.severity.value, "Tab": p.tab, "Row": p.row, "Column": p.column, "Found": _plain(p.value),
             "Expected": p.expected}
            for p in check(state)
        ]  # fmt: skip
    report["waiting"] = str(state.game("phase")) == "battle" and number == int(state.game("turn") or 0)
    factions = state.frame("Factions")
    report["factions"] = [
        {c: _plain(factions.at[f, c]) for c in ("Faction", "Player", "Koku", "Daimyo", "Special", "Rings")}
        for f in factions.index
        if mine(f)
    ]
    provinces = state.frame("Provinces")
    report["provinces"] = [
        {c: _plain(provinces.at[p, c]) for c in ("Province", "Controller", "Original Owner", "Library", "Corrupted",
                                                  "Terrain", "Adjacent")}
        for p in provinces.index
        if faction is None or provinces.at[p, "Controller"] == faction
    ]  # fmt: skip
    units, people = state.frame("Units"), state.frame("Personalities")
    seen_units, seen_people = visible_units(state, faction), visible_people(state, faction)
    own_units = [str(u) for u in units.index if mine(units.at[u, "Faction"])]
    own_people = [str(p) for p in people.index if mine(people.at[p, "Faction"])]
    report["units"] = _rows(state, "Units", own_units, UNIT_COLUMNS)
    report["personalities"] = _rows(state, "Personalities", own_people, PERSON_COLUMNS)
    stock = state.frame("Stockpile")
    report["stockpile"] = [
        {c: _plain(row[c]) for c in ("Faction", "Item", "Count", "Library")}
        for row in plain_records(stock)
        if mine(row["Faction"])
    ]
    report["orders"] = []
    for tab, columns in ORDER_COLUMNS.items():
        frame = state.frame(tab)
        for row in plain_records(frame):
            if row["Turn"] == number and mine(row["Faction"]):
                order = {"Tab": tab, "Faction": row["Faction"], **{c: _plain(row[c]) for c in columns}}
                order.update({"Submitted": _plain(row["Submitted"]), "Status": row["Status"], "Result": row["Result"]})
                report["orders"].append(order)
    if faction is not None:
        report["units in sight"] = _rows(
            state, "Units", [u for u in seen_units if units.at[u, "Faction"] != faction], SEEN_UNIT
        )
        report["personalities in sight"] = _rows(
            state, "Personalities", [p for p in seen_people if people.at[p, "Faction"] != faction], SEEN_PERSON
        )
    fought = [
        b
        for b in view.rows("Battles")
        if _number(b.get("Turn")) == number
        and (faction is None or faction in split_names(str(b.get("Factions") or "")))
    ]
    report["battles"] = [{k: _plain(b.get(k)) for k in BATTLE_HEADERS} for b in fought]
    places = {str(b.get("Province")) for b in fought}
    results = state.frame("Battle Results")
    report["battle results"] = [
        {c: _plain(row[c]) for c in ("Province", "Winner", "Unit", "Models Lost", "Final Status", "Withdraw To",
                                     "Personality", "Wounds Over Max")}
        for row in plain_records(results)
        if row["Turn"] == number and str(row["Province"]) in places
    ]  # fmt: skip
    alliances = state.frame("Alliances")
    report["alliances"] = [
        {c: _plain(row[c]) for c in ("Faction A", "Faction B", "Since Turn", "Broken Turn", "Free To Break", "Status")}
        for row in plain_records(alliances)
        if faction is None or faction in (row["Faction A"], row["Faction B"])
    ]
    audience = {"public", faction.casefold(), f"faction:{faction}".casefold()} if faction else None
    report["notifications"] = [
        {k: _plain(n.get(k)) for k in ("Audience", "Channel", "Message")}
        for n in view.rows("Notifications")
        if _number(n.get("Turn")) == number and (audience is None or str(n.get("Audience")).casefold() in audience)
    ]
    return report


SECTIONS = (
    ("problems", "Problems (validate)"),
    ("factions", "Faction"),
    ("provinces", "Provinces"),
    ("units", "Units"),
    ("personalities", "Personalities"),
    ("stockpile", "Stockpile"),
    ("orders", "Purchases, Bids and Moves, with their Results"),
    ("units in sight", "Other factions' units in sight"),
    ("personalities in sight", "Other factions' personalities in sight"),
    ("battles", "Battles"),
    ("battle results", "Battle Results"),
    ("alliances", "Alliances"),
    ("notifications", "Notifications"),
)


def readers(view: View) -> list[str]:
    """Every faction, in Factions row order (the GMs' report is the service's own)."""
    return [str(f) for f in view.state.frame("Factions").index]


def page(report: dict[str, Any]) -> Page:
    """A reader's content laid out as its page: the problems first on the GMs', the map at the top."""
    reader = report["reader"]
    who = "the GMs (everything)" if reader == GM else f"the {reader} faction (private)"
    sections = [
        ("Factions" if key == "factions" and reader == GM else heading, report[key])
        for key, heading in SECTIONS
        if key in report
    ]
    waiting = " (waiting for the Battle Results)" if report["waiting"] else ""
    return Page(f"{report['campaign']}: turn {report['turn']}{waiting}", reader, who, report["turn"], sections)
