"""The cell codec of the workbook writer: a value as the <c> element the sheet XML holds, new rows as <row>
elements, and the escapes and column letters both need (no openpyxl: importing it costs some 0.18 s a run).
Text is written as an inline string, so a letter beginning with "=" stays text."""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

ILLEGAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")  # not allowed in XML 1.0
_EXCEL_EPOCH = datetime(1899, 12, 30)


class PatchError(Exception):
    """The workbook's structure is not one this writer understands; nothing was written."""


def escape(text: str) -> str:
    """Text made safe inside an XML element (as xml.sax.saxutils.escape, without importing urllib and ssl)."""
    if "&" in text:
        text = text.replace("&", "&amp;")
    if "<" in text:
        text = text.replace("<", "&lt;")
    if ">" in text:
        text = text.replace(">", "&gt;")
    return text


def unescape(text: str) -> str:
    """The text of an XML attribute or element (the five entities undone)."""
    return (
        text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", '"')
        .replace("&apos;", "'")
        .replace("&amp;", "&")
    )


@functools.lru_cache(maxsize=1024)
def column_letters(index: int) -> str:
    """1 -> A, 27 -> AA.

    openpyxl.utils.get_column_letter says the same, but importing openpyxl costs some 0.18 s and a
    resolution's write does not otherwise load it; this runs for every cell written."""
    letters = ""
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(65 + rest) + letters
    return letters


def column_index(reference: bytes) -> int:
    """b"AA7" -> 27 (bytes of the sheet XML, on the hot path: see column_letters)."""
    index = 0
    for char in reference:
        if 65 <= char <= 90:
            index = index * 26 + char - 64
        elif 97 <= char <= 122:
            index = index * 26 + char - 96
        else:
            break
    return index


def cell_xml(reference: str, value: Any, style: bytes, prefix: bytes) -> bytes:
    """One <c> element holding the value: a number, TRUE/FALSE, or text (never a formula)."""
    p = prefix.decode()
    s = f' s="{style.decode()}"' if style else ""
    kind = type(value)
    if kind is int:  # the usual cells first (a first turn writes 100,000 at 10,000 provinces)
        return f'<{p}c r="{reference}"{s}><{p}v>{value}</{p}v></{p}c>'.encode()
    if kind is str and value and value.isprintable():
        text = escape(value)
        return (
            f'<{p}c r="{reference}"{s} t="inlineStr"><{p}is><{p}t xml:space="preserve">{text}</{p}t></{p}is></{p}c>'
        ).encode()
    if value is None or (isinstance(value, str) and value == ""):
        return f'<{p}c r="{reference}"{s}/>'.encode()
    if isinstance(value, bool):
        return f'<{p}c r="{reference}"{s} t="b"><{p}v>{int(value)}</{p}v></{p}c>'.encode()
    if isinstance(value, datetime | date) and not isinstance(value, bool):
        moment = value if isinstance(value, datetime) else datetime(value.year, value.month, value.day)
        value = (moment.replace(tzinfo=None) - _EXCEL_EPOCH).total_seconds() / 86400
    if isinstance(value, int | float) and not (isinstance(value, float) and not math.isfinite(value)):
        number = repr(value) if isinstance(value, float) else str(value)
        return f'<{p}c r="{reference}"{s}><{p}v>{number}</{p}v></{p}c>'.encode()
    text = escape(ILLEGAL.sub("", str(value)))
    return (
        f'<{p}c r="{reference}"{s} t="inlineStr"><{p}is><{p}t xml:space="preserve">{text}</{p}t></{p}is></{p}c>'
    ).encode()


@dataclass(frozen=True)
class Appended:
    """Whole rows to add below a sheet's last row: row i is `first_row + i`, its values in `columns` (1-based)."""

    first_row: int
    columns: tuple[int, ...]
    rows: Sequence[tuple[Any, ...]]


def rows_xml(block: Appended, prefix: bytes) -> bytes:
    """The block's rows as new <row> elements, written in one pass (no cell objects, nothing parsed).

    Each distinct text is escaped (and cleaned of characters XML 1.0 does not allow) once: History
    repeats its turn, tabs, columns and causes on every row, and a pass over the whole XML for
    those characters cost as much as writing it.
    """
    p = prefix.decode()
    letters = [column_letters(c) for c in block.columns]
    heads = [f'<{p}c r="{letter}' for letter in letters]
    text_open, text_close = f'" t="inlineStr"><{p}is><{p}t xml:space="preserve">', f"</{p}t></{p}is></{p}c>"
    number_open, number_close = f'"><{p}v>', f"</{p}v></{p}c>"
    row_open, row_close = f'<{p}row r="', f"</{p}row>"
    texts: dict[str, str] = {}
    out: list[str] = []
    add = out.append
    for number, row in enumerate(block.rows, start=block.first_row):
        n = str(number)
        parts = [row_open, n, '">']
        put = parts.append
        for column, (head, value) in enumerate(zip(heads, row, strict=True)):
            kind = type(value)
            if kind is str:
                if not value:
                    continue
                body = texts.get(value)
                if body is None:
                    body = texts[value] = text_open + escape(ILLEGAL.sub("", value)) + text_close
                put(head)
                put(n)
                put(body)
            elif kind is int:
                put(head)
                put(n)
                put(number_open)
                put(str(value))
                put(number_close)
            elif value is None or value == "":
                continue
            else:  # floats, booleans, dates and the rest: as a single cell writes them
                put(cell_xml(letters[column] + n, value, b"", prefix).decode())
        put(row_close)
        add("".join(parts))
    return "".join(out).encode()
