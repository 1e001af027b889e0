"""Campaigns for store tests and benchmarks: the demo, and the demo made N times bigger."""

from __future__ import annotations

from typing import Any

from sheets_engine.core.cells import split_names
from sheets_engine.rulesets import get_ruleset
from sheets_engine.templates import template_tabs


def demo_tabs() -> dict[str, list[list[Any]]]:
    """The demo campaign's tabs (rows, header first)."""
    return template_tabs(get_ruleset("sengoku"), demo=True)


def scaled_demo(factor: int) -> dict[str, list[list[Any]]]:
    """The demo with its provinces copied `factor` times in all ("Owari 2", "Owari 3", ...).

    Each copy keeps its owner and buildings and is adjacent to the copies of its own neighbours,
    so every copy is a valid map of its own: the derived stats, economy and History grow with it.
    """
    tabs = demo_tabs()
    provinces = tabs["Provinces"]
    header, rows = provinces[0], provinces[1:]
    adjacent = header.index("Adjacent")
    scaled = [header, *(list(r) for r in rows)]
    for copy in range(2, factor + 1):
        for row in rows:
            twin = list(row)
            twin[0] = f"{row[0]} {copy}"
            twin[adjacent] = ", ".join(f"{name} {copy}" for name in split_names(str(row[adjacent] or "")))
            scaled.append(twin)
    tabs["Provinces"] = scaled
    return tabs
