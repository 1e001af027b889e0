"""What a ruleset may offer the commands besides its turn, each in its own package: the capabilities on
its `core.ruleset.Ruleset` record.

A command that uses one (`check`, `report`, `map`, `remind`, `form sync`) asks the record; a ruleset
without it is told so plainly (exit 2). The service layer does the reading, writing, files and HTTP
around a capability; the capability is the ruleset's own part, pure: what a reader may see, how the
map is drawn, who has not ordered, what the Form offers, how its answers become order rows.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sheets_engine.core.tables import Draft, GameState

if TYPE_CHECKING:
    from sheets_engine.core.lifecycle import Outcome

Preview = Callable[[GameState, datetime], "Outcome"]
"""`check`: the preview of every pending order as an Outcome writing their Results ("Check: ...")."""


@dataclass(frozen=True)
class View:
    """A validated campaign as a view reads it: its state, and the rows of its log tabs read whole
    (History, Battles, Notifications...), each row a dict by the tab's headers."""

    state: GameState
    logs: Mapping[str, list[dict[str, Any]]] = field(default_factory=dict)
    problems: tuple[str, ...] = ()  # the campaign's warnings as the GMs read them ("Tab row N, Column: ...")
    memo: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def rows(self, tab: str) -> list[dict[str, Any]]:
        """A log tab's rows (none if it was not read)."""
        return list(self.logs.get(tab, ()))

    def once(self, key: str, compute: Callable[[], Any]) -> Any:
        """`compute()` the first time `key` is asked of this view, its answer kept after: what every page
        of a run needs (who sees what, the layout) is worked out once, not once per reader."""
        if key not in self.memo:
            self.memo[key] = compute()
        return self.memo[key]


@dataclass(frozen=True)
class Part:
    """A part of a page before its tables: a heading, lines of text (each one item), and a table's rows."""

    heading: str
    lines: tuple[str, ...] = ()
    rows: tuple[dict[str, Any], ...] = ()


@dataclass(frozen=True)
class Page:
    """One reader's report laid out: its title, who it is for, the turn its picture shows, and its sections
    (a heading and its table's rows, each row a dict by column)."""

    title: str
    reader: str  # the reader's name as the page's <title> ends ("Oda", "GMs")
    who: str  # "the Oda clan (private)", "the GMs (everything)"
    turn: int | None  # the turn the picture is drawn at
    sections: list[tuple[str, list[dict[str, Any]]]]
    html: str | None = None  # the ruleset's whole page, written as is (The Art of War's board); None: laid out here
    lead: tuple[Part, ...] = ()  # what comes first, before the map: this turn for this reader
    follow: tuple[Part, ...] = ()  # after the map, before the tables: what the reader can do next


@dataclass(frozen=True)
class ReportPages:
    """`report`: each reader's private page after a turn (Sengoku Jidai: each clan's), and the GMs'."""

    readers: Callable[[View], list[str]]  # every reader but the GMs, in order
    content: Callable[[View, str | None, int | None], dict[str, Any]]  # what a reader (None: the GMs) may know
    page: Callable[[dict[str, Any]], Page]  # that content laid out (the same content is the --json file)
    gm: str = "GMs"  # the GMs' name as a reader (their file is gm.html)
    logs: tuple[str, ...] = ("Battles", "Notifications", "History")  # the log tabs it reads whole


@dataclass(frozen=True)
class MapPicture:
    """`map` (and the picture in each report): the campaign drawn for a reader, as PNG bytes."""

    draw: Callable[[View, str | None, int | None, Any], bytes]  # (view, reader or None, turn, prepared) -> PNG
    svg: Callable[[View, str | None, int | None, Any], str] | None = (
        None  # the same picture as SVG text (None: PNG only)
    )
    prepare: Callable[[View], Any] = lambda view: None  # computed once for every picture of a run
    reader_problem: Callable[[View, str], str] = lambda view, reader: ""  # why a reader has no view ("": one)
    # the reader as the campaign spells it, typed in any case ("oda" -> "Oda"); as typed when none matches
    reader_name: Callable[[View, str], str] = lambda view, reader: reader
    layout: Callable[[GameState], Outcome] | None = None  # `map --save-layout`: the places computed, to keep
    no_layout: str = ""  # why --save-layout does not apply to the ruleset (when `layout` is None)
    logs: tuple[str, ...] = ("Battles",)  # the log tabs it reads whole


def no_order_yet(group: str, names: list[str]) -> str:
    """A reminder's last sentence: who of the group has not ordered (Sengoku Jidai: its characters)."""
    return f"No order yet from: {', '.join(names)}."


@dataclass(frozen=True)
class Reminders:
    """`remind`: who has not ordered for the period yet, by the group a reminder goes to."""

    missing: Callable[[GameState, int, datetime | None], dict[str, list[str]]]  # (state, period, cutoff) -> names
    audience: str = "clan"  # a group's webhook audience is AUDIENCE:GROUP (routed as `notify` routes)
    key: str = "reminded_turn"  # the Game key keeping the last period reminded
    group: str = "clan"  # what a group is called in the command's words ("clan", "faction")
    member: str = "character"  # what its names are ("character", "player")
    sentence: Callable[[str, list[str]], str] = no_order_yet  # (group, names) -> the reminder's last sentence


@dataclass(frozen=True)
class FormQuestions:
    """`form sync`: the dropdown questions of the ruleset's Google Form, their options from the sheet."""

    questions: tuple[tuple[str, str], ...]  # (the question's title when first linked, the Game key of its item id)
    choices: Callable[[GameState], dict[str, list[str]]]  # each question's options, by title
    notes: Mapping[str, str] = field(default_factory=dict)  # the Notes of the Game keys sync adds (form_id too)


@dataclass(frozen=True)
class Intake:
    """How the Form's answers become the ruleset's order rows: the answers sent by a cutoff (None: all)
    not yet copied are copied, once, as rows of the period; `copy` says how many."""

    responses: str  # the tab the Form writes its answers to
    copy: Callable[[Draft, int, datetime | None], int]
