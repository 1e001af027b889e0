"""Seeded, logged dice: the same (seed, turn, stream) always gives the same rolls in the same order."""

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
    """A seeded generator for one named stream of draws. Draw in the resolution's fixed order only.

    The turn's main stream is seeded on (seed, turn). `stream("battle", "Owari")` gives a stream of
    its own (seed, turn, step or house...): a second step of a paused turn, or a house moving after
    another, draws from its own stream and never replays another's rolls, whatever was drawn before.
    Every stream logs into the same `rolls`, in the order drawn.
    """

    seed: str
    turn: int
    rolls: list[Roll] = field(default_factory=list)
    names: tuple[str, ...] = ()  # the stream's names after (seed, turn); () is the main stream

    def __post_init__(self) -> None:
        # str seeding hashes with SHA-512: stable across runs and Python versions.
        self._rng = random.Random(":".join([self.seed, str(self.turn), *self.names]))

    def stream(self, *names: str) -> Dice:
        """The named stream under this one (its rolls logged with this one's)."""
        return Dice(self.seed, self.turn, self.rolls, (*self.names, *names))

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
