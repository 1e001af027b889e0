"""A toy ruleset, from a package of the tests folder: the engine plays it through its registry entry alone.

"Tally": each player's Orders rows add points to their Score; a row asking for more than 10 points
waits for the GM's `approved` Game key (the turn pauses there). It has a deadline, a check, reports,
its own command and an `init` option: every capability a ruleset may offer, none of Sengoku's code.
"""

from sheets_engine.core.registry import Entry, InitOption

TAB_NAMES = ("Game", "Players", "Orders", "Notifications", "History")

ENTRY = Entry(
    name="tally",
    tab_names=TAB_NAMES,
    rules="tests.toy.ruleset",
    init_options=(InitOption("players", int, "Tally: how many players (1 to 4)."),),
    commands=(("tally-scores", "tests.toy.commands"),),
)
