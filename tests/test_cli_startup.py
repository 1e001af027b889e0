"""What the command sets up for itself before a run's work begins."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from sheets_engine import cli


def run_version(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "argv", ["sheets-engine", "--version"])
    try:
        cli.main()
    except SystemExit as done:
        assert done.code in (0, None)
    assert "version" in capsys.readouterr().out


def test_the_command_asks_numpy_for_one_blas_thread(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    run_version(monkeypatch, capsys)
    assert os.environ["OPENBLAS_NUM_THREADS"] == "1"


def test_a_thread_count_the_machine_sets_is_kept(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "4")
    run_version(monkeypatch, capsys)
    assert os.environ["OPENBLAS_NUM_THREADS"] == "4"


def test_numpy_is_not_loaded_before_the_command_sets_it() -> None:
    # the setting is read when numpy loads: importing the command must not load it
    code = "import sys, sheets_engine.cli; print('numpy' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
