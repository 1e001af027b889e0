"""The fifth performance wave, reviewed adversarially: each fast path must give what the plain one gave.

- A long tab is typed with its row model's fast twin (core.load.fast_twin): for every row model of every
  ruleset, a row the twin takes is a row the model takes, read the same (values and their types); and
  load_state on a long tab gives the same frames, dtypes, blanks, key rows and problems as the plain path.
- The log tabs a GM adds rows to (Notifications, Battles) are read whole again: read as header and
  length only, a GM's notice with no Turn made every resolve on Google Sheets refuse as "changed while
  the engine was working", and a GM's formula filled down a column of their own made a workbook's turn
  append its notifications far below the last one.
- The command asks numpy's BLAS for one thread before numpy loads; library use is left alone.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from typing import Any

import openpyxl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from sheets_engine import app
from sheets_engine.core import load
from sheets_engine.core.cells import MAX_COUNT, Count, Text
from sheets_engine.rulesets import get_ruleset, ruleset_names
from sheets_engine.stores.gsheets import GoogleSheetsStore
from sheets_engine.stores.gsheets_http import RetryPolicy
from sheets_engine.stores.memory import MemoryStore
from tests.standin.campaigns import demo_tabs
from tests.standin.fake_sheets import FakeSheets
from tests.standin.keys import TEST_ACCOUNT, write_key_file
from tests.standin.server import serve
from tests.support import examples

NOW = datetime(2026, 11, 30, 20, 0, tzinfo=UTC)
RULESETS = {name: get_ruleset(name) for name in ruleset_names()}
LONG = 2_005  # rows: past core.load.FAST_ROWS (checked below)


def demo(ruleset: str) -> dict[str, list[list[Any]]]:
    """The ruleset's demo campaign as `init --demo` lays it out (The Art of War's board, from a seed)."""
    laid = MemoryStore()
    if ruleset == "art-of-war":
        app.init(laid, ruleset=ruleset, options={"seed": "review"})
    else:
        app.init(laid, demo=True, ruleset=ruleset)
    return laid.tabs


DEMOS = {name: demo(name) for name in RULESETS}
MODELS = sorted(
    {(name, spec.name): spec.model for name, r in RULESETS.items() for spec in r.tabs if spec.model is not None}.items()
)

# -- the fast twin ----------------------------------------------------------------------------------

SPACES = "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2028\u2029\u202f\u205f\u3000\u200b\ufeff"
_text = st.text(alphabet=st.sampled_from(SPACES + "aZ1,.-%eE+_\u0663") | st.characters(), max_size=6)
WORDS = ["Oda", "City", "Rural", "Alive", "Dead", "Daimyo", "1", "2.0", "TRUE", "no", "60%", "Pending", "Spear"]
EDGES = [0, 1, -1, 4, MAX_COUNT, MAX_COUNT + 1, -MAX_COUNT, -MAX_COUNT - 1, True, False, 2.0, 2.5, -0.0, 1e300,
         float("nan"), float("inf"), float("-inf"), 0.6, 1e9, 1e9 + 1.0, 2**63, -(2**63) - 1]  # fmt: skip
CELLS = st.one_of(
    st.none(),
    _text,
    st.builds(lambda a, w, b: a + w + b, _text, st.sampled_from(WORDS), _text),
    st.integers(-2 * MAX_COUNT, 2 * MAX_COUNT),
    st.integers(-(10**30), 10**30),
    st.sampled_from(EDGES),
    st.floats(width=32),
    st.sampled_from([datetime(2026, 12, 1, 8, 30), date(2026, 3, 4), time(9, 30), timedelta(hours=5, minutes=3)]),
)


def typed(model: Any, values: dict[str, Any]) -> Any:
    """The row's validated values with their types, or None when the model refuses it."""
    try:
        found = model.model_validate(values).__dict__
    except ValidationError:
        return None
    return {k: (type(v), "nan" if isinstance(v, float) and math.isnan(v) else v) for k, v in found.items()}


@pytest.mark.parametrize(("ruleset", "tab"), [key for key, _ in MODELS])
@settings(max_examples=examples(60), deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_every_row_model_s_twin_takes_only_what_the_model_takes_and_reads_it_the_same(
    ruleset: str, tab: str, data: Any
) -> None:
    model = dict(MODELS)[(ruleset, tab)]
    aliases = [info.alias or name for name, info in model.model_fields.items()]
    # a row of the demo's tab (a row the model takes), some of its cells replaced
    template = DEMOS[ruleset][tab]
    header, rows = template[0], template[1:] or [[None] * len(template[0])]
    row = dict(zip(header, data.draw(st.sampled_from(rows)), strict=False))
    chosen = data.draw(st.lists(st.sampled_from(aliases), max_size=len(aliases), unique=True))
    values = {a: row.get(a) for a in aliases} | {a: data.draw(CELLS) for a in chosen}
    if data.draw(st.booleans()):
        values.pop(data.draw(st.sampled_from(aliases)))  # a column the tab lacks
    fast, plain = typed(load.fast_twin(model), values), typed(model, values)
    assert fast is None or fast == plain


class Ledger(BaseModel):
    """A row model a ruleset might write: each field set some other way than alias and default."""

    model_config = ConfigDict(populate_by_name=True, extra="ignore")
    name: Text = Field(alias="Name")
    note: Text = Field(default=" none ", alias="Note", validate_default=True)  # the default read as a cell
    tag: Text = Field(default_factory=lambda: "made", alias="Tag")  # a column the tab may lack
    owner: Text = Field(default="", alias="Owner", validation_alias="Owner Clan")
    count: Count = Field(default_factory=lambda: 3, alias="Count")


READ = {"name": "Oda", "note": "none", "tag": "made", "owner": "", "count": 3}  # a row with its Name alone


@pytest.mark.parametrize(
    ("row", "expected"),
    [
        ({"Name": "Oda"}, READ),
        ({"Name": "Oda", "Owner": "Takeda", "Count": 5}, READ | {"count": 5}),  # Owner is read as Owner Clan
        ({"Name": "Oda", "Owner Clan": "Mori"}, READ | {"owner": "Mori"}),
    ],
)
def test_the_twin_keeps_every_setting_of_a_field_not_only_its_alias_and_default(
    row: dict[str, Any], expected: dict[str, Any]
) -> None:
    assert Ledger.model_validate(row).__dict__ == expected
    # the twin took the whole field: a validated default, a default's factory, a validation alias
    assert load.fast_twin(Ledger).model_validate(row).__dict__ == expected


def long_copy(tabs: dict[str, list[list[Any]]], tab: str, rows: int) -> dict[str, list[list[Any]]]:
    """The tabs with `tab` made `rows` rows long, its rows copied under new names where it has a key."""
    header, *body = tabs[tab]
    body = body or [[None] * len(header)]
    grown = []
    for n in range(rows):
        cells = list(body[n % len(body)])
        if n >= len(body) and cells:
            cells[0] = f"{cells[0]} {n}" if cells[0] not in (None, "") else cells[0]
        grown.append(cells)
    return {**tabs, tab: [header, *grown]}


def state_summary(raw: Any, specs: Any) -> Any:
    """Everything load_state gives, in plain values (types kept, NaN comparable)."""

    def plain(v: Any) -> Any:
        return (type(v), "nan" if isinstance(v, float) and math.isnan(v) else v)

    state, problems = load.load_state(raw, specs)
    frames = {}
    for tab, f in state.tables.items():
        values = {c: list(map(plain, f[c].tolist())) for c in f.columns}
        frames[tab] = (list(f.columns), [str(d) for d in f.dtypes], list(map(plain, f.index)), values)
    found = [(p.tab, p.row, p.column, plain(p.value), p.expected, p.severity) for p in problems]
    return frames, {t: dict(r) for t, r in state.rows.items()}, {t: dict(b) for t, b in state.blanks.items()}, found


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
@settings(max_examples=examples(8), deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_a_long_tab_reads_as_the_plain_path_reads_it(ruleset: str, data: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    assert LONG > load.FAST_ROWS
    specs = RULESETS[ruleset].tabs
    tab = data.draw(st.sampled_from(sorted(s.name for s in specs if s.model is not None)))
    tabs = long_copy(DEMOS[ruleset], tab, LONG)
    header = tabs[tab][0]
    for _ in range(data.draw(st.integers(1, 8))):  # odd cells anywhere in the long tab
        row = tabs[tab][data.draw(st.integers(1, len(tabs[tab]) - 1))]
        column = data.draw(st.integers(0, len(header) - 1))
        row[column] = data.draw(CELLS)
    if data.draw(st.booleans()):  # a GM's own column, and a column the tab lacks
        tabs[tab][0] = [*header[:-1], "GM notes"]
    raw = MemoryStore(tabs).read()
    fast = state_summary(raw, specs)
    with monkeypatch.context() as patched:  # one example's patch, not the next one's
        patched.setattr(load, "FAST_ROWS", 10**9)  # the plain path: every row by the model itself
        plain = state_summary(raw, specs)
    assert fast == plain


def test_a_long_provinces_tab_with_odd_cells_gives_the_plain_path_s_problems_and_blanks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ruleset = RULESETS["sengoku"]
    tabs = long_copy(DEMOS["sengoku"], "Provinces", LONG)
    header = tabs["Provinces"][0]
    odd = {
        2: ("Tax Stockpile", "\u30007\u3000"),  # ideographic spaces around a number
        3: ("Province Owner", "Oda\x1c"),  # a separator str.strip() removes
        4: ("Manpower Stockpile", ""),  # blank: 0, and History says empty
        5: ("Tax Stockpile", True),  # a flag in a count
        6: ("Terrain", 2**70),  # a huge number in a text column
    }
    for row, (column, value) in odd.items():
        tabs["Provinces"][row - 1][header.index(column)] = value
    raw = MemoryStore(tabs).read()
    state, problems = load.load_state(raw, ruleset.tabs)
    frame = state.frame("Provinces")
    key = {number: name for name, number in state.rows["Provinces"].items()}  # sheet row -> province
    assert frame.at[key[2], "Tax Stockpile"] == 7
    assert frame.at[key[3], "Province Owner"] == "Oda"
    assert key[4] in state.blanks["Provinces"]["Manpower Stockpile"]
    assert frame.at[key[4], "Manpower Stockpile"] == 0
    assert key[5] not in frame.index  # its bad cell reported, the row left out of the checks
    assert frame.at[key[6], "Terrain"] == str(2**70)
    assert [str(p) for p in problems if p.tab == "Provinces" and p.row in odd] == [
        "Provinces, row 5, column Tax Stockpile: found 'True'; expected a whole number"
    ]
    with monkeypatch.context() as patched:
        patched.setattr(load, "FAST_ROWS", 10**9)
        plain = state_summary(raw, ruleset.tabs)
    assert state_summary(raw, ruleset.tabs) == plain


# -- the Sengoku cross-checks read from plain dicts ------------------------------------------------


def test_leaders_and_daimyos_are_checked_as_before_on_odd_rows() -> None:
    from tests.support import tabs

    laid = tabs(demo=True)
    characters, armies = laid["Characters"], laid["Armies"]
    characters[2][5] = "lots"  # Shibata Katsuie, who leads the Oda Vanguard: a bad cell, so out of the frame
    characters[3][4] = "Daimyo"  # a second Oda Daimyo, below the first
    characters.append(["Imagawa Ujimasa", "p", "u@example.com", "Imagawa", "Daimyo", 1, "Suruga", "Alive"])
    characters.append(["Dead Lord", "q", "d@example.com", "Imagawa", "Daimyo", 1, "Suruga", "Dead"])
    armies[3][3] = "Nobody Known"  # a leader who is no character
    armies[4][3] = "Dead Lord"
    found = [str(p) for p in app.validate(MemoryStore(laid)) if p.tab in ("Characters", "Armies")]
    # the Vanguard's leader is not checked again (his row is reported); clans in name order, as groupby had them
    assert found == [
        "Characters, row 3, column Authority: found 'lots'; expected a whole number",
        "Armies, row 4, column Leader: found 'Nobody Known'; a name from the Characters tab",
        "Armies, row 5, column Leader: found 'Dead Lord'; a living character (this one is Dead)",
        "Characters, row 21, column Title: found 'Daimyo'; one Daimyo per clan (Imagawa Yoshimoto is the Imagawa "
        "Daimyo)",
        "Characters, row 4, column Title: found 'Daimyo'; one Daimyo per clan (Oda Nobunaga is the Oda Daimyo)",
        "Characters, row 21, column Clan: found 'Imagawa'; at most 4 living characters in a clan (Imagawa has 5)",
    ]


# -- the log tabs a GM adds to ----------------------------------------------------------------------

KEY = "1PerfReviewCampaign000000000000000000000000"


@pytest.fixture
def google(tmp_path: Path) -> Iterator[tuple[FakeSheets, Any]]:
    """The Google Sheets stand-in with the demo laid out: (its state, a function opening the store)."""
    fake = FakeSheets()
    with serve(fake) as root:
        fake.add_spreadsheet(KEY, "review", editors=[TEST_ACCOUNT])
        key_file = write_key_file(tmp_path, token_uri=f"{root}/token")

        def store() -> GoogleSheetsStore:
            quick = RetryPolicy(sleep=lambda seconds: None, attempts=3)
            return GoogleSheetsStore.open(f"gsheet:{KEY}", key_file, api_root=root, retry=quick)

        store().create(demo_tabs(), overwrite=True)
        yield fake, store


def test_a_gm_s_notice_with_no_turn_below_notifications_does_not_stop_a_google_resolve(google: Any) -> None:
    fake, store = google
    notice = ["", "public", "news", "Game night moved to Friday"]
    fake.put_values(KEY, "'Notifications'!A2:D2", [notice])
    fake.put_values(KEY, "'Battles'!C2", [["GM: the battle at Totomi was fought again by hand"]])
    report = app.resolve(store(), force=True, now=NOW)
    assert report.status == "resolved"
    notifications = fake.values(KEY, "Notifications")
    # the GM's notice kept where it was, the turn's rows below it, none lost
    assert notifications[1] == notice
    assert len(notifications) == 2 + len(report.logs["Notifications"])
    assert [row[0] for row in notifications[2:]] == [1] * len(report.logs["Notifications"])
    battles = fake.values(KEY, "Battles")
    assert battles[1] == ["", "", "GM: the battle at Totomi was fought again by hand"]
    assert [row[:2] for row in battles[2:]] == [[1, "Totomi"]] == [[b["Turn"], b["Province"]] for b in
                                                                  report.logs["Battles"]]  # fmt: skip


def test_a_gm_s_formula_filled_down_notifications_leaves_the_turn_s_rows_right_below(tmp_path: Path) -> None:
    workbook = tmp_path / "campaign.xlsx"
    app.init(str(workbook), demo=True)
    first = app.resolve(str(workbook), force=True, now=NOW)
    last = 1 + len(first.logs["Notifications"])
    book = openpyxl.load_workbook(workbook)
    sheet = book["Notifications"]
    sheet.cell(1, 6, "Length")  # a GM's own column, its formula filled down well past the rows
    for row in range(2, 201):
        sheet.cell(row, 6, f'=IF(D{row}="","",LEN(D{row}))')
    book.save(workbook)
    second = app.resolve(str(workbook), force=True, now=NOW + timedelta(days=8), empty=True)
    rows = list(openpyxl.load_workbook(workbook, read_only=True)["Notifications"].iter_rows(values_only=True))
    turns = [(number, row[0]) for number, row in enumerate(rows, start=1) if row[0] not in (None, "")][1:]
    added = len(second.logs["Notifications"])
    assert added > 0
    assert turns == [(n, 1) for n in range(2, last + 1)] + [(n, 2) for n in range(last + 1, last + 1 + added)]


def test_rollback_still_clears_the_log_rows_of_the_turns_it_undoes() -> None:
    from tests.support import store as memory_store

    s = memory_store(demo=True)
    report = app.resolve(s, force=True, now=NOW)
    assert len(report.logs["Notifications"]) > 0 and len(report.logs["Battles"]) == 1
    app.rollback(s, turn=1, now=NOW + timedelta(hours=1))
    for tab in ("Notifications", "Battles"):
        assert [row for row in s.tabs[tab][1:] if any(v not in (None, "") for v in row)] == []


# -- one BLAS thread for the command, not for the library ------------------------------------------

PROBE = """
import os, sys
sys.argv = ["sheets-engine", "--version"]
import sheets_engine.cli as cli
loaded = "numpy" in sys.modules
try:
    cli.main()
except SystemExit:
    pass
print(loaded, os.environ.get("OPENBLAS_NUM_THREADS"))
"""


@pytest.mark.parametrize(("preset", "expected"), [(None, "False 1"), ("3", "False 3")])
def test_the_command_asks_for_one_blas_thread_before_numpy_loads(preset: str | None, expected: str) -> None:
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if preset is not None:
        env["OPENBLAS_NUM_THREADS"] = preset  # the machine's owner asked: kept
    done = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True)
    assert done.stdout.split("\n")[-2] == expected


def test_importing_the_library_leaves_the_blas_threads_alone() -> None:
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    probe = "import os, sheets_engine.app; print(os.environ.get('OPENBLAS_NUM_THREADS'))"
    done = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "None"
