"""The layers point one way (issues 14 and 26): no import cycle, core imports no store and no ruleset, a
service module imports no ruleset's modules and compares no ruleset's name (a ruleset's features are
on its record), no module uses another's private names, and the engine writes only the columns a tab
gives it.

Every import counts, those inside functions too (the AST of every module of the package).
"""

from __future__ import annotations

import ast
import functools
import importlib.util
from pathlib import Path

import networkx as nx
import pytest

from sheets_engine.core.tables import Draft, NotTheEnginesColumn
from sheets_engine.rulesets import ENTRIES, get_ruleset
from sheets_engine.sengoku.schema import TABS
from tests.support import state

PACKAGE = Path(__file__).resolve().parent.parent / "sheets_engine"
# every ruleset's package, as the registry knows them (the package of the module holding its rules)
RULESETS = tuple(sorted({entry.rules.rpartition(".")[0] for entry in ENTRIES.values()}))
REGISTRY = "sheets_engine.rulesets"  # the one module that imports the rulesets (their packages' entries)


def in_ruleset(module: str) -> bool:
    """Is the module part of a ruleset's package?"""
    return any(module == package or module.startswith(package + ".") for package in RULESETS)


def service_modules() -> list[str]:
    """The modules outside core, the stores and the rulesets: the service layer and the CLI."""
    edge = ("sheets_engine.core", "sheets_engine.stores")
    return [m for m in modules() if not in_ruleset(m) and not m.startswith(edge) and m != REGISTRY]


@functools.cache
def modules() -> dict[str, Path]:
    """Every module of the package, by name (found once: a test only reads it)."""
    return {module_name(p): p for p in PACKAGE.rglob("*.py")}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@functools.cache
def tree(path: Path) -> ast.Module:
    """A module's syntax tree, parsed once for all the tests here (the package is not edited meanwhile)."""
    return ast.parse(path.read_text(encoding="utf-8"))


def import_graph() -> nx.DiGraph:
    """Module -> every sheets_engine module it imports, at module level or inside a function (a copy of
    its own each call: a test may change it)."""
    return _import_graph().copy()


@functools.cache
def _import_graph() -> nx.DiGraph:
    modules = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph = nx.DiGraph()
    graph.add_nodes_from(modules)
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(tree(path)):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = (
                    importlib.util.resolve_name("." * node.level + (node.module or ""), package)
                    if node.level
                    else (node.module or "")
                )
                targets = [f"{base}.{alias.name}" for alias in node.names] + [base]
            for target in targets:
                found = _resolve(target, modules)
                if found and found != name:
                    graph.add_edge(name, found)
    return graph


def _resolve(target: str, modules: dict[str, Path]) -> str | None:
    """The module an import names (`from pkg import module` names the module; `from m import f`, m)."""
    if target in modules:
        return target
    head = target.rpartition(".")[0]
    return head if head in modules else None


def test_the_import_graph_finds_the_imports_inside_functions() -> None:
    graph = import_graph()
    assert graph.has_edge("sheets_engine.app", "sheets_engine.rollback")  # imported inside app.rollback
    assert graph.has_edge("sheets_engine.cli.campaign", "sheets_engine.app")  # imported inside each command


def test_no_module_imports_itself_through_others() -> None:
    graph = import_graph()
    graph.remove_edges_from([(m, p) for m, p in list(graph.edges) if m.startswith(p + ".")])  # a package's own parts
    cycles = sorted(sorted(c) for c in nx.simple_cycles(graph, length_bound=6))
    assert cycles == []


def test_core_imports_no_store_and_no_ruleset() -> None:
    graph = import_graph()
    core = [m for m in graph if m.startswith("sheets_engine.core")]
    outside = {(m, t) for m in core for t in graph.successors(m) if not t.startswith("sheets_engine.core")}
    assert outside == set()


def test_the_engine_refuses_a_column_its_tab_does_not_give_it() -> None:
    draft = Draft(state(demo=True))
    with pytest.raises(NotTheEnginesColumn, match="the engine may not write the Provinces tab's column 'Adjacent'"):
        draft.set("Provinces", "Owari", "Adjacent", "Mino", "a rule gone wrong")
    draft.set("Provinces", "Owari", "Tax Stockpile", 9, "taxes")  # a column the spec gives to the engine
    assert [(c.column, c.new) for c in draft.changes] == [("Tax Stockpile", 9)]


def test_every_column_a_tab_gives_the_engine_is_one_of_its_columns() -> None:
    assert {t.name: sorted(t.writable - set(t.columns)) for t in TABS if t.writable - set(t.columns)} == {}


def test_a_service_module_imports_no_rulesets_modules() -> None:
    graph = import_graph()
    found = {(m, t) for m in service_modules() for t in graph.successors(m) if in_ruleset(t)}
    assert found == set()
    # the registry imports each ruleset's package for its entry, and nothing more of it
    assert {t for t in graph.successors(REGISTRY) if in_ruleset(t)} == set(RULESETS)


def test_a_ruleset_imports_no_other_ruleset() -> None:
    graph = import_graph()
    crossing = {
        (m, t)
        for m in graph
        for t in graph.successors(m)
        if in_ruleset(m) and in_ruleset(t) and m.split(".")[1] != t.split(".")[1]
    }
    assert crossing == set()


def _ruleset_words() -> set[str]:
    named = {name.casefold() for name in ENTRIES}
    return named | {get_ruleset(name).title.casefold() for name in ENTRIES}


def test_no_service_module_compares_a_rulesets_name() -> None:
    words = _ruleset_words()
    found = []
    for name in service_modules():
        for node in ast.walk(tree(modules()[name])):
            if isinstance(node, ast.Compare):
                operands = [node.left, *node.comparators]
                texts = [o.value for o in operands if isinstance(o, ast.Constant) and isinstance(o.value, str)]
                found += [(name, node.lineno, t) for t in texts if t.strip().casefold() in words]
    assert found == []


def test_no_module_uses_another_modules_private_names() -> None:
    found = []
    for name, path in modules().items():
        parsed = tree(path)
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        aliases = set()  # names bound to another module of the package
        for node in ast.walk(parsed):
            if isinstance(node, ast.ImportFrom):
                base = importlib.util.resolve_name("." * node.level + (node.module or ""), package) if node.level else (
                    node.module or "")  # fmt: skip
                if not base.startswith("sheets_engine") or base == name:
                    continue
                for alias in node.names:
                    if alias.name.startswith("_") and not alias.name.startswith("__"):
                        found.append((name, node.lineno, f"from {base} import {alias.name}"))
                    if f"{base}.{alias.name}" in modules():
                        aliases.add(alias.asname or alias.name)
            elif isinstance(node, ast.Import):
                aliases |= {a.asname for a in node.names if a.asname and a.name.startswith("sheets_engine")}
        for node in ast.walk(parsed):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in aliases
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
            ):
                found.append((name, node.lineno, f"{node.value.id}.{node.attr}"))
    assert found == []
