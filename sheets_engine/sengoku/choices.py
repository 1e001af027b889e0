"""The choices Sengoku Jidai's dropdowns offer (a new campaign's closed columns, where the store has dropdowns)."""

from __future__ import annotations

from sheets_engine.core.store import Choice
from sheets_engine.sengoku.schema import BUILDING_COLUMNS, TECH_COLUMNS, ProvinceType

CHOICES: tuple[Choice, ...] = (
    Choice("Provinces", ("Type",), words=tuple(t.value for t in ProvinceType)),
    Choice("Provinces", ("Terrain",), source=("Terrain", "Terrain")),
    Choice("Provinces", BUILDING_COLUMNS, source=("Buildings", "Building")),
    Choice("Orders", ("Order",), source=("Missions", "Order")),
    Choice("Tech Choices", ("Discipline",), words=TECH_COLUMNS),
)
