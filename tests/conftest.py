"""Fixtures shared by several test files."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.standin.discord import FakeDiscord, serve_discord


@pytest.fixture
def discord() -> Iterator[tuple[FakeDiscord, str]]:
    """The Discord webhook stand-in, running on 127.0.0.1: (its state, its webhook base URL)."""
    fake = FakeDiscord()
    with serve_discord(fake) as base:
        yield fake, base
