"""The package type-checks (issue 26): mypy, strict on core/ and stores/, the whole package passing, with
the settings in pyproject.toml, so that a CI run catches what an editor missed."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_mypy_finds_no_error() -> None:
    mypy = shutil.which("mypy")
    assert mypy, "mypy is installed with the test extra"
    done = subprocess.run([mypy], cwd=ROOT, capture_output=True, text=True)  # its files and cache: pyproject.toml
    assert done.returncode == 0, done.stdout + done.stderr
