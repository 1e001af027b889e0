"""Answering a player's "why?" from History: every change to one province, army or character.

`explain` is a pure function of History's rows (as `history.read_history` gives them): the rows
whose Key is the name, in any tab, the rows whose old or new value is the name (an army losing its
leader), and the rows whose Cause names it (an order it gave, a battle at it, a siege of it),
oldest first, each with its cause and the dice that decided it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from sheets_engine.core.load import norm
from sheets_engine.core.names import closest


@dataclass(frozen=True)
class Explained:
    """One History row about the name, and how it is about it."""

    row: Mapping[str, Any]
    about: str  # "own row" (a cell of the name's row), "value" (the name went in or out of a cell), "cause"

    @property
    def turn(self) -> Any:
        """The turn of the change."""
        return self.row.get("Turn")


def mentions(text: Any, name: str) -> bool:
    """Does `text` name `name` as a whole word (any case)? "Oda" is in "tax-province by Oda Nobunaga"
    but not in "Odawara"."""
    if text is None or not name.strip():
        return False
    pattern = r"(?<!\w)" + re.escape(" ".join(name.split())) + r"(?!\w)"
    return re.search(pattern, " ".join(str(text).split()), re.IGNORECASE) is not None


def explain(rows: Iterable[Mapping[str, Any]], key: str, turn: int | None = None) -> list[Explained]:
    """History rows about `key` (of `turn` only, if given), in sheet order: the changes to its own
    row, the cells it went into or out of (an army's Leader, a province's Controlled By), and the
    changes whose cause names it (its orders, a battle at it)."""
    found = []
    for row in rows:
        if turn is not None and str(row.get("Turn")) != str(turn):
            continue
        if norm(row.get("Key")) == norm(key):
            found.append(Explained(row, "own row"))
        elif norm(key) in (_name(row.get("Old")), _name(row.get("New"))):
            found.append(Explained(row, "value"))
        elif mentions(row.get("Cause"), key):
            found.append(Explained(row, "cause"))
    return found


def _name(value: Any) -> str:
    return norm(" ".join(str(value).split())) if isinstance(value, str) else ""


def suggest(rows: Iterable[Mapping[str, Any]], key: str) -> str | None:
    """The History key closest to a name that matched nothing (a likely typo), if any."""
    keys = sorted({str(row.get("Key")) for row in rows if row.get("Key") not in (None, "")})
    return closest(key, keys)
