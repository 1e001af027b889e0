"""Guide Section 11, Summary of Derived Stats: the Province Tracker's engine-owned columns.

Everything a building adds comes from the Buildings tab's effect columns; only the guide's own
formulas (bases, tech thresholds, the capital) are code. Computed for all provinces at once.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from sheets_engine.core.tables import Draft
from sheets_engine.sengoku.game import GameSettings
from sheets_engine.sengoku.schema import BUILDING_EFFECTS, DERIVED_COLUMNS, SLOT_COLUMNS


def controlling_clan(provinces: pd.DataFrame) -> pd.Series:
    """The clan that taxes and administers each province: Controlled By, else Province Owner."""
    control = provinces["Controlled By"]
    return control.where(control != "", provinces["Province Owner"])


def building_effects(provinces: pd.DataFrame, buildings: pd.DataFrame) -> pd.DataFrame:
    """Each building effect column summed over each province's building slots."""
    # One lookup of each slot's building (not one per slot and effect): the effects as a matrix
    # whose extra last row of zeros is what an empty slot or an unknown name adds.
    effects = buildings[list(BUILDING_EFFECTS)].to_numpy(dtype="int64")
    effects = np.vstack([effects, np.zeros((1, len(BUILDING_EFFECTS)), dtype="int64")])
    totals = np.zeros((len(provinces), len(BUILDING_EFFECTS)), dtype="int64")
    for slot in SLOT_COLUMNS:
        totals += effects[buildings.index.get_indexer(provinces[slot])]  # -1 (not a building): the zeros
    return pd.DataFrame(totals, index=provinces.index, columns=list(BUILDING_EFFECTS))


def levy_unit(provinces: pd.DataFrame, buildings: pd.DataFrame, default: str) -> pd.Series:
    """The unit recruiting produces: the first building in Buildings row order that names one."""
    producers = buildings[buildings["Levy Unit"] != ""]
    none = len(producers)  # the rank of a slot whose building produces no unit
    # every slot of every province looked up at once (a map per slot column cost ten times as much)
    slots = np.concatenate([provinces[slot].to_numpy(dtype=object) for slot in SLOT_COLUMNS])
    found = pd.Index(producers.index).get_indexer(slots)  # -1: no producer of that name
    ranks = np.where(found < 0, none, found).reshape(len(SLOT_COLUMNS), len(provinces))
    best = ranks.min(axis=0, initial=none)
    units = np.array([*producers["Levy Unit"], default], dtype=object)
    return pd.Series(units[best], index=provinces.index, dtype="object")


def province_stats(
    provinces: pd.DataFrame, clans: pd.DataFrame, buildings: pd.DataFrame, settings: GameSettings
) -> pd.DataFrame:
    """Every derived column of every province, per Section 11."""
    clan = controlling_clan(provinces)
    development = clan.map(clans["Development"]).fillna(0).astype("int64")
    expansion = clan.map(clans["Expansion"]).fillna(0).astype("int64")
    capital = clan.map(clans["Capital"]).fillna("") == provinces.index.to_series()
    city = provinces["Type"] == "City"
    effect = building_effects(provinces, buildings)
    owners = provinces["Province Owner"]
    owned = owners[owners != ""].value_counts()  # nobody's provinces count for no Court
    owned_by_clan = clan.map(owned).fillna(0).astype("int64")

    # Regen: base 2 City / 1 Rural; +1 Development 4+ in a City; +1 Development 6+ in the capital.
    base_regen = np.where(city, 2, 1) + ((development >= 4) & city) + ((development >= 6) & capital)
    # Caps: base 4 City / 3 Rural; +1 Expansion 5+; +5 Development 5+ in the capital.
    base_cap = np.where(city, 4, 3) + (expansion >= 5) + 5 * ((development >= 5) & capital)
    capitals = {capital: name for name, capital in reversed(list(clans["Capital"].items())) if capital}

    # the numbers as arrays, none below 0, and one frame built from them (setting a frame's columns one
    # by one, then clipping and casting it as a frame: 7.0 ms a call at 1,000 provinces, now 5.3)
    numbers = {
        "Slots": np.where(development >= 3, settings.building_slots_dev3, settings.building_slots),
        "Tax Regen": base_regen + effect["Tax Regen"],
        "Manpower Regen": base_regen + effect["Manpower Regen"],
        "Tax Cap": base_cap + effect["Tax Cap"],
        "Manpower Cap": base_cap + effect["Manpower Cap"],
        "Mon Bonus": effect["Mon Bonus"] + effect["Mon Per Province"] * owned_by_clan,
        "Levy Bonus": effect["Levy Bonus"],
        "Build Cost Reduction": (expansion >= 1).astype("int64") + effect["Cost Reduction"],
    }
    columns: dict[str, Any] = {
        "Capital Of": pd.Series([capitals.get(p, "") for p in provinces.index], index=provinces.index, dtype="object"),
        **{name: np.maximum(np.asarray(values), 0).astype("int64") for name, values in numbers.items()},
        "Levy Unit": levy_unit(provinces, buildings, settings.default_levy_unit),  # objects, as the sheet's text
    }
    return pd.DataFrame({name: columns[name] for name in DERIVED_COLUMNS}, index=provinces.index)


def recalculate(draft: Draft, settings: GameSettings, cause: str = "recalc") -> None:
    """Section 11 on the draft: set every derived cell whose value differs."""
    provinces = draft.frame("Provinces")
    stats = province_stats(provinces, draft.frame("Clans"), draft.frame("Buildings"), settings)
    for column in DERIVED_COLUMNS:
        draft.set_column("Provinces", column, stats[column], cause)
