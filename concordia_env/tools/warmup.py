"""``concordia warmup``: compile every compiled part ahead of time, so that no first use waits for numba.

::

    concordia warmup            # each part with the seconds it took; a second run only loads the cache

The rules, the strategy core and the batched environments are compiled by numba on their
first call and cached on disk. On a fresh install every part pays its compile on first use:
about 30-60 s for the rules, and as much again for each of the heuristic, MCTS, the
learned agent and the vector env, measured on a 2-core machine. This command pays them all
at once: it plays a few decisions of each part. Run it after installing (``make run`` and
CI do). A part that is already compiled only loads from the cache (a second or two).

What it compiles, in order (:data:`PARTS`): the rules (``Game``: steps, legal actions,
observations, scoring), the heuristic, MCTS, the learned agent (the scorer, with and
without its search), ``VectorGame`` (one thread and two), the vector env with compiled
opponents inside (``ConcordiaVectorEnv``, heuristic and learned) and the options level
(``level="options"``: the turn options and their afterstate features).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence

import numpy as np

from concordia_env import agents
from concordia_env.engine.game import Game
from concordia_env.envs.gym_env import SingleAgentEnv
from concordia_env.envs.vector_env import ConcordiaVectorEnv
from concordia_env.envs.vector_game import VectorGame

#: decisions each agent takes (enough to meet every kind of decision code path it compiles)
AGENT_DECISIONS = 40


def _random_game(map_name: str = "italia", players: int = 2, seed: int = 0) -> Game:
    """A whole random game: steps, legal actions, observations, descriptions and the final scoring."""
    game = Game.new(map_name, players, seed)
    rng = np.random.default_rng(seed)
    while not game.is_over():
        legal = game.legal_actions()
        game.observation(game.current_player)
        game.step(int(legal[rng.integers(len(legal))]))
    game.final_scores()
    game.score_breakdown(0)
    return game


def _rules() -> None:
    _random_game()
    _random_game("imperium", 4, 1)


def _agent(spec: str) -> Callable[[], None]:
    def play() -> None:
        game = Game.new("italia", 2, 0)
        agent = agents.from_spec(spec)
        agent.reset(0)
        for _ in range(AGENT_DECISIONS):
            if game.is_over():
                break
            game.step(agent.act(game.clone()))

    return play


def _vector_game() -> None:
    for threads in (1, 2):
        vec = VectorGame(4, map="italia", num_players=2, seed=0, threads=threads)
        buffer = vec.observations()
        for _ in range(20):
            vec.step(vec.sample_actions(), observe_into=buffer)


def _vector_env() -> None:
    for opponents in ("heuristic", "learned"):
        env = ConcordiaVectorEnv(4, opponents=opponents, map="italia", num_players=2, threads=2)
        env.reset(seed=0)
        for _ in range(10):
            env.step(env.action_space.sample())
        env.close()


def _options_level() -> None:
    env = SingleAgentEnv(level="options", opponents="heuristic", map="italia", num_players=2, seed=0)
    env.reset(seed=0)
    for _ in range(10):
        _, _, terminated, truncated, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
        if terminated or truncated:
            env.reset()


#: (what is compiled, how) in the order they run
PARTS: tuple[tuple[str, Callable[[], None]], ...] = (
    ("the rules (Game)", _rules),
    ("the heuristic", _agent("heuristic")),
    ("MCTS", _agent("mcts:8")),
    ("the learned agent", _agent("learned")),
    ("the learned agent's search", _agent("learned:simulations=8")),
    ("VectorGame", _vector_game),
    ("the vector env with compiled opponents", _vector_env),
    ("the options level", _options_level),
)


def warm_up(out: Callable[[str], object] = print) -> float:
    """Compile (or load from the cache) every part, reporting each with its seconds; returns the total."""
    total = time.perf_counter()
    for name, run in PARTS:
        start = time.perf_counter()
        run()
        out(f"  {name}: {time.perf_counter() - start:.1f} s")
    return time.perf_counter() - total


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="concordia warmup",
        description="Compile the rules, the agents' strategy core, MCTS, the learned scorer and the batched "
        "environments ahead of time (numba, cached on disk): a fresh install pays 30-60 s per part on first use.",
    )
    parser.parse_args(argv)
    print("compiling every part (cached on disk; a part compiled before only loads):", flush=True)
    seconds = warm_up(lambda line: print(line, flush=True))
    print(f"ready in {seconds:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
