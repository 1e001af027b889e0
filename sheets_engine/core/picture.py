"""What every ruleset's picture shares: the colour-blind-safe palette, the resolution, and the matplotlib
style that makes the same scene give the same PNG bytes on every machine (a font shipped inside
matplotlib, sheet text never read as mathematics, the PNG's Software and date left out)."""

from __future__ import annotations

from typing import Any

# Okabe & Ito's colour-blind-safe palette (its black left out: it is the ink of the labels).
PALETTE = ("#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7")
DPI = 110  # a map about 1500 pixels wide: a phone zooms in; a few hundred KB
MAP_STYLE: dict[Any, Any] = {  # matplotlib's rc keys (typed as its literals there)
    "font.family": "DejaVu Sans",  # shipped inside matplotlib: the same glyphs everywhere
    "font.size": 8,
    "text.parse_math": False,  # sheet text is text: "$5" is never mathematics
    "text.usetex": False,
    "path.simplify": False,
    "axes.unicode_minus": False,
}
PNG_METADATA: dict[str, Any] = {"Software": None}  # no program name or date in the file: the same bytes
