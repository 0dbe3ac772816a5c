"""The strategy core: how to play Concordia well, compiled over the state array.

The engine (:mod:`concordia_env.engine.rules`) says what is legal and what an action does; this
package says what is *good*. It is the one home of the project's strategy: the heuristic
agent is a thin wrapper around it, tree search expands and rolls out with it, the learned
agent takes its candidates and their values from it. One route per decision:

    options → afterstates → values → choice

* :mod:`.evaluation`: every player's estimated final VP (the position evaluation);
* :mod:`.planner`: the rules of thumb for every decision of a turn, and the play-out of a turn;
* :mod:`.turn_enumeration`: every legal answer to the pending decision, played out to the end of the
  turn, with its afterstate and values (:func:`turn_options`);
* :mod:`.rollout`: the same planner with noise and cheaper settings, for tree search;
* :mod:`.search`: tree search over whole turns, the tree as arrays (:func:`search_tree`,
  :func:`simulate`);
* :mod:`.determinization`: the determinization that keeps the hidden stack hidden;
* :mod:`.afterstate_scorer`: the learned agent's scorer (features of every option, the model's MLP);
* :mod:`.players`: the agents themselves (random, heuristic, learned), compiled, for batches;
* ``engine.rules.pcg64``: numpy's default generator, compiled, so that those agents draw as the Python ones do;
* :mod:`.params`: the weights and settings, checked, packed into one float64 array;
* :mod:`.noise`: the strategy's own small random generator.

The Python entry points (checked inputs, then one compiled call) are in :mod:`.api`; this
package re-exports them.
"""

from .api import (
    DEFAULT_PARAMS,
    DEFAULT_PLANNER,
    DEFAULT_WEIGHTS,
    NO_NOISE,
    NUM_FEATURES,
    NUM_PARAMS,
    OBSERVATION_COLUMNS,
    ROLLOUT_NONE,
    ROLLOUT_POLICY,
    ROLLOUT_RANDOM,
    SEARCH_EVALUATIONS,
    SEARCH_ROLLOUTS,
    STOP_PAUSE,
    STOP_ROOM,
    UNLIMITED_TURNS,
    ModelArrays,
    PlannerSettings,
    RolloutSettings,
    SearchExpansion,
    Tree,
    TurnOptions,
    Weights,
    afterstate_features,
    afterstate_scores,
    best_option,
    decide,
    determinized,
    evaluate,
    expansion,
    new_rng,
    params_array,
    plan_turn,
    random_rollout,
    remaining_fraction,
    replay,
    rollout_turns,
    root_statistics,
    score_estimate,
    search_settings,
    search_tree,
    set_first_estimates,
    simulate,
    turn_options,
    utility,
)

__all__ = [
    "DEFAULT_PARAMS",
    "DEFAULT_PLANNER",
    "DEFAULT_WEIGHTS",
    "NO_NOISE",
    "NUM_FEATURES",
    "NUM_PARAMS",
    "OBSERVATION_COLUMNS",
    "ROLLOUT_NONE",
    "ROLLOUT_POLICY",
    "ROLLOUT_RANDOM",
    "SEARCH_EVALUATIONS",
    "SEARCH_ROLLOUTS",
    "STOP_PAUSE",
    "STOP_ROOM",
    "UNLIMITED_TURNS",
    "ModelArrays",
    "PlannerSettings",
    "RolloutSettings",
    "SearchExpansion",
    "Tree",
    "TurnOptions",
    "Weights",
    "afterstate_features",
    "afterstate_scores",
    "best_option",
    "decide",
    "determinized",
    "evaluate",
    "expansion",
    "new_rng",
    "params_array",
    "plan_turn",
    "random_rollout",
    "remaining_fraction",
    "replay",
    "rollout_turns",
    "root_statistics",
    "score_estimate",
    "search_settings",
    "search_tree",
    "set_first_estimates",
    "simulate",
    "turn_options",
    "utility",
]
