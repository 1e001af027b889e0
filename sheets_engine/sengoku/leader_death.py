"""Guide Section 6, Leader Death.

If a leader's army suffers 30% or more casualties in a battle (Game `leader_death_casualties`),
the leader faces a death roll: 10% at 30% casualties rising linearly to 100% at 100%
(`leader_death_chance_min`, `leader_death_chance_max`); a destroyed army counts as 100%. A d100 at
or under the chance kills: `characters.kill` marks the leader Dead, strips title and clan, frees
the army and tells the graveyard.
"""

from __future__ import annotations

from fractions import Fraction

from sheets_engine.sengoku.characters import alive, kill
from sheets_engine.sengoku.game import GameSettings
from sheets_engine.sengoku.turn import Turn


def leader_death_chance(settings: GameSettings, casualties: Fraction) -> Fraction:
    """The death chance in %: 10 at 30% casualties, rising linearly to 100 at 100%."""
    low, high, threshold = (
        settings.leader_death_chance_min, settings.leader_death_chance_max, settings.leader_death_casualties,
    )  # fmt: skip
    span = Fraction(high - low, max(100 - threshold, 1))
    return min(Fraction(high), low + (casualties - threshold) * span)


def leader_death_roll(turn: Turn, army: str, province: str, casualties: Fraction) -> list[str]:
    """The army's leader rolls if its casualties (in %) reach the threshold; the event in words."""
    settings = turn.settings
    leader = str(turn.draft.get("Armies", army, "Leader"))
    if not leader or not alive(turn, leader) or casualties < settings.leader_death_casualties:
        return []
    chance = leader_death_chance(settings, casualties)
    roll = turn.dice.percent(
        f"leader death, {leader}: {float(casualties):.4g}% casualties, {float(chance):.4g}% chance"
    )
    if roll.value > chance:
        return []
    kill(turn, leader, f"battle at {province}", str(roll), how=f"fell in the battle at {province}")
    return [f"{leader} fell"]
