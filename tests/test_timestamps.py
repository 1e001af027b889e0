"""Form timestamps typed by hand as text are read as times, never sorted as text."""

from __future__ import annotations

import pytest

from sheets_engine import app
from sheets_engine.core.cells import timestamp_text
from sheets_engine.stores.memory import MemoryStore
from tests.support import tabs


@pytest.mark.parametrize(
    ("typed", "read"),
    [
        ("2026-03-04 09:30", "2026-03-04 09:30:00"),  # year first: always year, month, day
        ("2026-03-04T09:30:00", "2026-03-04 09:30:00"),
        ("3/14/2024 10:00", "2024-03-14 10:00:00"),  # month first, as a US locale shows it
        ("14/3/2024 10:00", "2024-03-14 10:00:00"),  # day first, as most others do
        ("4 March 2026 10:00", "2026-03-04 10:00:00"),
        (46000.5, "2025-12-09 12:00:00"),  # a Sheets serial day number
    ],
)
def test_a_typed_timestamp_reads_as_a_time(typed: object, read: str) -> None:
    assert timestamp_text(typed) == read


def test_a_date_whose_day_and_month_could_swap_is_refused() -> None:
    with pytest.raises(ValueError, match=r"is this the 1 December or the 12 January\?"):
        timestamp_text("01/12/2026 08:00")


def test_typed_timestamps_sort_by_time_not_as_text() -> None:
    """'10/20/2024' sorts before '9/30/2024' as text; as times it is the other way round."""
    assert sorted(timestamp_text(t) for t in ("10/20/2024 10:00", "9/30/2024 10:00")) == [
        "2024-09-30 10:00:00",
        "2024-10-20 10:00:00",
    ]


def test_validate_names_the_form_response_cell_with_an_ambiguous_timestamp() -> None:
    demo = tabs(demo=True)
    responses = demo["Form Responses 1"]
    responses[2][0] = "03/04/2026 10:00"
    problems = app.validate(MemoryStore(demo))
    (problem,) = [p for p in problems if p.tab == "Form Responses 1" and p.severity.value == "error"]
    assert (problem.row, problem.column, problem.value) == (3, "Timestamp", "03/04/2026 10:00")
    assert problem.expected == "expected a date and time such as 2026-03-14 09:30 (is this the 3 April or the 4 March?)"
