"""The cells of a campaign as the sheet holds them, and the one editor of them that is not the Draft.

A Draft changes the typed state (a count is a number, an empty count is 0): what the rules do. Some
runs put cells back exactly as they were instead, an empty cell empty and a GM's text as typed
(rollback restoring History's old values, rows cleared), or set cells of tabs the rules never
type (notify marking a Notifications row delivered, a new header): they edit a `Grid`, the tabs as
read with their cells set laid over them, and hand its `edits()` to the commit, which writes them
(and a History row for each edit with a cause) in the same one write as any change.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from sheets_engine.core.cells import name_text, same_cell
from sheets_engine.core.load import norm
from sheets_engine.core.store import RawTab
from sheets_engine.core.tables import TabSpec


@dataclass(frozen=True)
class CellEdit:
    """One cell set as the sheet holds it: where it is, what it held, what it gets, and (with a cause)
    how its History row names it."""

    tab: str  # the tab's name in the contract (its title when the ruleset has no such tab)
    title: str  # the tab's title in the store
    row: int  # 1-based sheet row
    index: int  # 1-based sheet column
    column: str  # the column's header as the contract names it
    old: Any  # what the cell holds now
    new: Any  # what it gets (None or "": empty)
    key: str = ""  # the History Key of its row: its name, or "row N"
    cause: str = ""  # why; an edit without one (a header, a delivery mark) makes no History row


class Grid:
    """The tabs as read, with the cells set since laid over them (nothing is written until the commit)."""

    def __init__(self, raw: Mapping[str, RawTab], specs: Iterable[TabSpec] = ()) -> None:
        by_title = {norm(title): tab for title, tab in raw.items()}
        self.specs = {spec.name: spec for spec in specs}
        self.tabs: dict[str, RawTab] = {}  # contract name (or the title, for a tab no spec names) -> tab
        for name in self.specs:
            if norm(name) in by_title:
                self.tabs[name] = by_title[norm(name)]
        named = {norm(tab.title) for tab in self.tabs.values()}
        for title, tab in raw.items():
            if norm(title) not in named:
                self.tabs[title] = tab
        self.columns = {name: {norm(h): i for i, h in enumerate(tab.header, start=1) if norm(h)}
                        for name, tab in self.tabs.items()}  # fmt: skip
        self.cells = {name: dict(tab.rows) for name, tab in self.tabs.items()}
        self.overlay: dict[tuple[str, int, int], Any] = {}
        self.labels: dict[tuple[str, int, int], tuple[str, str]] = {}  # cell -> (History key, cause)
        self._names: dict[str, dict[str, int]] = {}  # tab -> name -> sheet row, as the overlay has them

    def tab(self, name: str) -> str | None:
        """The name the grid knows a tab by (its contract name), from any spelling of it; None if absent."""
        return next((n for n in self.tabs if norm(n) == norm(name)), None)

    def spec(self, tab: str) -> TabSpec | None:
        """The contract of a tab the grid holds."""
        return self.specs.get(tab)

    def index(self, tab: str, column: str) -> int | None:
        """The 1-based sheet column of a header (any case and spacing); None if the tab has no such column."""
        return self.columns[tab].get(norm(column))

    def header(self, tab: str, index: int) -> str:
        """A column's header as the contract names it (else as the sheet writes it)."""
        text = str(self.tabs[tab].header[index - 1]) if index <= len(self.tabs[tab].header) else ""
        spec = self.specs.get(tab)
        columns = spec.columns if spec is not None else ()
        return next((c for c in columns if norm(c) == norm(text)), text)

    def read(self, tab: str, row: int, index: int) -> Any:
        """The cell as it was read."""
        cells = self.cells[tab].get(row, [])
        return cells[index - 1] if index <= len(cells) else None

    def get(self, tab: str, row: int, index: int) -> Any:
        """The cell as it stands now (set since, or as read)."""
        return self.overlay.get((tab, row, index), self.read(tab, row, index))

    def rows(self, tab: str) -> list[int]:
        """The sheet rows the tab held when read, in order."""
        return list(self.cells[tab])

    def set(self, tab: str, row: int, index: int, value: Any, key: str = "", cause: str = "") -> None:
        """Set one cell; `key` and `cause` name it in History (see CellEdit). A name changed is followed."""
        spec = self.specs.get(tab)
        if spec is not None and spec.key and index == self.index(tab, spec.key):
            names = self.names(tab)
            before = name_text(self.get(tab, row, index))
            if names.get(before) == row:
                del names[before]
            if name_text(value):
                names.setdefault(name_text(value), row)
        self.overlay[(tab, row, index)] = value
        self.labels[(tab, row, index)] = (key, cause)

    def names(self, tab: str) -> dict[str, int]:
        """The rows of a tab with names by name, as the cells set so far have them (first row of a name wins)."""
        if tab not in self._names:
            spec = self.specs.get(tab)
            found: dict[str, int] = {}
            index = self.index(tab, spec.key) if spec is not None and spec.key else None
            if index is not None:
                for row in self.cells[tab]:
                    found.setdefault(name_text(self.read(tab, row, index)), row)
            self._names[tab] = found
        return self._names[tab]

    def edits(self) -> list[CellEdit]:
        """Every cell set that differs from what was read, in tab order (the contract's), row and column."""
        order = {name: i for i, name in enumerate(self.tabs)}
        found = []
        for tab, row, index in sorted(self.overlay, key=lambda c: (order[c[0]], c[1], c[2])):
            new, old = self.overlay[(tab, row, index)], self.read(tab, row, index)
            if same_cell(old, new):
                continue
            key, cause = self.labels[(tab, row, index)]
            found.append(CellEdit(tab, self.tabs[tab].title, row, index, self.header(tab, index), old, new, key, cause))
        return found
