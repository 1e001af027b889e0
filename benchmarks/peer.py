"""The honest peer: what a GM would write by hand to collect a turn's tax, with no engine at all.

    python -m benchmarks.peer campaign.xlsx

openpyxl loads the workbook, every tab becomes a pandas frame, every province's tax is collected
(Tax Stockpile grows by Tax Regen up to Tax Cap), the Provinces sheet gets the new stockpiles and
the workbook is saved. No validation, no History, no orders: the cost of touching the campaign
the plain way, which the engine's whole turn is measured against.
"""

from __future__ import annotations

import sys

import openpyxl
import pandas as pd


def collect_tax(path: str) -> int:
    """Collect the tax of every province in the workbook at `path` and save it; the provinces taxed."""
    book = openpyxl.load_workbook(path)
    frames = {}
    for sheet in book.worksheets:
        rows = list(sheet.values)
        frames[sheet.title] = pd.DataFrame(rows[1:], columns=rows[0]) if rows else pd.DataFrame()
    provinces = frames["Provinces"]
    stock = pd.to_numeric(provinces["Tax Stockpile"], errors="coerce").fillna(0)
    regen = pd.to_numeric(provinces["Tax Regen"], errors="coerce").fillna(0)
    cap = pd.to_numeric(provinces["Tax Cap"], errors="coerce")
    collected = (stock + regen).where(cap.isna() | (cap <= 0), (stock + regen).clip(upper=cap))
    sheet = book["Provinces"]
    column = list(provinces.columns).index("Tax Stockpile") + 1
    for offset, value in enumerate(collected.astype(int).tolist(), start=2):
        sheet.cell(row=offset, column=column, value=value)
    book.save(path)
    return len(provinces)


if __name__ == "__main__":
    print(collect_tax(sys.argv[1]))
