"""What one decision's play-outs and scores share changes none of them.

The options of a decision are played out with one cache (``planner.new_plan_cache``: the
players' values and the Architect's house values, which do not depend on where the
colonists stand) and one set of lookahead frames (``planner.new_frames``: a played card's
nested choices, a Prefect's province or a Diplomat's copy, reuse them), and the network's
first layer sums the inputs all options share once
(``afterstate_scorer.mlp_scores``). Here every option is played out alone, with a cache of
its own, and scored alone: the same afterstates, plans and values bit for bit, and the same
scores.
"""

from __future__ import annotations

import numpy as np

from concordia_env import Game, agents, strategy
from concordia_env.agents.learned import shipped_model_path
from concordia_env.agents.learned_model import AfterstateModel
from concordia_env.engine.state import CURRENT_PLAYER, PHASE, PHASE_ARCHITECT_MOVE, PHASE_PLAY_CARD
from concordia_env.strategy.afterstate_scorer import OBSERVATION_COLUMNS, score_options
from concordia_env.strategy.params import params_array
from concordia_env.strategy.turn_enumeration import MAX_FIRST, MAX_OPTIONS, option_starts, play_options


def architect_decisions(seed: int, count: int, phase: int = PHASE_ARCHITECT_MOVE):
    """Determinized positions of heuristic games where an Architect moves (or of ``phase``), with their share left."""
    game = Game.new("italia", 2, seed=seed)
    players = [agents.make("heuristic", seed=seed + seat) for seat in range(2)]
    rng = np.random.default_rng(seed)
    found = 0
    while not game.is_over() and found < count:
        if game.phase == phase and len(game.legal_actions()) > 2:
            sim = strategy.determinized(game.state, strategy.new_rng(int(rng.integers(2**63 - 1))))
            yield sim, game.map.tables, strategy.remaining_fraction(sim, game.map.tables)
            found += 1
        game.step(players[game.current_player].act(game))


def test_options_played_together_equal_each_played_alone() -> None:
    params = params_array()
    status = np.zeros(1, dtype=np.int64)
    options = 0
    for seed in (1, 2):
        for sim, tables, remaining in architect_decisions(seed, count=6):
            starts = np.zeros((MAX_OPTIONS, MAX_FIRST), dtype=np.int64)
            count = option_starts(sim, tables, starts)
            together = play_options(sim, tables, params, remaining, starts[:count].copy(), status)
            for k in range(count):
                alone = play_options(sim, tables, params, remaining, starts[k : k + 1].copy(), status)
                for whole, one in zip(together, alone, strict=True):
                    assert np.array_equal(whole[k], one[0])
            options += count
    assert status[0] == 0 and options > 100


def test_card_options_played_together_equal_each_played_alone() -> None:
    """The play-outs of a played card take nested lookahead decisions in the frames they share."""
    params = params_array()
    status = np.zeros(1, dtype=np.int64)
    options = 0
    for seed in (3, 4):
        for sim, tables, remaining in architect_decisions(seed, count=8, phase=PHASE_PLAY_CARD):
            assert sim[PHASE] == PHASE_PLAY_CARD
            starts = np.zeros((MAX_OPTIONS, MAX_FIRST), dtype=np.int64)
            count = option_starts(sim, tables, starts)
            together = play_options(sim, tables, params, remaining, starts[:count].copy(), status)
            for k in range(count):
                alone = play_options(sim, tables, params, remaining, starts[k : k + 1].copy(), status)
                for whole, one in zip(together, alone, strict=True):
                    assert np.array_equal(whole[k], one[0])
            options += count
    assert status[0] == 0 and options > 40


def test_options_scored_together_score_as_each_scored_alone() -> None:
    flat, shapes, ab = AfterstateModel.load(shipped_model_path(2)).compiled
    compared = 0
    for sim, tables, remaining in architect_decisions(3, count=8):
        options = strategy.turn_options(sim, tables, None, remaining)
        values = np.ascontiguousarray(options.values, dtype=np.float64)
        player = int(sim[CURRENT_PLAYER])
        together = score_options(
            options.afterstates, tables, values, player, remaining, OBSERVATION_COLUMNS, flat, shapes, ab
        )
        for k in range(len(together)):
            alone = score_options(
                options.afterstates[k : k + 1],
                tables,
                values[k : k + 1],
                player,
                remaining,
                OBSERVATION_COLUMNS,
                flat,
                shapes,
                ab,
            )
            assert together[k] == alone[0]
            compared += 1
    assert compared > 100
