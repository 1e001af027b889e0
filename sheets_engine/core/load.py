"""From the store's raw tabs to a typed GameState, collecting every bad cell on the way."""

from __future__ import annotations

import copy
import functools
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import replace
from typing import Annotated, Any

from pydantic import BaseModel, TypeAdapter, ValidationError, create_model
from pydantic.fields import FieldInfo

from sheets_engine.core.cells import FAST_TWINS, is_blank, name_text
from sheets_engine.core.names import closest, fold
from sheets_engine.core.problems import Problem, Severity
from sheets_engine.core.store import RawTab, every_title
from sheets_engine.core.tables import GameState, Layout, TabSpec, empty_frame, frame_from_models

# Tab titles and headers match ignoring case and spaces around and between words ("FORTRESS  LEVEL" is
# "Fortress Level"): the one rule of core.names, for every name.
norm = fold


def nearest(wanted: str, found: Iterable[Any]) -> str:
    """'; the closest is 'Fortres Level'' when one is close, else ''."""
    close = closest(wanted, found)
    return f"; the closest is '{close}'" if close else ""


def _listing(names: Iterable[Any], limit: int = 12) -> str:
    shown = [str(n) for n in names if n is not None and str(n).strip()]
    text = ", ".join(f"'{n}'" for n in shown[:limit]) + (
        f" and {len(shown) - limit} more" if len(shown) > limit else ""
    )
    return text or "none"


def load_state(raw: Mapping[str, RawTab], specs: Iterable[TabSpec]) -> tuple[GameState, list[Problem]]:
    """Type every tab by its row model. Returns the state and every problem found."""
    by_title = {norm(title): tab for title, tab in raw.items()}
    specs = list(specs)
    titles = every_title(raw)
    # a missing tab's nearest is one no tab of the engine's took (a GM's own, or a misspelling): listed first
    claimed = {norm(spec.name) for spec in specs}
    unclaimed = [title for title in titles if norm(title) not in claimed]
    problems: list[Problem] = []
    tables: dict[str, Any] = {}
    rows: dict[str, dict[Hashable, int]] = {}
    layouts: dict[str, Layout] = {}
    spec_map: dict[str, TabSpec] = {}
    blanks: dict[str, dict[str, frozenset[Hashable]]] = {}
    numbers: dict[str, dict[str, dict[Hashable, int | float]]] = {}
    for spec in specs:
        spec_map[spec.name] = spec
        tab = by_title.get(norm(spec.name))
        if tab is None and not spec.required:  # an older workbook made before the tab: read as empty
            tables[spec.name], rows[spec.name] = empty_frame(spec), {}
            layouts[spec.name] = Layout(spec.name, {}, 1, 0)  # no columns: the tab is not there
            continue
        if tab is None:
            problems.append(
                Problem(
                    spec.name,
                    None,
                    "",
                    "",
                    "a tab with this name (sheets-engine init lays out every tab); tabs found: "
                    + _listing([*unclaimed, *(title for title in titles if title not in unclaimed)])
                    + nearest(spec.name, unclaimed),
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
        problems += _cell_problems(spec, tab, columns)
        frame, keys, tab_problems, empty, held = _type_rows(spec, tab, columns)
        problems += tab_problems
        tables[spec.name], rows[spec.name] = frame, keys
        if empty:
            blanks[spec.name] = {column: frozenset(keys) for column, keys in empty.items() if keys}
        if any(held.values()):
            numbers[spec.name] = {column: found for column, found in held.items() if found}
    return GameState(spec_map, tables, rows, layouts, blanks, numbers), problems


def layouts(raw: Mapping[str, RawTab], specs: Iterable[TabSpec]) -> dict[str, Layout]:
    """Where each tab of the contract stands in the store (title, columns, last row), from the headers alone:
    what a commit needs to append rows to a log tab without typing every tab."""
    by_title = {norm(title): tab for title, tab in raw.items()}
    found = {}
    for spec in specs:
        tab = by_title.get(norm(spec.name))
        if tab is not None:
            columns, _ = _header(spec, tab)
            found[spec.name] = Layout(tab.title, columns, tab.last_row, max([len(tab.header), *columns.values()]))
    return found


def _cell_problems(spec: TabSpec, tab: RawTab, columns: dict[str, int]) -> list[Problem]:
    """Error cells and uncalculated formulas in the columns the engine reads, and formulas it may overwrite."""
    if not tab.errors and not tab.formulas:
        return []
    read = {index: column for column, index in columns.items()}
    problems = []
    for (row, index), error in sorted(tab.errors.items()):
        if row > 1 and index in read:
            problems.append(
                Problem(
                    spec.name, row, read[index], error, "a value, not an error: correct the formula or type the value"
                )
            )
    for (row, index), formula in sorted(tab.formulas.items()):
        if row <= 1 or index not in read or (row, index) in tab.errors:
            continue
        if not formula.computed:
            problems.append(
                Problem(
                    spec.name,
                    row,
                    read[index],
                    formula.text,
                    "a value: this formula was saved with no value computed (open the workbook in Excel or "
                    "LibreOffice and save it, or type the value)",
                )
            )
        elif spec.written and not spec.log:
            problems.append(
                Problem(
                    spec.name,
                    row,
                    read[index],
                    formula.text,
                    "a value the engine may change: resolve refuses to replace a formula with a value "
                    "unless run with --overwrite-formulas",
                    Severity.WARNING,
                )
            )
    return problems


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
            headers = [h for h in tab.header if norm(h) not in wanted]
            problems.append(
                Problem(
                    spec.name,
                    1,
                    column,
                    "",
                    f"a column headed '{column}' (headers found: {_listing(tab.header)}{nearest(column, headers)})",
                )
            )
    return found, problems


def _type_rows(
    spec: TabSpec, tab: RawTab, columns: dict[str, int]
) -> tuple[Any, dict[Hashable, int], list[Problem], dict[str, list[Hashable]], dict[str, dict[Hashable, int | float]]]:
    assert spec.model is not None
    # the columns whose empty cell the rules read as something (0, FALSE, a default word such as Pending):
    # their empty cells are remembered, so that History records them empty and a rollback leaves them so
    defaulted = defaulted_columns(spec.model)
    typed = [c for c, kind in spec.dtypes().items() if (kind != "object" or c in defaulted) and c in columns]
    empty: dict[str, list[Hashable]] = {c: [] for c in typed}
    # the engine's text columns holding a number (the Game tab's turn): History records the number, not its text
    texts = [c for c in text_columns(spec.model) if c in spec.writable and c in columns]
    held: dict[str, dict[Hashable, int | float]] = {c: {} for c in texts}
    problems: list[Problem] = []
    records: list[Any] = []  # the rows' models
    keys: list[Hashable] = []
    key_rows: dict[Hashable, int] = {}
    seen: dict[Hashable, int] = {}
    positions = [(c, i - 1) for c, i in columns.items()]
    missing = set(spec.columns) - set(columns)  # reported once, at the header
    named = spec.key if spec.key is not None and spec.key not in missing else None  # the key column, if read
    # building the twin costs about what it saves on 1,500 rows (0.2 ms a column)
    fast = fast_twin(spec.model) if len(tab.rows) > FAST_ROWS else spec.model
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
            model = _validated(fast, spec.model, values)
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
        records.append(model)
        keys.append(key)
        key_rows[key] = number
        for column in typed:
            if values[column] is None or values[column] == "":
                empty[column].append(key)
        for column in texts:
            value = values[column]
            if isinstance(value, int | float) and not isinstance(value, bool):
                held[column][key] = value
    return frame_from_models(spec, records, keys), key_rows, problems, empty, held


FAST_ROWS = 2_000  # a tab longer than this is typed with its model's fast twin


@functools.cache
def text_columns(model: type[BaseModel]) -> frozenset[str]:
    """The columns of a row model that read a number as its text (a Text column): the number a sheet holds
    there is not the value the rules see."""
    found = set()
    for name, info in model.model_fields.items():
        field: Any = Annotated[info.annotation, *info.metadata]
        try:
            read = TypeAdapter(field).validate_python(7)
        except ValidationError:
            continue
        if read == "7":
            found.add(info.alias or name)
    return frozenset(found)


@functools.cache
def defaulted_columns(model: type[BaseModel]) -> frozenset[str]:
    """The columns of a row model whose empty cell is read as a value that is not empty (an enum's default
    word, a count's 0...): an empty cell there is not what the rules see."""
    found = set()
    for name, info in model.model_fields.items():
        field: Any = Annotated[info.annotation, *info.metadata]  # the column's type as the model checks it
        adapter: TypeAdapter[Any] = TypeAdapter(field)
        for blank in (None, ""):
            try:
                read = adapter.validate_python(blank)
            except ValidationError:
                continue  # an empty cell is a problem there, never a value
            if not (read is None or read == ""):
                found.add(info.alias or name)
                break
    return frozenset(found)


@functools.cache
def fast_twin(model: type[BaseModel]) -> type[BaseModel]:
    """The row model with its text, count and whole-number columns checked the fast way first (see
    `cells.FAST_TWINS`): the same values for every row it takes, and a row it refuses is validated
    again with `model` for its problems. 10,000 Provinces rows: 0.080 -> 0.063 s of pydantic."""
    plain = {FieldInfo.from_annotation(t): twin for t, twin in FAST_TWINS.items()}
    twins = {}
    for name, info in model.model_fields.items():
        for typed, twin in plain.items():
            # only a column typed exactly so (no constraint of its own, like Fortress Level's le=4)
            if (info.annotation, info.metadata) == (typed.annotation, typed.metadata):
                # the field as it is (alias, default or its factory, validation alias...), its type swapped
                kept = copy.copy(info)
                kept.metadata = []  # the type's own checks, which the twin's second member holds
                twins[name] = (twin, kept)
                break
    fields: dict[str, Any] = twins
    made: type[BaseModel] = create_model(model.__name__, __base__=model, __module__=model.__module__, **fields)
    return made


def _validated(fast: type[BaseModel], model: type[BaseModel], values: dict[str, Any]) -> BaseModel:
    """The row as `model` validates it, tried first with its fast twin."""
    if fast is not model:
        try:
            return fast.model_validate(values)
        except ValidationError:
            pass  # validated again below, for the row's own problems in the types' words
    return model.model_validate(values)


_EXPECTED = {
    "int_type": "a whole number",
    "int_parsing": "a whole number",
    "int_from_float": "a whole number",
    "greater_than_equal": "{ge} or more",
    "greater_than": "more than {gt}",
    "less_than_equal": "at most {le}",
    "less_than": "less than {lt}",
    "bool_parsing": "TRUE or FALSE",
    "bool_type": "TRUE or FALSE",
    "string_type": "text",
    "float_parsing": "a number",
    "float_type": "a number",
    "list_type": "a comma-separated list",
    "missing": "a value",
}


def expected_words(detail: Mapping[str, Any]) -> str:
    """What pydantic's error means, in the project's words ("expected 0 or more"), never pydantic's own."""
    template = _EXPECTED.get(str(detail["type"]))
    if template:
        return "expected " + template.format(**(detail.get("ctx") or {}))
    message = str(detail["msg"])
    if message.startswith("Value error, "):
        return message.removeprefix("Value error, ")
    return "expected a value the engine can read"


def _problems(tab: str, row: int, values: dict[str, Any], error: ValidationError, missing: set[str]) -> list[Problem]:
    found = []
    for detail in error.errors(include_url=False):
        column = str(detail["loc"][0]) if detail["loc"] else ""
        if column in missing:
            continue
        found.append(Problem(tab, row, column, values.get(column), expected_words(detail)))
    return found


def named_by_key(problems: list[Problem], state: GameState, tab: str = "Game") -> list[Problem]:
    """The problems of the key/value tab `tab` named by their row's key too ("row 22" alone sends a GM
    counting rows: "Game, key deadline, row 22")."""
    keys = {row: str(key) for key, row in state.rows.get(tab, {}).items()}
    return [replace(p, key=keys[p.row]) if p.tab == tab and not p.key and p.row in keys else p for p in problems]


def game_key_problems(error: Any, state: GameState, defaults: Mapping[str, str], init_command: str) -> list[Problem]:
    """The Problems of a Game tab its ruleset's settings model refused (a pydantic ValidationError):
    a missing key names the row to add with its default (from `init_command`'s template), a bad value
    its row. Every ruleset's Game tab is read this way."""
    rows = state.rows["Game"]
    values = dict(state.frame("Game")["Value"].items())
    found = []
    for detail in error.errors(include_url=False):
        key = str(detail["loc"][0]) if detail["loc"] else ""
        if detail["type"] == "missing":
            expected = (
                f"a row with Key '{key}' and Value '{defaults.get(key, '')}' (its default; "
                f"a workbook from `{init_command}` has every key)"
            )
            found.append(Problem("Game", None, "Key", key, expected))
        elif key in rows:  # named by its key too: "row 22" alone sends a GM counting rows
            found.append(Problem("Game", rows[key], "Value", values.get(key), f"{key}: {expected_words(detail)}"))
        else:
            found.append(Problem("Game", None, "Value", "", expected_words(detail)))
    return found
