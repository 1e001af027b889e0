"""The registry of rulesets: the one module that knows every ruleset the engine plays.

Core defines what a ruleset is (sheets_engine.core.ruleset) and knows none of them; each ruleset is
a package of its own. Adding one is its package plus one line in `BUILDERS`.
"""

from __future__ import annotations

from collections.abc import Callable

from sheets_engine.art_of_war import ruleset as art_of_war
from sheets_engine.clan_war import ruleset as clan_war
from sheets_engine.core.ruleset import Ruleset
from sheets_engine.sengoku import ruleset as sengoku

BUILDERS: dict[str, Callable[[], Ruleset]] = {
    "sengoku": sengoku.build,
    "clan-war": clan_war.build,
    "art-of-war": art_of_war.build,
}


def get_ruleset(name: str) -> Ruleset:
    """The ruleset of this name; a clear error for an unknown one."""
    if name not in BUILDERS:
        raise KeyError(f"unknown ruleset '{name}' (known: {', '.join(sorted(BUILDERS))})")
    return BUILDERS[name]()


def ruleset_names() -> list[str]:
    """Every ruleset the engine knows."""
    return sorted(BUILDERS)
