"""Ordinary use of every compiled entry point, part by part: what ``concordia warmup`` and the shipped code's build run.

numba compiles a function once per combination of argument types, on its first call with
them. Whatever these parts call is compiled (or loaded) ahead; whatever they do not call
compiles on first use. So each part calls every compiled entry point that Python code of
its kind calls, with the argument types the package's own code passes: games on every map
(observations, score breakdowns, positions, rule queries, every action described and every
refusal explained), every agent and every kind of MCTS rollout and evaluation, the strategy
core's entry points with a game's read-only state and with own arrays, ``VectorGame`` with
every reward and every compiled opponent on one thread and two, and every environment form
at both levels. ``tests/fuzz/test_no_recompilation.py`` checks that nothing the package's
Python code calls is left out, and that nothing the README's commands run compiles after it.

:data:`PARTS` lists them in the order they run; each is independent of the others (any
subset may run in any process, compiling whatever it calls that is not compiled yet), which
lets ``concordia warmup`` run them on several cores. Each part also names the parts whose
compiled code it calls (``needs``): run after them, it loads their code instead of compiling
its own copy, and :func:`concordia_env.tools.warmup.schedule` runs the parts in stages by it.
"""

from __future__ import annotations

import contextlib
import inspect
import itertools
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

MAPS = ("imperium", "italia", "aegyptus", "creta")


def rules() -> None:
    """``Game``: whole games on every map (steps, legal actions, observations, scoring, positions, rule queries)."""
    from concordia_env.engine.actions import NUM_ACTIONS
    from concordia_env.engine.errors import IllegalActionError
    from concordia_env.engine.game import Game
    from concordia_env.engine.position import from_json
    from concordia_env.engine.rules.setup import most_valuable_goods
    from concordia_env.engine.state import PHASE_PLAY_CARD

    rng = np.random.default_rng(0)
    describe_every_action()
    Game.new("italia", 2, seed=0).with_hidden_stack_shuffled(rng)  # the hidden-stack rule, from Python
    bridge = Game.new("creta", 3, seed=0)
    most_valuable_goods(bridge.map, bridge.state.copy())  # the OpenSpiel bridge's chance-node setup
    tables = [(name, 3, i) for i, name in enumerate(MAPS)] + [("italia", 2, 4), ("imperium", 4, 5), ("imperium", 5, 6)]
    for name, players, seed in tables:
        game = Game.new(name, players, seed=seed, intermediate_scoring=bool(seed % 2))
        while not game.is_over():
            ending = game.final_turns_left is not None  # the loader checks the end's countdown
            if (game.phase != PHASE_PLAY_CARD and rng.random() < 0.3) or (ending and rng.random() < 0.5):
                from_json(game.to_json())
            game.observation(game.current_player)
            game.score_breakdown(game.current_player)
            ask_rule_queries(game)
            game.step(int(rng.choice(game.legal_actions())))
            if rng.random() < 0.02:  # every illegal action refused and explained
                for a in range(NUM_ACTIONS):
                    with contextlib.suppress(IllegalActionError):
                        game.clone().step(a)
        game.final_scores(), game.winner()
        game.observation(0)


def ask_rule_queries(game) -> None:
    """Every rule query of ``Game`` once."""
    p = max(game.current_player, 0)
    game.free_slots(p), game.colonists_on_board(p), game.architect_steps(p)
    game.house_price(0), game.house_prices(), game.can_afford_house(p, 0)
    game.path_distance(0, 0), game.places_next_to(0), game.reachable_places(p), game.reachable_places(p, 2)
    game.prefect_production(0), game.cash_bonus(), game.trades_left, game.tribune_money(p), game.colonist_tax(p)
    game.slot_cost(0)
    with contextlib.suppress(ValueError):  # an empty slot, or one whose 'any' good needs naming
        game.display_price(0), game.buy_cost(0)


def describe_every_action() -> None:
    """Every action encoder and decoder once; every action described, every refusal explained, in a few positions."""
    from concordia_env.engine import actions as A
    from concordia_env.engine.actions import NUM_ACTIONS
    from concordia_env.engine.describe import describe, explain_illegal
    from concordia_env.engine.game import Game
    from concordia_env.engine.rules import legal

    for name, first, _length, _doc in A.ACTION_LAYOUT.fields:
        decoder = getattr(A, f"decode_{name.lower()}", None)
        if decoder is not None:
            decoder(first)
    for name in ("play", "diplomat", "move", "build", "produce", "choose_good", "sell", "buy", "settle"):
        encoder = getattr(A, name)
        encoder(*([0] * len(inspect.signature(encoder.py_func).parameters)))
    A.buy_card(0), A.buy_card(0, 0), A.buy_card_variant(0, 0), A.tribune_colonist(0)
    state = Game.new("italia", 2, seed=0).state.copy()  # what a refused Diplomat's words read (a rare refusal)
    legal.copyable_top(state, legal.diplomat_target(state, 0, 0))
    for map_name in MAPS:
        game = Game.new(map_name, 3, seed=0)
        for decisions in range(40):
            if decisions % 8 == 0:
                mask = game.legal_mask()
                for a in range(NUM_ACTIONS):
                    describe(game.state, game.map, a)
                    if not mask[a]:  # every refusal in words, Diplomat targets included
                        explain_illegal(game.state, game.map, a)
            game.step(int(game.legal_actions()[decisions % len(game.legal_actions())]))


def _games_at_turn_five() -> list:
    """A game of each table size a few decisions in, where agents meet most kinds of decision soon."""
    from concordia_env.engine.game import Game

    games = []
    for name, players in (("italia", 2), ("imperium", 4), ("creta", 3), ("aegyptus", 5)):
        game = Game.new(name, players, seed=3)
        for _ in range(12):
            game.step(int(game.legal_actions()[0]))
        games.append(game)
    return games


def _play(spec: str, decisions: int = 40) -> None:
    """``decisions`` decisions of 2-player Italia by one agent, from the start."""
    from concordia_env import agents
    from concordia_env.engine.game import Game

    game = Game.new("italia", 2, 0)
    agent = agents.from_spec(spec)
    agent.reset(0)
    for _ in range(decisions):
        if game.is_over():
            break
        game.step(agent.act(game.clone()))


def heuristic() -> None:
    """The heuristic agent (the strategy core's turn plans), and the random agent."""
    from concordia_env import agents

    _play("heuristic")
    for game in _games_at_turn_five():
        for spec in ("random:seed=0", "heuristic:seed=0"):
            agents.from_spec(spec).act(game.clone())


def mcts() -> None:
    """MCTS with every rollout and evaluation."""
    from concordia_env import agents

    _play("mcts:8")
    for game in _games_at_turn_five():
        agents.from_spec("mcts:simulations=3,seed=0").act(game.clone())
        for rollout in ("random", "heuristic", "none"):
            for evaluation in ("heuristic", "score"):
                settings = {"rollout": rollout, "evaluation": evaluation, "rollout_rounds": 1, "seed": 0}
                agents.make("mcts", simulations=3, **settings).act(game.clone())


def learned() -> None:
    """The learned agent: its compiled decision, its search, the Python route that records, its features."""
    from concordia_env import agents
    from concordia_env.agents.learned_model import FEATURE_COUNTS, afterstate_features, batch_features

    _play("learned")
    _play("learned:simulations=8")
    for game in _games_at_turn_five():
        for spec in ("learned:simulations=0", "learned:simulations=3,seed=0"):
            agents.from_spec(spec).act(game.clone())
        recorder = agents.make("learned", record=True, seed=0)
        recorder.act(game.clone())
        values = np.zeros(game.num_players, dtype=np.float64)  # the features at every width (expert iteration's)
        for width in FEATURE_COUNTS.values():
            batch_features(game.state[None, :], game.map.tables, values[None, :], 0, 0.5, width)
        afterstate_features(game, values, 0, 0.5)


def strategy_core() -> None:
    """Every entry point of the strategy core, with a game's read-only state and with own arrays."""
    from concordia_env import strategy

    for game in _games_at_turn_five():
        rng = strategy.new_rng(0)
        strategy_calls(game.state, game.map.tables, strategy.DEFAULT_PARAMS, 0.5, rng)
        strategy_calls(game.state.copy(), game.map.tables, strategy.DEFAULT_PARAMS, None, rng)


def strategy_calls(state, tables, params, remaining, rng) -> None:
    """Every entry point of the strategy core once, with the given inputs."""
    from concordia_env import strategy
    from concordia_env.agents.learned_model import AfterstateModel

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
        tree = strategy.search_tree(state, strategy.new_tree(nodes=2, states=1, plan_entries=2, after=1))
        strategy.simulate(tree, tables, params, params, settings, rng, 3)
    model = AfterstateModel.heuristic_only((4,)).compiled
    guided = strategy.search_tree(state, strategy.new_tree(nodes=2, states=1, plan_entries=2, after=1))
    strategy.simulate(guided, tables, params, params, settings, rng, 3, model=model)
    player = int(options.values.shape[1]) - 1
    strategy.afterstate_features(options.afterstates, tables, options.values, player, 0.5)


def vector_game() -> None:
    """``VectorGame`` without opponents: every reward, observations, one thread and two (the rules alone)."""
    from concordia_env.engine.observation import observe_batch
    from concordia_env.envs.vector_game import VectorGame

    for seed, (name, reward) in enumerate(zip(MAPS, ("win", "score_delta", "win", "score_delta"), strict=True)):
        vec = VectorGame(3, name, 3, seed=seed, reward=reward)
        for _ in range(100):
            vec.step(vec.sample_actions())
            vec.observations()
    for reward in ("win", "rank", "vp", "score_delta"):
        vec = VectorGame(2, "italia", 2, seed=0, reward=reward)
        for _ in range(30):
            vec.step(vec.sample_actions())
        vec.observations(np.zeros(2, dtype=np.int64))
        vec.legal_masks(), vec.current_players, vec.game(0)
        observe_batch(vec.states, vec.map.tables, np.ones(2, dtype=np.int64))
    _vector_game_steps(None, threads=1)
    _vector_game_steps(None, threads=2)


def _vector_game_steps(opponents: str | None, threads: int) -> None:
    """Ten steps of a ``VectorGame`` of two rows with ``opponents`` on ``threads`` threads, observed both ways."""
    from concordia_env.envs.vector_game import VectorGame

    vec = VectorGame(2, "italia", 2, seed=0, opponents=opponents, threads=threads)
    buffer = np.empty((2, vec.obs_size), dtype=np.float32)
    for _ in range(10):
        vec.step(vec.sample_actions(), observe_into=buffer)
        vec.step(vec.sample_actions())
    vec.scores(), vec.observations(), vec.legal_masks()
    vec.close()


def batch_opponents() -> None:
    """``VectorGame`` with every compiled opponent, and the vector env at both levels (the options level at both
    granularities), on one thread and two."""
    from concordia_env.envs.vector_env import ConcordiaVectorEnv

    for opponents, threads in itertools.product(("random", "heuristic", "learned"), (1, 2)):
        _vector_game_steps(opponents, threads)
    for opponents in ("heuristic", "learned"):
        flat = ConcordiaVectorEnv(4, opponents=opponents, map="italia", num_players=2, threads=2)
        flat.reset(seed=0)
        for _ in range(10):
            flat.step(flat.action_space.sample())
        flat.close()
    # a turn cap restarts rows, whose options are then computed alone; "turn" plays the learner's whole turn
    for granularity, threads in itertools.product(("decision", "turn"), (1, 2)):
        options = ConcordiaVectorEnv(2, opponents="heuristic", map="italia", num_players=2, level="options",
                                     granularity=granularity, max_turns=2, threads=threads, seed=0)  # fmt: skip
        options.reset(seed=0)
        for _ in range(8):
            options.step(np.argmax(options.action_masks(), axis=1))
        options.close()


def single_envs() -> None:
    """The options level of ``SingleAgentEnv`` (both granularities), the flat one, and PettingZoo's AEC env."""
    from concordia_env.envs.gym_env import SingleAgentEnv
    from concordia_env.envs.pettingzoo_env import raw_env

    for granularity in ("decision", "turn"):  # the options level: its options and a whole turn played
        options_env = SingleAgentEnv(map="italia", num_players=2, level="options", granularity=granularity)
        options_env.reset(seed=1)
        for _ in range(3):
            options_env.step(int(np.flatnonzero(options_env.action_masks())[0]))
    env = raw_env(map="italia", num_players=2)
    env.reset(seed=1)
    for _ in range(50):
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    gym = SingleAgentEnv(map="italia", num_players=2, opponents="heuristic")
    gym.reset(seed=1)
    gym.step(int(np.flatnonzero(gym.action_masks())[0]))


class Part(NamedTuple):
    """One part of the compiled code: what it is, how it is compiled, what it builds on and what that costs."""

    #: what is compiled, in words
    name: str
    #: ordinary use of it (compiles or loads it)
    run: Callable[[], None]
    #: the indices in :data:`PARTS` of the parts whose compiled code it calls
    needs: tuple[int, ...]
    #: its compile after those, in seconds on the 2-core development machine (docs/engine.md): how
    #: ``concordia warmup`` deals a stage's parts out among its processes
    seconds: float


#: every part, in the order one process runs them (each after the parts it needs)
PARTS: tuple[Part, ...] = (
    Part("the rules (Game)", rules, (), 32),
    Part("the heuristic", heuristic, (0,), 54),
    Part("VectorGame", vector_game, (0,), 26),
    Part("MCTS", mcts, (1,), 36),
    Part("the vector env at both levels, and VectorGame with compiled opponents", batch_opponents, (1, 2), 90),
    Part("the learned agent and its search", learned, (1,), 3),
    Part("the options level of SingleAgentEnv, and PettingZoo", single_envs, (1,), 6),
    Part("the strategy core's entry points", strategy_core, (1,), 1),
)
