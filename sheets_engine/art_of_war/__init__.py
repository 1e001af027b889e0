"""The Art of War: a hex game for two to six houses moving in turn, some played by people, the rest by bots."""

# The tab names alone, cheap to import: the engine reads these tabs of any workbook before it knows
# which ruleset plays it, without importing the rules (schema.TABS must name the same tabs).
TAB_NAMES = (
    "Game",
    "Houses",
    "Board",
    "Pieces",
    "Terrain",
    "Orders",
    "Form Responses 1",
    "Notifications",
    "History",
)
