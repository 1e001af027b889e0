"""The registry of rulesets: the one module that knows every ruleset the engine plays.

Core defines what a ruleset is (sheets_engine.core.ruleset) and knows none of them; each ruleset is a
package of its own whose `__init__.py` holds its registry entry (core.registry.Entry: its name, its
tabs, where its rules are, its own `init` options and commands). Adding one is its package plus one
line in `ENTRIES`. A ruleset's rules are imported only when a campaign of it is played: a Sengoku
Jidai run does not pay for importing the others (about 0.18 s).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sheets_engine import art_of_war, clan_war, sengoku
from sheets_engine.core.registry import Entry, InitOption

if TYPE_CHECKING:  # the registry is imported at the command's start-up: no rules, no pandas
    from sheets_engine.core.ruleset import Ruleset

ENTRIES: dict[str, Entry] = {
    "sengoku": sengoku.ENTRY,
    "clan-war": clan_war.ENTRY,
    "art-of-war": art_of_war.ENTRY,
}
DEFAULT = "sengoku"  # the ruleset of a workbook whose Game tab names none (the engine's first game)


def register(entry: Entry) -> None:
    """Add a ruleset (a test's own ruleset from its package, for one)."""
    ENTRIES[entry.name] = entry


def get_ruleset(name: str) -> Ruleset:
    """The ruleset of this name ("" is the default); a clear error for an unknown one."""
    entry = ENTRIES.get(name.strip().casefold() or DEFAULT)
    if entry is None:
        raise KeyError(f"unknown ruleset '{name}' (known: {', '.join(sorted(ENTRIES))})")
    return entry.build()


def ruleset_names() -> list[str]:
    """Every ruleset the engine knows."""
    return sorted(ENTRIES)


def every_tab_name() -> list[str]:
    """Every tab some ruleset reads, without importing the rulesets."""
    return sorted({tab for entry in ENTRIES.values() for tab in entry.tab_names})


def init_options() -> list[InitOption]:
    """Every ruleset's own `init` options, each name once (the first ruleset's help line)."""
    found: dict[str, InitOption] = {}
    for entry in ENTRIES.values():
        for option in entry.init_options:
            found.setdefault(option.name, option)
    return list(found.values())


def commands() -> dict[str, str]:
    """Every ruleset's own commands: command name -> the module holding it."""
    return {name: module for entry in ENTRIES.values() for name, module in entry.commands}


def supporting(has: str) -> list[str]:
    """The titles of the rulesets whose record has the capability `has` (for a message saying which do)."""
    return [ruleset.title for ruleset in map(get_ruleset, ruleset_names()) if getattr(ruleset, has, None) is not None]
