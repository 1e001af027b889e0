"""Guide Section 6, Unit Types and Armies: what an army holds, what it is worth, where it stands.

The Units tab is the data: the Armies column that counts each unit, its CS, whether it is Basic,
its place in the battle loss, winter loss and garrison orders, and whether it is a Siege Weapon.
Siege Weapons are not units for counting (a decision where the guide is silent): every size, loss and
share below leaves them out. Armies are read in sheet row order, so the rules are deterministic.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

import pandas as pd

from sheets_engine.core.tables import Draft
from sheets_engine.sengoku.game import GameSettings
from sheets_engine.sengoku.schema import ArmyStatus

Units = dict[str, int]
"""An army's units as Armies column -> count (Siege Weapons not included)."""


@dataclass(frozen=True)
class UnitTable:
    """The Units tab as the military rules read it, by Armies column."""

    columns: tuple[str, ...]  # the columns that hold units, Units row order
    siege: tuple[str, ...]  # the columns that hold Siege Weapons
    cs: Mapping[str, int]
    basic: frozenset[str]  # counted by the Samurai pool bonus
    samurai: frozenset[str]  # neither Basic nor Siege: the Samurai of the pool bonus
    battle_loss: tuple[str, ...]  # removed first to last in a battle
    winter_loss: tuple[str, ...]  # removed first to last by winter; a unit with no order is never lost
    garrison: tuple[str, ...]  # sheltered first to last in a fortress


def unit_table(draft: Draft) -> UnitTable:
    """Read the Units tab."""
    units = draft.frame("Units")
    records = list(units.to_dict("records"))
    columns = tuple(dict.fromkeys(r["Army Column"] for r in records if not r["Siege"]))
    siege = tuple(dict.fromkeys(r["Army Column"] for r in records if r["Siege"]))

    def ordered(key: str) -> tuple[str, ...]:
        ranked = [
            (int(r[key]), position, r["Army Column"])
            for position, r in enumerate(records)
            if not r["Siege"] and r[key] is not None and not pd.isna(r[key])
        ]
        return tuple(dict.fromkeys(column for *_, column in sorted(ranked)))

    return UnitTable(
        columns=columns,
        siege=siege,
        cs={r["Army Column"]: int(r["CS"]) for r in records},
        basic=frozenset(r["Army Column"] for r in records if r["Basic"] and not r["Siege"]),
        samurai=frozenset(r["Army Column"] for r in records if not r["Basic"] and not r["Siege"]),
        battle_loss=ordered("Battle Loss Order"),
        winter_loss=ordered("Winter Loss Order"),
        garrison=ordered("Garrison Order"),
    )


def units_of(draft: Draft, army: str, table: UnitTable) -> Units:
    """The army's units now (Siege Weapons left out)."""
    row = draft.row("Armies", army)
    return {column: int(row[column]) for column in table.columns}


def siege_weapons(draft: Draft, army: str, table: UnitTable) -> int:
    """How many Siege Weapons the army holds."""
    return sum(int(draft.get("Armies", army, column)) for column in table.siege)


def size(units: Mapping[str, int]) -> int:
    """How many units (the guide's "larger army", the 50% retreat test, the casualty percentage)."""
    return sum(units.values())


def piety(draft: Draft, clan: str) -> int:
    """The clan's Piety level (0 for no clan)."""
    return int(draft.get("Clans", clan, "Piety")) if clan and draft.has("Clans", clan) else 0


def pool_cap(settings: GameSettings, clan_piety: int) -> int:
    """The Samurai pool cap: 3, or 5 with Piety 5+."""
    return settings.samurai_pool_cap_piety5 if clan_piety >= settings.piety5_level else settings.samurai_pool_cap


def strength(units: Mapping[str, int], table: UnitTable, cap: int, divisor: int) -> int:
    """Combat Strength: sum of count x CS, plus the Samurai pool bonus min(basic ÷ 3, samurai x cap)."""
    base = sum(count * table.cs[column] for column, count in units.items())
    basic = sum(units.get(column, 0) for column in table.basic)
    samurai = sum(units.get(column, 0) for column in table.samurai)
    return base + min(basic // max(divisor, 1), samurai * cap)


def army_strength(draft: Draft, settings: GameSettings, army: str, table: UnitTable, units: Units | None = None) -> int:
    """An army's CS (of `units` when given: the part of it that fights), with its own clan's cap."""
    clan_piety = piety(draft, str(draft.get("Armies", army, "Clan")))
    counted = units_of(draft, army, table) if units is None else units
    return strength(counted, table, pool_cap(settings, clan_piety), settings.samurai_pool_divisor)


def standing(draft: Draft, province: str | None = None) -> list[str]:
    """Armies not destroyed, in Armies row order (only those in `province` when given)."""
    armies = draft.frame("Armies")
    alive = armies["Status"].to_numpy() != ArmyStatus.DESTROYED.value
    if province is not None:
        alive &= armies["Province"].to_numpy() == province
    return [str(a) for a in armies.index[alive]]


def standing_by_province(draft: Draft) -> dict[str, list[str]]:
    """Armies not destroyed, grouped by province, each group in Armies row order."""
    armies = draft.frame("Armies")
    alive = armies[armies["Status"] != ArmyStatus.DESTROYED.value]
    grouped: dict[str, list[str]] = {}
    for army, province in zip(alive.index.tolist(), alive["Province"].tolist(), strict=True):
        grouped.setdefault(str(province), []).append(str(army))
    return grouped


def losses(units: Mapping[str, int], count: int, order: Sequence[str]) -> Units:
    """The units removed when an army loses `count` of them, in the given loss order."""
    lost: Units = {}
    for column in order:
        if count <= 0:
            break
        taken = min(units.get(column, 0), count)
        if taken:
            lost[column] = taken
            count -= taken
    return lost


def set_units(draft: Draft, army: str, units: Mapping[str, int], cause: str, roll: str = "") -> None:
    """Write the army's unit counts (only the cells that changed make History rows)."""
    for column, count in units.items():
        draft.set("Armies", army, column, int(count), cause, roll)


def spreadsheet_round(value: Fraction) -> int:
    """ROUND as a spreadsheet does it: halves away from zero (2.5 -> 3), not Python's round()."""
    magnitude = math.floor(abs(value) + Fraction(1, 2))
    return magnitude if value >= 0 else -magnitude


def shares(total: int, weights: Sequence[int]) -> list[int]:
    """Split `total` in proportion to `weights` (largest remainder; ties to the earlier one)."""
    whole = sum(weights)
    if total <= 0 or whole <= 0:
        return [0] * len(weights)
    exact = [Fraction(total * w, whole) for w in weights]
    parts = [math.floor(e) for e in exact]
    by_remainder = sorted(range(len(weights)), key=lambda i: (-(exact[i] - parts[i]), i))
    for i in by_remainder[: total - sum(parts)]:
        parts[i] += 1
    return parts
