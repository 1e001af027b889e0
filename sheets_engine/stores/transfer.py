"""Copying a campaign between stores: `push` (workbook -> Google Sheet) and `pull` (the reverse)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from sheets_engine.stores.base import Choice, RawTab, Store


def tab_rows(tab: RawTab) -> list[list[Any]]:
    """A tab as rows (header first), each data row at its sheet row number (blank rows kept blank)."""
    rows: list[list[Any]] = [list(tab.header)]
    for number, cells in tab.rows:
        while len(rows) < number - 1:
            rows.append([])
        rows.append(list(cells))
    return rows


def copy_campaign(
    source: Store,
    target: Store,
    overwrite: bool = False,
    choices: Callable[[dict[str, RawTab]], Sequence[Choice]] = lambda raw: (),
) -> int:
    """Lay out in `target` every tab of `source`, values only (one read, one create); returns the tab count.

    Row numbers are kept, so History's `row N` keys still point at the same rows. Formulas arrive
    as the values they last computed, and formatting is the target's own (bold frozen header, and the
    dropdowns `choices` gives for the tabs read).
    """
    raw = source.read()
    tabs = {title: tab_rows(tab) for title, tab in raw.items()}
    target.create(tabs, overwrite=overwrite, choices=choices(raw))
    return len(tabs)
