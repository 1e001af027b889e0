"""The registry of rulesets: each ruleset's tab names as the engine reads them before it knows the
ruleset, and a campaign paying only for the rules it is played under."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from sheets_engine.rulesets import ENTRIES, get_ruleset, ruleset_names


def test_each_rulesets_tab_names_are_the_tabs_of_its_schema() -> None:
    assert sorted(ENTRIES) == ruleset_names()
    for name in ruleset_names():
        assert ENTRIES[name].tab_names == tuple(spec.name for spec in get_ruleset(name).tabs), name


def test_a_sengoku_run_does_not_import_the_other_rulesets_rules(tmp_path: Path) -> None:
    path = tmp_path / "s.xlsx"
    script = (
        "import sys\n"
        "from sheets_engine import app\n"
        f"app.init({str(path)!r}, demo=True)\n"
        f"app.resolve({str(path)!r}, force=True)\n"
        "others = ('sheets_engine.clan_war.', 'sheets_engine.art_of_war.')\n"
        "print(sorted(m for m in sys.modules if m.startswith(others)))\n"
    )
    loaded = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "[]"
