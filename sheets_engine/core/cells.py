"""Cell types shared by every ruleset's tabs: what an empty cell means, and what a bad one says.

The sheet's contract: an empty cell is 0 for counts and "none" for names; anything that cannot be
read is a problem naming tab, row, column and value (see `core.problems`).
"""

from __future__ import annotations

import math
import re
from datetime import date, datetime, time, timedelta
from enum import Enum
from typing import Annotated, Any, TypeVar

from pydantic import AfterValidator, BeforeValidator, Field, Strict, StringConstraints

from sheets_engine.core.deadlines import local_time, time_zone

MAX_COUNT = 1_000_000_000  # past this a count is a typo, not an army
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", re.ASCII)  # a number as a spreadsheet reads it


def is_blank(value: Any) -> bool:
    """True for what a spreadsheet shows as an empty cell."""
    if value is None:
        return True
    if type(value) is str:  # the usual cell first: this runs for every cell read
        return value.strip() == ""
    if isinstance(value, float) and math.isnan(value):
        return True
    return isinstance(value, str) and value.strip() == ""


def _whole(value: Any) -> Any:
    kind = type(value)
    if kind is int:  # the usual cells first (a workbook's numbers come as floats)
        return value
    if kind is float and value.is_integer():
        return int(value)
    if is_blank(value):
        return 0
    if isinstance(value, (bool, datetime, date)):
        raise ValueError("expected a whole number")
    if isinstance(value, float):
        if not math.isfinite(value) or value != int(value):
            raise ValueError("expected a whole number")
        return int(value)
    if isinstance(value, str):
        text = value.strip()
        # Python's int() and float() also take "1_000", "٣" and "nan"; a spreadsheet does not
        if not _NUMBER.fullmatch(text):
            raise ValueError("expected a whole number")
        return _whole(float(text) if any(c in text for c in ".eE") else int(text))
    return value


def _optional_whole(value: Any) -> Any:
    return None if is_blank(value) else _whole(value)


def _text(value: Any) -> str:
    if type(value) is str:  # blank or not, a text cell reads as itself stripped
        return value.strip()
    if is_blank(value):
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float) and value.is_integer():  # not int(value): inf has no int
        return str(int(value))
    if isinstance(value, (int, float, str)):
        return str(value).strip()
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%d %H:%M:%S")
    if isinstance(value, (date, time)):
        return value.isoformat()
    if isinstance(value, timedelta):  # a workbook cell formatted as a duration
        return str(value)
    raise ValueError("expected text")


def name_text(value: Any) -> str:
    """A cell as the text a Text column reads from it ("" for an empty cell or one that is not text)."""
    try:
        return _text(value)
    except ValueError:
        return str(value).strip()


def _flag(value: Any) -> Any:
    if is_blank(value):
        return False
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    text = str(value).strip().casefold()
    if text in ("true", "yes", "y", "1"):
        return True
    if text in ("false", "no", "n", "0"):
        return False
    raise ValueError("expected TRUE or FALSE")


def _fraction(value: Any) -> Any:
    if is_blank(value):
        return None
    if isinstance(value, str):
        text = value.strip()
        number = text[:-1].strip() if text.endswith("%") else text
        if not _NUMBER.fullmatch(number):  # float() would take "nan", "inf" and "1_0"
            raise ValueError("expected a fraction such as 0.6 or 60%")
        return float(number) / 100 if text.endswith("%") else float(number)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError("expected a fraction such as 0.6 or 60%")
    return float(value)


def timestamp_text(value: Any) -> str:
    """A form timestamp as sortable text (`YYYY-MM-DD HH:MM:SS`), whatever form the store gave it in.

    Google Sheets gives unformatted dates as serial day numbers (days since 1899-12-30), a workbook
    as datetimes. Text (a GM typing a timestamp by hand) is parsed, never sorted as text: a date
    whose day and month could be swapped (01/12/2026) is refused, since the engine cannot know the
    GM's locale.
    """
    if is_blank(value):
        return ""
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%d %H:%M:%S")
    # a serial day number within the years a spreadsheet can show (1900 to 9999)
    if isinstance(value, int | float) and not isinstance(value, bool):
        if not 0 < value < 2_958_466:
            raise ValueError("expected a date and time (this number is not one a spreadsheet can show)")
        from openpyxl.utils.datetime import from_excel  # only a Google read gives serials: load it then

        moment: datetime = from_excel(value)  # days since 1899-12-30, as Excel and Google Sheets count them
        return moment.strftime("%Y-%m-%d %H:%M:%S")
    return _typed_timestamp(_text(value))


def _typed_timestamp(text: str) -> str:
    from dateutil import parser

    expected = "expected a date and time such as 2026-03-14 09:30"
    try:
        return datetime.fromisoformat(text).strftime("%Y-%m-%d %H:%M:%S")  # year first: never ambiguous
    except ValueError:
        pass
    try:
        month_first: datetime = parser.parse(text, dayfirst=False)
        day_first: datetime = parser.parse(text, dayfirst=True)
        # dateutil fills a missing day, month or year from a default (today): without them it is no date
        complete = parser.parse(text, default=datetime(2000, 1, 1)) == parser.parse(text, default=datetime(2001, 2, 2))
    except (ValueError, OverflowError):
        raise ValueError(expected) from None
    if not complete:
        raise ValueError(expected)
    if month_first != day_first:
        raise ValueError(f"{expected} (is this the {day_first:%-d %B} or the {month_first:%-d %B}?)")
    return month_first.strftime("%Y-%m-%d %H:%M:%S")


E = TypeVar("E", bound=Enum)


def enum_cell(kind: type[E], blank: E | None = None) -> BeforeValidator:
    """The reading of an enum column, its words in any case ("city" is City), for a field typed
    `Annotated[Kind, enum_cell(Kind)]`.

    `blank` is what an empty cell means (a GM adding a row leaves engine-owned cells empty);
    without it an empty cell is a problem.
    """
    words = {member.value.casefold(): member for member in kind}

    def parse(value: Any) -> Any:
        if isinstance(value, kind):
            return value
        if blank is not None and is_blank(value):
            return blank
        text = _text(value).casefold()
        if text in words:
            return words[text]
        raise ValueError("expected one of: " + ", ".join(m.value for m in kind))

    return BeforeValidator(parse)


def enum_of(kind: type[E], blank: E | None = None) -> Any:
    """An enum column as one type (`Annotated[kind, enum_cell(kind, blank)]`), for code that builds its
    fields at run time; a model's own fields say `Annotated[...]`, which a type checker reads."""
    return Annotated[kind, enum_cell(kind, blank)]


Count = Annotated[int, BeforeValidator(_whole), Field(ge=0, le=MAX_COUNT)]
"""A count of something: empty is 0, never negative."""
Whole = Annotated[int, BeforeValidator(_whole), Field(ge=-MAX_COUNT, le=MAX_COUNT)]
"""A whole number that may be negative (Authority)."""
OptionalCount = Annotated[Annotated[int, Field(ge=0, le=MAX_COUNT)] | None, BeforeValidator(_optional_whole)]
"""A count where empty means "none" (no limit, no order)."""
Text = Annotated[str, BeforeValidator(_text)]
"""Text or a name: empty is "none"."""
Flag = Annotated[bool, BeforeValidator(_flag)]
"""TRUE or FALSE; empty is FALSE."""
Fraction = Annotated[Annotated[float, Field(ge=0, le=1)] | None, BeforeValidator(_fraction)]
"""A rate between 0 and 1 (60% or 0.6); empty is none."""

# The same types for the usual cell, checked without a Python call: pydantic tries the first member
# (in Rust) and only when it does not take the cell the type above. The first takes only what the
# type above gives back unchanged: a whole number in range; a text with nothing str.strip() removes
# at either end (Python's whitespace, listed, as the regex's \s is not quite it). A row that fails is
# validated again with the types above, for their messages (core.load).
_SPACE = "".join(f"\\x{{{ord(c):x}}}" for c in map(chr, range(0x3001)) if c.isspace())
_STRIPPED = f"^(?:[^{_SPACE}](?:[\\s\\S]*[^{_SPACE}])?)?$"
FAST_TWINS: dict[Any, Any] = {
    Text: Annotated[
        Annotated[str, Strict(), StringConstraints(pattern=_STRIPPED)] | Text, Field(union_mode="left_to_right")
    ],
    Count: Annotated[Annotated[int, Strict(), Field(ge=0, le=MAX_COUNT)] | Count, Field(union_mode="left_to_right")],
    Whole: Annotated[
        Annotated[int, Strict(), Field(ge=-MAX_COUNT, le=MAX_COUNT)] | Whole, Field(union_mode="left_to_right")
    ],
}


def split_names(value: str) -> list[str]:
    """A comma-separated list of names, as the Adjacent column holds them."""
    return [part.strip() for part in value.split(",") if part.strip()]


Timestamp = Annotated[str, BeforeValidator(timestamp_text)]


def _known_zone(value: str) -> str:
    time_zone(value)  # ValueError naming the zone it does not know
    return value


def _a_deadline(value: str) -> str:
    if value.strip() and local_time(value, time_zone("")) is None:
        raise ValueError("expected a time such as 2026-12-01 20:00:00 (in time_zone)")
    return value


# The Game keys of a turn's deadline, shared by every ruleset that has one
ZoneName = Annotated[str, BeforeValidator(_text), AfterValidator(_known_zone)]
Deadline = Annotated[str, BeforeValidator(timestamp_text), AfterValidator(_a_deadline)]
"""A form timestamp, as sortable text whatever the store gave (a Sheets serial number, a datetime)."""


def same_cell(a: Any, b: Any) -> bool:
    """Equal as a spreadsheet shows them: empty (None or "") is empty, 5 is 5.0, TRUE is not 1."""
    a_empty, b_empty = a is None or a == "", b is None or b == ""
    if a_empty or b_empty:
        return a_empty and b_empty
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    return bool(a == b)
