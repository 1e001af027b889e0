"""RULES.md's Clan War section stays true: every `module:name` it gives for a rule exists in the package."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_every_code_reference_of_the_clan_war_section_exists() -> None:
    text = (ROOT / "RULES.md").read_text()
    section = text[text.index("## The Clan War campaign ruleset") : text.index("## The Art of War")]
    named = set(re.findall(r"\b([a-z_]+):([A-Za-z_][\w.]*)", section)) - {("module", "function")}
    assert len(named) > 60
    missing = []
    for module, path in sorted(named):
        try:
            found: object = importlib.import_module(f"sheets_engine.clan_war.{module}")
        except ModuleNotFoundError:
            missing.append(f"{module}:{path}")
            continue
        for part in path.split("."):
            found = getattr(found, part, None)
        if found is None:
            missing.append(f"{module}:{path}")
    assert missing == []
