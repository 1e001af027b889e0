"""Campaign templates: reviewable CSV files, from which new workbooks are laid out."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

from sheets_engine.core.ruleset import Ruleset
from sheets_engine.core.tables import TabSpec

TEMPLATE_ROOT = Path(__file__).resolve().parent.parent / "templates"


def _read_csv(path: Path) -> list[dict[str, str]]:
    if not path.is_file():
        return []
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def _typed(spec: TabSpec, column: str, text: str) -> Any:
    kind = spec.dtypes().get(column, "object")
    if text == "":
        return None
    if kind == "int64":
        return int(text)
    if kind == "bool":
        return text.strip().upper() == "TRUE"
    return text


def template_tabs(ruleset: Ruleset, demo: bool = False) -> dict[str, list[list[Any]]]:
    """Every tab of a new campaign as rows (header first): the templates, plus the demo's tabs."""
    base = ruleset.templates
    tabs: dict[str, list[list[Any]]] = {}
    for spec in ruleset.tabs:
        records = _read_csv(base / f"{spec.name}.csv")
        if demo:
            demo_records = _read_csv(base / "demo" / f"{spec.name}.csv")
            if spec.name == "Game":
                overrides = {r["Key"]: r for r in demo_records}
                records = [overrides.pop(r["Key"], r) for r in records] + list(overrides.values())
            elif demo_records:
                records = demo_records
        rows: list[list[Any]] = [list(spec.columns)]
        for record in records:
            rows.append([_typed(spec, c, (record.get(c) or "").strip()) for c in spec.columns])
        tabs[spec.name] = rows
    return tabs
