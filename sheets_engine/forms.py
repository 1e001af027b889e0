"""The Google Form kept in step with the sheet (`form sync`).

The Form's dropdown questions are the ruleset's (its record's `form`: Sengoku Jidai's Character,
Order and Target, sheets_engine/sengoku/form.py); the engine sets their options from the sheet. The
REST API cannot set where a section goes after its last question (PageBreakItem has no fields), so
one section per order cannot be built through it: one dropdown offers every target, and intake
judges whether the target fits the order.

The questions are found by title once, when the Form is first linked; their item ids go into the
Game tab (form_character_item, form_order_item, form_target_item) and are used from then on, so a GM
may retitle or move a question. The pure parts (choices, requests, warnings) take plain values; the
sync reads the sheet once, the Form once, and writes the Form once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sheets_engine.core.ruleset import Outcome
from sheets_engine.core.tables import Draft, GameState
from sheets_engine.rulesets import supporting
from sheets_engine.stores.base import Store, StoreError

OPTIONS_MASK = "questionItem.question.choiceQuestion.options"


def find_questions(form: dict[str, Any], questions: Sequence[tuple[str, str]]) -> dict[str, str]:
    """The item id of each question by its title (only when first linking); a missing one is an error."""
    found: dict[str, str] = {}
    for item in form.get("items", []):
        title = str(item.get("title", "")).strip().casefold()
        for name, _key in questions:
            if title == name.casefold() and name not in found and "questionItem" in item:
                found[name] = str(item["itemId"])
    missing = [name for name, _key in questions if name not in found]
    if missing:
        raise StoreError(
            f"The Form {form.get('formId', '')} has no question titled {', '.join(repr(m) for m in missing)}: "
            "add it as a Dropdown (docs/form.md lists the questions), then run form sync again"
        )
    return found


def update_requests(
    form: dict[str, Any], items: dict[str, str], choices: dict[str, list[str]], questions: Sequence[tuple[str, str]]
) -> list[dict[str, Any]]:
    """One updateItem per question: its options only, at the index its item id has in this Form."""
    where = {str(item.get("itemId")): (index, item) for index, item in enumerate(form.get("items", []))}
    requests_ = []
    for name, key in questions:
        item_id = items[name]
        if item_id not in where:
            raise StoreError(
                f"The Form's {name} question (item {item_id}, Game key {key}) is no longer in the Form: clear "
                f"the Game keys {', '.join(k for _n, k in questions)} and run form sync again to link it anew"
            )
        index, item = where[item_id]
        question = item.get("questionItem", {}).get("question", {})
        choice = question.get("choiceQuestion")
        if choice is None or choice.get("type") == "CHECKBOX":
            raise StoreError(
                f"The Form's {name} question ('{item.get('title', '')}') is not a Dropdown: change its type to "
                "Dropdown in the Form, then run form sync again"
            )
        if not choices[name]:
            raise StoreError(f"No options for the Form's {name} question: the sheet has none to offer")
        requests_.append(
            {
                "updateItem": {
                    "location": {"index": index},
                    "updateMask": OPTIONS_MASK,
                    "item": {
                        "itemId": item_id,
                        "questionItem": {
                            "question": {
                                "questionId": question.get("questionId", ""),
                                "choiceQuestion": {
                                    "type": choice.get("type", "DROP_DOWN"),
                                    "options": [{"value": value} for value in choices[name]],
                                },
                            }
                        },
                    },
                }
            }
        )
    return requests_


def form_warnings(form: dict[str, Any], spreadsheet: str | None) -> list[str]:
    """What in the Form's settings would spoil the game: not linked to this sheet, emails not verified."""
    warnings = []
    linked = str(form.get("linkedSheetId", "") or "")
    if spreadsheet is None:
        warnings.append(
            "the campaign is a workbook: check the Form's answers reach it (Form linked to "
            f"spreadsheet {linked or 'none'}; pull that sheet into the workbook, or play from the Google Sheet)"
        )
    elif linked != spreadsheet:
        where = f"to spreadsheet {linked}" if linked else "to no spreadsheet"
        warnings.append(
            f"the Form is linked {where}, not to this campaign's ({spreadsheet}): its answers never reach "
            "Form Responses 1. In the Form: Responses > Link to Sheets > Select existing spreadsheet"
        )
    collection = str(form.get("settings", {}).get("emailCollectionType", "") or "DO_NOT_COLLECT")
    if collection != "VERIFIED":
        warnings.append(
            f"the Form collects email addresses as {collection}, not VERIFIED: anyone could send orders for "
            "any character. In the Form: Settings > Responses > Collect email addresses > Verified"
        )
    return warnings


@dataclass(frozen=True)
class SyncReport:
    """What `form sync` did."""

    form_id: str
    linked_now: bool  # the questions were found by title this run, and their ids written to the Game tab
    options: dict[str, int]  # question -> number of options set
    warnings: list[str]
    dry_run: bool
    cells_written: int = 0


def sync(
    store: Store,
    client: Any,
    form_id: str | None = None,
    dry_run: bool = False,
    now: datetime | None = None,
) -> SyncReport:
    """Set the Form's dropdowns from the sheet: one sheet read, one forms.get, one forms.batchUpdate.

    The first time (no item ids in the Game tab) the questions are found by title and their ids, with
    the Form's id, written to the Game tab first. The batchUpdate carries the get's revision: a GM's
    edit of the Form in between makes Google refuse it (FormEdited, nothing changed). The questions
    are the ruleset's (its record's `form`); StoreError for a ruleset that has none.
    """
    from sheets_engine.app import Run

    with Run(store, "form sync", dry_run=dry_run, now=now) as run:
        campaign = run.campaign()
        asked = campaign.ruleset.form
        if asked is None:
            known = " and ".join(supporting("form")) or "no"
            raise StoreError(f"form sync knows {known} campaigns only; this one is {campaign.ruleset.title}")
        state = campaign.state
        chosen = (form_id or str(state.game("form_id", "") or "")).strip()
        if not chosen:
            raise StoreError(
                "No Form to sync: pass --form FORM_ID (the long id in the Form's edit URL) or set the Game key form_id"
            )
        form = client.get(chosen)
        items = {name: str(state.game(key, "") or "").strip() for name, key in asked.questions}
        stored = str(state.game("form_id", "") or "").strip()
        linking = not all(items.values()) or (bool(stored) and stored != chosen)  # another Form: link it anew
        keys: dict[str, str] = {}
        if linking:
            items = find_questions(form, asked.questions)
            keys = {key: items[name] for name, key in asked.questions}
        if stored != chosen:
            keys["form_id"] = chosen
        requests_ = update_requests(form, items, asked.choices(state), asked.questions)
        spreadsheet = getattr(store, "key", None)
        warnings = form_warnings(form, spreadsheet)
        intake = campaign.ruleset.intake
        layout = state.layouts.get(intake.responses) if intake is not None else None
        if intake is not None and (layout is None or not layout.columns):  # a workbook made before the Form's tab
            warnings.append(
                f"the campaign has no '{intake.responses}' tab: the Form's answers have nowhere to arrive. In the "
                "Form: Responses > Link to Sheets (a Google Sheet gets the tab); in a workbook, add the tab with the "
                "Form's questions as headers"
            )
        options = {
            name: len(r["updateItem"]["item"]["questionItem"]["question"]["choiceQuestion"]["options"])
            for (name, _k), r in zip(asked.questions, requests_, strict=True)
        }
        if dry_run:
            return SyncReport(chosen, linking, options, warnings, True)
        written = 0
        if keys:  # the link first: the ids hold whatever happens to the Form update
            written = run.commit(_link(state, keys, asked.notes)).cells_written
        client.batch_update(chosen, requests_, str(form.get("revisionId", "")))
        return SyncReport(chosen, linking, options, warnings, False, written)


def _link(state: GameState, keys: dict[str, str], notes: Mapping[str, str]) -> Outcome:
    draft = Draft(state)
    for key, value in keys.items():
        if draft.has("Game", key):
            draft.set("Game", key, "Value", value, "form sync: the Form linked")
        else:
            draft.add_row(
                "Game", {"Key": key, "Value": value, "Notes": notes.get(key, "")}, "form sync: the Form linked"
            )
    turn = int(state.game("turn", 0) or 0)
    return Outcome.of(draft, turn, {}, step="form sync")
