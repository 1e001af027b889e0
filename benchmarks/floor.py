"""The floor: the least any turn on a workbook must cost, reading it all and writing it all back.

    python -m benchmarks.floor campaign.xlsx

calamine reads every tab into a pandas frame, and the workbook is copied part by part into a new
zip (inflated and deflated again, at the engine's compression level) renamed over the original.
"""

from __future__ import annotations

import os
import sys
import zipfile

import pandas as pd
from python_calamine import CalamineWorkbook


def floor(path: str) -> int:
    """Read every tab of the workbook at `path` into frames and rewrite its zip; the rows read."""
    book = CalamineWorkbook.from_path(path)
    rows = 0
    for title in book.sheet_names:
        values = book.get_sheet_by_name(title).to_python()
        frame = pd.DataFrame(values[1:], columns=range(len(values[0]))) if values else pd.DataFrame()
        rows += len(frame)
    temp = path + ".floor.tmp"
    with zipfile.ZipFile(path) as source, zipfile.ZipFile(temp, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as out:
        for info in source.infolist():
            out.writestr(info, source.read(info.filename), compress_type=info.compress_type, compresslevel=1)
    os.replace(temp, path)
    return rows


if __name__ == "__main__":
    print(floor(sys.argv[1]))
