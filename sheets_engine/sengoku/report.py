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

from collections.abc import Mapping
from typing import Any

from sheets_engine.core.capabilities import Page, Part, View
from sheets_engine.core.cells import split_names
from sheets_engine.core.deadlines import local_text
from sheets_engine.core.tables import GameState
from sheets_engine.sengoku.game import read_settings
from sheets_engine.sengoku.schema import BATTLE_HEADERS, DERIVED_COLUMNS, SLOT_COLUMNS, UNIT_COLUMNS, Discipline
from sheets_engine.sengoku.visibility import Sight

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


class _Run:
    """What every page of one report run needs, worked out once (View.once): who sees what, each row as
    the page shows it, grouped by the clan it belongs to. 800 clans then cost their own rows each."""

    def __init__(self, view: View, number: int) -> None:
        state = view.state
        self.number = number
        self.sight = Sight(state)
        self.members = members_at_start(view, number)
        provinces, armies, characters = state.frame("Provinces"), state.frame("Armies"), state.frame("Characters")
        self.province_rows = {p: _province(row, self.sight.held[p]) for p, row in _rows(provinces).items()}
        self.army_rows = {a: _army(row) for a, row in _rows(armies).items()}
        self.army_clan = {str(a): str(c) for a, c in zip(armies.index, armies["Clan"], strict=True)}
        self.armies_of: dict[str, list[str]] = {}
        for army, clan in self.army_clan.items():
            self.armies_of.setdefault(clan, []).append(army)
        self.position = {army: k for k, army in enumerate(self.army_rows)}
        keys = ("Character", "Player", "Clan", "Title", "Authority", "Location", "Status")
        self.character_rows = {str(c): {k: _plain(characters.at[c, k]) for k in keys} for c in characters.index}
        orders = state.frame("Orders")
        turn_orders = orders[orders["Turn"] == number]
        self.orders: list[tuple[str, dict[str, Any]]] = [
            (
                _clan_of(characters, str(turn_orders.at[o, "Character"]), self.members),
                {k: _plain(turn_orders.at[o, k]) for k in ORDER_KEYS},
            )
            for o in turn_orders.index
        ]
        self.notifications = [
            (str(n.get("Audience")), {k: _plain(n[k]) for k in ("Audience", "Channel", "Message")})
            for n in view.logs.get("Notifications", ())
            if _number(n.get("Turn")) == number
        ]
        self.battles = [
            (
                split_names(str(b.get("Attacker") or "")) + split_names(str(b.get("Defender") or "")),
                {k: _plain(b[k]) for k in BATTLE_HEADERS},
            )
            for b in view.logs.get("Battles", ())
            if _number(b.get("Turn")) == number
        ]
        self.changes: dict[tuple[str, str], list[dict[str, Any]]] = {}
        self.touched: dict[str, dict[tuple[str, str], None]] = {}  # clan -> provinces it held or took this turn
        for row in view.logs.get("History", ()):
            if _number(row.get("Turn")) == number and row.get("Tab") in ("Clans", "Provinces", "Armies"):
                key = (str(row.get("Tab")), str(row.get("Key")))
                self.changes.setdefault(key, []).append(row)
                if key[0] == "Provinces" and row.get("Column") in ("Controlled By", "Province Owner"):
                    for named in (str(row.get("Old") or ""), str(row.get("New") or "")):
                        self.touched.setdefault(named, {})[key] = None
        letters = state.frame("Letters")
        keys = ("Letter", "Turn", "From", "To Clan", "Text", "Status", "Delivered Turn")
        self.letters = [{k: _plain(row[k]) for k in keys} for row in _rows(letters).values()]
        self.alliances = [
            {k: _plain(row[k]) for k in ("Clan", "Ally", "Secret", "Since Turn")}
            for row in _rows(state.frame("Alliances")).values()
        ]
        self.relations = [
            {k: _plain(row[k]) for k in ("Clan A", "Clan B", "Since Turn")}
            for row in _rows(state.frame("Relations")).values()
        ]
        self.sieges = [
            {k: _plain(row[k]) for k in ("Province", "Besieger", "Defender", "Timer", "Started Turn", "Status")}
            for row in _rows(state.frame("Sieges")).values()
        ]
        settings = read_settings(state)
        schedule = settings.schedule()
        self.deadline = (
            f"{local_text(schedule.deadline, schedule.zone)} ({settings.time_zone or 'UTC'})"
            if schedule.deadline is not None
            else ""
        )
        self.next_turn = int(settings.turn)
        buildings = state.frame("Buildings")
        self.buildings = sorted(
            ((str(b), int(c)) for b, c in zip(buildings.index, buildings["Cost"], strict=True)), key=lambda x: x[1]
        )
        self.samurai = int(settings.hire_samurai_cost)


ORDER_KEYS = ("Submitted", "Character", "Order", "Target", "Detail", "Status", "Result")


def _run(view: View, number: int) -> _Run:
    found: _Run = view.once(f"sengoku.report.{number}", lambda: _Run(view, number))
    return found


def content(view: View, clan: str | None, turn: int | None = None) -> dict[str, Any]:
    """What one reader may know after `turn` (default: the last resolved turn); `clan=None` is the GMs."""
    state = view.state
    number = turn if turn is not None else int(state.game("last_resolved_turn") or 0)
    run = _run(view, number)
    members = run.members
    clans = state.frame("Clans")
    mine = {c for c, k in members.items() if clan is None or k == clan}
    report: dict[str, Any] = {
        "campaign": str(state.game("campaign")),
        "turn": number,
        "reader": clan or GM,
        "clans": [_clan(state, str(c)) for c in clans.index if clan is None or c == clan],
    }
    own = run.sight.owned.get(clan, []) if clan else list(run.province_rows)
    report["provinces"] = [run.province_rows[p] for p in own]
    if clan:
        shown = set(run.armies_of.get(clan, ())) | set(run.sight.armies(clan))
        report["armies"] = [run.army_rows[a] for a in sorted(shown, key=run.position.__getitem__)]
    else:
        report["armies"] = list(run.army_rows.values())
    report["characters"] = [row for name, row in run.character_rows.items() if clan is None or name in mine]
    report["orders"] = [row for who, row in run.orders if clan is None or who == clan]
    audience = {"public", f"clan:{clan}"} | {f"character:{c}" for c in mine} if clan else None
    report["notifications"] = [row for to, row in run.notifications if audience is None or to in audience]
    report["letters"] = [
        letter
        for letter in run.letters
        if clan is None
        or (letter["To Clan"] == clan and letter["Status"] == "Delivered")
        or members.get(str(letter["From"])) == clan
    ]
    report["alliances"] = [
        row for row in run.alliances if clan is None or row["Clan"] == clan or not bool(row["Secret"])
    ]
    report["relations"] = [row for row in run.relations if clan is None or clan in (row["Clan A"], row["Clan B"])]
    report["battles"] = [row for sides, row in run.battles if clan is None or clan in sides]
    report["sieges"] = [row for row in run.sieges if clan is None or clan in (row["Besieger"], row["Defender"])]
    report["changes"] = _changes(run, clan, own, report["armies"])
    report["next"] = _next(run, report["clans"][0] if clan and report["clans"] else None)
    if clan is None:
        report["problems"] = list(view.problems)
    return report


def _changes(run: _Run, clan: str | None, own: list[str], armies: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What the turn changed for the reader, old to new: its clan row, its provinces (held now or lost
    this turn), its armies; one row a thing, its changes in the order they were made."""
    if clan is None:
        keys = sorted(run.changes, key=lambda k: ("Clans", "Provinces", "Armies").index(k[0]))
    else:
        lost = run.touched.get(clan, {})
        keys = [("Clans", clan)] + [("Provinces", p) for p in own]
        keys += [k for k in lost if k not in keys]
        keys += [("Armies", str(a["Army"])) for a in armies if a.get("Clan") == clan]
    found = []
    for tab, key in keys:
        rows = run.changes.get((tab, key))
        if not rows:
            continue
        last: dict[str, tuple[Any, Any]] = {}
        for row in rows:  # a cell changed twice in the turn: its first old and its last new
            column = str(row.get("Column"))
            if column in DERIVED_COLUMNS or column in BOOKKEEPING:  # recomputed, or the engine's own notes
                continue
            old = last[column][0] if column in last else row.get("Old")
            last[column] = (old, row.get("New"))
        if last and all(_shown(o) == "(empty)" for o, _ in last.values()):  # a row made this turn: what it is
            shown = [f"{c} {_shown(n)}" for c, (_, n) in last.items() if c != THING[tab] and _shown(n) != "(empty)"]
            text = "new: " + "; ".join(shown)
        else:
            text = "; ".join(f"{c} {_shown(o)} → {_shown(n)}" for c, (o, n) in last.items() if _shown(o) != _shown(n))
        if text:
            found.append({"What": f"{THING[tab]} {key}", "Change": text})
    return found


THING = {"Clans": "Clan", "Provinces": "Province", "Armies": "Army"}
BOOKKEEPING = ("Moved", "Origin")  # where an army marched from this turn: the march's order says it


def _shown(value: Any) -> str:
    value = _plain(value)
    if value is None or value == "":
        return "(empty)"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _next(run: _Run, clan: dict[str, Any] | None) -> dict[str, Any]:
    """What the reader can do next: the next turn's deadline, and what its treasury pays for."""
    found: dict[str, Any] = {"turn": run.next_turn, "deadline": run.deadline}
    if clan is not None:
        treasury = _number(clan.get("Treasury")) or 0
        found["treasury"] = treasury
        found["buildings"] = [f"{name} ({cost} Mon)" for name, cost in run.buildings if cost <= treasury]
        found["too dear"] = [f"{name} ({cost} Mon)" for name, cost in run.buildings if cost > treasury]
        found["samurai"] = treasury // run.samurai if run.samurai else 0
        found["samurai cost"] = run.samurai
    return found


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


def _rows(frame: Any) -> dict[str, dict[str, Any]]:
    """Every row of a tab as a dict by column (its key column included), by its key: one pass, not a
    lookup a cell."""
    records: dict[Any, dict[str, Any]] = frame.to_dict("index")
    name = frame.index.name
    if name and name not in frame.columns:  # the key as its column too, as `.loc[key]` gives it
        for key, row in records.items():
            row[name] = key
    return {str(k): v for k, v in records.items()}


def _province(row: Mapping[str, Any], held: str) -> dict[str, Any]:
    keys = ("Province", "Type", "Resource", "Terrain", "Province Owner")
    found = {k: _plain(row[k]) for k in keys}
    found["Controlled By"] = held
    found["Buildings"] = ", ".join(str(row[c]) for c in SLOT_COLUMNS if row[c])
    found["Fortress Level"] = _plain(row["Fortress Level"])
    found["Tax Stockpile"] = _plain(row["Tax Stockpile"])
    found["Manpower Stockpile"] = _plain(row["Manpower Stockpile"])
    found.update({k: _plain(row[k]) for k in DERIVED_COLUMNS})
    return found


def _army(row: Mapping[str, Any]) -> dict[str, Any]:
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
    """A reader's content laid out as its page: this turn for the reader first (the GMs: the turn's
    problems and refused orders), then the map, then what comes next, the tables last."""
    reader = report["reader"]
    who = "the GMs (everything)" if reader == GM else f"the {reader} clan (private)"
    sections = [("Clans" if key == "clans" and reader == GM else heading, report[key]) for key, heading in SECTIONS]
    lead = _gm_lead(report) if reader == GM else _clan_lead(report)
    title = f"{report['campaign']}: after turn {report['turn']}"
    return Page(title, reader, who, report["turn"], sections, lead=lead, follow=_follow(report))


RESULT_KEYS = ("Character", "Order", "Target", "Detail", "Status", "Result")


def _orders(rows: list[dict[str, Any]]) -> tuple[dict[str, Any], ...]:
    return tuple({k: row.get(k) for k in RESULT_KEYS} for row in rows)


def _battle(row: dict[str, Any]) -> str:
    return (
        f"{row.get('Province')}: {row.get('Attacker')} against {row.get('Defender')} "
        f"(strength {_shown(row.get('Attacker CS'))} to {_shown(row.get('Defender CS'))}, "
        f"damage {_shown(row.get('Damage To Attacker'))} to {_shown(row.get('Damage To Defender'))}): "
        f"{_shown(row.get('Outcome'))}"
    )


def _clan_lead(report: dict[str, Any]) -> tuple[Part, ...]:
    turn, clan = report["turn"], report["reader"]
    orders = report["orders"]
    parts = [
        Part(
            f"Turn {turn}: your orders and their Results",
            () if orders else ("No order of yours was given for this turn.",),
            _orders(orders),
        )
    ]
    battles = tuple(_battle(b) for b in report["battles"])
    parts.append(Part("Battles fought", battles or ("None this turn.",)))
    received = tuple(
        f"From {letter.get('From')}: {letter.get('Text')}"
        for letter in report["letters"]
        if letter.get("To Clan") == clan and _number(letter.get("Delivered Turn")) == turn
    )
    parts.append(Part("Letters received", received or ("None this turn.",)))
    # a province whose stockpiles alone grew is counted, not listed: the lead stays about what happened
    routine = [c for c in report["changes"] if _routine(c)]
    changes = tuple(c for c in report["changes"] if not _routine(c))
    lines: tuple[str, ...] = () if changes else ("Nothing of yours changed this turn.",)
    if routine:
        lines += (f"Stockpiles changed in {len(routine)} more of your provinces (see Provinces below).",)
    parts.append(Part("What changed", lines, changes))
    return tuple(parts)


ROUTINE = ("Tax Stockpile ", "Manpower Stockpile ")


def _routine(change: dict[str, Any]) -> bool:
    """A province's change of its stockpiles alone (each turn's regeneration)."""
    return str(change["What"]).startswith("Province ") and all(
        part.startswith(ROUTINE) for part in str(change["Change"]).split("; ")
    )


def _gm_lead(report: dict[str, Any]) -> tuple[Part, ...]:
    problems = tuple(report.get("problems", ()))
    refused = [o for o in report["orders"] if o.get("Status") == "Rejected"]
    blocked = [o for o in report["orders"] if str(o.get("Result") or "").startswith("Blocked")]
    return (
        Part("The turn's problems", problems or ("The campaign has no warnings.",)),
        Part(
            f"Refused orders of turn {report['turn']}",
            () if refused else ("No order was refused.",),
            _orders(refused),
        ),
        Part("Blocked marches", () if blocked else ("No march was blocked.",), _orders(blocked)),
        Part("Battles fought", tuple(_battle(b) for b in report["battles"]) or ("None this turn.",)),
    )


def _follow(report: dict[str, Any]) -> tuple[Part, ...]:
    coming = report["next"]
    when = (
        f"Orders for turn {coming['turn']} are due by {coming['deadline']}."
        if coming.get("deadline")
        else f"Orders for turn {coming['turn']} are due when the GMs resolve it (no deadline is set)."
    )
    lines = [when]
    if "treasury" in coming:
        lines.append(f"Treasury: {coming['treasury']} Mon.")
        if coming["buildings"]:
            lines.append("It pays for: " + ", ".join(coming["buildings"]) + ".")
        if coming["too dear"]:
            lines.append("Not yet: " + ", ".join(coming["too dear"]) + ".")
        if coming["samurai cost"]:
            lines.append(f"Or up to {coming['samurai']} Samurai hired at {coming['samurai cost']} Mon each.")
    return (Part("Next turn", tuple(lines)),)
