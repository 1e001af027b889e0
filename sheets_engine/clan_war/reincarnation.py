"""Shiba Ujimitsu's reincarnation (the document's special rules for him).

"If Shiba Ujimitsu uses his reincarnation ability during a battle, then the original Ujimitsu is considered
Dead, and does not get to roll for being Maimed or Wounded ... The new Ujimitsu is considered to be an
'experienced' version of the personality which Ujimitsu replaced for purposes of uniqueness, and keeps her
original name. However, the original force profile is completely replaced by Ujimitsu's force profile. If
Ujimitsu is removed as a casualty and does not use his reincarnation ability during battle, he may roll for
being wounded or maimed. If he fails, and becomes Dead, he must use his reincarnation ability, during the
Recovery Phase. He may target any legal target in your army, though, not just a personality in the same
province."

Ujimitsu is the Catalogue personality the Game key `reincarnating_personality` names (or its experienced
version, or a personality with his profile: a new Ujimitsu). On his Battle Results row the GM sets
`Reincarnated` (he used it in the battle: his target fought there too) and names the personality in
`Reincarnate Into`; without `Reincarnated`, he rolls as any personality, and if he dies, he reincarnates
into that personality at the start of the recovery phase. A legal target is a personality of his faction
in play, other than himself; one that died or left play in the same turn cannot receive him, and he stays
dead. The target keeps its name and Item (so its own uniqueness stays taken), becomes Experienced, and its
rings, wounds, void, Command Limit, Leadership, Cavalry and Flying become Ujimitsu's Catalogue profile (its
Wounds and Void Points kept, up to the new maxima); its `Profile` names Ujimitsu's item. The old Ujimitsu is
Dead for uniqueness.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import Any

from sheets_engine.clan_war.game import Turn
from sheets_engine.clan_war.schema import RINGS, PersonalityStatus
from sheets_engine.core.problems import Problem

GONE = (PersonalityStatus.DEAD.value, PersonalityStatus.RELEASED.value)


def is_ujimitsu(turn: Turn, person: str) -> bool:
    """Is the personality Shiba Ujimitsu (his item, its experienced version, or his profile)?"""
    key = turn.settings.reincarnating_personality
    row = turn.draft.row("Personalities", person)
    entry = turn.catalogue(str(row["Item"]))
    return key in (row["Item"], row["Profile"]) or bool(entry and entry["Experienced Of"] == key)


def legal_target(turn: Turn, person: str, target: str) -> str:
    """Why the target cannot receive Ujimitsu ("" when it can)."""
    draft = turn.draft
    if not draft.has("Personalities", target) or target == person:
        return f"another personality of {draft.get('Personalities', person, 'Faction')}"
    row = draft.row("Personalities", target)
    if row["Faction"] != draft.get("Personalities", person, "Faction"):
        return f"a personality of {draft.get('Personalities', person, 'Faction')} (his own army)"
    if row["Status"] in GONE:
        return f"a personality in play ({target} is {row['Status']})"
    return ""


def in_battle(turn: Turn, person: str, target: str, cause: str) -> None:
    """He used it during the battle: Dead without a roll, and the target becomes the new Ujimitsu."""
    _dies(turn, person, f"{cause}: reincarnated into {target} during the battle")
    reincarnate(turn, person, target, cause)


def _dies(turn: Turn, person: str, cause: str) -> None:
    draft = turn.draft
    draft.set("Personalities", person, "Wounds", 0, cause)
    draft.set("Personalities", person, "Status", PersonalityStatus.DEAD.value, cause)
    draft.set("Personalities", person, "Unit", "", cause)
    frame = draft.frame("Units")
    for unit in frame.index[frame["Leader"] == person]:
        draft.set("Units", unit, "Leader", "", f"{cause}: its leader {person} is gone")


def reincarnate(turn: Turn, person: str, target: str, cause: str) -> None:
    """The target keeps its name and Item, becomes Experienced and takes Ujimitsu's force profile."""
    draft = turn.draft
    key = turn.settings.reincarnating_personality
    entry = turn.catalogue(key) or turn.catalogue(str(draft.get("Personalities", person, "Item")))
    assert entry is not None  # validated: a Catalogue personality
    why = f"{cause}: Shiba Ujimitsu reincarnates into {target}"
    row = draft.row("Personalities", target)
    for ring in RINGS:
        draft.set("Personalities", target, ring, int(entry[ring]), why)
    draft.set("Personalities", target, "Max Wounds", int(entry["Wounds"]), why)
    draft.set("Personalities", target, "Max Void", int(entry["Void"]), why)
    draft.set("Personalities", target, "Wounds", min(int(row["Wounds"]), int(entry["Wounds"])), why)
    draft.set("Personalities", target, "Void Points", min(int(row["Void Points"]), int(entry["Void"])), why)
    for column in ("Command Limit", "Leadership", "Cavalry", "Flying"):
        draft.set("Personalities", target, column, entry[column], why)
    draft.set("Personalities", target, "Experienced", True, why)
    draft.set("Personalities", target, "Profile", str(entry["Item"]), why)
    turn.notify("public", "world", f"{person} reincarnates into {target}, who keeps her name.")
    turn.summary["reincarnations"] += 1


def in_recovery(turn: Turn) -> None:
    """The recovery phase: an Ujimitsu who died from his rolls reincarnates into the target named for him."""
    for person, target in sorted(turn.reincarnations.items()):
        why = legal_target(turn, person, target)
        if why:
            turn.notify("gm", "private", f"{person} could not reincarnate into {target}: not {why}; he stays dead.")
            continue
        reincarnate(turn, person, target, "recovery")


def problems(turn: Turn, province: str, rows: Iterable[tuple[Hashable, dict[str, Any]]]) -> list[Problem]:
    """Battle Results rows of one battle whose reincarnation cannot be used, each at its row."""
    found: list[Problem] = []
    rows_of = turn.draft.state.rows["Battle Results"]
    for key, row in rows:
        person, target = str(row["Personality"]), str(row["Reincarnate Into"])
        if not person or not turn.draft.has("Personalities", person):
            continue
        if not is_ujimitsu(turn, person):
            if row["Reincarnated"] or target:
                column = "Reincarnated" if row["Reincarnated"] else "Reincarnate Into"
                only = f"an empty cell: only {turn.settings.reincarnating_personality} reincarnates"
                found.append(Problem("Battle Results", rows_of.get(key), column, row[column], only))
            continue
        if not target:
            if row["Reincarnated"] or _any_target(turn, person):
                must = f"the personality {person} reincarnates into if he dies (he must)"
                found.append(Problem("Battle Results", rows_of.get(key), "Reincarnate Into", "", must))
            continue
        why = legal_target(turn, person, target)
        if not why and row["Reincarnated"] and turn.draft.get("Personalities", target, "Province") != province:
            why = f"a personality at {province}: in the battle he reincarnates into one who is there"
        if why:
            found.append(Problem("Battle Results", rows_of.get(key), "Reincarnate Into", target, why))
    return found


def _any_target(turn: Turn, person: str) -> bool:
    faction = turn.draft.get("Personalities", person, "Faction")
    frame = turn.draft.frame("Personalities")
    mine = frame[(frame["Faction"] == faction) & ~frame["Status"].isin(GONE)]
    return any(str(p) != person for p in mine.index)
