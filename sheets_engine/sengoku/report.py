"""`sheets-engine report`: one private report per clan and one for the GMs, as self-contained HTML.

A view at the edge: `content` gathers what one reader may know after a turn (a clan, or the GMs
with `clan=None`) as plain data (the same data `--json` writes); `html_page` lays it out for a
phone, every piece of sheet text escaped, the map embedded as a base64 PNG.

What a clan may know (sengoku.visibility): its own provinces, treasury, Knowledge, tech, armies,
characters, orders, letters it received or sent, its own declarations (secret ones too) and the
public ones, notifications to it, its characters or the public, battles and sieges it was in, and
the armies it sees. Never another clan's treasury, orders, letters, secret declarations or private
notifications. The GMs' report holds everything.

`--turn N` picks the orders, notifications, letters and battles of turn N; provinces, armies,
characters and treasuries are as the sheet holds them now (after the last resolved turn).
"""

from __future__ import annotations

import base64
import html
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sheets_engine.core.cells import split_names
from sheets_engine.core.load import norm
from sheets_engine.core.tables import GameState
from sheets_engine.sengoku.schema import (
    BATTLE_HEADERS,
    DERIVED_COLUMNS,
    HISTORY_HEADERS,
    NOTIFICATION_HEADERS,
    SLOT_COLUMNS,
    UNIT_COLUMNS,
    Discipline,
)
from sheets_engine.sengoku.visibility import controller, visible_armies
from sheets_engine.stores import open_store
from sheets_engine.stores.base import RawTab, Store, StoreError

GM = "GMs"  # the name the GMs' report goes by (its file is gm.html)


@dataclass(frozen=True)
class Campaign:
    """A validated campaign with its log tabs (Battles, Notifications, History), which a state does not hold."""

    state: GameState
    logs: dict[str, list[dict[str, Any]]]


class _Keeping:
    """A store that keeps what it read, so that one read gives both the state and the log tabs."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.name = store.name
        self.raw: dict[str, RawTab] = {}

    def read(self, headers_only: Any = ()) -> dict[str, RawTab]:
        self.raw = self.store.read()  # History whole: who belonged to which clan when the turn began
        return self.raw

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)


def read(source: str | Store) -> Campaign:
    """Read the campaign once, check it (InvalidCampaign on errors), with its log tabs as rows."""
    from sheets_engine import app

    store = open_store(source) if isinstance(source, str) else source
    keeping = _Keeping(store)
    campaign = app._checked(keeping)  # type: ignore[arg-type]
    if campaign.ruleset.name != "sengoku":
        raise StoreError(f"reports and maps know the Sengoku Jidai tabs only, not the {campaign.ruleset.title} ruleset")
    logs = {
        name: _rows(keeping.raw, name, headers)
        for name, headers in (("Battles", BATTLE_HEADERS), ("Notifications", NOTIFICATION_HEADERS),
                              ("History", HISTORY_HEADERS))
    }  # fmt: skip
    return Campaign(campaign.state, logs)


def _rows(raw: dict[str, RawTab], name: str, headers: tuple[str, ...]) -> list[dict[str, Any]]:
    tab = next((t for title, t in raw.items() if norm(title) == norm(name)), None)
    if tab is None:
        return []
    where = {norm(h): i for i, h in enumerate(tab.header)}
    return [
        {h: (cells[where[norm(h)]] if norm(h) in where and where[norm(h)] < len(cells) else None) for h in headers}
        for _, cells in tab.rows
    ]


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


def members_at_start(campaign: Campaign, turn: int) -> dict[str, str]:
    """Each character's clan when turn `turn` began (a character killed in it has lost its Clan since)."""
    characters = campaign.state.frame("Characters")
    clans = {str(c): str(characters.at[c, "Clan"]) for c in characters.index}
    earliest: dict[str, str] = {}
    for row in reversed(campaign.logs["History"]):  # newest first: the oldest old value of turn >= N wins
        number = _number(row.get("Turn"))
        if row.get("Tab") == "Characters" and row.get("Column") == "Clan" and number is not None and number >= turn:
            earliest[str(row.get("Key"))] = "" if row.get("Old") is None else str(row.get("Old"))
    clans.update(earliest)
    return clans


def content(campaign: Campaign, clan: str | None, turn: int | None = None) -> dict[str, Any]:
    """What one reader may know after `turn` (default: the last resolved turn); `clan=None` is the GMs."""
    state = campaign.state
    number = turn if turn is not None else int(state.game("last_resolved_turn") or 0)
    members = members_at_start(campaign, number)
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
        for n in campaign.logs["Notifications"]
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
        for b in campaign.logs["Battles"]
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


# HTML -------------------------------------------------------------------------------------------

STYLE = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;padding:12px;line-height:1.4;
color:#111;background:#fafafa;max-width:60em}
h1{font-size:1.3em;margin:.2em 0}h2{font-size:1.1em;margin:1.2em 0 .4em;border-bottom:2px solid #E69F00}
.scroll{overflow-x:auto;-webkit-overflow-scrolling:touch}
table{border-collapse:collapse;font-size:.9em;background:#fff}
th,td{border:1px solid #ccc;padding:4px 6px;text-align:left;vertical-align:top}th{background:#eee}
img{max-width:100%;height:auto;border:1px solid #ccc;background:#fff}
.note{color:#555;font-size:.9em}ul{padding-left:1.2em}
"""

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


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    return html.escape(str(value))


def _table(rows: list[dict[str, Any]]) -> str:
    if not rows:
        return '<p class="note">None.</p>'
    columns = list(rows[0])
    head = "".join(f"<th>{_cell(c)}</th>" for c in columns)
    body = "".join("<tr>" + "".join(f"<td>{_cell(r.get(c))}</td>" for c in columns) + "</tr>" for r in rows)
    return f'<div class="scroll"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'


def html_page(report: dict[str, Any], png: bytes) -> str:
    """The report as one self-contained HTML page (inline CSS, the map inline), every sheet text escaped."""
    reader = report["reader"]
    who = "the GMs (everything)" if reader == GM else f"the {reader} clan (private)"
    title = f"{report['campaign']}: after turn {report['turn']}"
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_cell(title)} - {_cell(reader)}</title><style>{STYLE}</style></head><body>",
        f'<h1>{_cell(title)}</h1><p class="note">Report for {_cell(who)}.</p>',
        "<h2>Map</h2>",
        f'<img alt="{_cell("Map: " + title)}" src="data:image/png;base64,{base64.b64encode(png).decode("ascii")}">',
    ]
    for key, heading in SECTIONS:
        label = "Clans" if key == "clans" and reader == GM else heading
        parts.append(f"<h2>{_cell(label)}</h2>{_table(report[key])}")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def file_stem(name: str, taken: set[str]) -> str:
    """A file name for a clan: its name in letters, digits and dashes; never one already taken."""
    stem = re.sub(r"[^0-9A-Za-z]+", "-", name).strip("-").lower() or "clan"
    if stem in taken:
        number = 2
        while f"{stem}-{number}" in taken:
            number += 1
        stem = f"{stem}-{number}"
    taken.add(stem)
    return stem


def write_reports(source: str | Store, out: Path, turn: int | None = None, as_json: bool = False) -> dict[str, Path]:
    """Every clan's report and the GMs' into `out` (reader -> HTML file); with `as_json` a .json beside each."""
    from sheets_engine.sengoku.mapping import layout, picture

    campaign = read(source)
    places = layout(campaign.state)  # once: every reader's map stands on the same places
    out.mkdir(parents=True, exist_ok=True)
    taken = {"gm"}
    readers: list[tuple[str | None, str]] = [
        (str(c), file_stem(str(c), taken)) for c in campaign.state.frame("Clans").index
    ]
    readers.append((None, "gm"))
    written = {}
    for clan, stem in readers:
        report = content(campaign, clan, turn)
        png = picture(campaign.state, clan, report["turn"], campaign.logs["Battles"], places)
        path = out / f"{stem}.html"
        path.write_text(html_page(report, png), encoding="utf-8")
        if as_json:
            (out / f"{stem}.json").write_text(json.dumps(report, indent=2, ensure_ascii=False, default=str) + "\n",
                                              encoding="utf-8")  # fmt: skip
        written[clan or GM] = path
    return written
