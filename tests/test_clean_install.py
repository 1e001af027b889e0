"""A clean install works anywhere: the wheel, in a fresh virtualenv, run from an empty folder.

This is how a server install (docs/google-sheets.md) runs the engine: not editable, with no
repository beside it. The wheel must carry every template, and no test stand-in.

The virtualenv holds exactly the wheel and the dependencies it declares, whatever Python runs the
suite: a plain venv (never `--system-site-packages`, which would lend it the base interpreter's
packages, or none of the suite's own when the suite runs in a venv), the wheel installed into it by
pip with its dependencies, from pip's configured index and cache. So a module that imports
something pyproject.toml does not declare fails here.
"""

from __future__ import annotations

import os
import pkgutil
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import sheets_engine
from sheets_engine.rulesets import get_ruleset, ruleset_names

ROOT = Path(__file__).resolve().parent.parent
SKIP = shutil.ignore_patterns(".git", "build", "dist", "*.egg-info", "__pycache__", ".venv", "*.xlsx", ".*_cache")


def clean_env() -> dict[str, str]:
    """The environment of the venv's processes: nothing from outside it on their path, and Python caching
    the bytecode it compiles (as on a server). Where the suite runs with PYTHONDONTWRITEBYTECODE, each
    process would otherwise compile pandas, numpy and matplotlib again from source: some 5 s of CPU a
    process (the wheel is installed --no-compile, below), most of this file's time."""
    drop = ("PYTHONPATH", "PYTHONHOME", "PYTHONDONTWRITEBYTECODE")
    return {k: v for k, v in os.environ.items() if k not in drop}


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The `sheets-engine` script of a fresh venv holding only the built wheel."""
    work = tmp_path_factory.mktemp("install")
    source = work / "source"
    shutil.copytree(ROOT, source, ignore=SKIP)
    dist = work / "dist"
    # built as pip builds it for a user: the build backend pyproject.toml names, in an isolated environment
    build = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), "."]
    _run(build, cwd=source)
    venv = work / "venv"
    # not even pip in it: this suite's pip installs into it (--python; pip 22.3, as Python 3.11 has)
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    (wheel,) = dist.glob("*.whl")
    # --no-compile: Python compiles what it imports anyway; compiling all of pandas and matplotlib
    # first doubles the install (about 12 s against 24 s with pip's cache warm)
    install = [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "--no-compile"]
    _run([*install, "-q", str(wheel)])
    return venv / "bin" / "sheets-engine"


def _run(command: list[str], cwd: Path | None = None) -> None:
    """A set-up step, its output shown when it fails (pip says which package it could not install)."""
    done = subprocess.run(command, cwd=cwd, env=clean_env(), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{' '.join(command)}\n{done.stdout}{done.stderr}"


@pytest.fixture
def empty(tmp_path: Path) -> Path:
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    return folder


def run(script: Path, folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The installed command, from a folder with nothing in it, with no path to the checkout."""
    command = [str(script), *args]
    return subprocess.run(command, cwd=folder, env=clean_env(), capture_output=True, text=True, timeout=300)


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
        env=clean_env(),
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert where.startswith(str(installed.parent.parent)), where  # the venv's copy, not the checkout


def test_the_venv_holds_only_the_wheel_and_what_it_declares(installed: Path, empty: Path) -> None:
    """Every module of the installed package imports there: none needs a package that is not declared."""
    python = installed.parent / "python"
    listing = (
        "import importlib, pkgutil, sheets_engine\n"
        "names = [m.name for m in pkgutil.walk_packages(sheets_engine.__path__, 'sheets_engine.')]\n"
        "for name in names:\n"
        "    if not name.endswith('__main__'):  # running it is the CLI\n"
        "        importlib.import_module(name)\n"
        "print(' '.join(names))\n"
    )
    imported = subprocess.run(
        [str(python), "-c", listing], cwd=empty, env=clean_env(), capture_output=True, text=True, timeout=300
    )
    assert imported.returncode == 0, imported.stderr
    checkout = [m.name for m in pkgutil.walk_packages(sheets_engine.__path__, "sheets_engine.")]
    assert sorted(imported.stdout.split()) == sorted(checkout)  # every module of the checkout was imported
    shared = subprocess.run(
        [str(python), "-c", "import sys; print(sys.prefix != sys.base_prefix); import pytest"],
        cwd=empty,
        env=clean_env(),
        capture_output=True,
        text=True,
    )
    assert shared.stdout.strip() == "True"
    assert "No module named 'pytest'" in shared.stderr  # not even the suite's own packages are lent to it


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
    aow = [
        "init",
        "aw.xlsx",
        "--ruleset",
        "art-of-war",
        "--houses",
        "4",
        "--people",
        "ana@example.com",
        "--seed",
        "plum rain",
    ]
    made = run(installed, empty, *aow)
    assert made.returncode == 0, made.stderr
    for path in ("cw.xlsx", "aw.xlsx"):
        checked = run(installed, empty, "validate", path)
        assert (checked.returncode, checked.stdout.strip()) == (0, "No problems found."), checked.stderr
