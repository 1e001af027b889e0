"""Fixtures shared by several test files."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import settings

from tests.standin.discord import FakeDiscord, serve_discord
from tests.support import HYPOTHESIS, examples

# Hypothesis profiles (SHEETS_ENGINE_HYPOTHESIS=quick, the default, or thorough): a test that names no
# count of its own draws a third of Hypothesis's 100 examples, or all of them; the tests that name one
# scale it through tests.support.examples. No deadline: the machine is shared, a slow example is no bug.
settings.register_profile("quick", max_examples=examples(100), deadline=None)
settings.register_profile("thorough", max_examples=100, deadline=None)
settings.load_profile(HYPOTHESIS)


@pytest.fixture
def discord() -> Iterator[tuple[FakeDiscord, str]]:
    """The Discord webhook stand-in, running on 127.0.0.1: (its state, its webhook base URL)."""
    fake = FakeDiscord()
    with serve_discord(fake) as base:
        yield fake, base
