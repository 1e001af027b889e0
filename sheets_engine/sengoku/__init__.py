"""The Sengoku Jidai ruleset: the Province Tracker campaign of the rules guide."""

from sheets_engine.core.registry import Entry

# The tab names alone, cheap to import: the engine reads these tabs of any workbook before it knows
# which ruleset plays it, without importing the rules (schema.TABS must name the same tabs).
TAB_NAMES = (
    "Game",
    "Clans",
    "Alliances",
    "Provinces",
    "Buildings",
    "Units",
    "Terrain",
    "Tech",
    "Missions",
    "Armies",
    "Characters",
    "Form Responses 1",
    "Orders",
    "Tech Choices",
    "Letters",
    "Relations",
    "Sieges",
    "Battles",
    "Notifications",
    "History",
)

# The registry's entry: what the engine knows of the ruleset before importing its rules.
ENTRY = Entry(
    name="sengoku",
    tab_names=TAB_NAMES,
    rules="sheets_engine.sengoku.ruleset",
    commands=(("generate", "sheets_engine.sengoku.commands"),),
)
