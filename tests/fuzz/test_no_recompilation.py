"""No run-time recompilation: odd inputs never reach numba with a new type.

numba compiles a new version of a function for every new combination of argument types;
on a loaded machine that is a stall of several seconds in the middle of a game (a value
beyond int64, a read-only or strided action array, ``score_breakdown(True)``). Every entry
point therefore normalises its inputs to the compiled signatures (contiguous int64
actions, Python ints) before they reach compiled code. This test warms every compiled
function up with ordinary use, counts the signatures of every dispatcher of the package,
runs the fuzzing campaigns (odd values of every type at every entry point), and counts
again: not one signature may have been added.

The warm-up is deterministic about *what* it compiles: every compiled function that
Python code of the package calls (found by reading the source: :func:`python_entries`)
must have a signature after it, whatever tests ran before in the same worker. A fuzz run
that compiled one of them for the first time (the strategy core, reached through an
agent) failed once and passed in other runs, depending on which tests had warmed it up.
"""

from __future__ import annotations

import ast
import functools
import importlib
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numba.core.dispatcher import Dispatcher

import concordia_env
import concordia_env.agents  # the test builds an mcts agent
from concordia_env import Game, strategy
from concordia_env.engine.rules.compiled_cache import package_dispatchers
from concordia_env.engine.state import STATE_SIZE
from concordia_env.tools.compile_coverage import PARTS, strategy_calls
from tests.fuzz import campaigns as fuzz

#: inputs per campaign between the two counts
EXAMPLES = 40
CAMPAIGNS = (
    "actions",
    "vector",
    "options",
    "positions",
    "position-text",
    "env-orders",
    "opponents",
    "web-attacks",
    "state-mutation",
)


def dispatchers() -> dict[str, Dispatcher]:
    """Every compiled function of the package, by module and name (``compiled_cache.package_dispatchers``)."""
    return {f"{d.py_func.__module__}.{d.py_func.__name__}": d for d in package_dispatchers()}


@functools.cache
def python_entries() -> dict[str, set[str]]:
    """Every compiled function that Python code of the package calls, with the files that call it.

    Read from the source: in every file of the package, each call ``f(...)`` or
    ``module.f(...)`` outside a compiled function, and each name handed to such a call as an
    argument (``rows.run(step_rows, step_rows_parallel, ...)`` calls one of the two), is
    resolved through the file's imports; those that name a dispatcher are entries. (Compiled
    functions calling each other are compiled with their caller.)
    """
    compiled = dispatchers()
    root = Path(concordia_env.__file__).parent
    entries: dict[str, set[str]] = {}
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text())
        module = ".".join(path.relative_to(root.parent).with_suffix("").parts)
        names = _imported_names(tree, module)
        for node in _python_code(tree):
            for call in ast.walk(node):
                if not isinstance(call, ast.Call):
                    continue
                # the called function, and any compiled function handed to a call (``rows.run(serial, twin, ...)``)
                for func in (call.func, *call.args):
                    target = _re_exported(_call_target(func, names), compiled)
                    if target in compiled:
                        entries.setdefault(target, set()).add(str(path.relative_to(root.parent)))
    return entries


def _imported_names(tree: ast.Module, module: str) -> dict[str, str]:
    """name -> dotted path of what it refers to: ``from .x import f`` gives ``f -> package.x.f``."""
    package = module.rsplit(".", 1)[0]
    names: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            for alias in node.names:
                names[alias.asname or alias.name] = f"{base}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                names[alias.asname or alias.name.split(".")[0]] = (
                    alias.name if alias.asname else alias.name.split(".")[0]
                )
        elif isinstance(node, ast.FunctionDef) and node.col_offset == 0:
            names.setdefault(node.name, f"{module}.{node.name}")
    return names


def _python_code(tree: ast.Module) -> list[ast.AST]:
    """The parts of a module that run as Python: every statement but the compiled functions' bodies."""
    out: list[ast.AST] = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _is_compiled(node):
            continue
        out.append(node)
    return out


def _is_compiled(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    def name(d: ast.expr) -> str:
        d = d.func if isinstance(d, ast.Call) else d
        return d.attr if isinstance(d, ast.Attribute) else d.id if isinstance(d, ast.Name) else ""

    return any(
        name(d) in ("njit", "njit_borrowing", "njit_holding_gil", "njit_inline", "njit_parallel", "jit", "compiled")
        for d in node.decorator_list
    )


def _call_target(func: ast.expr, names: dict[str, str]) -> str | None:
    """The dotted name a call refers to, if the file's imports say: ``facts.free_slots`` -> its module path."""
    if isinstance(func, ast.Name):
        return names.get(func.id)
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in names:
        return f"{names[func.value.id]}.{func.attr}"
    return None


def _re_exported(target: str | None, compiled: dict[str, Dispatcher]) -> str | None:
    """A compiled function the strategy package re-exports (``concordia_env.strategy.play_rows``) by its own name.

    Code outside ``strategy/`` imports the core through its package (``tests/test_layering.py``).
    """
    if target is None or target in compiled or not target.startswith("concordia_env.strategy."):
        return target
    module, name = target.rsplit(".", 1)
    try:
        found = getattr(importlib.import_module(module), name, None)
    except ImportError:
        return target
    if isinstance(found, Dispatcher):
        return f"{found.py_func.__module__}.{found.py_func.__name__}"
    return target


def signatures() -> dict[str, list[str]]:
    return {name: sorted(map(str, d.signatures)) for name, d in dispatchers().items()}


def warm_up() -> None:
    """Ordinary use of every entry point (``concordia warmup``'s parts), then every campaign's ordinary path."""
    for part in PARTS:
        part.run()
    for campaign in CAMPAIGNS:  # whatever ordinary path the campaigns take, they take it here first
        _run(campaign, EXAMPLES // 2)


def _run(name: str, examples: int) -> None:
    @settings(max_examples=examples, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(data=st.data())
    def campaign(data: st.DataObject) -> None:
        fuzz.CAMPAIGNS[name].check(data)

    campaign()


def test_the_package_has_compiled_functions() -> None:
    names = dispatchers()
    for expected in ("entry_points.step", "legal.fill_legal", "scoring.score_parts", "effects.apply_action"):
        assert f"concordia_env.engine.rules.{expected}" in names
    assert "concordia_env.engine.observation.fill_observation" in names
    assert len(names) > 60


def test_the_source_scan_finds_the_entries() -> None:
    """The scan sees calls through module names and through imported names, and not compiled-to-compiled calls."""
    entries = python_entries()
    for expected in (
        "concordia_env.engine.rules.entry_points.legal_into_cache",  # legal_into_cache(...) imported by name in game.py
        "concordia_env.engine.rules.legal.fill_legal",  # fill_legal(...) imported by name
        "concordia_env.strategy.turn_enumeration.turn_options",  # turn_enumeration.turn_options(...) in strategy/api.py
        "concordia_env.engine.observation.observe_batch_into",  # from envs/vector_game.py
        "concordia_env.strategy.players.play_rows",  # called in envs/opponents.py through concordia_env.strategy
        "concordia_env.engine.rules.entry_points.play_plan",  # Game.play_plan
        "concordia_env.envs.threads.step_rows_turn_parallel",  # handed to RowThreads.run in envs/vector_game.py
    ):
        assert expected in entries, expected
    assert "concordia_env.strategy.planner.plan_trades" not in entries  # called by compiled code only


def test_signature_counts_stay_fixed_over_a_fuzz_run() -> None:
    warm_up()
    before = signatures()
    cold = sorted(name for name in python_entries() if not before[name])
    assert not cold, f"the warm-up does not reach these compiled entries of Python code: {cold}"
    for campaign in CAMPAIGNS:
        _run(campaign, EXAMPLES)
    after = signatures()
    added = {name: sorted(set(after[name]) - set(before.get(name, []))) for name in after}
    added = {name: sigs for name, sigs in added.items() if sigs}
    assert not added, f"odd inputs compiled new versions at run time: {added}"
    assert sum(map(len, after.values())) == sum(map(len, before.values()))
    twins = {name: sigs for name, sigs in after.items() if len({_writable(sig) for sig in sigs}) < len(sigs)}
    assert not twins, f"a read-only view (Game.state) reached compiled code, which compiled it again: {twins}"


def _writable(signature: str) -> str:
    """A signature with every array taken as writable: two signatures equal so differ in read-only-ness only."""
    return signature.replace("'C', True,", "'C', False,").replace("'A', True,", "'A', False,")


def test_the_strategy_core_compiles_once() -> None:
    """The strategy's entry points normalise their inputs: odd array types and numbers compile nothing new."""
    game = Game.new("italia", 3, seed=2)
    rng = strategy.new_rng(0)
    for _ in range(3):
        game.step(int(game.legal_actions()[0]))
    strategy_calls(game.state, game.map.tables, strategy.DEFAULT_PARAMS, 0.5, rng)  # ordinary use first
    concordia_env.agents.make("mcts", simulations=2, seed=0).act(game)
    before = signatures()
    wide = np.zeros((2, STATE_SIZE), dtype=np.int64)
    wide[0] = game.state
    odd_inputs = [
        (game.state.astype(np.int64), game.map.tables.astype(np.int64), strategy.DEFAULT_PARAMS.astype(np.float32), 1),
        (wide[0], game.map.tables.tolist(), list(strategy.DEFAULT_PARAMS), np.float32(0.25)),
        (game.state.tolist(), game.map.tables[::1], strategy.DEFAULT_PARAMS, np.int64(0)),
        (np.asfortranarray(game.state), game.map.tables, None, None),
    ]
    for state, tables, params, remaining in odd_inputs:
        strategy_calls(state, tables, params if params is not None else strategy.DEFAULT_PARAMS, remaining, rng)
    after = signatures()
    added = {name: sorted(set(after[name]) - set(before.get(name, []))) for name in after}
    added = {name: sigs for name, sigs in added.items() if sigs}
    assert not added, f"odd inputs compiled new versions of the strategy at run time: {added}"
