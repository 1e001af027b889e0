"""Names a person types (on the command line, in a cell) matched to the names the campaign knows, and
counts said in words.

One copy of the rule, for every command and check: a name matches ignoring case and the spaces around
and between its words ("  oda  " is "Oda"); when none matches, the closest known one (difflib's ratio,
on the same folded text) is offered as a "did you mean" hint.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import Any


class UnknownName(ValueError):
    """A name typed on the command line that the campaign does not know (the message names the closest)."""


def fold(text: Any) -> str:
    """The text names are compared on: case and extra spaces folded away ("FORTRESS  LEVEL" -> "fortress level")."""
    return "" if text is None else " ".join(str(text).split()).casefold()


def _known(known: Iterable[Any]) -> dict[str, str]:
    """Folded name -> the name as the campaign spells it (the first spelling wins)."""
    found: dict[str, str] = {}
    for name in known:
        if name is None or not str(name).strip():
            continue
        found.setdefault(fold(name), str(name))
    return found


def match(name: Any, known: Iterable[Any]) -> str | None:
    """The known name `name` stands for (as the campaign spells it), ignoring case and spaces; None if none."""
    return _known(known).get(fold(name)) if fold(name) else None


def closest(name: Any, known: Iterable[Any], cutoff: float = 0.6) -> str | None:
    """The known name closest to `name` (as the campaign spells it), when one is close enough; else None."""
    names = _known(known)
    close = difflib.get_close_matches(fold(name), list(names), n=1, cutoff=cutoff)
    return names[close[0]] if close else None


def hint(name: Any, known: Iterable[Any], cutoff: float = 0.6) -> str:
    """ " (did you mean 'Oda'?)" when a known name is close, else ""."""
    found = closest(name, known, cutoff)
    return f" (did you mean '{found}'?)" if found else ""


def require(name: str, known: Iterable[Any], kind: str, where: str, listed: bool = True) -> str:
    """The known name `name` stands for; UnknownName ("there is no clan 'Odda' in the Clans tab (did you
    mean 'Oda'?; clans: Oda, Takeda)") when none matches. `kind` is the thing named, `where` where it lives;
    `listed`: the known names are listed too (not for names too many and varied to read, History's keys)."""
    names = list(_known(known).values())
    found = match(name, names)
    if found is not None:
        return found
    close = closest(name, names)
    said = f"did you mean '{close}'?" if close else ""
    if listed:
        shown = ", ".join(names[:12]) + (f" and {len(names) - 12} more" if len(names) > 12 else "")
        said += ("; " if said else "") + f"{plural_word(kind)}: {shown or 'none'}"
    raise UnknownName(f"there is no {kind} '{name.strip()}' {where}" + (f" ({said})" if said else ""))


def refusal(name: str, known: Iterable[Any], kind: str, where: str) -> str:
    """Why `name` names none of `known` (require's message), or "" when it names one in any case."""
    try:
        require(name, known, kind, where)
    except UnknownName as error:
        return str(error)
    return ""


def plural_word(noun: str, many: str | None = None) -> str:
    """The plural of a noun: `many` when given, else the English rule for the engine's own words."""
    if many is not None:
        return many
    if noun.endswith(("s", "x", "ch", "sh")):
        return noun + "es"
    if noun.endswith("y") and noun[-2:-1] not in ("a", "e", "i", "o", "u"):
        return noun[:-1] + "ies"
    return noun + "s"


def plural(count: int, noun: str, many: str | None = None) -> str:
    """A count with its noun, singular for one: "1 problem", "3 problems", "2 armies", "0 cells" (`many`:
    an irregular plural). The CLI says every count so, never with an "s" in brackets."""
    return f"{count} {noun if count == 1 else plural_word(noun, many)}"


def expected_name(target: str, value: Any, known: Iterable[Any]) -> str:
    """What a cell naming a row of another tab should hold: 'a name from the X tab', with the closest
    name when a typo is likely."""
    if value == "":
        return f"a name from the {target} tab"
    return f"a name from the {target} tab{hint(value, known)}"


def noun(count: float, word: str, many: str | None = None) -> str:
    """The noun alone, singular for one and plural otherwise ("tab", "tabs"; "hour" for 1, "hours" for 1.5)."""
    return word if count == 1 else plural_word(word, many)
