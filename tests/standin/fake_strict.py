"""The Sheets stand-in's strictness: the store's requests are answered only where docs/google-sheets.md
("What the engine relies on") says which documented behaviour they rest on; anything else is a 400.

So a test fails the day the store starts relying on something Google does not document: pasting
text (`pasteData`), a formula written by the engine, a field mask or an endpoint not in the list.
The GM's own edits in tests (`FakeSheets.put_values`, `gm_update`) and the replay of gspread's
recordings are not the store's and are not held to it.
"""

from __future__ import annotations

from typing import Any

from sheets_engine.stores.gsheets_read import GRID_FIELDS, PROPERTIES_FIELDS
from tests.standin.fake_grid import ApiError

# spreadsheets.get (the properties mask) and spreadsheets.getByDataFilter (the grid mask, a1Range filters)
VALUE_KINDS = {"stringValue", "numberValue", "boolValue"}
BATCH_KINDS = {
    "updateCells", "repeatCell", "appendDimension", "deleteDimension", "addSheet", "deleteSheet",
    "updateSheetProperties", "setDataValidation", "copyPaste",
}  # fmt: skip
WHY = "not among the behaviours docs/google-sheets.md says the engine relies on"


def refuse(what: str) -> ApiError:
    """The stand-in's 400 for a request outside the list."""
    return ApiError(400, f"The stand-in refuses {what}: {WHY}.")


def check_get(query: dict[str, list[str]]) -> None:
    """A spreadsheets.get the store may make: the tabs' properties, nothing else."""
    if set(query) != {"fields"} or query["fields"] != [PROPERTIES_FIELDS]:
        raise refuse(f"spreadsheets.get with {', '.join(f'{k}={v[0]}' for k, v in sorted(query.items()))}")


def check_get_by_filter(query: dict[str, list[str]], body: dict[str, Any]) -> None:
    """A spreadsheets.getByDataFilter the store may make: the grid mask, a1Range filters only."""
    if set(query) != {"fields"} or query["fields"] != [GRID_FIELDS]:
        raise refuse(f"spreadsheets.getByDataFilter with {', '.join(f'{k}={v[0]}' for k, v in sorted(query.items()))}")
    if set(body) != {"dataFilters"} or any(set(f) != {"a1Range"} for f in body["dataFilters"]):
        raise refuse("data filters other than a1Range")


def check_request(kind: str, body: dict[str, Any]) -> None:
    """A batchUpdate request the store may send (its effect is then applied as Google states it)."""
    if kind not in BATCH_KINDS:
        raise refuse(f"{kind} requests")
    if kind == "updateCells":
        clearing = "range" in body and not body.get("rows")
        if body.get("fields") != "userEnteredValue" or not (clearing or "start" in body):
            raise refuse("updateCells other than values from a start, or a range emptied")
        for row in body.get("rows", []):
            for data in row.get("values", []):
                _value_only(data)
    elif kind == "repeatCell":
        fields = body.get("fields")
        if fields == "userEnteredValue":
            _value_only(body.get("cell", {}))
        elif fields != "userEnteredFormat.textFormat.bold":
            raise refuse(f"repeatCell of {fields}")
    elif kind == "updateSheetProperties" and body.get("fields") != "gridProperties.frozenRowCount":
        raise refuse(f"updateSheetProperties of {body.get('fields')}")
    elif kind == "copyPaste" and (body.get("pasteType"), body.get("pasteOrientation")) != ("PASTE_VALUES", "NORMAL"):
        raise refuse("copyPaste other than values")
    elif kind == "setDataValidation":
        condition = (body.get("rule") or {}).get("condition", {})
        if condition.get("type") not in ("ONE_OF_RANGE", "ONE_OF_LIST"):
            raise refuse(f"a {condition.get('type')} validation")


def _value_only(data: dict[str, Any]) -> None:
    if set(data) - {"userEnteredValue"}:
        raise refuse(f"a CellData with {', '.join(sorted(set(data) - {'userEnteredValue'}))}")
    entered = data.get("userEnteredValue")
    if entered is not None and (len(entered) != 1 or set(entered) - VALUE_KINDS):
        raise refuse(f"a value written as {', '.join(sorted(entered))} (the engine writes text, numbers, booleans)")
