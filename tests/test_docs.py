"""The documents stay true: RULES.md names tests that exist; the README lists every command."""

from __future__ import annotations

import re
from pathlib import Path

from sheets_engine.cli import cli

ROOT = Path(__file__).resolve().parent.parent


def test_every_test_rules_md_names_exists() -> None:
    text = (ROOT / "RULES.md").read_text()
    named = re.findall(r"(test_\w+\.py)::(test_\w+)", text)
    assert len(named) > 80
    missing = [
        f"{file}::{test}"
        for file, test in named
        if not (ROOT / "tests" / file).exists() or f"def {test}(" not in (ROOT / "tests" / file).read_text()
    ]
    assert missing == []


def test_rules_md_has_a_section_for_every_section_of_the_guide() -> None:
    text = (ROOT / "RULES.md").read_text()
    assert [int(n) for n in re.findall(r"^## Section (\d+):", text, re.M)] == list(range(1, 12))


def test_the_readme_lists_every_command() -> None:
    readme = (ROOT / "README.md").read_text()
    assert [name for name in cli.commands if f"sheets-engine {name}" not in readme] == []


def test_the_ci_script_runs_the_readmes_test_command() -> None:
    readme = (ROOT / "README.md").read_text()
    command = "python -m pip install -e '.[test]' && python -m pytest"
    assert command in readme
    assert command in (ROOT / ".ci" / "run").read_text()


# -- the user documents in docs/ say what the code does -----------------------------------------
DOCS = ROOT / "docs"


def _backticked(text: str) -> set[str]:
    return set(re.findall(r"`([^`]+)`", text))


def test_the_spreadsheet_doc_names_every_tab_and_column() -> None:
    from sheets_engine.sengoku.schema import TABS

    text = (DOCS / "spreadsheet.md").read_text()
    named = _backticked(text)
    headings = set(re.findall(r"^### (.+?)(?: \(log\))?$", text, re.M))
    assert [spec.name for spec in TABS if spec.name not in headings] == []
    assert [f"{spec.name}: {c}" for spec in TABS for c in spec.columns if c not in named] == []


def test_the_spreadsheet_doc_gives_every_game_key_with_the_templates_default() -> None:
    from sheets_engine.sengoku.ruleset import build
    from sheets_engine.templates import template_records

    rows = dict(re.findall(r"^\| `(\w+)` \| ([^|]*) \|", (DOCS / "spreadsheet.md").read_text(), re.M))
    expected = {r["Key"]: r["Value"] or "(empty)" for r in template_records(build(), "Game")}
    assert {key: rows.get(key, "").strip() for key in expected} == expected


def test_the_orders_doc_has_every_order_with_the_templates_missions() -> None:
    from sheets_engine.sengoku.ruleset import build
    from sheets_engine.templates import template_records

    text = (DOCS / "orders.md").read_text()
    table = {name: row for name, row in re.findall(r"^\| `([a-z-]+)` \|(.*)$", text, re.M)}
    wrong = []
    for mission in template_records(build(), "Missions"):
        row = table.get(mission["Order"], "")
        cells = [c.strip() for c in row.split("|")]
        authority, knowledge = int(mission["Authority"]), int(mission["Knowledge"])
        free = mission["Free Action"] == "TRUE"
        says = (
            f"Authority +{authority}" in row if authority else "Authority" not in row,
            f"Knowledge +{knowledge}" in row if knowledge else "Knowledge" not in row,
            (len(cells) > 5 and cells[5] == "free") == free,
        )
        if not row or not all(says):
            wrong.append(mission["Order"])
    assert wrong == []


def test_the_form_doc_offers_every_order_and_the_orders_doc_explains_each() -> None:
    from sheets_engine.sengoku.schema import OrderType

    form = (DOCS / "form.md").read_text()
    order_question = next(line for line in form.splitlines() if line.startswith("| 2 | `Order` |"))
    assert [o.value for o in OrderType if f"`{o.value}`" not in order_question] == []
    headings = " ".join(re.findall(r"^### (.+)$", (DOCS / "orders.md").read_text(), re.M))
    assert [o.value for o in OrderType if o.value not in headings] == []


def test_the_secret_answers_the_form_doc_lists_are_read_as_it_says() -> None:
    from sheets_engine.sengoku import orders
    from tests.campaigns import KATSUIE, characters, provinces, responses
    from tests.support import clan, make_turn, state

    form = (DOCS / "form.md").read_text()
    lists = dict(re.findall(r"^\| (secret|not secret) \| (.*) \|$", form, re.M))
    words = {
        meaning: ["" if w.strip() == "(empty)" else w.strip().strip("`") for w in answers.split(",")]
        for meaning, answers in lists.items()
    }
    assert words["secret"] == ["Keep it secret", "Yes", "TRUE", "Y", "1", "Secret"]
    assert words["not secret"] == ["", "Make it public", "No", "FALSE", "N", "0", "Public"]
    answers = [*words["secret"], *words["not secret"]]
    rows = responses(*[(KATSUIE, "Shibata Katsuie", "meditate", "", "")] * len(answers))
    for row, answer in zip(rows, answers, strict=True):
        row["Secret"] = answer
    campaign = state(
        clans=[clan("Oda", Capital="Owari"), clan("Takeda", Capital="Kai")],
        provinces=provinces(),
        characters=characters(),
        form_responses_1=rows,
    )
    turn = make_turn(campaign)
    orders.copy_responses(turn)
    read = list(turn.draft.frame("Orders")["Secret"])
    assert read == [True] * len(words["secret"]) + [False] * len(words["not secret"])
