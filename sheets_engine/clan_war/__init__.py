"""The Clan War campaign ruleset: koku, purchases, three movement phases, the GM's battle results, recovery."""

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
    "Battles",
    "Battle Results",
    "Alliances",
    "Notifications",
    "History",
)
