"""Guide Section 6, Winter: Army Attrition (step 3) and Ownership Consolidation (step 13).

Both run only on the Winter turn of a year (`turn.winter`). Movement Blocked, the third Winter
effect, is in `movement`. Attrition is per army, garrisoned armies included: the rate of the
clan's Warfare level (Tech `Winter Loss`, the highest row at or below the level) of its units,
rounded up, removed in the Units `Winter Loss Order`; Siege Weapons are never lost.
"""

from __future__ import annotations

import math
from fractions import Fraction

import pandas as pd

from sheets_engine.sengoku.armies import losses, set_units, siege_weapons, size, standing, unit_table, units_of
from sheets_engine.sengoku.schema import ArmyStatus, Discipline
from sheets_engine.sengoku.turn import Turn


def winter_loss_rate(tech: pd.DataFrame, warfare: int) -> Fraction:
    """The attrition rate at this Warfare level (the highest Tech row at or below it; 0 if none)."""
    rows = tech[(tech["Discipline"] == Discipline.WARFARE.value) & (tech["Level"] <= warfare)]
    rows = rows[rows["Winter Loss"].notna()].sort_values("Level")
    # str() first: 0.6 as a float is not 3/5, and 0.6 x 10 must round up to 6, not 7.
    return Fraction(str(rows.iloc[-1]["Winter Loss"])) if len(rows) else Fraction(0)


def attrition(turn: Turn) -> None:
    """Step 3, Winter only: every army loses ceil(rate x its units), weakest units first."""
    if not turn.winter:
        return
    draft = turn.draft
    table = unit_table(draft)
    tech = draft.frame("Tech")
    for army in standing(draft):
        clan = str(draft.get("Armies", army, "Clan"))
        warfare = int(draft.get("Clans", clan, "Warfare")) if draft.has("Clans", clan) else 0
        rate = winter_loss_rate(tech, warfare)
        units = units_of(draft, army, table)
        lost = losses(units, math.ceil(rate * size(units)), table.winter_loss)
        if not lost:
            continue
        cause = f"winter attrition ({float(rate):.0%} at Warfare {warfare})"
        set_units(draft, army, {c: n - lost.get(c, 0) for c, n in units.items()}, cause)
        turn.summary["units lost to winter"] += size(lost)
        if size(units) == size(lost) and not siege_weapons(draft, army, table):
            draft.set("Armies", army, "Status", ArmyStatus.DESTROYED.value, cause)
            draft.set("Armies", army, "Leader", "", cause)
            turn.notify(f"clan:{clan}", "capital", f"{army} perished in the winter.")


def consolidation(turn: Turn) -> None:
    """Step 13, Winter only: `Controlled By` becomes the `Province Owner`, then is cleared.

    A clan that loses its Capital this way gets a notification for the GM.
    """
    if not turn.winter:
        return
    draft = turn.draft
    capitals = {str(capital): str(clan) for clan, capital in draft.frame("Clans")["Capital"].items() if capital}
    provinces = draft.frame("Provinces")
    held = provinces[provinces["Controlled By"] != ""]  # only captured provinces change
    for province, row in held.iterrows():
        holder, owner = str(row["Controlled By"]), str(row["Province Owner"])
        cause = "winter consolidation"
        if holder != owner:
            draft.set("Provinces", province, "Province Owner", holder, cause)
            turn.summary["provinces consolidated"] += 1
            if capitals.get(str(province)) == owner:
                turn.notify("gm", "capital", f"{owner} lost its capital {province} to {holder} (Winter consolidation).")
        draft.set("Provinces", province, "Controlled By", "", cause)
