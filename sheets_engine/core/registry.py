"""What the engine knows of a ruleset before it imports its rules: its registry entry.

A ruleset package's `__init__.py` holds its `Entry` (cheap to import: plain data, no pandas), so that
the engine reads the right tabs of a workbook, and the CLI offers the ruleset's own `init` options
and commands, without importing any ruleset's rules; `Entry.build()` imports them when a campaign
of it is played (sheets_engine.rulesets is the registry of entries).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sheets_engine.core.ruleset import Ruleset


@dataclass(frozen=True)
class InitOption:
    """An option of `sheets-engine init` that a ruleset takes (`--houses 4`), passed to its `setup`."""

    name: str  # the option's name as setup receives it ("houses"); the flag is --houses
    type: type = str  # int or str: what the command line's text is read as
    help: str = ""  # the --help line, naming the ruleset ("The Art of War: how many houses (2 to 6).")


@dataclass(frozen=True)
class Entry:
    """A ruleset as the registry lists it."""

    name: str  # the Game key `ruleset` of its workbooks ("clan-war")
    tab_names: tuple[str, ...]  # its tabs (schema.TABS must name the same tabs: a test checks)
    rules: str  # the module whose build() returns its `core.ruleset.Ruleset` record
    init_options: tuple[InitOption, ...] = ()
    # its own commands: (command name, module holding a click command of that name), imported when used
    commands: tuple[tuple[str, str], ...] = ()
    builder: Callable[[], Ruleset] | None = None  # instead of `rules`: the record from a function (a test's sketch)

    def build(self) -> Ruleset:
        """The ruleset's record (its rules imported now, the first time)."""
        if self.builder is not None:
            return self.builder()
        build: Callable[[], Ruleset] = import_module(self.rules).build
        return build()


def lazy(module: str, name: str) -> Callable[..., Any]:
    """A module's function, imported when first called: a capability most runs never use (a resolution
    draws no map) costs them no import."""

    def call(*args: Any, **kwargs: Any) -> Any:
        return getattr(import_module(module), name)(*args, **kwargs)

    call.__name__ = call.__qualname__ = name
    call.__doc__ = f"{module}.{name}, imported when first called."
    return call
