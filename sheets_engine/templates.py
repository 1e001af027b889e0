"""Campaign templates: reviewable CSV files shipped inside each ruleset's package.

Every tab of a ruleset has a file `templates/<Tab>.csv` in the ruleset's package (a header line
alone for a tab that starts empty), and the demo campaign's tabs are in `templates/demo/`. They are
read with importlib.resources, so an installed wheel carries them. A missing, empty or misheaded
template is an error: a new campaign is never laid out with an empty data tab.
"""

from __future__ import annotations

import csv
import io
from importlib.resources.abc import Traversable
from typing import Any

from sheets_engine.core.ruleset import Ruleset
from sheets_engine.core.tables import TabSpec


class TemplateError(Exception):
    """A template of the installed package is missing or broken (a packaging fault, not the GM's)."""


def _read_csv(folder: Traversable, spec: TabSpec, required: bool) -> list[dict[str, str]] | None:
    """The file's records; None when it is absent and not required."""
    path = folder / f"{spec.name}.csv"
    if not path.is_file():
        if required:
            raise TemplateError(f"the template for tab {spec.name} is missing from the package ({spec.name}.csv)")
        return None
    reader = csv.DictReader(io.StringIO(path.read_text(encoding="utf-8")))
    if not reader.fieldnames:
        raise TemplateError(f"the template for tab {spec.name} is empty ({spec.name}.csv has no header line)")
    unknown = [name for name in reader.fieldnames if name not in spec.columns]
    if unknown:
        raise TemplateError(f"the template for tab {spec.name} has columns the tab does not: {', '.join(unknown)}")
    return list(reader)


def _typed(spec: TabSpec, column: str, text: str) -> Any:
    kind = spec.dtypes().get(column, "object")
    if text == "":
        return None
    if kind == "int64":
        return int(text)
    if kind == "bool":
        return text.strip().upper() == "TRUE"
    return text


def template_records(ruleset: Ruleset, tab: str) -> list[dict[str, str]]:
    """One tab's template rows as read from the package (for tests and tools that extend them)."""
    spec = next(s for s in ruleset.tabs if s.name == tab)
    return _read_csv(ruleset.templates, spec, required=True) or []


def template_tabs(ruleset: Ruleset, demo: bool = False) -> dict[str, list[list[Any]]]:
    """Every tab of a new campaign as rows (header first): the templates, plus the demo's tabs."""
    base = ruleset.templates
    tabs: dict[str, list[list[Any]]] = {}
    for spec in ruleset.tabs:
        records = _read_csv(base, spec, required=True) or []
        if spec.name in ruleset.seeded_tabs and not records:
            raise TemplateError(f"the template for tab {spec.name} holds no rows; a campaign needs them")
        if demo:
            demo_records = _read_csv(base / "demo", spec, required=False)
            if spec.name == "Game" and demo_records is not None:
                overrides = {r["Key"]: r for r in demo_records}
                records = [overrides.pop(r["Key"], r) for r in records] + list(overrides.values())
            elif demo_records is not None:
                records = demo_records
        columns = list(spec.columns)  # optional ones too: a new workbook has every column ready
        rows: list[list[Any]] = [columns]
        for record in records:
            rows.append([_typed(spec, c, (record.get(c) or "").strip()) for c in columns])
        tabs[spec.name] = rows
    return tabs
