"""A long tab is typed with its row model's fast twin (core.load.fast_twin): every cell must come out as
the row model itself reads it, and a bad cell must be reported in the model's own words."""

from __future__ import annotations

import sys
from datetime import datetime
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from sheets_engine import app
from sheets_engine.core import load
from sheets_engine.core.cells import FAST_TWINS, MAX_COUNT
from sheets_engine.sengoku.schema import ProvinceRow
from sheets_engine.stores.memory import MemoryStore
from tests.support import examples, store

SPACES = "".join(chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace())
cells = st.one_of(
    st.none(),
    st.text(alphabet=st.sampled_from("ab ,\t\n\x1c\x1f\x85\xa0\u2028\u3000é<=") | st.characters(), max_size=8),
    st.integers(min_value=-2 * MAX_COUNT, max_value=2 * MAX_COUNT),
    st.sampled_from([0, 1, -1, MAX_COUNT, MAX_COUNT + 1, -MAX_COUNT - 1, True, False, 2.0, 2.5, -0.0, float("nan")]),
    st.floats(allow_nan=False, width=32),
    st.just(datetime(2026, 12, 1, 8, 30)),
)


def outcome(model: Any, values: dict[str, Any]) -> Any:
    """The row's validated values, or None when it is refused."""
    try:
        return model.model_validate(values).__dict__
    except ValidationError:
        return None


def test_the_fast_types_cover_every_whitespace_character_str_strip_removes() -> None:
    # the pattern lists Python's whitespace up to U+3000: nothing above it may be whitespace
    assert max(SPACES) == "\u3000"


@settings(max_examples=examples(300), deadline=None)
@given(st.fixed_dictionaries({alias: cells for alias in ("Province", "Tax Stockpile", "Fortress Level", "Adjacent")}))
def test_the_fast_twin_reads_every_cell_as_the_row_model_does_or_leaves_it_to_the_model(values: dict) -> None:
    base = {field.alias: "" for field in ProvinceRow.model_fields.values()} | {"Type": "City"}
    row = base | values
    fast = outcome(load.fast_twin(ProvinceRow), row)
    plain = outcome(ProvinceRow, row)
    # the twin never takes a row the model refuses, and what it takes, it reads the same
    assert fast is None or fast == plain
    for value in values.values():
        if type(value) is str and value == value.strip():  # text needing no trim: the twin takes it itself
            assert outcome(load.fast_twin(ProvinceRow), base | {"Province": value}) is not None


def test_only_columns_typed_exactly_text_count_or_whole_get_the_fast_type() -> None:
    twin = load.fast_twin(ProvinceRow)
    plain = ProvinceRow.model_fields
    fast = {name for name, info in twin.model_fields.items() if info.metadata != plain[name].metadata}
    # Fortress Level has a limit of its own (4), Type is a choice, Map X/Y are optional numbers
    assert set(ProvinceRow.model_fields) - fast == {"type", "fortress_level", "map_x", "map_y"}
    assert all(twin.model_fields[name].alias == ProvinceRow.model_fields[name].alias for name in twin.model_fields)
    assert len(FAST_TWINS) == 3


def long_campaign(extra: int) -> MemoryStore:
    """The demo with `extra` more provinces, each adjacent to nothing, so Provinces passes FAST_ROWS."""
    s = store(demo=True)
    header, *rows = s.tabs["Provinces"]
    template = dict(zip(header, rows[0], strict=False)) | {"Adjacent": "", "Capital Of": "", "Province Owner": ""}
    template |= {"Controlled By": "", **{f"Building {n}": "" for n in range(1, 6)}, "Fortress Level": 0}
    for n in range(extra):
        s.tabs["Provinces"].append([(f"Far Isle {n}" if h == "Province" else template.get(h)) for h in header])
    return s


def test_a_long_tab_with_bad_cells_is_reported_as_a_short_one_is() -> None:
    short, long = store(demo=True), long_campaign(load.FAST_ROWS)
    for s in (short, long):
        provinces = s.tabs["Provinces"]
        column = provinces[0].index
        provinces[1][column("Tax Stockpile")] = " lots "
        provinces[2][column("Manpower Stockpile")] = -3
        provinces[3][column("Terrain")] = 12.0  # a number in a text column reads as its text
        provinces[4][column("Province Owner")] = "  Oda  "  # trimmed, as ever
    found = [[str(p) for p in app.validate(s) if p.tab == "Provinces"] for s in (short, long)]
    assert found[0] == found[1]
    assert found[0][:2] == [
        "Provinces, row 2, column Tax Stockpile: found ' lots '; expected a whole number",
        "Provinces, row 3, column Manpower Stockpile: found '-3'; expected 0 or more",
    ]
    assert any("column Terrain: found '12'" in p for p in found[0])  # no such terrain, read as the text "12"
    assert not any("Province Owner" in p for p in found[0])
