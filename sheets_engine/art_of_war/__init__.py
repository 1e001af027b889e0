"""The Art of War: a hex game for two to six houses moving in turn, some played by people, the rest by bots."""

from sheets_engine.core.registry import Entry, InitOption

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

# The registry's entry: what the engine knows of the ruleset before importing its rules.
ENTRY = Entry(
    name="art-of-war",
    tab_names=TAB_NAMES,
    rules="sheets_engine.art_of_war.ruleset",
    init_options=(
        InitOption("houses", int, "The Art of War: how many houses (2 to 6)."),
        InitOption("people", str, "The Art of War: who plays, emails or names comma-separated (or how many)."),
        InitOption("temper", str, "The Art of War: the bots' temper (cautious, steady, ruthless or hard)."),
        InitOption("seed", str, "The Art of War: the words or number the board is made from (same seed, same board)."),
    ),
    commands=(("tournament", "sheets_engine.art_of_war.commands"),),
)
