"""The code stays ruff clean (lint and format), so a CI run catches what an editor missed."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("command", [["check"], ["format", "--check"]], ids=["lint", "format"])
def test_ruff_is_clean(command: list[str]) -> None:
    ruff = shutil.which("ruff")
    assert ruff, "ruff is installed with the test extra"
    done = subprocess.run([ruff, *command, "sheets_engine", "tests", "benchmarks"], cwd=ROOT, capture_output=True,
                          text=True)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
