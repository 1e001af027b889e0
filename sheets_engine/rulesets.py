"""The registry of rulesets: the one module that knows every ruleset the engine plays.

Core defines what a ruleset is (sheets_engine.core.ruleset) and knows none of them; each ruleset is
a package of its own. Adding one is its package plus one line in `BUILDERS` and one in `TAB_NAMES`.
A ruleset's rules are imported only when a campaign of it is played: a Sengoku Jidai run does not
pay for importing the others (about 0.18 s).
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module

from sheets_engine import art_of_war, clan_war, sengoku
from sheets_engine.core.ruleset import Ruleset


def _lazy(module: str) -> Callable[[], Ruleset]:
    """The `build` of a ruleset's `ruleset` module, imported when first called."""

    def build() -> Ruleset:
        return import_module(module).build()  # type: ignore[no-any-return]

    return build


BUILDERS: dict[str, Callable[[], Ruleset]] = {
    "sengoku": _lazy("sheets_engine.sengoku.ruleset"),
    "clan-war": _lazy("sheets_engine.clan_war.ruleset"),
    "art-of-war": _lazy("sheets_engine.art_of_war.ruleset"),
}
TAB_NAMES: dict[str, tuple[str, ...]] = {
    "sengoku": sengoku.TAB_NAMES,
    "clan-war": clan_war.TAB_NAMES,
    "art-of-war": art_of_war.TAB_NAMES,
}


def get_ruleset(name: str) -> Ruleset:
    """The ruleset of this name; a clear error for an unknown one."""
    if name not in BUILDERS:
        raise KeyError(f"unknown ruleset '{name}' (known: {', '.join(sorted(BUILDERS))})")
    return BUILDERS[name]()


def ruleset_names() -> list[str]:
    """Every ruleset the engine knows."""
    return sorted(BUILDERS)


def every_tab_name() -> list[str]:
    """Every tab some ruleset reads, without importing the rulesets (one registered without its
    names, as a test's sketch, is built to learn them)."""
    names = {tab for tabs in TAB_NAMES.values() for tab in tabs}
    for name in BUILDERS.keys() - TAB_NAMES.keys():
        names.update(spec.name for spec in get_ruleset(name).tabs)
    return sorted(names)
