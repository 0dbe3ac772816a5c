"""Training for concordia-env, one script per method (config at the top, the loop in plain sight).

* ``concordia train afterstate --config afterstate_quick``: afterstate
  value iteration, the learner that beats the heuristic (:mod:`concordia_env.training.afterstate`; the
  ``learned`` agent; ``docs/training.md``).
* ``concordia train selfplay --config quick``: MaskablePPO over the flat
  actions against an opponent pool (:mod:`concordia_env.training.selfplay`).
* ``concordia train rllib``: multi-agent PPO on RLlib / Ray (:mod:`concordia_env.training.rllib`).

Shared modules: :mod:`.config` (configs and their command line; ``--config NAME`` finds a shipped
config in ``configs/``), :mod:`.pool` (opponent pool), :mod:`.evaluate` (evaluation with Wilson
intervals), :mod:`.policy_net` (the flat policy network), :mod:`.report` (learning curve and report).
"""
