"""The workbook's zip written part by part: unchanged parts copied as compressed bytes, sheets that only
grow (History) appended to without inflating or deflating what they held.

Python's zipfile can only write a part by compressing it, so a resolution used to inflate and deflate
every part of the workbook, History's 256 MiB at 400,000 rows included, on every turn. Here:

- every part the run does not change is copied as the compressed bytes it is stored as;
- a sheet the run writes is deflated in three segments, its head (up to `<sheetData>`), its rows, its
  tail (`</sheetData>` onwards), each ended by a full flush, which empties the compressor's window so
  that a segment decodes without what came before it. The part's zip comment records where the rows'
  segment lies and its CRC, with the part's own CRC and sizes (a program that saves the workbook again,
  Excel or LibreOffice, drops the comment or changes those, and the next run takes the full path once);
- rows appended to such a sheet are deflated alone and written after its rows' segment copied as it is;
  the head (its `<dimension>`) and the tail are small and written anew. The part's CRC is combined from
  the segments' (zlib's crc32_combine, which Python's zlib does not expose, is below).

Only plain zips are written this way (no encryption, no ZIP64: parts and offsets under 4 GiB); others
go through zipfile as before.
"""

from __future__ import annotations

import re
import struct
import zlib
from dataclasses import dataclass
from typing import Any

_MARKER = re.compile(rb"^sheets-engine segments (\d+) (\d+) (\d+) (\d+) (\d+) (\d+) (\d+) (\d+) (\d+)$")
_LIMIT = 0xFFFF_FFFF - (1 << 26)  # well under ZIP64's 4 GiB: sizes and offsets fit the plain fields
_LEVEL = 1  # as before: a fraction of the time of the default 6 for a few percent more bytes


@dataclass(frozen=True)
class Segments:
    """Where a sheet part's rows lie in its compressed bytes, as its zip comment records.

    `rows_start`/`rows_end`: the rows' segment in the compressed bytes; `rows_crc`/`rows_size`: the
    CRC and length of the rows' XML; `last_row`: the number of the last <row>; `last_held`: the last
    row holding a value (what the reader reports as the tab's length); `crc`, `compressed`, `size`: the
    whole part's, which must match the zip's own for the comment to be trusted.
    """

    rows_start: int
    rows_end: int
    rows_crc: int
    rows_size: int
    last_row: int
    last_held: int
    crc: int
    compressed: int
    size: int

    def comment(self) -> bytes:
        """The zip comment recording these segments."""
        fields = (
            self.rows_start, self.rows_end, self.rows_crc, self.rows_size, self.last_row, self.last_held,
            self.crc, self.compressed, self.size,
        )  # fmt: skip
        return b"sheets-engine segments " + b" ".join(b"%d" % f for f in fields)


def segments_of(info: Any) -> Segments | None:
    """The segments a part's zip comment records, if the part is still the one they describe."""
    match = _MARKER.match(info.comment or b"")
    if match is None:
        return None
    found = Segments(*(int(g) for g in match.groups()))
    if (found.crc, found.compressed, found.size) != (info.CRC, info.compress_size, info.file_size):
        return None  # rewritten by another program that kept the comment: not ours any more
    if info.compress_type != zlib.DEFLATED or not 0 < found.rows_start <= found.rows_end <= found.compressed:
        return None
    return found


# crc32_combine, as zlib computes it: the CRC of A + B from crc(A), crc(B) and len(B), by applying
# len(B) zero bytes to crc(A) with GF(2) matrix squaring (log2(len) steps, not len(B) bytes read).
def _times(matrix: list[int], vector: int) -> int:
    total, i = 0, 0
    while vector:
        if vector & 1:
            total ^= matrix[i]
        vector >>= 1
        i += 1
    return total


def _square(matrix: list[int]) -> list[int]:
    return [_times(matrix, matrix[n]) for n in range(32)]


def crc32_combine(crc1: int, crc2: int, length2: int) -> int:
    """The CRC-32 of two byte strings joined, from their CRCs and the second one's length."""
    if length2 <= 0:
        return crc1
    odd = [0xEDB88320] + [1 << n for n in range(31)]  # the operator for one zero bit
    even = _square(odd)  # two zero bits
    odd = _square(even)  # four zero bits
    while True:
        even = _square(odd)  # apply len2 zeros to crc1 (the first square puts the operator for one byte in even)
        if length2 & 1:
            crc1 = _times(even, crc1)
        length2 >>= 1
        if not length2:
            break
        odd = _square(even)
        if length2 & 1:
            crc1 = _times(odd, crc1)
        length2 >>= 1
        if not length2:
            break
    return crc1 ^ crc2


def _deflate(data: bytes | memoryview, finish: bool) -> bytes:
    """Raw deflate of `data` by a fresh compressor: a segment ending in a full flush, or the last one."""
    compressor = zlib.compressobj(_LEVEL, zlib.DEFLATED, -15)
    return compressor.compress(data) + compressor.flush(zlib.Z_FINISH if finish else zlib.Z_FULL_FLUSH)


def _inflate(data: bytes | memoryview) -> bytes:
    return zlib.decompressobj(-15).decompress(data)


@dataclass(frozen=True)
class Part:
    """A part to write: its compressed bytes, CRC, sizes and zip comment."""

    raw: bytes | memoryview
    crc: int
    size: int
    comment: bytes = b""
    method: int = zlib.DEFLATED


def deflated(data: bytes) -> Part:
    """A part compressed whole."""
    return Part(_deflate(data, finish=True), zlib.crc32(data), len(data))


def segmented(head: bytes, rows: bytes | memoryview, tail: bytes, last_row: int, last_held: int) -> Part:
    """A sheet part in three segments (head, rows, tail), its comment recording them."""
    first, middle, last = _deflate(head, False), _deflate(rows, False), _deflate(tail, True)
    raw = first + middle + last
    rows_crc = zlib.crc32(rows)
    crc = zlib.crc32(tail, zlib.crc32(rows, zlib.crc32(head)))  # the whole part's, continued segment by segment
    size = len(head) + len(rows) + len(tail)
    segments = Segments(
        len(first), len(first) + len(middle), rows_crc, len(rows), last_row, last_held, crc, len(raw), size
    )
    return Part(raw, crc, size, segments.comment())


def head_and_tail(raw: bytes | memoryview, segments: Segments) -> tuple[bytes, bytes]:
    """A segmented part's head and tail XML (its rows left compressed)."""
    return _inflate(raw[: segments.rows_start]), _inflate(raw[segments.rows_end :])


def appended(raw: bytes | memoryview, segments: Segments, head: bytes, rows: bytes, tail: bytes, last_held: int,
             last_row: int) -> Part:  # fmt: skip
    """The part with these rows after its rows (head and tail given anew), its old rows copied compressed."""
    first, added, last = _deflate(head, False), _deflate(rows, False), _deflate(tail, True)
    old = raw[segments.rows_start : segments.rows_end]
    rows_crc = zlib.crc32(rows, segments.rows_crc)
    rows_size = segments.rows_size + len(rows)
    crc = zlib.crc32(tail, crc32_combine(zlib.crc32(head), rows_crc, rows_size))  # the old rows are not read
    compressed = len(first) + len(old) + len(added) + len(last)
    size = len(head) + rows_size + len(tail)
    found = Segments(
        len(first), len(first) + len(old) + len(added), rows_crc, rows_size, last_row, last_held, crc, compressed,
        size,
    )  # fmt: skip
    return Part(b"".join((first, old, added, last)), crc, size, found.comment())


def stored_bytes(data: bytes | memoryview, info: Any) -> memoryview:
    """A part's bytes as stored in the zip (compressed), found from its local header."""
    start = info.header_offset
    signature, *_rest, name_length, extra_length = struct.unpack_from("<IHHHHHIIIHH", data, start)
    if signature != 0x04034B50:
        raise ValueError(f"no local header for {info.filename}")
    begin = start + 30 + name_length + extra_length
    return memoryview(data)[begin : begin + info.compress_size]


def plain_zip(infos: list[Any], total: int) -> bool:
    """True when this writer can copy the zip's parts: unencrypted, deflated or stored, no ZIP64."""
    return (
        total < _LIMIT
        and len(infos) < 0xFFFF
        and all(
            not info.flag_bits & 0x1
            and info.compress_type in (zlib.DEFLATED, 0)
            and info.file_size < _LIMIT
            and info.compress_size < _LIMIT
            for info in infos
        )
    )


def write_zip(target: Any, entries: list[tuple[Any, Part]]) -> None:
    """Write a zip of these (source ZipInfo, part) entries, in order, to the path or file `target`."""
    central = []
    with open(target, "wb") if isinstance(target, str) else _Keep(target) as out:
        offset = 0
        for info, part in entries:
            entry, offset = write_part(out, info, part, offset)
            central.append(entry)
        directory = b"".join(central)
        out.write(directory)
        out.write(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(entries), len(entries), len(directory), offset, 0))


def write_part(out: Any, info: Any, part: Part, offset: int) -> tuple[bytes, int]:
    """Write one part (local header, name, bytes) at `offset`; its central directory entry and the next offset."""
    name = info.filename.encode("utf-8")
    flags = (info.flag_bits & 0x0806) | (0x800 if not info.filename.isascii() else 0)  # sizes in the header
    year, month, day, hour, minute, second = info.date_time
    time = (hour << 11) | (minute << 5) | (second // 2)
    date = ((year - 1980) << 9) | (month << 5) | day
    raw_size = len(part.raw)
    if offset + raw_size + len(name) + 30 >= _LIMIT:
        raise OverflowError("the workbook grew past what this writer writes without ZIP64")
    header = struct.pack(
        "<IHHHHHIIIHH", 0x04034B50, 20, flags, part.method, time, date, part.crc, raw_size, part.size, len(name), 0
    )
    out.write(header)
    out.write(name)
    out.write(part.raw)
    entry = struct.pack(
        "<IHHHHHHIIIHHHHHII", 0x02014B50, (info.create_system << 8) | 20, 20, flags, part.method, time, date,
        part.crc, raw_size, part.size, len(name), 0, len(part.comment), 0, info.internal_attr, info.external_attr,
        offset,
    )  # fmt: skip
    return entry + name + part.comment, offset + len(header) + len(name) + raw_size


class _Keep:
    """A file object used as a context without closing it."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream

    def __enter__(self) -> Any:
        return self.stream

    def __exit__(self, *_: object) -> None:
        return None
