"""The Clan War campaign ruleset: koku, purchases, three movement phases, the GM's battle results, recovery."""

from sheets_engine.core.registry import Entry

# The tab names alone, cheap to import: the engine reads these tabs of any workbook before it knows
# which ruleset plays it, without importing the rules (schema.TABS must name the same tabs).
TAB_NAMES = (
    "Game",
    "Factions",
    "Provinces",
    "Catalogue",
    "Units",
    "Personalities",
    "Stockpile",
    "Purchases",
    "Bids",
    "Moves",
    "Form Responses 1",
    "Battles",
    "Battle Results",
    "Alliances",
    "Notifications",
    "History",
)

# The registry's entry: what the engine knows of the ruleset before importing its rules.
ENTRY = Entry(
    name="clan-war",
    tab_names=TAB_NAMES,
    rules="sheets_engine.clan_war.ruleset",
)
