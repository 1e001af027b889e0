"""Seeded, logged dice: the same (seed, turn) always gives the same rolls in the same order."""

from __future__ import annotations

import random
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Roll:
    """One die roll, kept for the History and Battles tabs."""

    purpose: str
    sides: int
    value: int

    def __str__(self) -> str:
        return f"d{self.sides}={self.value} ({self.purpose})"


@dataclass
class Dice:
    """The turn's one random generator. Draw in the resolution's fixed order only."""

    seed: str
    turn: int
    rolls: list[Roll] = field(default_factory=list)

    def __post_init__(self) -> None:
        # str seeding hashes with SHA-512: stable across runs and Python versions.
        self._rng = random.Random(f"{self.seed}:{self.turn}")

    def roll(self, sides: int, purpose: str) -> Roll:
        """Roll one die with `sides` faces (1..sides) and log it."""
        result = Roll(purpose, sides, self._rng.randint(1, sides))
        self.rolls.append(result)
        return result

    def d20(self, purpose: str) -> Roll:
        """A twenty-sided die, as the guide's checks use."""
        return self.roll(20, purpose)

    def percent(self, purpose: str) -> Roll:
        """A d100: succeeds against a chance of p% when value <= p."""
        return self.roll(100, purpose)

    def coin(self, purpose: str) -> Roll:
        """A coin flip: 1 or 2."""
        return self.roll(2, purpose)

    def choice_index(self, count: int, purpose: str) -> Roll:
        """Pick one of `count` things (value 1..count)."""
        return self.roll(count, purpose)
