"""Guide Section 7, characters: death, and the clan's living members.

A dead character keeps its row (the graveyard is history): Status Dead, Title and Clan cleared,
Location kept; an army it led becomes leaderless.
"""

from __future__ import annotations

from sheets_engine.sengoku.schema import CharacterStatus
from sheets_engine.sengoku.turn import Turn


def alive(turn: Turn, character: str) -> bool:
    """True if the character exists and is alive now."""
    return (
        turn.draft.has("Characters", character)
        and turn.draft.get("Characters", character, "Status") == CharacterStatus.ALIVE.value
    )


def kill(turn: Turn, character: str, cause: str, roll: str = "", announce: bool = True, how: str = "") -> None:
    """Mark the character dead, strip title and clan, free its army, tell the graveyard.

    `announce` False (a secret execution) leaves no public notification; `how` says how the
    character died, in the graveyard's words.
    """
    draft = turn.draft
    clan = draft.get("Characters", character, "Clan")
    title = draft.get("Characters", character, "Title")
    draft.set("Characters", character, "Status", CharacterStatus.DEAD.value, cause, roll)
    draft.set("Characters", character, "Title", "", cause, roll)
    draft.set("Characters", character, "Clan", "", cause, roll)
    armies = draft.frame("Armies")
    for army in armies.index[armies["Leader"].to_numpy() == character]:  # numpy: a pandas comparison is 5x this
        draft.set("Armies", army, "Leader", "", cause, roll)
    turn.summary["characters died"] += 1
    if announce:
        rank = f"{title} of the {clan} clan" if title and clan else f"of the {clan} clan" if clan else ""
        name = f"{character}, {rank}," if rank else character
        turn.notify("public", "graveyard", f"{name} has died" + (f": {how}." if how else "."))
    turn.notify("gm", "graveyard", f"{character} died ({cause}{'; ' + roll if roll else ''}).")
