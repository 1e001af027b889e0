"""Turn deadlines: when a turn is due, and which turn a form response belongs to.

Pure functions of the Game tab's keys and a clock passed in (no `datetime.now()` here):

- `deadline` is the current turn's deadline, written as local time in `time_zone` (an IANA name
  such as Asia/Tokyo; empty: UTC), and `turn_hours` the turn length. Turn N+k's deadline is the
  deadline plus k turn lengths on the wall clock, so "20:00 every day" stays 20:00 across a change
  of summer time.
- A turn is resolved with a cutoff: its deadline when the deadline has passed, or the moment of a
  forced run (`resolve --force`). A form response belongs to the turn being resolved when its
  timestamp (in the spreadsheet's time zone, as Google writes it) is at or before the cutoff; a
  later one waits in the form for its own turn.
- A forced cutoff differs from the deadline, so it is kept in the Game key `cutoffs`
  ("2: 2026-11-29 18:30:00; ...") that a rollback leaves as it is: a turn resolved again after a
  rollback takes the same orders, whatever responses arrived since.
- No deadline set: every response joins the turn being resolved, as before deadlines existed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

TIME_FORMAT = "%Y-%m-%d %H:%M:%S"
_LEDGER_ENTRY = re.compile(r"^\s*(\d+)\s*[:=]\s*(.+?)\s*$")


def time_zone(name: str) -> tzinfo:
    """The zone of an IANA name; UTC for an empty one. ValueError for a name no zone has."""
    text = (name or "").strip()
    if not text or text.casefold() == "utc":
        return UTC
    try:
        return ZoneInfo(text)
    except (ZoneInfoNotFoundError, ValueError) as error:
        raise ValueError(f"'{text}' is not a time zone (an IANA name such as Europe/London or Asia/Tokyo)") from error


def local_time(text: str, zone: tzinfo) -> datetime | None:
    """A sheet's "YYYY-MM-DD HH:MM[:SS]" in `zone` as an aware time; None when it is not one."""
    try:
        moment = datetime.fromisoformat(str(text).strip())
    except ValueError:
        return None
    return moment.replace(tzinfo=zone) if moment.tzinfo is None else moment


def local_text(moment: datetime, zone: tzinfo) -> str:
    """A time as the sheet writes it: local time in `zone`, to the second."""
    return moment.astimezone(zone).strftime(TIME_FORMAT)


def read_ledger(text: str, zone: tzinfo) -> dict[int, datetime]:
    """The `cutoffs` ledger: turn -> the cutoff it was resolved with. ValueError naming a bad entry."""
    found: dict[int, datetime] = {}
    for part in (text or "").split(";"):
        if not part.strip():
            continue
        match = _LEDGER_ENTRY.match(part)
        moment = local_time(match.group(2), zone) if match else None
        if match is None or moment is None:
            raise ValueError(f"'{part.strip()}' is not 'TURN: YYYY-MM-DD HH:MM:SS'")
        found[int(match.group(1))] = moment
    return found


def write_ledger(ledger: Mapping[int, datetime], zone: tzinfo) -> str:
    """The `cutoffs` ledger as the Game tab holds it, oldest turn first."""
    return "; ".join(f"{turn}: {local_text(moment, zone)}" for turn, moment in sorted(ledger.items()))


@dataclass(frozen=True)
class Schedule:
    """The deadlines of a campaign as its Game tab gives them."""

    turn: int  # the turn the next resolution resolves
    deadline: datetime | None  # that turn's deadline; None: no deadlines
    length: timedelta  # the turn length
    zone: tzinfo
    cutoffs: Mapping[int, datetime] = field(default_factory=dict)  # forced cutoffs of earlier resolutions

    def deadline_of(self, turn: int) -> datetime | None:
        """Turn `turn`'s deadline: the current one plus whole turn lengths on the wall clock."""
        if self.deadline is None:
            return None
        wall = self.deadline.astimezone(self.zone).replace(tzinfo=None) + (turn - self.turn) * self.length
        return wall.replace(tzinfo=self.zone)

    def recorded(self) -> datetime | None:
        """The cutoff this turn was resolved with before a rollback, if it was forced."""
        return self.cutoffs.get(self.turn) if self.deadline is not None else None

    def waiting(self, now: datetime, unit: str = "turn") -> str:
        """Why the turn (or season: `unit`) is not due yet at `now` ("" when it is)."""
        due = self.recorded() or self.deadline
        if due is None or now >= due:
            return ""
        return (
            f"{unit} {self.turn} is due at its deadline {local_text(due, self.zone)} ({_zone_name(self.zone)}); "
            "use --force to resolve it now"
        )

    def cutoff(self, now: datetime, force: bool) -> datetime | None:
        """The last moment a response may carry to join this turn (None: every response joins)."""
        if self.deadline is None:
            return None
        recorded = self.recorded()
        if recorded is not None:
            return recorded
        return now if force else self.deadline

    def next_deadline(self) -> datetime | None:
        """The deadline of the turn after this one."""
        return self.deadline_of(self.turn + 1)

    def belongs(self, submitted: datetime | None, cutoff: datetime | None) -> bool:
        """Does a response sent at `submitted` join the turn resolved with `cutoff`?"""
        return cutoff is None or submitted is None or submitted <= cutoff


def schedule(turn: int, deadline: str, hours: float, zone_name: str, ledger: str) -> Schedule:
    """The Schedule of Game keys as text. ValueError for a key that cannot be read."""
    zone = time_zone(zone_name)
    moment = None
    if str(deadline or "").strip():
        moment = local_time(deadline, zone)
        if moment is None:
            raise ValueError(f"deadline '{deadline}' is not a time (YYYY-MM-DD HH:MM:SS)")
    return Schedule(turn, moment, timedelta(hours=hours), zone, read_ledger(ledger, zone))


def _zone_name(zone: tzinfo) -> str:
    return getattr(zone, "key", None) or str(zone)
