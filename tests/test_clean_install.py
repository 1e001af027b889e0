"""A clean install works anywhere: the wheel, in a fresh virtualenv, run from an empty folder.

This is how a server install (docs/google-sheets.md) runs the engine: not editable, with no
repository beside it. The wheel must carry every template, and no test stand-in.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from sheets_engine.rulesets import get_ruleset, ruleset_names

ROOT = Path(__file__).resolve().parent.parent
SKIP = shutil.ignore_patterns(".git", "build", "dist", "*.egg-info", "__pycache__", ".venv", "*.xlsx", ".*_cache")


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The `sheets-engine` script of a fresh venv holding only the built wheel."""
    work = tmp_path_factory.mktemp("install")
    source = work / "source"
    shutil.copytree(ROOT, source, ignore=SKIP)
    dist = work / "dist"
    # --no-build-isolation: build with the setuptools already here, so nothing is downloaded.
    build = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(dist), "."]
    subprocess.run(build, cwd=source, check=True, capture_output=True, timeout=300)
    venv = work / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True, timeout=120)
    (wheel,) = dist.glob("*.whl")
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--no-deps", "-q", str(wheel)]
    subprocess.run(pip, check=True, capture_output=True, timeout=300)
    return venv / "bin" / "sheets-engine"


@pytest.fixture
def empty(tmp_path: Path) -> Path:
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    return folder


def run(script: Path, folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The installed command, from a folder with nothing in it, with no path to the checkout."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    return subprocess.run([str(script), *args], cwd=folder, env=env, capture_output=True, text=True, timeout=300)


def test_the_wheel_carries_every_template_and_no_test_stand_in(installed: Path) -> None:
    (wheel,) = installed.parent.parent.parent.joinpath("dist").glob("*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    for name in ruleset_names():  # one template per tab, for every ruleset
        ruleset = get_ruleset(name)
        folder = f"sheets_engine/{ruleset.templates.parent.name}/templates/"  # type: ignore[attr-defined]
        shipped = {n.removeprefix(folder) for n in names if n.startswith(folder) and "/demo/" not in n}
        assert shipped == {f"{spec.name}.csv" for spec in ruleset.tabs}, name
    assert "sheets_engine/sengoku/templates/demo/Provinces.csv" in names
    assert "sheets_engine/clan_war/templates/demo/Provinces.csv" in names
    assert not [n for n in names if "standin" in n or "fake_sheets" in n or n.startswith("tests/")]


def test_the_installed_command_runs_from_the_installed_package(installed: Path, empty: Path) -> None:
    python = installed.parent / "python"
    where = subprocess.run(
        [str(python), "-c", "import sheets_engine; print(sheets_engine.__file__)"],
        cwd=empty,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert where.startswith(str(installed.parent.parent)), where  # the venv's copy, not the checkout


def test_demo_then_validate_from_an_empty_folder(installed: Path, empty: Path) -> None:
    demo = run(installed, empty, "demo")
    assert demo.returncode == 0, demo.stdout + demo.stderr
    assert "Turn 1 (year 1" in demo.stdout
    checked = run(installed, empty, "validate", "sengoku-demo/demo.xlsx")
    assert (checked.returncode, checked.stdout.strip()) == (0, "No problems found."), checked.stderr


def test_init_then_validate_from_an_empty_folder(installed: Path, empty: Path) -> None:
    assert run(installed, empty, "init", "x.xlsx").returncode == 0
    checked = run(installed, empty, "validate", "x.xlsx")
    assert (checked.returncode, checked.stdout.strip()) == (0, "No problems found."), checked.stderr


def test_generate_then_resolve_from_an_empty_folder(installed: Path, empty: Path) -> None:
    made = run(installed, empty, "generate", "g.xlsx", "--provinces", "50")
    assert made.returncode == 0, made.stderr
    resolved = run(installed, empty, "resolve", "g.xlsx", "--json")
    assert resolved.returncode == 0, resolved.stderr
    assert '"resolved": true' in resolved.stdout


def test_every_ruleset_lays_out_a_valid_campaign_from_an_empty_folder(installed: Path, empty: Path) -> None:
    """Clan War's demo and an Art of War board are made from the installed package's templates."""
    war = run(installed, empty, "init", "cw.xlsx", "--ruleset", "clan-war", "--demo")
    assert war.returncode == 0, war.stderr
    aow = ["init", "aw.xlsx", "--ruleset", "art-of-war", "--houses", "4", "--people", "1", "--seed", "plum rain"]
    made = run(installed, empty, *aow)
    assert made.returncode == 0, made.stderr
    for path in ("cw.xlsx", "aw.xlsx"):
        checked = run(installed, empty, "validate", path)
        assert (checked.returncode, checked.stdout.strip()) == (0, "No problems found."), checked.stderr
