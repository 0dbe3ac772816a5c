"""The package graph is a DAG: data → rules → Game/envs → agents → benchmarks / training.

Imports are read from the source (every ``import``, also the ones inside functions), so a
lazy import that dodges a cycle is seen too. Rules:

* ``concordia_env`` imports none of ``agents``, ``benchmarks``, ``training``;
* ``agents`` imports neither ``benchmarks`` nor ``training``; ``benchmarks`` not ``training``;
* ``concordia_env/rules`` imports only the static tables (cards, maps, state, actions,
  layout), never ``Game`` or an environment;
* ``concordia_env/strategy`` (the compiled strategy core) imports only the engine: the rules
  and those tables, never ``Game``, an environment or ``agents`` (a batched environment runs
  compiled opponents inside its batch);
* nothing outside ``concordia_env/rules`` imports a private module of it (``rules._jit``):
  ``njit`` is public as ``concordia_env.rules.njit``;
* no two modules import each other, directly or through others, by any import at all
  (``game`` builds on ``position_codec`` and ``observation``; ``position`` on ``game``;
  ``benchmarks.tournament`` on ``benchmarks.report``).

The environments reach the agents only through names: ``SingleAgentEnv(opponents="heuristic")``
asks :mod:`concordia_env.opponents`, which finds ``agents.from_spec`` by its entry point.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("concordia_env", "agents", "benchmarks", "training")
#: what each package may import (besides itself and third-party modules)
ALLOWED = {
    "concordia_env": set(),
    "agents": {"concordia_env"},
    "benchmarks": {"concordia_env", "agents"},
    "training": {"concordia_env", "agents", "benchmarks"},
}
#: the static tables the rules are compiled against
RULES_MAY_IMPORT = {"cards", "maps", "state", "actions", "layout", "data", "rules"}
#: the engine the strategy core is compiled against
STRATEGY_MAY_IMPORT = RULES_MAY_IMPORT | {"strategy"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def imports_of(path: Path) -> set[str]:
    """Absolute names of every module imported anywhere in the file (relative imports resolved)."""
    tree = ast.parse(path.read_text())
    package = module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            out.add(module)
            out.update(f"{module}.{alias.name}" for alias in node.names)
    return out


def sources(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


@pytest.mark.parametrize("package", PACKAGES)
def test_packages_import_only_lower_layers(package: str) -> None:
    found = set()
    for path in sources(package):
        rel = path.relative_to(ROOT).as_posix()
        for name in imports_of(path):
            top = name.split(".")[0]
            if top in PACKAGES and top != package and top not in ALLOWED[package]:
                found.add((rel, top))
    assert found == set(), "imports against the layering"


def test_rules_import_only_the_static_tables() -> None:
    for path in sources("concordia_env/rules"):
        for name in imports_of(path):
            parts = name.split(".")
            if parts[0] == "concordia_env" and len(parts) > 1:
                assert parts[1] in RULES_MAY_IMPORT, f"{path.name} imports {name}"


def test_the_strategy_imports_only_the_engine() -> None:
    paths = sources("concordia_env/strategy")
    assert paths
    for path in paths:
        for name in imports_of(path):
            parts = name.split(".")
            if parts[0] == "concordia_env" and len(parts) > 1:
                assert parts[1] in STRATEGY_MAY_IMPORT, f"{path.name} imports {name}"
            assert parts[0] not in PACKAGES or parts[0] == "concordia_env", f"{path.name} imports {name}"


def test_no_private_rules_module_is_imported_from_outside() -> None:
    for package in PACKAGES:
        for path in sources(package):
            if path.is_relative_to(ROOT / "concordia_env" / "rules"):
                continue
            for name in imports_of(path):
                parts = name.split(".")
                if parts[:2] == ["concordia_env", "rules"] and len(parts) > 2:
                    assert not parts[2].startswith("_"), f"{path.relative_to(ROOT)} imports {name}"


def module_graph() -> dict[str, set[str]]:
    """Module -> the project modules it imports anywhere (inside functions and ``TYPE_CHECKING`` too).

    ``from package import name`` points at the submodule ``package.name`` when there is one,
    else at ``package``; a module's own parent packages are left out (Python imports them
    first whatever the module says, so they are no dependency of its code).
    """
    paths = {module_name(path): path for package in PACKAGES for path in sources(package)}
    graph: dict[str, set[str]] = {}
    for module, path in paths.items():
        edges = set()
        for name in imports_of(path):
            parts = name.split(".")
            target = next((".".join(parts[:k]) for k in range(len(parts), 0, -1) if ".".join(parts[:k]) in paths), None)
            if target is not None and target != module and not module.startswith(target + "."):
                edges.add(target)
        graph[module] = edges
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_module_graph_has_no_cycles() -> None:
    graph = module_graph()
    assert "concordia_env.position_codec" in graph["concordia_env.game"]  # the graph sees real edges
    assert cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []
