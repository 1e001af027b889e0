"""Problems found in a campaign: each names the tab, the sheet row, the column and the value."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from enum import StrEnum
from typing import Any

from sheets_engine.core.names import plural


class Severity(StrEnum):
    """How bad a problem is: an error stops the run, a warning is only reported."""

    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True)
class Problem:
    """One bad cell (or row, or tab): where it is, what was found and what was expected."""

    tab: str
    row: int | None  # the row number as the sheet shows it (1 = header row)
    column: str
    value: Any
    expected: str
    severity: Severity = Severity.ERROR
    key: str = ""  # the row's key in a key/value tab (Game's "deadline"): a GM finds it by it, not by counting rows

    @property
    def row_text(self) -> str:
        """The row as a GM finds it: "22", or "22 (key deadline)" in a key/value tab; "" for a whole tab."""
        if self.row is None:
            return ""
        return f"{self.row} (key {self.key})" if self.key else str(self.row)

    def __str__(self) -> str:
        where = self.tab
        if self.key:
            where += f", key {self.key}"
        if self.row is not None:
            where += f", row {self.row}"
        if self.column:
            where += f", column {self.column}"
        return f"{where}: found {show(self.value)}; {self.expected}"

    def as_dict(self) -> dict[str, Any]:
        """The problem as plain JSON-ready values."""
        data = asdict(self)
        data["severity"] = self.severity.value
        data["value"] = show(self.value, quote=False)
        return data


def show(value: Any, quote: bool = True) -> str:
    """A cell value as a player would see it (empty cells say so)."""
    if value is None or value == "":
        return "an empty cell" if quote else ""
    text = str(value)
    return f"'{text}'" if quote else text


class InvalidCampaign(Exception):
    """The campaign has errors: nothing was resolved and nothing was written."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        super().__init__(f"{tally(problems)} in the campaign; nothing was written")


def tally(problems: list[Problem]) -> str:
    """How many problems, and of which severity: "3 problems (1 error, 2 warnings)", "1 problem (1 error)"."""
    errors = sum(p.severity is Severity.ERROR for p in problems)
    parts = [plural(n, word) for n, word in ((errors, "error"), (len(problems) - errors, "warning")) if n]
    return plural(len(problems), "problem") + (f" ({', '.join(parts)})" if parts else "")
