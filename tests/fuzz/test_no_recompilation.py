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
import contextlib
import functools
import importlib
import itertools
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numba.core.dispatcher import Dispatcher

import concordia_env
import concordia_env.agents  # the test builds an mcts agent
from concordia_env import NUM_ACTIONS, Game, IllegalActionError, VectorGame, strategy
from concordia_env.engine.position import from_json
from concordia_env.engine.rules.setup import most_valuable_goods
from concordia_env.engine.state import PHASE_PLAY_CARD, STATE_SIZE
from concordia_env.envs.gym_env import SingleAgentEnv
from concordia_env.envs.pettingzoo_env import raw_env
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


#: the package's parts that hold no compiled function
UNCOMPILED_PARTS = ("views", "tools", "training", "benchmarks", "integrations")


def dispatchers() -> dict[str, Dispatcher]:
    """Every compiled function of the package, by module and name."""
    found: dict[str, Dispatcher] = {}
    root = Path(concordia_env.__file__).parent
    for path in sorted(root.rglob("*.py")):  # the rules are a namespace package: walk the files
        parts = path.relative_to(root.parent).with_suffix("").parts
        if parts[1] in UNCOMPILED_PARTS or parts[-1] in ("__init__", "__main__", "_aliases"):
            continue  # these parts compile nothing (and import matplotlib, torch, Ray...)
        module_name = ".".join(parts)
        module = importlib.import_module(module_name)
        for name, value in vars(module).items():
            if isinstance(value, Dispatcher) and value.py_func.__module__ == module_name:
                found[f"{module_name}.{name}"] = value
    return found


@functools.cache
def python_entries() -> dict[str, set[str]]:
    """Every compiled function that Python code of the package calls, with the files that call it.

    Read from the source: in every file of the package, each call ``f(...)`` or
    ``module.f(...)`` outside a compiled function is resolved through the file's imports;
    those that name a dispatcher are entries. (Compiled functions calling each other are
    compiled with their caller.)
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
                target = _call_target(call.func, names)
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

    return any(name(d) in ("njit", "njit_borrowing", "njit_parallel", "jit", "compiled") for d in node.decorator_list)


def _call_target(func: ast.expr, names: dict[str, str]) -> str | None:
    """The dotted name a call refers to, if the file's imports say: ``facts.free_slots`` -> its module path."""
    if isinstance(func, ast.Name):
        return names.get(func.id)
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in names:
        return f"{names[func.value.id]}.{func.attr}"
    return None


def signatures() -> dict[str, list[str]]:
    return {name: sorted(map(str, d.signatures)) for name, d in dispatchers().items()}


def warm_up() -> None:
    """Ordinary use of every entry point: games on every map, the loader in every decision, batches, envs."""
    rng = np.random.default_rng(0)
    _decode_every_range()
    Game.new("italia", 2, seed=0).with_hidden_stack_shuffled(rng)  # the hidden-stack rule, from Python
    bridge = Game.new("creta", 3, seed=0)
    most_valuable_goods(bridge.map, bridge.state.copy())  # the OpenSpiel bridge's chance-node setup, from Python
    for i, name in enumerate(("imperium", "italia", "aegyptus", "creta")):
        game = Game.new(name, 3, seed=i, intermediate_scoring=bool(i % 2))
        while not game.is_over():
            ending = game.final_turns_left is not None  # the loader checks the end's countdown (facts)
            if (game.phase != PHASE_PLAY_CARD and rng.random() < 0.3) or (ending and rng.random() < 0.5):
                assert from_json(game.to_json()) == game
            game.observation(game.current_player)
            game.score_breakdown(game.current_player)
            _ask_rule_queries(game)
            game.step(int(rng.choice(game.legal_actions())))
            if rng.random() < 0.02:  # every illegal action explained: the explanations query the rules too
                for a in range(NUM_ACTIONS):
                    with contextlib.suppress(IllegalActionError):
                        game.clone().step(a)
        game.final_scores()
        for reward in ("win", "score_delta"):
            vec = VectorGame(3, name, 3, seed=i, reward=reward)
            for _ in range(100):
                vec.step(vec.sample_actions())
                vec.observations()
    env = raw_env(map="italia", num_players=2)
    env.reset(seed=1)
    for _ in range(50):
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    gym = SingleAgentEnv(map="italia", num_players=2, opponents="heuristic")
    gym.reset(seed=1)
    gym.step(int(np.flatnonzero(gym.action_masks())[0]))
    for granularity in ("decision", "turn"):  # the options level: its options and a whole turn played
        options_env = SingleAgentEnv(map="italia", num_players=2, level="options", granularity=granularity)
        options_env.reset(seed=1)
        for _ in range(3):
            options_env.step(int(np.flatnonzero(options_env.action_masks())[0]))
    _warm_up_strategy_and_agents()
    _warm_up_batches()
    for campaign in CAMPAIGNS:  # whatever ordinary path the campaigns take, they take it here first
        _run(campaign, EXAMPLES // 2)


def _warm_up_strategy_and_agents() -> None:
    """The strategy core's every entry (with a game's read-only state and with own arrays) and every agent."""
    for name, players in (("italia", 2), ("imperium", 4), ("creta", 3), ("aegyptus", 5)):
        game = Game.new(name, players, seed=3)
        for _ in range(12):
            game.step(int(game.legal_actions()[0]))
        rng = strategy.new_rng(0)
        strategy_calls(game.state, game.map.tables, strategy.DEFAULT_PARAMS, 0.5, rng)
        strategy_calls(game.state.copy(), game.map.tables, strategy.DEFAULT_PARAMS, None, rng)
        for spec in (
            "random:seed=0",
            "heuristic:seed=0",
            "learned:simulations=0",
            "learned:simulations=3,seed=0",
            "mcts:simulations=3,seed=0",
        ):
            concordia_env.agents.from_spec(spec).act(game.clone())
        recorder = concordia_env.agents.make("learned", record=True, seed=0)  # the readable Python route
        recorder.act(game.clone())
        for _, candidates, _ in recorder.trace:
            assert candidates.features.shape[0] == len(candidates.scores(recorder.model_for(game)))
        for rollout in ("random", "heuristic", "none"):
            for evaluation in ("heuristic", "score"):
                agent = concordia_env.agents.make(
                    "mcts", simulations=3, rollout=rollout, evaluation=evaluation, rollout_rounds=1, seed=0
                )
                agent.act(game.clone())


def _warm_up_batches() -> None:
    """Every entry of the batch: each reward kind, observations for chosen seats, the batched observation."""
    from concordia_env.engine.observation import observe_batch

    for reward in ("win", "rank", "vp", "score_delta"):
        vec = VectorGame(2, "italia", 2, seed=0, reward=reward)
        for _ in range(30):
            vec.step(vec.sample_actions())
        vec.observations(np.zeros(2, dtype=np.int64))
        vec.legal_masks(), vec.current_players, vec.game(0)
        observe_batch(vec.states, vec.map.tables, np.ones(2, dtype=np.int64))
    # the compiled players inside the batch; one thread and the threads' twins (envs.threads)
    for opponents, threads in itertools.product((None, "random", "heuristic", "learned"), (1, 2)):
        vec = VectorGame(2, "italia", 2, seed=0, opponents=opponents, threads=threads)
        buffer = np.empty((2, vec.obs_size), dtype=np.float32)
        for _ in range(10):
            vec.step(vec.sample_actions(), observe_into=buffer)
            vec.step(vec.sample_actions())
        vec.scores(), vec.observations(), vec.legal_masks()
        vec.close()
    # the options level of the vector env; a turn cap restarts rows, whose options are computed alone
    from concordia_env.envs.vector_env import ConcordiaVectorEnv

    for threads in (1, 2):
        venv = ConcordiaVectorEnv(2, opponents="heuristic", map="italia", num_players=2, level="options",
                                  max_turns=2, threads=threads, seed=0)  # fmt: skip
        venv.reset(seed=0)
        for _ in range(8):
            venv.step(np.argmax(venv.action_masks(), axis=1))
        venv.close()


def _ask_rule_queries(game: Game) -> None:
    """Every rule query of ``Game`` once, so that none compiles for the first time during the fuzz run
    (which of them ran earlier in the same test worker must not decide the outcome)."""
    p = max(game.current_player, 0)
    game.free_slots(p), game.colonists_on_board(p), game.architect_steps(p)
    game.house_price(0), game.house_prices(), game.can_afford_house(p, 0)
    game.path_distance(0, 0), game.places_next_to(0), game.reachable_places(p), game.reachable_places(p, 2)
    game.prefect_production(0), game.cash_bonus(), game.trades_left, game.tribune_money(p), game.colonist_tax(p)
    game.slot_cost(0)
    with contextlib.suppress(ValueError):  # an empty slot, or one whose 'any' good needs naming
        game.display_price(0), game.buy_cost(0)


def _decode_every_range() -> None:
    """Every action encoder and decoder of ``engine.actions`` once, and every action described in a few positions.

    Python code (menus, descriptions, agents) calls these compiled functions directly, each
    with its ordinary argument types: warming them here keeps the outcome independent of
    which random positions the games below happen to reach.
    """
    import inspect

    from concordia_env.engine import actions as A
    from concordia_env.engine.describe import describe, explain_illegal
    from concordia_env.engine.rules import legal

    for name, first, _length, _doc in A.ACTION_LAYOUT.fields:
        decoder = getattr(A, f"decode_{name.lower()}", None)
        if decoder is not None:
            decoder(first)
    for name in ("play", "diplomat", "move", "build", "produce", "choose_good", "sell", "buy", "settle"):
        encoder = getattr(A, name)
        encoder(*([0] * len(inspect.signature(encoder.py_func).parameters)))
    A.buy_card(0), A.buy_card(0, 0), A.buy_card_variant(0, 0), A.tribune_colonist(0)
    state = Game.new("italia", 2, seed=0)._state  # what a refused Diplomat's words read (a rare refusal)
    legal.copyable_top(state, legal.diplomat_target(state, 0, 0))
    for map_name in ("imperium", "italia", "aegyptus", "creta"):
        game = Game.new(map_name, 3, seed=0)
        for decisions in range(40):
            if decisions % 8 == 0:
                legal = game.legal_mask()
                for a in range(NUM_ACTIONS):
                    describe(game.state, game.map, a)
                    if not legal[a]:  # every refusal in words, Diplomat targets included
                        explain_illegal(game.state, game.map, a)
            game.step(int(game.legal_actions()[decisions % len(game.legal_actions())]))


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


def strategy_calls(state, tables, params, remaining, rng) -> None:
    """Every entry point of the strategy core once, with the given inputs."""
    strategy.remaining_fraction(state, tables)
    strategy.evaluate(state, tables, params, remaining)
    strategy.decide(state, tables, params, remaining)
    options = strategy.turn_options(state, tables, params, remaining)
    strategy.best_option(options, 0)
    strategy.utility(options.values[0], 0)
    start = [int(options.first[0, 0])]
    strategy.plan_turn(state, tables, start, params, remaining)
    strategy.replay(state, tables, options.plans[0, : options.lengths[0]])
    strategy.determinized(state, rng)
    strategy.score_estimate(state, tables)
    own = np.array(state, dtype=np.int32)
    strategy.rollout_turns(own, np.asarray(tables), np.asarray(params, dtype=np.float64), 2, rng)
    strategy.random_rollout(np.array(state, dtype=np.int32), np.asarray(tables), 2, rng)
    for rollout, pause in (("heuristic", False), ("random", True)):
        settings = strategy.search_settings(0.1, 30, rollout, 2, "heuristic", pause=pause)
        tree = strategy.search_tree(state, strategy.search.new_tree(nodes=2, states=1, plan_entries=2, after=1))
        strategy.simulate(tree, tables, params, params, settings, rng, 3)
    model = concordia_env.agents.learned_model.AfterstateModel.heuristic_only((4,)).compiled
    guided = strategy.search_tree(state, strategy.search.new_tree(nodes=2, states=1, plan_entries=2, after=1))
    strategy.simulate(guided, tables, params, params, settings, rng, 3, model=model)
    player = int(options.values.shape[1]) - 1
    strategy.afterstate_features(options.afterstates, tables, options.values, player, 0.5)


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
