"""The identical-workbook comparison (issue 26): each ruleset's scripted runs give, cell for cell and tab
for tab, the workbooks kept in tests/data/golden (History's run ids aside). A change to the rules on
purpose regenerates them with `python -m tests.golden write` (see tests/golden.py)."""

from __future__ import annotations

import pytest

from tests.golden import DATA, SCENARIOS, differences, load, play


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_every_tab_of_every_run_holds_the_kept_cells(scenario: str) -> None:
    found = list(differences(load(DATA, scenario), play(scenario)))
    assert not found, (
        f"{scenario}: the workbooks differ from tests/data/golden (regenerate with `python -m tests.golden write` "
        "only if the rules changed on purpose):\n" + "\n".join(found)
    )


def test_a_changed_cell_is_named_by_snapshot_tab_cell_and_column() -> None:
    kept = {"turn 1": {"Provinces": [["Province", "Tax"], ["Owari", 3]], "Game": [["Key"]]}}
    found = {"turn 1": {"Provinces": [["Province", "Tax"], ["Owari", 4]]}}
    assert list(differences(kept, found)) == [
        "turn 1: tab Game missing",
        "turn 1: Provinces!B2 (Tax): expected 3, found 4",
    ]
