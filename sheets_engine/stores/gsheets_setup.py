"""Laying a campaign out in a Google Sheet (`init`, `push`): its tabs, header rows and dropdowns.

Each tab gets its rows, a bold frozen header and, for the closed columns, a dropdown. A tab that
already holds data is replaced only with `overwrite`; one that already has these headers and is
given no rows (a linked Google Form's `Form Responses 1`) is left alone. Tabs that are not the
campaign's are never touched, except an empty `Sheet1` (the tab a new spreadsheet comes with),
which is removed. One request when the campaign fits the request limit, else several in order:
a set-up is not all-or-nothing, and one that fails half-way is run again with --force (a lost answer
is never sent again: the command stops and says so).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from sheets_engine.core.names import noun
from sheets_engine.core.store import Choice
from sheets_engine.stores.base import StoreError
from sheets_engine.stores.gsheets_http import AnswerLost, SheetsUnavailable
from sheets_engine.stores.gsheets_layout import (
    add_sheet,
    bold_header,
    clear_values,
    dropdowns,
    freeze_header,
    grow,
    pack,
    update_rows,
)
from sheets_engine.stores.gsheets_session import SheetsSession


def lay_out(
    session: SheetsSession,
    tabs: dict[str, list[list[Any]]],
    overwrite: bool = False,
    choices: Sequence[Choice] = (),
    limit: int = 2_000_000,
) -> None:
    """Lay these tabs (rows, header first) out in the spreadsheet (see the module docstring)."""
    sheets, leftovers = session.properties()
    by_name = {norm(title): props for title, props in sheets.items()}
    existing = {tab: by_name[norm(tab)] for tab in tabs if norm(tab) in by_name}
    default = [by_name["sheet1"]["title"]] if "sheet1" in by_name and "sheet1" not in map(norm, tabs) else []
    found, _ = session.read_grids(sheets, [p["title"] for p in existing.values()] + default, [])
    current = {title: grid.rows() for title, grid in found.items()}
    keep, taken = set(), []
    for tab, props in existing.items():
        rows = current.get(props["title"], [])
        if not holds_data(rows):
            continue
        if len(tabs[tab]) <= 1 and rows and covers(rows[0], tabs[tab][0] if tabs[tab] else []):
            keep.add(tab)
        elif not overwrite:
            taken.append(props["title"])
    if taken:
        raise StoreError(
            f"{session.name} already has {noun(len(taken), 'tab')} holding data: {', '.join(taken)}. Add --force to "
            "replace their contents (tabs that are not the campaign's are never touched)."
        )
    requests: list[dict[str, Any]] = []
    next_id = max([p["sheetId"] for p in sheets.values()] + leftovers, default=0) + 1
    ids: dict[str, int] = {}
    for index, (tab, rows) in enumerate(tabs.items(), start=len(sheets)):
        width = max((len(r) for r in rows), default=1)
        if tab in keep:
            continue
        if tab in existing:
            props = existing[tab]
            ids[tab] = props["sheetId"]
            # grown first: a frozen header needs a row below it ("You can't freeze all visible rows")
            grown = grow(ids[tab], props.get("gridProperties", {}), max(len(rows), 2), width)
            requests += [clear_values(ids[tab]), *grown, freeze_header(ids[tab])]
        else:
            ids[tab], next_id = next_id, next_id + 1
            requests.append(add_sheet(ids[tab], tab, index, len(rows), width, exact=norm(tab) == "history"))
        if rows:
            requests += update_rows(ids[tab], rows, limit - 4096)
            requests.append(bold_header(ids[tab], len(rows[0])))
    requests += dropdowns({t: r for t, r in tabs.items() if t in ids}, ids, choices)
    if default and not holds_data(current.get(default[0], [])) and ids:
        requests.append({"deleteSheet": {"sheetId": sheets[default[0]]["sheetId"]}})
    for batch in pack(requests, limit) if requests else []:
        try:
            session.call("lay out", functools.partial(session.client.send_write, session.key, {"requests": batch}))
        except AnswerLost as lost:
            raise SheetsUnavailable(
                f"Google's answer to laying out {session.name} was lost ({lost.failure}): the tabs may be laid "
                "out in part. Run the command again with --force."
            ) from lost


def holds_data(rows: list[list[Any]]) -> bool:
    """True if any cell holds something."""
    return any(v is not None and v != "" for r in rows for v in r)


def covers(found: list[Any], wanted: list[Any]) -> bool:
    """True if the header `found` has every one of `wanted`'s (ignoring case and spaces)."""
    have = {norm(h) for h in found}
    return all(norm(h) in have for h in wanted if norm(h))


def norm(text: Any) -> str:
    """A title or header as compared: spaces collapsed, case ignored."""
    return "" if text is None else " ".join(str(text).split()).casefold()
