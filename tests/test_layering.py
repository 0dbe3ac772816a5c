"""The package's parts form a DAG, and so do its modules.

The parts, lowest first (``docs/architecture.md``)::

    engine  <-  strategy  <-  envs  <-  agents  <-  tools  <-  training, benchmarks
       ^                       |
       +---- views  <----------+        integrations (OpenSpiel, RLlib): engine, envs, views;
                                        used by tools, training and benchmarks

Imports are read from the source (every ``import``, also the ones inside functions), so a
lazy import that dodges a cycle is seen too. Rules:

* each part imports only the parts below it (:data:`ALLOWED`);
* ``engine/rules`` imports only the static tables (cards, maps, state, actions, layout),
  never ``Game`` or an environment;
* ``strategy`` (the compiled strategy core) imports only the engine: the rules, the tables
  and the compiled observation (the learned scorer's features are observation columns),
  never ``Game``, an environment or an agent (a batched environment runs compiled
  opponents inside its batch);
* nothing outside ``engine/rules`` imports a private module of it (``rules._jit``): ``njit``
  is public as ``concordia_env.engine.rules.njit``;
* a game's own array (``game._state``) is read and written only in ``engine/``: code
  elsewhere asks ``Game`` (``play_plan``, ``observation(..., out=)``, ``lay_out_cards``) and
  reads the read-only ``game.state``;
* the strategy core is reached only through its package, ``concordia_env.strategy``: no
  module outside ``strategy/`` imports one of its modules (``strategy.planner``...) or
  reaches one as an attribute (``strategy.search.new_tree``);
* no two modules import each other, directly or through others, by any import at all
  (``game`` builds on ``position_codec`` and ``observation``; ``position`` on ``game``;
  ``tools.tournament`` on ``tools.report``);
* every module file name is used once in the package, so a file name alone says which module it is.

The rules on a game's array and on the strategy's modules hold for the package and for the
scripts in the checkout's top-level folders (:data:`OUTSIDE_FOLDERS`). The tests are their
other allowed home: they test the parts from inside (``tests/builders.py`` writes positions
into ``game._state``, the strategy tests call its modules' functions).

The environments reach the agents only through names: ``SingleAgentEnv(opponents="heuristic")``
asks :mod:`concordia_env.envs.opponents`, which finds ``concordia_env.agents.from_spec`` by its
entry point. The ``concordia`` command (``tools/cli.py``) names the training and benchmark
scripts in a table of module names, as entry points do, and imports none of them.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "concordia_env"
#: what each part may import besides itself and third-party modules
ALLOWED = {
    "engine": set(),
    "strategy": {"engine"},
    "views": {"engine"},
    "envs": {"engine", "strategy", "views"},
    "integrations": {"engine", "envs", "views"},
    "agents": {"engine", "strategy", "envs", "views"},
    "tools": {"engine", "strategy", "envs", "views", "integrations", "agents"},
    "training": {"engine", "strategy", "envs", "views", "integrations", "agents", "tools"},
    "benchmarks": {"engine", "strategy", "envs", "views", "integrations", "agents", "tools", "training"},
}
PARTS = tuple(ALLOWED)
#: the static tables the rules are compiled against
RULES_MAY_IMPORT = {"cards", "maps", "state", "actions", "layout", "data", "rules"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def imports_of(path: Path) -> set[str]:
    """Absolute names of every module imported anywhere in the file (relative imports resolved)."""
    package = module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    return imports_in(ast.parse(path.read_text()), package)


def imports_in(tree: ast.AST, package: list[str]) -> set[str]:
    """:func:`imports_of` for a parsed file of ``package`` (its dotted name, as a list)."""
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


def sources(folder: str) -> list[Path]:
    return sorted((ROOT / folder).rglob("*.py"))


def part_of(name: str) -> str | None:
    """The part a module name belongs to (``concordia_env.engine.game`` -> ``engine``), if any."""
    parts = name.split(".")
    return parts[1] if parts[0] == "concordia_env" and len(parts) > 1 and parts[1] in ALLOWED else None


def test_the_parts_are_the_package_s_folders() -> None:
    folders = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").is_file()}
    assert folders == set(PARTS)


@pytest.mark.parametrize("part", PARTS)
def test_parts_import_only_lower_parts(part: str) -> None:
    found = set()
    for path in sources(f"concordia_env/{part}"):
        for name in imports_of(path):
            other = part_of(name)
            if other is not None and other != part and other not in ALLOWED[part]:
                found.add((path.relative_to(ROOT).as_posix(), other))
    assert found == set(), "imports against the layering"


def test_the_package_root_imports_only_the_engine_and_the_envs() -> None:
    for name in imports_of(PACKAGE / "__init__.py"):
        assert part_of(name) in (None, "engine", "envs"), f"__init__.py imports {name}"


def test_every_module_file_name_is_used_once() -> None:
    """A file name alone says which module it is: no two modules of the package share one."""
    names: dict[str, list[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        if path.name not in {"__init__.py", "__main__.py"}:
            names.setdefault(path.name, []).append(path.relative_to(ROOT).as_posix())
    assert {name: paths for name, paths in names.items() if len(paths) > 1} == {}


def test_rules_import_only_the_static_tables() -> None:
    for path in sources("concordia_env/engine/rules"):
        for name in imports_of(path):
            parts = name.split(".")
            if parts[:2] == ["concordia_env", "engine"] and len(parts) > 2:
                assert parts[2] in RULES_MAY_IMPORT, f"{path.name} imports {name}"


#: what the strategy core may import of the engine: the rules and tables, the bounds check of raw states,
#: and the compiled observation (the learned scorer's features are observation columns)
STRATEGY_MAY_IMPORT = RULES_MAY_IMPORT | {"state_check", "observation"}


def test_the_strategy_imports_only_the_engine_s_rules_and_tables() -> None:
    """Never ``Game`` or an environment: a batched environment runs the compiled core inside its batch."""
    paths = sources("concordia_env/strategy")
    assert paths
    for path in paths:
        for name in imports_of(path):
            parts = name.split(".")
            if parts[0] == "concordia_env" and len(parts) > 1 and parts[1] != "strategy":
                assert parts[1] == "engine" and len(parts) > 2 and parts[2] in STRATEGY_MAY_IMPORT, (
                    f"{path.name} imports {name}"
                )


def test_no_private_rules_module_is_imported_from_outside() -> None:
    for path in sources("concordia_env"):
        if path.is_relative_to(PACKAGE / "engine" / "rules"):
            continue
        for name in imports_of(path):
            parts = name.split(".")
            if parts[:3] == ["concordia_env", "engine", "rules"] and len(parts) > 3:
                assert not parts[3].startswith("_"), f"{path.relative_to(ROOT)} imports {name}"


def module_graph() -> dict[str, set[str]]:
    """Module -> the project modules it imports anywhere (inside functions and ``TYPE_CHECKING`` too).

    ``from package import name`` points at the submodule ``package.name`` when there is one,
    else at ``package``; a module's own parent packages are left out (Python imports them
    first whatever the module says, so they are no dependency of its code).
    """
    paths = {module_name(path): path for path in sources("concordia_env")}
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
    assert "concordia_env.engine.position_codec" in graph["concordia_env.engine.game"]  # the graph sees real edges
    assert cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


#: the checkout's folders of scripts, held to the package's rules on private state and strategy modules
OUTSIDE_FOLDERS = ("training", "agents", "benchmarks")
#: the home of a game's own array
STATE_HOME = PACKAGE / "engine"
#: the home of the strategy core's modules
STRATEGY_HOME = PACKAGE / "strategy"
STRATEGY_MODULES = frozenset(p.stem for p in STRATEGY_HOME.glob("*.py") if p.stem != "__init__")


def code_outside(home: Path) -> list[Path]:
    """The package's files outside ``home``, and the scripts of :data:`OUTSIDE_FOLDERS`."""
    paths = [p for p in sources("concordia_env") if not p.is_relative_to(home)]
    paths += [p for folder in OUTSIDE_FOLDERS for p in sources(folder)]
    return paths


def private_state_uses(tree: ast.AST) -> list[int]:
    """The lines that touch an attribute ``_state`` (``x._state``, ``getattr(x, "_state")``)."""
    found = []
    for node in ast.walk(tree):
        named = isinstance(node, ast.Attribute) and node.attr == "_state"
        fetched = (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "setattr", "hasattr")
            and any(isinstance(a, ast.Constant) and a.value == "_state" for a in node.args)
        )
        if named or fetched:
            found.append(node.lineno)
    return sorted(found)


def strategy_module_uses(tree: ast.AST, imports: set[str]) -> list[str]:
    """The modules of the strategy core a file imports, and the lines that reach one as ``strategy.<module>``."""
    modules = {
        ".".join(parts[:3])
        for parts in (name.split(".") for name in imports)
        if parts[:2] == ["concordia_env", "strategy"] and len(parts) > 2 and parts[2] in STRATEGY_MODULES
    }
    found = [f"imports {module}" for module in sorted(modules)]
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "strategy"
            and node.attr in STRATEGY_MODULES
        ):
            found.append(f"line {node.lineno} reaches strategy.{node.attr}")
    return found


def test_a_game_s_own_array_stays_in_the_engine() -> None:
    """Only ``engine/`` touches ``game._state``: elsewhere ``Game``'s methods check what reaches the compiled code."""
    paths = code_outside(STATE_HOME)
    assert any(p.name == "openspiel.py" for p in paths)  # the scan sees the bridge that wrote the array before
    found = {p.relative_to(ROOT).as_posix(): private_state_uses(ast.parse(p.read_text())) for p in paths}
    assert {path: lines for path, lines in found.items() if lines} == {}


def test_the_strategy_core_is_reached_through_its_package() -> None:
    """``from concordia_env.strategy import ...`` only: the package says what of the core is public."""
    assert {"planner", "players", "turn_enumeration", "afterstate_scorer"} <= STRATEGY_MODULES
    found = {
        p.relative_to(ROOT).as_posix(): strategy_module_uses(ast.parse(p.read_text()), imports_of(p))
        for p in code_outside(STRATEGY_HOME)
    }
    assert {path: uses for path, uses in found.items() if uses} == {}


SAMPLE = """\
from concordia_env.strategy.planner import STATUS_SIZE
from concordia_env.strategy import search, turn_options
from ..strategy.rollout import rollout_turns
import concordia_env.strategy.players
def f(game, strategy):
    game._state[0] = 1
    getattr(game, "_state")
    return strategy.search.new_tree(), strategy.turn_options, game.state
"""


def test_the_scans_find_what_they_forbid() -> None:
    """Each scan flags the forms it is written for: the tests above pass because nothing matches, not by accident."""
    tree = ast.parse(SAMPLE)
    assert private_state_uses(tree) == [6, 7]
    assert strategy_module_uses(tree, imports_in(tree, ["concordia_env", "envs"])) == [
        "imports concordia_env.strategy.planner",
        "imports concordia_env.strategy.players",
        "imports concordia_env.strategy.rollout",
        "imports concordia_env.strategy.search",
        "line 8 reaches strategy.search",
    ]
