"""The layers point one way (issue 14): no import cycle, core imports no store and no ruleset, and
the engine writes only the columns a tab gives it.

Every import counts, those inside functions too (the AST of every module of the package).
"""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import networkx as nx
import pytest

from sheets_engine.core.tables import Draft, NotTheEnginesColumn
from sheets_engine.sengoku.schema import TABS
from tests.support import state

PACKAGE = Path(__file__).resolve().parent.parent / "sheets_engine"
RULESETS = ("sheets_engine.sengoku",)


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> nx.DiGraph:
    """Module -> every sheets_engine module it imports, at module level or inside a function."""
    modules = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph = nx.DiGraph()
    graph.add_nodes_from(modules)
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
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
