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

This package is the strategy's one public face: code outside ``strategy/`` imports from
``concordia_env.strategy``, never from its modules (``tests/test_layering.py`` keeps it so).
It re-exports

* the Python entry points (:mod:`.api`: checked inputs, then one compiled call);
* the learned scorer's feature layout and model packing (:mod:`.afterstate_scorer`), which
  the numpy model, the policies and the training scripts share;
* the compiled players and their kinds (:mod:`.players`), which a batched environment runs
  for its opponents;
* for compiled callers (the environments' numba code, a benchmark timing the bare core): the
  compiled functions themselves, which take raw arrays unchecked. Where an entry point of
  :mod:`.api` has the name, the compiled function is ``compiled_<name>``
  (``compiled_turn_options``, ``compiled_remaining_fraction``, ``compiled_utility``).
"""

from .afterstate_scorer import (
    BOARD_INDEX,
    FEATURE_COUNTS,
    FEATURE_WIDTHS,
    FEATURES_VERSION,
    MARGIN_SCALE,
    UTILITY_INDEX,
    VALUE_SCALE,
    board_features,
    check_features_version,
    features_version,
    option_features,
    pack_model,
)
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
from .determinization import determinize
from .evaluation import remaining_fraction as compiled_remaining_fraction
from .evaluation import utility as compiled_utility
from .params import P_OPPONENT_WEIGHT
from .planner import MAX_TURN_DECISIONS, STATUS_ILLEGAL, STATUS_SIZE
from .players import (
    HEURISTIC,
    LEARNED,
    LEARNED_KINDS,
    LEARNED_PLANNED,
    RANDOM,
    SEED_BOUND,
    CompiledPlayer,
    SeatPlayer,
    compiled_model,
    play_row,
    play_rows,
)
from .search import PRIOR_VISITS, new_tree
from .turn_enumeration import MAX_FIRST
from .turn_enumeration import turn_options as compiled_turn_options

__all__ = [
    "BOARD_INDEX",
    "DEFAULT_PARAMS",
    "DEFAULT_PLANNER",
    "DEFAULT_WEIGHTS",
    "FEATURES_VERSION",
    "FEATURE_COUNTS",
    "FEATURE_WIDTHS",
    "HEURISTIC",
    "LEARNED",
    "LEARNED_KINDS",
    "LEARNED_PLANNED",
    "MARGIN_SCALE",
    "MAX_FIRST",
    "MAX_TURN_DECISIONS",
    "NO_NOISE",
    "NUM_FEATURES",
    "NUM_PARAMS",
    "OBSERVATION_COLUMNS",
    "PRIOR_VISITS",
    "P_OPPONENT_WEIGHT",
    "RANDOM",
    "ROLLOUT_NONE",
    "ROLLOUT_POLICY",
    "ROLLOUT_RANDOM",
    "SEARCH_EVALUATIONS",
    "SEARCH_ROLLOUTS",
    "SEED_BOUND",
    "STATUS_ILLEGAL",
    "STATUS_SIZE",
    "STOP_PAUSE",
    "STOP_ROOM",
    "UNLIMITED_TURNS",
    "UTILITY_INDEX",
    "VALUE_SCALE",
    "CompiledPlayer",
    "ModelArrays",
    "PlannerSettings",
    "RolloutSettings",
    "SearchExpansion",
    "SeatPlayer",
    "Tree",
    "TurnOptions",
    "Weights",
    "afterstate_features",
    "afterstate_scores",
    "best_option",
    "board_features",
    "check_features_version",
    "compiled_model",
    "compiled_remaining_fraction",
    "compiled_turn_options",
    "compiled_utility",
    "decide",
    "determinize",
    "determinized",
    "evaluate",
    "expansion",
    "features_version",
    "new_rng",
    "new_tree",
    "option_features",
    "pack_model",
    "params_array",
    "plan_turn",
    "play_row",
    "play_rows",
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
