"""Fuzzing validation (issue 8): malformed values in every column of every tab.

Each example takes a small valid campaign, spoils one to three cells of ONE tab (text in counts,
negatives, unknown names, duplicates, empty keys, huge numbers, formulas, dates, times, unicode)
and sometimes adds a copied row and trailing rows that only look empty, then validates it in
process. The oracle is written from the contract (shared/spec/sheet-schema.md), not from the code:

- a value a column cannot hold is an error naming tab, row, column and the value;
- a text column that names a row of another tab reports a name that is not there;
- a value a column may hold (unicode in a free-text column, a formula-looking text in Notes, a
  negative Authority) is no problem at all, unless the column carries a rule (then the oracle
  asks only that validation does not fail);
- problems from unreadable cells are at those cells and nowhere else;
- validation never raises, and never writes.

Speed (500 examples per tab in about a minute): the clean campaign is typed once; an
example re-types only its tab (`load_state` over that tab) and runs the ruleset's checks on the
result, as `app.open_campaign` does, only when it spoiled a name, a reference or a ruled column
(the checks read nothing else; test_a_row_left_out_of_the_checks_* covers rows they skip), and
remembers the checks' answer for a tab typed alike. test_the_shortcut_is_what_validate_does_*
shows the shortcut finds what `app.validate` finds. SHEETS_ENGINE_FUZZ_EXAMPLES sets the examples
per tab (default: 34, a third, and 100 with SHEETS_ENGINE_HYPOTHESIS=thorough; the full run is
`SHEETS_ENGINE_FUZZ_EXAMPLES=500 python -m pytest tests/test_fuzz_validation.py`, about a minute on
two cores); the examples are derandomized, the same on every run
(SHEETS_ENGINE_FUZZ_EXPLORE=1 draws fresh ones).

Also here: malformed player orders are rejected with a reason while the rest of the turn resolves,
and the real command on a spoiled workbook exits 2 with no traceback and writes nothing. Known
gaps it finds become fixes in the package and tests here."""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import subprocess
import warnings
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime, time, timedelta
from enum import Enum
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openpyxl import load_workbook

from sheets_engine import app
from sheets_engine.core.cells import MAX_COUNT, split_names
from sheets_engine.core.load import load_state
from sheets_engine.core.problems import InvalidCampaign, Problem, Severity
from sheets_engine.core.tables import GameState, TabSpec
from sheets_engine.sengoku.game import GameSettings
from sheets_engine.sengoku.schema import OrderType
from sheets_engine.stores.base import StoreError
from sheets_engine.stores.memory import MemoryStore
from tests.support import RULESET, examples, run_main, tabs

# Hypothesis reports a failing example through libcst, which warns on import where mypy_extensions is
# installed; with warnings as errors the report itself would crash. Import it quietly up front.
with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    with contextlib.suppress(ImportError):
        import hypothesis.extra._patching  # noqa: F401

EXAMPLES = int(os.environ.get("SHEETS_ENGINE_FUZZ_EXAMPLES", "0")) or examples(100)
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    # the same examples on every run and machine, so CI is reproducible; SHEETS_ENGINE_FUZZ_EXPLORE=1
    # draws new ones (to search further by hand, with more examples)
    derandomize=not os.environ.get("SHEETS_ENGINE_FUZZ_EXPLORE"),
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


# The campaign every example spoils: small, so the checks run fast, with at least one row in every
# tab and every kind of reference in use.
def _campaign() -> dict[str, list[list[Any]]]:
    def clan(name: str, capital: str, **values: Any) -> dict[str, Any]:
        row = {"Clan": name, "Treasury": 20, "Knowledge": 5, "Development": 1, "Capital": capital}
        return row | values

    def province(name: str, owner: str, adjacent: str, **values: Any) -> dict[str, Any]:
        row = {"Province": name, "Type": "Rural", "Terrain": "Plains", "Province Owner": owner, "Adjacent": adjacent}
        return row | {k.replace("_", " "): v for k, v in values.items()}

    def character(name: str, email: str, clan: str, title: str, authority: int, where: str, status: str) -> dict:
        return {"Character": name, "Player": name.split()[0].lower(), "Email": email, "Clan": clan,
                "Title": title, "Authority": authority, "Location": where, "Status": status}  # fmt: skip

    return tabs(
        clans=[clan("Oda", "Owari", Development=3), clan("Takeda", "Kai"), clan("Uesugi", "")],
        alliances=[
            {"Clan": "Oda", "Ally": "Takeda", "Secret": False, "Since Turn": 0},
            {"Clan": "Takeda", "Ally": "Oda", "Secret": True, "Since Turn": 0},
        ],
        provinces=[
            province(
                "Owari",
                "Oda",
                "Mino",
                Type="City",
                Resource="Rice",
                Building_1="Fortress",
                Building_2="Court",
                Fortress_Level=1,
                Tax_Stockpile=2,
                Manpower_Stockpile=1,
            ),
            province("Mino", "Oda", "Owari, Kai", Controlled_By="Takeda", Terrain="River", Building_1="Dojo"),
            province(
                "Kai",
                "Takeda",
                "Mino, Echigo",
                Type="City",
                Terrain="Mountains",
                Resource="Gold",
                Building_1="Gold Mine",
                Capital_Of="Takeda",
                Slots=4,
            ),
            province("Echigo", "Uesugi", "Kai", Terrain="Hills"),
        ],
        armies=[
            {
                "Army": "Oda Host",
                "Clan": "Oda",
                "Province": "Owari",
                "Leader": "Oda Nobunaga",
                "Spear": 6,
                "Sword": 2,
                "Samurai": 1,
                "Moved": False,
                "Status": "Field",
            },
            {
                "Army": "Takeda Raiders",
                "Clan": "Takeda",
                "Province": "Mino",
                "Cavalry": 4,
                "Origin": "Kai",
                "Moved": True,
                "Status": "Field",
            },
        ],
        characters=[
            character("Oda Nobunaga", "nobunaga@example.com", "Oda", "Daimyo", 7, "Owari", "Alive"),
            character("Kinoshita Tokichiro", "tokichiro@example.com", "Oda", "Bugyo", -1, "Owari", "Alive"),
            character("Takeda Shingen", "shingen@example.com", "Takeda", "Daimyo", 6, "Kai", "Alive"),
            character("Uesugi Kenshin", "kenshin@example.com", "Uesugi", "Daimyo", 6, "Echigo", "Alive"),
            character("Saito Dosan", "dosan@example.com", "", "", 2, "Mino", "Dead"),
        ],
        form_responses_1=[
            {
                "Timestamp": "2026-11-28 12:00:00",
                "Email Address": "nobunaga@example.com",
                "Character": "Oda Nobunaga",
                "Order": "tax-province",
                "Target": "Owari",
            },
            {
                "Timestamp": datetime(2026, 11, 28, 12, 5),
                "Email Address": "shingen@example.com",
                "Character": "Takeda Shingen",
                "Order": "write-letter",
                "Target": "Oda",
                "Detail": "=HYPERLINK()",
                "Secret": "no",
            },
        ],
        orders=[
            {
                "Turn": 1,
                "Submitted": "2026-11-28 11:00:00",
                "Email": "kenshin@example.com",
                "Character": "Uesugi Kenshin",
                "Order": "meditate",
                "Secret": False,
                "Status": "Pending",
            },
        ],
        tech_choices=[{"Turn": 1, "Clan": "Oda", "Character": "Oda Nobunaga", "Discipline": "Warfare"}],
        letters=[{"Letter": "L1", "Turn": 0, "From": "Uesugi Kenshin", "To Clan": "Takeda", "Text": "Salt."}],
        relations=[{"Clan A": "Oda", "Clan B": "Takeda", "Since Turn": 0}],
        sieges=[{"Province": "Echigo", "Besieger": "Takeda", "Defender": "Uesugi", "Timer": 2, "Started Turn": 1}],
    )


CAMPAIGN = _campaign()
SPECS = {spec.name: spec for spec in RULESET.tabs}
FUZZED_TABS = [spec.name for spec in RULESET.tabs if not spec.log]


# The contract, column by column -----------------------------------------------------------------

# Text columns that name a row of another tab: (tab, column) -> (target tab, may it be empty).
REFERENCES: dict[tuple[str, str], tuple[str, bool]] = {
    ("Clans", "Capital"): ("Provinces", True),
    ("Alliances", "Clan"): ("Clans", False),
    ("Alliances", "Ally"): ("Clans", False),
    ("Provinces", "Terrain"): ("Terrain", False),
    ("Provinces", "Province Owner"): ("Clans", True),
    ("Provinces", "Controlled By"): ("Clans", True),
    **{("Provinces", f"Building {n}"): ("Buildings", True) for n in range(1, 6)},
    ("Buildings", "Levy Unit"): ("Units", True),
    ("Armies", "Clan"): ("Clans", False),
    ("Armies", "Province"): ("Provinces", False),
    ("Armies", "Leader"): ("Characters", True),
    ("Armies", "Origin"): ("Provinces", True),
    ("Characters", "Clan"): ("Clans", True),
    ("Characters", "Location"): ("Provinces", True),
    ("Tech Choices", "Clan"): ("Clans", False),
    ("Letters", "From"): ("Characters", False),
    ("Letters", "To Clan"): ("Clans", False),
    ("Relations", "Clan A"): ("Clans", False),
    ("Relations", "Clan B"): ("Clans", False),
    ("Sieges", "Province"): ("Provinces", False),
    ("Sieges", "Besieger"): ("Clans", False),
    ("Sieges", "Defender"): ("Clans", False),
}
# Comma-separated lists of names.
NAME_LISTS = {("Provinces", "Adjacent"): "Provinces"}
# Columns that carry a rule beyond their type (slots, fortress levels, one Daimyo, one row per
# level...): a readable value there may be an error somewhere, and the oracle only asks that
# validation does not fail. Key columns and references to existing names are treated the same.
RULED = {
    ("Game", "Value"),
    ("Provinces", "Type"),
    ("Provinces", "Resource"),
    ("Provinces", "Fortress Level"),
    ("Buildings", "Kind"),
    ("Buildings", "Resource"),
    ("Units", "Army Column"),
    ("Tech", "Discipline"),
    ("Tech", "Level"),
    ("Missions", "Order"),
    ("Characters", "Email"),
    ("Characters", "Title"),
    ("Characters", "Status"),
    ("Clans", "Development"),  # the fifth building slot
}
# Enum columns where an empty cell has a meaning (engine-owned statuses a GM leaves empty).
BLANK_ENUMS = {("Armies", "Status"), ("Characters", "Status"), ("Orders", "Status"), ("Tech Choices", "Status"),
               ("Letters", "Status"), ("Sieges", "Status")}  # fmt: skip
# Game keys whose value names a row of another tab, and whether empty is allowed (no Shogun).
GAME_REFERENCES = {"shogun_clan": "Clans", "default_levy_unit": "Units"}
GAME_REFERENCES_EMPTY_OK = {"shogun_clan"}


@dataclass(frozen=True)
class Column:
    """What a column may hold, read off the tab's row model."""

    tab: str
    name: str
    kind: str  # whole, optional, text, flag, fraction, enum
    low: int = -MAX_COUNT
    high: int = MAX_COUNT
    words: tuple[str, ...] = ()
    key: bool = False

    @property
    def role(self) -> str:
        """key, ref, refs (a list of names), ruled or free."""
        where = (self.tab, self.name)
        if self.key:
            return "key"
        if where in REFERENCES:
            return "ref"
        if where in NAME_LISTS:
            return "refs"
        return "ruled" if where in RULED else "free"


def _column(spec: TabSpec, name: str) -> Column:
    assert spec.model is not None
    info = next(f for f in spec.model.model_fields.values() if f.alias == name)
    low, high = -MAX_COUNT, MAX_COUNT
    validator = ""
    for meta in info.metadata:
        low = max(low, getattr(meta, "ge", low))
        high = min(high, getattr(meta, "le", high))
        func = getattr(meta, "func", None)
        validator = getattr(func, "__name__", validator) if func is not None else validator
    kind = {"_whole": "whole", "_optional_whole": "optional", "_text": "text", "timestamp_text": "timestamp",
            "_flag": "flag", "_secret": "secret", "_fraction": "fraction", "parse": "enum"}[validator]  # fmt: skip
    if kind == "optional":
        low, high = 0, MAX_COUNT
    words: tuple[str, ...] = ()
    if kind == "enum":
        assert isinstance(info.annotation, type) and issubclass(info.annotation, Enum)
        words = tuple(str(m.value) for m in info.annotation)
    return Column(spec.name, name, kind, low, high, words, key=name == spec.key)


# Optional columns (Provinces Map X/Map Y) are not in a template workbook; tests/test_map.py covers their cells.
COLUMNS = {t: [_column(SPECS[t], c) for c in SPECS[t].columns if c not in SPECS[t].optional] for t in FUZZED_TABS}


# Reading a cell as the contract says ------------------------------------------------------------

NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", re.ASCII)  # what a spreadsheet takes as a number
MOMENTS = (datetime, date, time, timedelta)


def blank(value: Any) -> bool:
    """An empty cell: nothing, NaN or only spaces."""
    if value is None:
        return True
    if isinstance(value, float) and math.isnan(value):
        return True
    return isinstance(value, str) and value.strip() == ""


def whole(value: Any) -> int | None:
    """The whole number a cell holds, or None if it holds something else."""
    if isinstance(value, (bool, *MOMENTS)):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if math.isfinite(value) and value == int(value) else None
    if isinstance(value, str) and NUMBER.fullmatch(value.strip()):
        text = value.strip()
        return int(text) if text.lstrip("+-").isdigit() else whole(float(text))
    return None


def text(value: Any) -> str:
    """A cell as text, the way a name or an order is read."""
    if blank(value):
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float) and math.isfinite(value) and value == int(value):
        return str(int(value))
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%d %H:%M:%S")
    if isinstance(value, (date, time)):
        return value.isoformat()
    return str(value).strip()


def readable(column: Column, value: Any) -> bool:
    """Can this column hold this value? (Types only: names and rules are judged elsewhere.)"""
    if column.kind == "text":
        return True
    if column.kind == "timestamp":
        return moment_readable(value)
    if column.kind in ("whole", "optional"):
        if blank(value):
            return column.low <= 0 <= column.high or column.kind == "optional"
        number = whole(value)
        return number is not None and column.low <= number <= column.high
    if column.kind in ("flag", "secret"):
        if blank(value) or isinstance(value, bool):
            return True
        if isinstance(value, (int, float)) and not isinstance(value, MOMENTS):
            return value in (0, 1)
        words = ["true", "yes", "y", "1", "false", "no", "n", "0"]
        if column.kind == "secret":  # an Orders row's Secret also takes the form's answers (docs/form.md)
            words += ["keep it secret", "make it public", "secret", "public"]
        return isinstance(value, str) and " ".join(value.split()).casefold() in words
    if column.kind == "fraction":
        if blank(value):
            return True
        if isinstance(value, (bool, *MOMENTS)):
            return False
        if isinstance(value, (int, float)):
            return 0 <= value <= 1
        if not isinstance(value, str):
            return False
        number = value.strip()
        scale = 1.0
        if number.endswith("%"):
            number, scale = number[:-1].strip(), 100.0
        return bool(NUMBER.fullmatch(number)) and 0 <= float(number) / scale <= 1
    assert column.kind == "enum"
    if blank(value):
        return (column.tab, column.name) in BLANK_ENUMS
    return text(value).casefold() in {w.casefold() for w in column.words}


TYPED_DATES = (
    re.compile(r"(\d{1,2})[/.-](\d{1,2})[/.-]\d{4}( \d{1,2}:\d{2}(:\d{2})?)?"),  # 14/3/2024 10:00
)


def moment_readable(value: Any) -> bool:
    """A form timestamp: a datetime or date, a serial day number a spreadsheet can show, or text
    holding a whole date whose day and month cannot be swapped (year first always can't)."""
    if blank(value):
        return True
    if isinstance(value, bool | time | timedelta):
        return False
    if isinstance(value, datetime | date):
        return True
    if isinstance(value, int | float):
        return math.isfinite(value) and 0 < value < 2_958_466
    typed = text(value)
    try:
        datetime.fromisoformat(typed)
        return True
    except ValueError:
        pass
    for pattern in TYPED_DATES:
        match = pattern.fullmatch(typed)
        if match:
            first, second = int(match.group(1)), int(match.group(2))
            return (
                (first > 12 or second > 12 or first == second) and min(first, second) >= 1 and max(first, second) <= 31
            )
    return False


def game_readable(key: str, value: Any) -> bool | None:
    """Can the Game tab's `key` hold this value? None for a key that is not a setting."""
    info = GameSettings.model_fields.get(key)
    if info is None:
        return None
    if info.annotation is str:
        return True
    parts = split_names(text(value)) if key == "garrison_capacity" else [text(value)]
    low = max([0, *(getattr(m, "ge", 0) for m in info.metadata)])
    high = min([MAX_COUNT, *(getattr(m, "le", MAX_COUNT) for m in info.metadata)])
    if any(getattr(m, "ge", 0) < 0 for m in info.metadata):
        low = -MAX_COUNT
    return all((n := whole(p) if p else 0) is not None and low <= n <= high for p in parts)


# Spoiling a tab ---------------------------------------------------------------------------------

MALFORMED_TEXT = [
    "lots", "N/A", "#REF!", "#VALUE!", "=SUM(A1:A3)", "=1+1", "-", "1,000", "1_000", "٣", "１２", "½",
    "3.5", "-2", "-0", "+4", " 7 ", "1e3", "1e400", "nan", "inf", "-inf", "0x1F", "TRUE", "yes", "n",
    "60%", "150%", "0.25", "12:30", "2026-11-28", "'5", "Oda ", "oda", "Odaa", "Oda\u200b", "織田",
    "Owari, Owari", "Owari,,Mino", "Nowhere", "Ōwari", "\u3000", "\t", "🏯", "Robert'); DROP TABLE",
]  # fmt: skip
BLANKS = [None, "", " ", "  \t", float("nan")]

anything = st.one_of(
    st.sampled_from(MALFORMED_TEXT),
    st.text(max_size=12),
    st.integers(min_value=-(10**3), max_value=10**3),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.datetimes(min_value=datetime(1900, 1, 1), max_value=datetime(2100, 1, 1)),
    st.dates(min_value=date(1900, 1, 1), max_value=date(2100, 1, 1)),
    st.times(),
    st.timedeltas(min_value=timedelta(days=-1000), max_value=timedelta(days=1000)),
    st.sampled_from(BLANKS),
)


def names(tab: str, rows: list[list[Any]] | None = None) -> list[str]:
    """The names in a tab's key column (of the given rows, else of the clean campaign)."""
    if rows is None:
        return CLEAN_NAMES[tab]
    spec = SPECS[tab]
    index = rows[0].index(spec.key)
    return [text(r[index]) for r in rows[1:] if index < len(r) and not blank(r[index])]


def values_for(column: Column, rows: list[list[Any]]) -> st.SearchStrategy[Any]:
    """Malformed and odd-but-valid values for one column."""
    kinds = [anything]
    where = (column.tab, column.name)
    if column.kind in ("whole", "optional"):
        kinds.append(st.integers(min_value=column.low - 3, max_value=min(column.high, 10**6) + 3))
        kinds.append(st.sampled_from([column.low, column.high, column.high + 1, MAX_COUNT + 1, -1, 0]))
        kinds.append(st.integers(min_value=-50, max_value=50).map(lambda n: f" {n}.0 "))
    if column.kind == "enum":
        words = st.sampled_from(column.words)
        kinds.append(
            st.one_of(words, words.map(str.upper), words.map(lambda w: f" {w.lower()} "), words.map(lambda w: w + "s"))
        )
    if column.kind in ("flag", "secret"):
        kinds.append(st.sampled_from([True, False, "TRUE", "false", "Yes", "N", 1, 0, 1.0, 2, "2", "maybe"]))
    if column.kind == "secret":
        kinds.append(st.sampled_from(["Keep it secret", " make  it PUBLIC ", "Secret", "public", "Keep it"]))
    if column.kind == "fraction":
        kinds.append(st.sampled_from([0.6, "60%", "60 %", "0.1", 1, 0, "100%", "101%", -0.1, "60%%", ".5"]))
    if column.key:
        kinds.append(st.sampled_from(names(column.tab, rows) or ["x"]))  # a duplicate
    if where in REFERENCES or where in NAME_LISTS:
        target = REFERENCES.get(where, (NAME_LISTS.get(where), True))[0]
        known = st.sampled_from(names(target))
        kinds.append(known)
        kinds.append(known.map(lambda n: n.upper()))
        kinds.append(known.map(lambda n: n + "x"))
        if where in NAME_LISTS:
            kinds.append(st.lists(st.one_of(known, st.sampled_from(MALFORMED_TEXT)), max_size=4).map(", ".join))
    return st.one_of(*kinds)


@dataclass
class Spoiled:
    """One tab with some cells spoiled: what the oracle needs to know."""

    tab: str
    rows: list[list[Any]]  # header first, as a MemoryStore holds them
    cells: dict[tuple[int, str], Any] = field(default_factory=dict)  # (sheet row, column) -> value put there
    copied: set[int] = field(default_factory=set)  # sheet rows that are copies of another row

    def __repr__(self) -> str:  # a failing example shows what was spoiled, not the whole tab
        return f"Spoiled({self.tab!r}, cells={self.cells!r}, copied={sorted(self.copied)})"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:  # how Hypothesis prints a draw
        printer.text(repr(self))

    def value(self, row: int, column: str) -> Any:
        """The value in a sheet row under a header."""
        cells = self.rows[row - 1]
        if column not in self.rows[0]:  # an optional column the workbook does not have
            return None
        index = self.rows[0].index(column)
        return cells[index] if index < len(cells) else None

    def blank_row(self, row: int) -> bool:
        """A row with nothing in the tab's columns is no row at all."""
        return all(blank(self.value(row, c)) for c in SPECS[self.tab].columns)

    def key_problem(self, row: int) -> bool:
        """Is the row's name empty, or already taken by an earlier row?"""
        key = SPECS[self.tab].key
        if key is None:
            return False
        name = text(self.value(row, key))
        return name == "" or name in {text(self.value(r, key)) for r in range(2, row) if not self.blank_row(r)}


@st.composite
def spoiled(draw: st.DrawFn, tab: str) -> Spoiled:
    """A tab of the campaign with 1-3 cells spoiled, perhaps a copied row and trailing blank rows."""
    rows = [list(r) for r in CAMPAIGN[tab]]
    header = rows[0]
    result = Spoiled(tab, rows)
    data_rows = list(range(2, len(rows) + 1))
    if draw(st.integers(0, 4)) == 0:  # a copy of a row: a duplicate name in tabs with names
        rows.append(list(rows[draw(st.sampled_from(data_rows)) - 1]))
        result.copied.add(len(rows))
        data_rows.append(len(rows))
    for _ in range(draw(st.sampled_from((1, 1, 1, 2, 3)))):
        row = draw(st.sampled_from(data_rows))
        column = draw(st.sampled_from(COLUMNS[tab]))
        value = draw(VALUES[tab, column.name])
        cells = rows[row - 1]
        cells.extend([None] * (len(header) - len(cells)))
        cells[header.index(column.name)] = value
        result.cells[(row, column.name)] = value
    for _ in range(draw(st.integers(0, 2))):  # trailing rows that look empty
        rows.append([draw(st.sampled_from(BLANKS)) for _ in header])
    return result


CLEAN_NAMES = {t: names(t, CAMPAIGN[t]) for t in FUZZED_TABS if SPECS[t].key}
VALUES = {(c.tab, c.name): values_for(c, CAMPAIGN[c.tab]) for t in FUZZED_TABS for c in COLUMNS[t]}
CLEAN_STATE, CLEAN_PROBLEMS = load_state(MemoryStore(CAMPAIGN).read(), RULESET.tabs)


# The oracle --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    """What the contract expects of one spoiled cell."""

    row: int
    column: str
    report: tuple[Any, ...] = ()  # values that must each be an error at exactly this cell
    quiet: bool = False  # the value is fine and nothing reads it: no problem anywhere
    cross: bool = False  # what it causes is up to the cross-reference checks


def judge(s: Spoiled, row: int, column: Column, checked: bool) -> Verdict:
    """The contract's verdict on the value now in (row, column); `checked`: the row is cross-checked."""
    value = s.value(row, column.name)
    where = (s.tab, column.name)
    if not readable(column, value):
        return Verdict(row, column.name, (value,))
    if column.key:
        if s.key_problem(row):
            return Verdict(row, column.name, (value,))
        return Verdict(row, column.name, cross=True)  # a new name: references to the old one break
    if not checked:
        return Verdict(row, column.name)
    if s.tab == "Game" and column.name == "Value":
        key = text(s.value(row, "Key"))
        ok = game_readable(key, value)
        target = GAME_REFERENCES.get(key)
        allowed = ["", *names(target)] if key in GAME_REFERENCES_EMPTY_OK else names(target) if target else []
        unknown = target and text(value) not in allowed
        if ok is False or unknown:
            return Verdict(row, column.name, (text(value),), cross=True)
        return Verdict(row, column.name, quiet=ok is None, cross=True)
    if where in REFERENCES:
        target, empty_ok = REFERENCES[where]
        name = text(value)
        known = names(target, s.rows if target == s.tab else None)
        if (name == "" and not empty_ok) or (name != "" and name not in known):
            return Verdict(row, column.name, (name,), cross=True)
        return Verdict(row, column.name, cross=True)
    if where in NAME_LISTS:
        own = text(s.value(row, SPECS[s.tab].key or ""))
        known = names(NAME_LISTS[where], s.rows)
        unknown = tuple(n for n in split_names(text(value)) if n not in known and n != own)
        return Verdict(row, column.name, unknown, cross=True)
    if where in RULED:
        return Verdict(row, column.name, cross=True)
    return Verdict(row, column.name, quiet=True)


def verdicts(s: Spoiled) -> list[Verdict]:
    """A verdict for every spoiled cell (every cell of a copied row) in a row that is not blank."""
    columns = {c.name: c for c in COLUMNS[s.tab]}
    found = []
    for row in sorted({r for r, _ in s.cells} | s.copied):
        if s.blank_row(row):
            found.append(Verdict(row, "", quiet=True))
            continue
        # a row with a bad cell, or an empty or repeated name, is not cross-checked until it is fixed
        checked = not s.key_problem(row) and all(readable(c, s.value(row, c.name)) for c in COLUMNS[s.tab])
        spoiled_here = list(columns) if row in s.copied else [c for r, c in s.cells if r == row]
        # (a copied row in a tab without names is judged cell by cell: its names are known ones,
        # so cross-checked, and rules against repeats sit in RULED columns)
        found += [judge(s, row, columns[name], checked) for name in spoiled_here]
    return found


def validate_one_tab(tab: str, rows: list[list[Any]], cross_checks: bool = True) -> list[Problem]:
    """What `app.validate` finds when only `tab` differs from the clean campaign.

    Types only that tab and, with `cross_checks`, runs the ruleset's checks over the whole state,
    as `app.open_campaign` does (not when a header or a tab is missing).
    """
    store = MemoryStore()
    store.tabs = {tab: rows}  # no copy: the store only reads them
    one, problems = load_state(store.read(), [SPECS[tab]])
    if cross_checks and not any(p.severity is Severity.ERROR and p.row in (None, 1) for p in problems):
        problems += _checks(tab, one)
    return problems


_CHECKED: dict[Any, list[Problem]] = {}


def _checks(tab: str, one: GameState) -> list[Problem]:
    """The ruleset's checks over the clean state with `tab` typed anew.

    The checks are a pure function of the typed state, and many examples type a tab alike (an
    unknown name is an unknown name): the problems found for a typed tab are kept and reused.
    """
    frame, rows = one.tables[tab], one.rows[tab]
    key = (tab, tuple(frame.itertuples(name=None)), tuple(rows.items()))
    if key not in _CHECKED:
        state = replace(
            CLEAN_STATE,
            tables={**CLEAN_STATE.tables, tab: frame},
            rows={**CLEAN_STATE.rows, tab: rows},
            layouts={**CLEAN_STATE.layouts, tab: one.layouts[tab]},
        )
        _CHECKED[key] = RULESET.check(state)
    return list(_CHECKED[key])


def shows(found: Any, put: Any) -> bool:
    """Does a problem's value show the value that was put in the cell?"""
    return found is put or text(found) == text(put)


def assert_contract(s: Spoiled, expected: list[Verdict], problems: list[Problem]) -> None:
    """The problems found for a spoiled tab are the ones the contract asks for."""
    shown = [str(p) for p in problems]
    for p in problems:  # every problem is well formed and printable
        assert p.tab in SPECS and p.expected, p
        assert p.row is None or (isinstance(p.row, int) and p.row >= 1), p
        assert p.column == "" or p.column in SPECS[p.tab].columns, p
        assert json.dumps(p.as_dict(), default=str)
    errors = [p for p in problems if p.severity is Severity.ERROR]
    for verdict in expected:
        for value in verdict.report:
            assert any(
                (p.tab, p.row, p.column) == (s.tab, verdict.row, verdict.column) and shows(p.value, value)
                for p in errors
            ), f"{s.tab} row {verdict.row}, column {verdict.column}: {value!r} is not reported; found {shown}"
    if all(v.quiet for v in expected):
        assert problems == [], f"{s!r} should cause no problem; found {shown}"
    elif not any(v.cross for v in expected):  # type errors only: each at a spoiled cell, nothing else
        spoiled = {(v.row, v.column) for v in expected}
        spoiled |= {(v.row, SPECS[s.tab].key) for v in expected if v.row in s.copied}
        stray = [str(p) for p in problems if p.tab != s.tab or (p.row, p.column) not in spoiled]
        assert not stray, f"{s!r}: problems away from the spoiled cells: {stray}"


# The properties ----------------------------------------------------------------------------------


def test_the_fuzzed_campaign_is_valid_as_laid_out() -> None:
    """The baseline every example spoils: no problems at all (so each problem is the fuzz's)."""
    assert CLEAN_PROBLEMS == []
    assert app.validate(MemoryStore(CAMPAIGN)) == []
    assert all(len(CAMPAIGN[t]) >= 2 for t in FUZZED_TABS), "every tab has a row to spoil"


@pytest.mark.parametrize("tab", FUZZED_TABS)
@FUZZ
@given(data=st.data())
def test_every_malformed_cell_is_reported_with_tab_row_column_and_value(tab: str, data: st.DataObject) -> None:
    """The checks read names, references and rules only: an example that spoils none of those
    skips them (test_a_row_left_out_of_the_checks_* covers the checks with rows left out)."""
    s = data.draw(spoiled(tab))
    expected = verdicts(s)
    problems = validate_one_tab(tab, s.rows, cross_checks=any(v.cross for v in expected))
    assert_contract(s, expected, problems)


def _unreadable(tab: str) -> tuple[str, Any] | None:
    """A column of the tab and a value it cannot hold (None for tabs of free text only)."""
    for column in COLUMNS[tab]:
        if column.kind != "text":
            return column.name, "#REF!"
    return None


ROWS = [
    pytest.param(t, r, id=f"{t}-{r}") for t in FUZZED_TABS if _unreadable(t) for r in range(2, len(CAMPAIGN[t]) + 1)
]


@pytest.mark.parametrize(("tab", "row"), ROWS)
def test_a_row_left_out_of_the_checks_is_reported_alone(tab: str, row: int) -> None:
    """A row with a cell that cannot be read is left out of the cross-reference checks (its
    name stays known). Whichever row it is, the full `validate` reports that cell and nothing else."""
    column, value = _unreadable(tab) or ("", None)
    store = MemoryStore(CAMPAIGN)
    store.tabs[tab][row - 1][store.tabs[tab][0].index(column)] = value
    problems = app.validate(store)
    assert [(p.tab, p.row, p.column, p.value) for p in problems] == [(tab, row, column, value)]
    assert store.writes == 0


def _as_rows(problems: list[Problem]) -> list[tuple[Any, ...]]:
    return sorted((p.tab, p.row or 0, p.column, text(p.value), p.expected, p.severity.value) for p in problems)


@settings(FUZZ, max_examples=max(EXAMPLES // 20, 10))
@given(data=st.data())
def test_the_shortcut_is_what_validate_does_and_nothing_is_written(data: st.DataObject) -> None:
    """`validate_one_tab` finds what `app.validate` finds on the whole campaign; a campaign with
    errors is not resolved and nothing is written to its store."""
    tab = data.draw(st.sampled_from(FUZZED_TABS))
    s = data.draw(spoiled(tab))
    store = MemoryStore(CAMPAIGN)
    store.tabs[tab] = s.rows
    try:
        found = app.validate(store)
    except StoreError as error:  # only the Game tab's ruleset can make the campaign unreadable
        assert tab == "Game" and "ruleset" in str(error), error
        return
    assert _as_rows(found) == _as_rows(validate_one_tab(tab, s.rows))
    if any(p.severity is Severity.ERROR for p in found):
        with pytest.raises(InvalidCampaign):
            app.resolve(store, force=True)
    assert store.writes == 0 or not any(p.severity is Severity.ERROR for p in found)


@pytest.mark.parametrize("key", sorted(GAME_REFERENCES))
def test_a_game_value_naming_an_unknown_row_is_reported(key: str) -> None:
    store = MemoryStore(CAMPAIGN)
    row = next(n for n, r in enumerate(store.tabs["Game"], start=1) if r[0] == key)
    store.tabs["Game"][row - 1][1] = "Atlantis"
    assert [(p.tab, p.row, p.column, p.value) for p in app.validate(store)] == [("Game", row, "Value", "Atlantis")]


# Malformed player orders ---------------------------------------------------------------------------

NOW = datetime(2026, 11, 30, 20, 0, tzinfo=UTC)
ORDER_WORDS = [o.value for o in OrderType]
TARGETED = ["tax-province", "recruit-levies", "build", "lead-army", "hire-samurai", "rally-samurai", "trade-mission",
            "establish-relations", "designate-ally", "execute", "write-letter"]  # fmt: skip


def _normal(value: Any) -> str:
    """A name as the order form's matching sees it: case and spacing do not count."""
    return " ".join(text(value).split()).casefold()


KNOWN_NAMES = {_normal(n) for t in CLEAN_NAMES for n in CLEAN_NAMES[t]}
garbage = st.one_of(
    st.sampled_from(MALFORMED_TEXT),
    st.text(max_size=12),
    st.integers(min_value=-(10**20), max_value=10**20),
    st.floats(),
    st.datetimes(min_value=datetime(1900, 1, 1), max_value=datetime(2100, 1, 1)),
    st.sampled_from(BLANKS),
).filter(lambda v: _normal(v) not in KNOWN_NAMES)
ORDER_LETTERS = {w.replace("-", "") for w in ORDER_WORDS}
not_an_order = garbage.filter(lambda v: re.sub("[^a-z]", "", _normal(v)) not in ORDER_LETTERS)
EMAILS = {r[0]: r[2] for r in CAMPAIGN["Characters"][1:]}


def _affordable(detail: Any) -> bool:
    """A number of Samurai the Oda treasury pays for (empty is 1): a good order, not a malformed one."""
    count = text(detail)
    return count == "" or (count.isascii() and count.isdigit() and 1 <= int(count) <= 2)


@st.composite
def malformed_response(draw: st.DrawFn) -> dict[str, Any]:
    """A form response the rules cannot accept, in one of the ways players get it wrong."""
    fault = draw(st.sampled_from(["stranger", "not yours", "unknown order", "dead", "bad target", "bad number"]))
    character, order, target, detail = "Kinoshita Tokichiro", draw(st.sampled_from(TARGETED)), "", draw(garbage)
    email = EMAILS[character]
    if fault == "stranger":
        character = draw(garbage)
    elif fault == "not yours":  # anyone's email but the character's own or its Daimyo's
        email = draw(st.one_of(garbage, st.sampled_from([EMAILS["Takeda Shingen"], EMAILS["Uesugi Kenshin"]])))
    elif fault == "unknown order":
        order = draw(not_an_order)
    elif fault == "dead":
        character, email = "Saito Dosan", EMAILS["Saito Dosan"]
    if fault == "bad target":
        target = draw(garbage)
    elif fault == "bad number":
        order, target = draw(st.sampled_from(["hire-samurai", "rally-samurai"])), "Oda Host"
        numbers = st.one_of(garbage, st.sampled_from(["0", "-1", "1.5", "1e3", "3", "10**9", "½", "two"]))
        detail = draw(numbers.filter(lambda v: not _affordable(v)))
    else:
        target = draw(st.one_of(garbage, st.sampled_from(sorted(KNOWN_NAMES))))
    # Google Forms writes the Timestamp, never the player: a bad one is a GM's cell (tested above)
    moment = draw(st.datetimes(min_value=datetime(2026, 1, 1), max_value=datetime(2027, 1, 1)))
    return {"Timestamp": moment, "Email Address": email, "Character": character, "Order": order,
            "Target": target, "Detail": detail, "Secret": draw(garbage)}  # fmt: skip


def _resolved(responses: list[dict[str, Any]]) -> MemoryStore:
    store = MemoryStore(CAMPAIGN)
    header = store.tabs["Form Responses 1"][0]
    store.tabs["Form Responses 1"] += [[r.get(c) for c in header] for r in responses]
    report = app.resolve(store, now=NOW, force=True)
    assert report.summary["resolved"] is True
    return store


BASELINE = _resolved([])


@settings(FUZZ, max_examples=max(EXAMPLES // 16, 10))
@given(responses=st.lists(malformed_response(), min_size=1, max_size=4))
def test_malformed_orders_are_rejected_with_a_reason_and_the_rest_of_the_turn_resolves(
    responses: list[dict[str, Any]],
) -> None:
    store = _resolved(responses)
    kept = len(BASELINE.records("Orders"))
    orders = store.records("Orders")
    assert orders[:kept] == BASELINE.records("Orders")  # everyone else's orders went as before
    for order in orders[kept:]:
        assert order["Status"] in ("Rejected", "Superseded") and text(order["Result"]), order
    for tab in FUZZED_TABS:  # and so did the rest of the turn
        if tab not in ("Orders", "Form Responses 1"):
            assert store.records(tab) == BASELINE.records(tab), tab
    assert store.records("Notifications") == BASELINE.records("Notifications")


@pytest.mark.parametrize("detail", ["²", "٢"])
def test_a_samurai_count_in_other_digits_is_rejected(detail: str) -> None:
    order = {
        "Timestamp": "2026-11-29 10:00:00",
        "Email Address": EMAILS["Kinoshita Tokichiro"],
        "Character": "Kinoshita Tokichiro",
        "Order": "hire-samurai",
        "Target": "Oda Host",
        "Detail": detail,
    }
    assert _resolved([order]).records("Orders")[-1]["Status"] == "Rejected"


# The real command on a real workbook ---------------------------------------------------------------

# (tab, sheet row, column, value put there) in the demo workbook: one of each kind of bad input
SPOILS = [
    ("Clans", 2, "Treasury", "lots"),  # text in a count
    ("Clans", 3, "Knowledge", -3),  # a negative count
    ("Provinces", 4, "Province Owner", "Hōjō"),  # an unknown name, in unicode
    ("Armies", 3, "Army", "Oda Main Host"),  # a duplicate name
    ("Characters", 5, "Character", None),  # an empty name in a row with data
    ("Armies", 2, "Spear", 10**12),  # a huge number
    ("Units", 2, "CS", "=SUM(A1:A3)"),  # a formula, typed as text
    ("Terrain", 2, "Attacker", datetime(2026, 1, 1, 9, 30)),  # a date
    ("Tech", 2, "Winter Loss", "60%%"),  # a mistyped rate
]


def _spoil_workbook(path: Path) -> None:
    book = load_workbook(path)
    for tab, row, column, value in SPOILS:
        sheet = book[tab]
        index = next(c.column for c in sheet[1] if c.value == column)
        cell = sheet.cell(row=row, column=index)
        cell.value = value  # (cell(value=None) would leave the old value)
        if isinstance(value, str) and value.startswith("="):
            cell.data_type = "s"
    provinces = book["Provinces"]
    for offset in (1, 2, 3):  # trailing rows that only look empty
        provinces.cell(row=provinces.max_row + offset, column=1, value="   ")
    book.save(path)


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    """The command through the console script's main(), in this process (tests.support.run_main)."""
    return run_main(*args, env={"COLUMNS": "200"})


@pytest.fixture(scope="module")
def spoiled_workbook(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("spoiled") / "campaign.xlsx"
    app.init(str(path), demo=True)
    _spoil_workbook(path)
    return path


def test_validate_lists_every_bad_cell_as_a_real_command(spoiled_workbook: Path) -> None:
    before = spoiled_workbook.read_bytes()
    done = _run("validate", str(spoiled_workbook), "--json")
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    found = {
        (p["tab"], p["row"], p["column"], p["value"])
        for p in json.loads(done.stdout)["problems"]
        if p["severity"] == "error"
    }
    assert {(t, r, c, text(v)) for t, r, c, v in SPOILS} <= found
    assert spoiled_workbook.read_bytes() == before


@pytest.mark.parametrize("command", ["resolve", "recalc"])
def test_a_run_on_bad_input_exits_2_with_one_error_line_and_writes_nothing(
    spoiled_workbook: Path, command: str
) -> None:
    before = spoiled_workbook.read_bytes()
    done = _run(command, str(spoiled_workbook))
    assert done.returncode == 2
    assert "Traceback" not in done.stdout + done.stderr
    assert done.stderr.startswith("Error: ") and done.stderr.count("\n") == 1, done.stderr
    assert spoiled_workbook.read_bytes() == before
