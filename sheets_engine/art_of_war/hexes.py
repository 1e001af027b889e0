"""Hexes in axial coordinates ("q,r" on the sheet): neighbours, distance, parsing and the board's shape."""

from __future__ import annotations

import re

Hex = tuple[int, int]

# The six neighbours, in a fixed order (east first, then anticlockwise): ties are broken in this order.
DIRECTIONS: tuple[Hex, ...] = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))
_HEX = re.compile(r"\s*([+-]?\d{1,4})\s*,\s*([+-]?\d{1,4})\s*")


def parse_hex(text: object) -> Hex | None:
    """The hex "3,-4" as (3, -4); None when the text is not a hex."""
    if isinstance(text, (float, int)) or text is None:
        return None  # a spreadsheet turned it into a number: "3,4" never reads as one
    found = _HEX.fullmatch(str(text))
    return (int(found.group(1)), int(found.group(2))) if found else None


def hex_text(where: Hex | None) -> str:
    """(3, -4) as "3,-4"; "" for off the board."""
    return "" if where is None else f"{where[0]},{where[1]}"


def neighbours(where: Hex) -> list[Hex]:
    """The six hexes touching this one, in DIRECTIONS order."""
    q, r = where
    return [(q + dq, r + dr) for dq, dr in DIRECTIONS]


def distance(a: Hex, b: Hex) -> int:
    """Steps between two hexes."""
    dq, dr = a[0] - b[0], a[1] - b[1]
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


def adjacent(a: Hex, b: Hex) -> bool:
    """True when the two hexes touch."""
    return distance(a, b) == 1


def disc(radius: int) -> list[Hex]:
    """Every hex within `radius` of the centre (0,0), in row order (r, then q)."""
    return [
        (q, r)
        for r in range(-radius, radius + 1)
        for q in range(-radius, radius + 1)
        if distance((q, r), (0, 0)) <= radius
    ]


def ring(radius: int) -> list[Hex]:
    """The hexes at exactly `radius` from the centre, walking around it from the east corner."""
    if radius == 0:
        return [(0, 0)]
    found = []
    q, r = radius, 0
    walk = (DIRECTIONS[2], DIRECTIONS[3], DIRECTIONS[4], DIRECTIONS[5], DIRECTIONS[0], DIRECTIONS[1])
    for dq, dr in walk:
        for _ in range(radius):
            found.append((q, r))
            q, r = q + dq, r + dr
    return found
