"""Turn options, agents' decisions and the options level as recorded before their speed-ups.

The turn options (:func:`concordia_env.strategy.turn_options`) are the default ``learned``
agent's decision, the heuristic's card choice and the options level's step; making them
cheaper must change nothing. ``recorded_options.json`` holds what the code gave before the
speed-ups (recorded with ``main`` at 248d254):

* for every third decision with a choice in six games between heuristics (four maps, two to
  five players, a fifth of the moves random), the options of a determinized copy: their
  first actions, afterstates, plans and plan lengths exactly, their values to 1e-9;
* every action of whole games between default ``learned`` agents (four maps and counts) and
  between heuristics;
* the options level of the vector env, stepped with random options against the heuristic and
  against ``learned``: every observation (floats to 1e-5), reward, end and option list.

Each is kept as a short SHA-256 digest. Should a change alter any of them on purpose,
record again with ``python tests/strategy/test_recorded_options.py --record`` and say why in
CHANGELOG.md.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from concordia_env import ConcordiaVectorEnv, Game, agents, strategy

RECORDED = Path(__file__).with_name("recorded_options.json")
#: (map, players) of the recorded games
GAMES = [("italia", 2), ("imperium", 3), ("imperium", 4), ("aegyptus", 5), ("creta", 2), ("italia", 3)]
#: the games between ``learned`` agents (the first of GAMES)
LEARNED_GAMES = 4
#: the options of every this-many-th decision are recorded
EVERY = 3
#: options-level steps recorded per opponent
ENV_STEPS = 100


def digest(*arrays: np.ndarray) -> str:
    """A short digest of the arrays' dtypes, shapes and bytes."""
    d = hashlib.sha256()
    for a in arrays:
        a = np.ascontiguousarray(a)
        d.update(f"{a.dtype}{a.shape}".encode())
        d.update(a.tobytes())
    return d.hexdigest()[:16]


def heuristic_games() -> tuple[list[list[Any]], list[str]]:
    """The recorded options (key, exact digest, value digest, illegal proposals) and each game's actions."""
    options: list[list[Any]] = []
    games: list[str] = []
    for i, (map_name, n) in enumerate(GAMES):
        game = Game.new(map_name, n, seed=100 + i)
        seats = [agents.make("heuristic", seed=10 * i + p) for p in range(n)]
        rng = np.random.default_rng(i)
        actions = []
        decision = 0
        while not game.is_over():
            legal = game.legal_actions()
            if len(legal) > 1 and decision % EVERY == 0:
                sim = strategy.determinized(game.state, strategy.new_rng(int(rng.integers(2**63 - 1))))
                opts = strategy.turn_options(sim, game.map.tables)
                exact = digest(opts.first, opts.afterstates, opts.plans, opts.lengths)
                options.append([f"{map_name}{n}/{decision}", exact, digest(np.round(opts.values, 9)), opts.illegal])
            action = seats[game.current_player].act(game)
            actions.append(action)
            game.step(action if rng.random() > 0.2 else int(rng.choice(legal)))
            decision += 1
        games.append(digest(np.array(actions)))
    return options, games


def learned_games() -> list[str]:
    """Every action of whole games between default ``learned`` agents."""
    games = []
    for i, (map_name, n) in enumerate(GAMES[:LEARNED_GAMES]):
        game = Game.new(map_name, n, seed=200 + i)
        seats = [agents.make("learned", seed=10 * i + p) for p in range(n)]
        actions = []
        while not game.is_over():
            actions.append(seats[game.current_player].act(game))
            game.step(actions[-1])
        games.append(digest(np.array(actions)))
    return games


def options_level() -> list[str]:
    """The options level's observations, rewards, ends and option lists, step by step."""
    steps = []
    for opponents in ("heuristic", "learned"):
        env = ConcordiaVectorEnv(4, opponents=opponents, map="italia", num_players=2, threads=1, level="options")
        env.reset(seed=7)
        rng = np.random.default_rng(7)
        for _ in range(ENV_STEPS):
            actions = np.array([int(rng.choice(np.flatnonzero(m))) for m in env.action_masks()])
            obs, reward, terminated, truncated, info = env.step(actions)
            shown = [np.round(obs[k], 5) if obs[k].dtype.kind == "f" else obs[k] for k in sorted(obs)]
            steps.append(digest(*shown, reward, terminated, truncated, info["option_actions"]))
    return steps


def record() -> dict[str, Any]:
    options, heuristic = heuristic_games()
    return {"options": options, "heuristic_games": heuristic, "learned_games": learned_games(), "env": options_level()}


def test_turn_options_and_decisions_are_the_recorded_ones() -> None:
    recorded = json.loads(RECORDED.read_text())
    now = record()
    assert len(now["options"]) > 400
    for then, found in zip(recorded["options"], now["options"], strict=True):
        assert then == found, f"the options of {then[0]} changed"
    assert now["heuristic_games"] == recorded["heuristic_games"]
    assert now["learned_games"] == recorded["learned_games"]
    for step, (then, found) in enumerate(zip(recorded["env"], now["env"], strict=True)):
        assert then == found, f"the options level changed at recorded step {step}"


if __name__ == "__main__":
    if sys.argv[1:] != ["--record"]:
        sys.exit("usage: python tests/strategy/test_recorded_options.py --record")
    RECORDED.write_text(json.dumps(record(), indent=0) + "\n")
    print(f"recorded {RECORDED}")
