"""Sengoku Jidai's reports (`sheets-engine report`): what each clan may know after a turn, and the GMs.

`content` gathers what one reader may know after a turn (a clan, or the GMs with `clan=None`) as
plain data (the same data `--json` writes); `page` lays it out in sections, which the service
(sheets_engine.views) renders as one self-contained HTML page with the clan's map inside.

What a clan may know (sengoku.visibility): its own provinces, treasury, Knowledge, tech, armies,
characters, orders, letters it received or sent, its own declarations (secret ones too) and the
public ones, notifications to it, its characters or the public, battles and sieges it was in, and
the armies it sees. Never another clan's treasury, orders, letters, secret declarations or private
notifications. The GMs' report holds everything.

`--turn N` picks the orders, notifications, letters and battles of turn N; provinces, armies,
characters and treasuries are as the sheet holds them now (after the last resolved turn).
"""

from __future__ import annotations

from typing import Any

from sheets_engine.core.capabilities import Page, View
from sheets_engine.core.cells import split_names
from sheets_engine.core.tables import GameState
from sheets_engine.sengoku.schema import BATTLE_HEADERS, DERIVED_COLUMNS, SLOT_COLUMNS, UNIT_COLUMNS, Discipline
from sheets_engine.sengoku.visibility import controller, visible_armies

GM = "GMs"  # the name the GMs' report goes by (its file is gm.html)


def _number(value: Any) -> int | None:
    try:
        return int(float(value))
    except (TypeError, ValueError):
        return None


def _plain(value: Any) -> Any:
    """A cell as JSON can hold it (numpy scalars as Python values, NaN as None)."""
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and value != value:
        return None
    return value


def members_at_start(view: View, turn: int) -> dict[str, str]:
    """Each character's clan when turn `turn` began (a character killed in it has lost its Clan since)."""
    characters = view.state.frame("Characters")
    clans = {str(c): str(characters.at[c, "Clan"]) for c in characters.index}
    earliest: dict[str, str] = {}
    for row in reversed(view.rows("History")):  # newest first: the oldest old value of turn >= N wins
        number = _number(row.get("Turn"))
        if row.get("Tab") == "Characters" and row.get("Column") == "Clan" and number is not None and number >= turn:
            earliest[str(row.get("Key"))] = "" if row.get("Old") is None else str(row.get("Old"))
    clans.update(earliest)
    return clans


def content(view: View, clan: str | None, turn: int | None = None) -> dict[str, Any]:
    """What one reader may know after `turn` (default: the last resolved turn); `clan=None` is the GMs."""
    state = view.state
    number = turn if turn is not None else int(state.game("last_resolved_turn") or 0)
    members = members_at_start(view, number)
    clans = state.frame("Clans")
    mine = {c for c, k in members.items() if clan is None or k == clan}
    held = controller(state)
    report: dict[str, Any] = {
        "campaign": str(state.game("campaign")),
        "turn": number,
        "reader": clan or GM,
        "clans": [_clan(state, str(c)) for c in clans.index if clan is None or c == clan],
    }
    provinces = state.frame("Provinces")
    report["provinces"] = [
        _province(provinces, str(p), held[str(p)])
        for p in provinces.index
        if clan is None or clan in (held[str(p)], provinces.at[p, "Province Owner"])
    ]
    armies = state.frame("Armies")
    seen = set(visible_armies(state, clan)) if clan else set(map(str, armies.index))
    report["armies"] = [
        _army(armies, str(a)) for a in armies.index if (clan is None or armies.at[a, "Clan"] == clan or str(a) in seen)
    ]
    characters = state.frame("Characters")
    report["characters"] = [
        {
            k: _plain(characters.at[c, k])
            for k in ("Character", "Player", "Clan", "Title", "Authority", "Location", "Status")
        }
        for c in characters.index
        if clan is None or str(c) in mine
    ]
    orders = state.frame("Orders")
    report["orders"] = [
        {
            k: _plain(orders.at[o, k])
            for k in ("Submitted", "Character", "Order", "Target", "Detail", "Status", "Result")
        }
        for o in orders.index
        if orders.at[o, "Turn"] == number
        and (clan is None or _clan_of(characters, str(orders.at[o, "Character"]), members) == clan)
    ]
    audience = {"public", f"clan:{clan}"} | {f"character:{c}" for c in mine} if clan else None
    report["notifications"] = [
        {k: _plain(n[k]) for k in ("Audience", "Channel", "Message")}
        for n in view.rows("Notifications")
        if _number(n.get("Turn")) == number and (audience is None or str(n.get("Audience")) in audience)
    ]
    letters = state.frame("Letters")
    report["letters"] = [
        {
            k: _plain(letters.at[key, k])
            for k in ("Letter", "Turn", "From", "To Clan", "Text", "Status", "Delivered Turn")
        }
        for key in letters.index
        if clan is None
        or (letters.at[key, "To Clan"] == clan and letters.at[key, "Status"] == "Delivered")
        or members.get(str(letters.at[key, "From"])) == clan
    ]
    alliances = state.frame("Alliances")
    report["alliances"] = [
        {k: _plain(alliances.at[key, k]) for k in ("Clan", "Ally", "Secret", "Since Turn")}
        for key in alliances.index
        if clan is None or alliances.at[key, "Clan"] == clan or not bool(alliances.at[key, "Secret"])
    ]
    relations = state.frame("Relations")
    report["relations"] = [
        {k: _plain(relations.at[key, k]) for k in ("Clan A", "Clan B", "Since Turn")}
        for key in relations.index
        if clan is None or clan in (relations.at[key, "Clan A"], relations.at[key, "Clan B"])
    ]
    report["battles"] = [
        {k: _plain(b[k]) for k in BATTLE_HEADERS}
        for b in view.rows("Battles")
        if _number(b.get("Turn")) == number
        and (
            clan is None
            or clan in split_names(str(b.get("Attacker") or "")) + split_names(str(b.get("Defender") or ""))
        )
    ]
    sieges = state.frame("Sieges")
    report["sieges"] = [
        {k: _plain(sieges.at[key, k]) for k in ("Province", "Besieger", "Defender", "Timer", "Started Turn", "Status")}
        for key in sieges.index
        if clan is None or clan in (sieges.at[key, "Besieger"], sieges.at[key, "Defender"])
    ]
    return report


def _clan_of(characters: Any, name: str, members: dict[str, str]) -> str:
    from sheets_engine.sengoku.orders import find

    found = find(characters.index, name)
    return members.get(found, "") if found else ""


def _clan(state: GameState, clan: str) -> dict[str, Any]:
    row = state.frame("Clans").loc[clan]
    return {
        "Clan": clan,
        "Capital": _plain(row["Capital"]),
        "Treasury": _plain(row["Treasury"]),
        "Knowledge": _plain(row["Knowledge"]),
        **{d.value: _plain(row[d.value]) for d in Discipline},
        "Tech Points": _plain(row["Tech Points"]),
    }


def _province(provinces: Any, name: str, held: str) -> dict[str, Any]:
    row = provinces.loc[name]
    keys = ("Province", "Type", "Resource", "Terrain", "Province Owner")
    found = {k: _plain(row[k]) for k in keys}
    found["Controlled By"] = held
    found["Buildings"] = ", ".join(str(row[c]) for c in SLOT_COLUMNS if row[c])
    found["Fortress Level"] = _plain(row["Fortress Level"])
    found["Tax Stockpile"] = _plain(row["Tax Stockpile"])
    found["Manpower Stockpile"] = _plain(row["Manpower Stockpile"])
    found.update({k: _plain(row[k]) for k in DERIVED_COLUMNS})
    return found


def _army(armies: Any, name: str) -> dict[str, Any]:
    row = armies.loc[name]
    found = {k: _plain(row[k]) for k in ("Army", "Clan", "Province", "Leader")}
    found.update({k: _plain(row[k]) for k in UNIT_COLUMNS})
    found["Units"] = sum(int(row[k]) for k in UNIT_COLUMNS)
    found["Status"] = _plain(row["Status"])
    return found


# The page --------------------------------------------------------------------------------------

SECTIONS = (
    ("clans", "Clan"),
    ("provinces", "Provinces"),
    ("armies", "Armies"),
    ("characters", "Characters"),
    ("orders", "Orders and their Results"),
    ("notifications", "Notifications"),
    ("letters", "Letters"),
    ("battles", "Battles"),
    ("sieges", "Sieges"),
    ("alliances", "Alliance declarations"),
    ("relations", "Relations"),
)


def readers(view: View) -> list[str]:
    """Every clan, in Clans row order (the GMs' report is the service's own)."""
    return [str(c) for c in view.state.frame("Clans").index]


def page(report: dict[str, Any]) -> Page:
    """A reader's content laid out as its page: the sections in the guide's order, the map at the top."""
    reader = report["reader"]
    who = "the GMs (everything)" if reader == GM else f"the {reader} clan (private)"
    sections = [("Clans" if key == "clans" and reader == GM else heading, report[key]) for key, heading in SECTIONS]
    return Page(f"{report['campaign']}: after turn {report['turn']}", reader, who, report["turn"], sections)
