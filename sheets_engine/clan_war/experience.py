"""Troop experience (the document's "Troop Experience"), and who in a unit is experienced (its 75% rule).

Two experience checks for every unit that survives a battle, one for Morale and one for Training: a d10,
minus the leader's Leadership, plus the Broken or Routing penalty; a result below the stat lowers it by one
for good. A unit that passes a check has become Experienced: every model that fought that battle counts as
experienced (its casualties too, should they be recovered).

A unit keeps count of its experienced models (Units `Experienced Models`; empty: all of them when the unit
is Experienced). Casualties and the models that do not regroup are taken from its inexperienced models
first ("Assume inexperienced troops in a unit get killed before the experienced ones"); recovered
casualties come back as what they were, the experienced first; replacements are new, inexperienced
models. Whenever models join an Experienced unit and fewer than `experienced_share` (75%) of them are
experienced, it loses the trait and what came with it: its ML and TL return to the troop type's profile
(the Catalogue's ML and TL) and no model of it counts as experienced any more.
"""

from __future__ import annotations

from sheets_engine.clan_war.game import Turn
from sheets_engine.clan_war.leadership import leader_of
from sheets_engine.clan_war.schema import UnitStatus
from sheets_engine.core.dice import Dice


def experienced_models(turn: Turn, unit: str) -> int:
    """How many of the unit's models are experienced (an empty count: all, if the unit is Experienced)."""
    draft = turn.draft
    if not draft.get("Units", unit, "Experienced"):
        return 0
    count = draft.get("Units", unit, "Experienced Models")
    models = int(draft.get("Units", unit, "Models"))
    return models if count is None else min(int(count), models)


def lose_models(turn: Turn, unit: str, left: int, cause: str) -> int:
    """The unit is down to `left` models, the inexperienced killed first: how many experienced ones it lost."""
    draft = turn.draft
    before = experienced_models(turn, unit)
    draft.set("Units", unit, "Models", left, cause)
    if not draft.get("Units", unit, "Experienced"):
        return 0
    kept = min(before, left)
    draft.set("Units", unit, "Experienced Models", kept, cause)
    return before - kept


def join_models(turn: Turn, unit: str, count: int, experienced: int, cause: str) -> str:
    """`count` models join the unit, `experienced` of them experienced (counted only in an Experienced unit);
    then the 75% rule. Returns what became of the trait ("" if nothing changed)."""
    draft = turn.draft
    models = int(draft.get("Units", unit, "Models"))
    veterans = experienced_models(turn, unit)
    draft.set("Units", unit, "Models", models + count, cause)
    if not draft.get("Units", unit, "Experienced"):
        return ""
    draft.set("Units", unit, "Experienced Models", veterans + min(experienced, count), cause)
    return keep_share(turn, unit, cause)


def keep_share(turn: Turn, unit: str, cause: str) -> str:
    """An Experienced unit with fewer than experienced_share of its models experienced loses the trait and its
    bonuses (ML and TL back to the troop type's profile). Returns a sentence for the Result ("" if kept)."""
    draft = turn.draft
    if not draft.get("Units", unit, "Experienced"):
        return ""
    models, veterans = int(draft.get("Units", unit, "Models")), experienced_models(turn, unit)
    share = turn.settings.rate("experienced_share")
    if models == 0 or veterans >= share * models - 1e-9:
        return ""
    why = f"{cause}: {veterans} of its {models} models are experienced, fewer than {share:.0%}"
    lose_trait(turn, unit, why)
    return f"{unit} loses the Experienced trait ({veterans} of {models} models experienced, fewer than {share:.0%})"


def lose_trait(turn: Turn, unit: str, cause: str) -> None:
    """The unit is no longer Experienced: its ML and TL return to the Catalogue's (where it gives them)."""
    draft = turn.draft
    draft.set("Units", unit, "Experienced", False, cause)
    draft.set("Units", unit, "Experienced Models", 0, cause)
    entry = turn.catalogue(str(draft.get("Units", unit, "Item")))
    for stat in ("ML", "TL"):
        if entry is not None and int(entry[stat]) > 0:
            draft.set("Units", unit, stat, int(entry[stat]), f"{cause}: the experience bonus is lost")


def checks(turn: Turn, unit: str, status: str, dice: Dice, cause: str) -> bool:
    """Two experience checks (ML, then TL): d10 - the leader's Leadership + the Broken or Routing penalty; a
    result below the stat lowers it by one, for good. A pass makes the unit Experienced: every model that
    fought counts as experienced (its casualties of the battle too). Returns whether a check passed."""
    draft = turn.draft
    leader = leader_of(turn, unit)
    leadership = leader.leadership if leader else 0
    penalty = {
        UnitStatus.BROKEN.value: turn.settings.broken_penalty,
        UnitStatus.ROUTED.value: turn.settings.routed_penalty,
    }.get(status, 0)
    passed = False
    for stat in ("ML", "TL"):
        roll = dice.roll(10, f"{stat} experience check of {unit}")
        value = int(draft.get("Units", unit, stat))
        total = roll.value - leadership + penalty
        if total < value:
            passed = True
            why = f"{cause}: experience ({roll.value} - {leadership} + {penalty} = {total} < {value})"
            draft.set("Units", unit, stat, value - 1, why, str(roll))
    if passed:
        why = f"{cause}: survived the battle and passed an experience check"
        draft.set("Units", unit, "Experienced", True, why)
        draft.set("Units", unit, "Experienced Models", int(draft.get("Units", unit, "Models")), why)
        # every model that fought counts, its casualties too
        turn.veterans_lost[unit] = turn.casualties.get(unit, (0, False))[0]
    return passed
