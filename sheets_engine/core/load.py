"""From the store's raw tabs to a typed GameState, collecting every bad cell on the way."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from typing import Any

from pydantic import ValidationError

from sheets_engine.core.cells import is_blank, name_text
from sheets_engine.core.problems import Problem
from sheets_engine.core.tables import GameState, Layout, TabSpec, empty_frame, frame_from_records
from sheets_engine.stores.base import RawTab


def norm(text: Any) -> str:
    """Tab titles and headers match ignoring case and surrounding spaces."""
    return "" if text is None else str(text).strip().casefold()


def load_state(raw: Mapping[str, RawTab], specs: Iterable[TabSpec]) -> tuple[GameState, list[Problem]]:
    """Type every tab by its row model. Returns the state and every problem found."""
    by_title = {norm(title): tab for title, tab in raw.items()}
    problems: list[Problem] = []
    tables, rows, layouts, spec_map = {}, {}, {}, {}
    for spec in specs:
        spec_map[spec.name] = spec
        tab = by_title.get(norm(spec.name))
        if tab is None:
            problems.append(
                Problem(
                    spec.name,
                    None,
                    "",
                    "",
                    "a tab with this name (sheets-engine init lays out every tab)",
                )
            )
            tables[spec.name], rows[spec.name] = empty_frame(spec), {}
            layouts[spec.name] = Layout(spec.name, {c: i for i, c in enumerate(spec.columns, 1)}, 1, len(spec.columns))
            continue
        columns, header_problems = _header(spec, tab)
        problems += header_problems
        layouts[spec.name] = Layout(tab.title, columns, tab.last_row, max([len(tab.header), *columns.values()]))
        if spec.log:
            tables[spec.name], rows[spec.name] = empty_frame(spec), {}
            continue
        frame, keys, tab_problems = _type_rows(spec, tab, columns)
        problems += tab_problems
        tables[spec.name], rows[spec.name] = frame, keys
    return GameState(spec_map, tables, rows, layouts), problems


def _header(spec: TabSpec, tab: RawTab) -> tuple[dict[str, int], list[Problem]]:
    wanted = {norm(c): c for c in spec.columns}
    found: dict[str, int] = {}
    problems = []
    for index, cell in enumerate(tab.header, start=1):
        column = wanted.get(norm(cell))
        if column is None:
            continue  # a GM's own column: never touched
        if column in found:
            problems.append(Problem(spec.name, 1, column, cell, "each header only once"))
            continue
        found[column] = index
    for column in spec.columns:
        if column not in found and column not in spec.optional:
            problems.append(Problem(spec.name, 1, column, "", f"a column headed '{column}'"))
    return found, problems


def _type_rows(spec: TabSpec, tab: RawTab, columns: dict[str, int]) -> tuple[Any, dict[Hashable, int], list[Problem]]:
    assert spec.model is not None
    problems: list[Problem] = []
    records: list[dict[str, Any]] = []
    keys: list[Hashable] = []
    key_rows: dict[Hashable, int] = {}
    seen: dict[Hashable, int] = {}
    positions = [(c, i - 1) for c, i in columns.items()]
    missing = set(spec.columns) - set(columns)  # reported once, at the header
    named = spec.key if spec.key is not None and spec.key not in missing else None  # the key column, if read
    for number, cells in tab.rows:
        values = {c: cells[i] if i < len(cells) else None for c, i in positions}
        if all(is_blank(v) for v in values.values()):
            continue  # a row with only a GM's notes in other columns
        # The name is checked whether or not the other cells can be read, so one run reports an
        # empty or repeated name together with the row's bad cells.
        key: Hashable = number
        key_problem = None
        if named is not None:
            key = name_text(values.get(named))
            if key == "":
                key_problem = Problem(spec.name, number, named, "", "a name: every row needs one")
            elif key in seen:
                key_problem = Problem(spec.name, number, named, key, f"a unique name; row {seen[key]} has it already")
            else:
                seen[key] = number
        try:
            model = spec.model.model_validate(values)
        except ValidationError as error:
            problems += _problems(spec.name, number, values, error, missing)
            if key_problem is not None:
                problems.append(key_problem)
            else:
                # keep the name (or row) known, so checks of other tabs and rows do not report it again
                key_rows[key] = number
            continue
        if key_problem is not None:
            problems.append(key_problem)
            continue
        record = model.model_dump(by_alias=True)
        records.append(record)
        keys.append(key)
        key_rows[key] = number
    return frame_from_records(spec, records, keys), key_rows, problems


_EXPECTED = {
    "int_type": "a whole number",
    "int_parsing": "a whole number",
    "int_from_float": "a whole number",
    "greater_than_equal": "{ge} or more",
    "less_than_equal": "at most {le}",
    "bool_parsing": "TRUE or FALSE",
    "string_type": "text",
}


def _problems(tab: str, row: int, values: dict[str, Any], error: ValidationError, missing: set[str]) -> list[Problem]:
    found = []
    for detail in error.errors(include_url=False):
        column = str(detail["loc"][0]) if detail["loc"] else ""
        if column in missing:
            continue
        template = _EXPECTED.get(detail["type"])
        if template:
            expected = "expected " + template.format(**(detail.get("ctx") or {}))
        else:
            message = str(detail["msg"])
            expected = message.removeprefix("Value error, ")
        found.append(Problem(tab, row, column, values.get(column), expected))
    return found
