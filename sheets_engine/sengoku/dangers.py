"""Guide Section 6, Post-Resolution: Hostile Army Presence (step 10).

A character ending the turn in a province with a hostile army (a clan not mutually allied with
theirs) and no friendly army (the same clan or a mutual ally) dies with a 10% chance (Game
`hostile_presence_death_chance`): a d100 at or under it. Characters roll in Characters row order.
"""

from __future__ import annotations

from sheets_engine.sengoku.alliances import declarations, friendly
from sheets_engine.sengoku.armies import standing_by_province
from sheets_engine.sengoku.characters import kill
from sheets_engine.sengoku.schema import CharacterStatus
from sheets_engine.sengoku.turn import Turn


def hostile_presence(turn: Turn) -> None:
    """Step 10: each living character among hostile armies, unprotected, rolls for death."""
    draft = turn.draft
    declared = declarations(draft)
    chance = turn.settings.hostile_presence_death_chance
    # the standing armies of every province at once (a frame filter per character was most of this
    # step); a death here changes an army's Leader only, never where it stands or whose it is
    armies = standing_by_province(draft)
    for character in list(draft.frame("Characters").index):
        row = draft.row("Characters", character)
        if row["Status"] != CharacterStatus.ALIVE.value or not row["Location"]:
            continue
        province = str(row["Location"])
        clans = [str(draft.get("Armies", a, "Clan")) for a in armies.get(province, [])]
        hostile = [c for c in clans if not friendly(declared, str(row["Clan"]), c)]
        if not hostile or len(hostile) < len(clans):  # no hostile army, or a friendly one protects
            continue
        roll = turn.dice.percent(f"hostile army presence, {character} in {province} ({chance}% chance)")
        if roll.value <= chance:
            enemies = " + ".join(dict.fromkeys(hostile))
            kill(turn, str(character), f"hostile army in {province}", str(roll),
                 how=f"killed by {enemies} soldiers in {province}")  # fmt: skip
