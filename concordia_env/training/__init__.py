"""Training for concordia-env, one script per method (config at the top, the loop in plain sight).

* ``concordia train expert --config expert_quick`` (``make run``): expert iteration, the
  ``learned`` agent's network taught by the tree search (:mod:`concordia_env.training.expert_iteration`;
  ``docs/training.md``).
* ``concordia train afterstate --config docs/reports/afterstate_long/config.yaml``: afterstate value iteration, the same
  network learned from the games' outcomes (:mod:`concordia_env.training.afterstate_learning`).
  Both are methods of one training loop, :mod:`concordia_env.training.loop` (play, fit,
  checkpoint, evaluate, report), around one network, :mod:`.afterstate_net`.
* ``concordia train selfplay --config quick``: MaskablePPO over the flat
  actions against an opponent pool (:mod:`concordia_env.training.selfplay`).
* ``concordia train rllib``: multi-agent PPO on RLlib / Ray (:mod:`concordia_env.training.rllib_ppo`).

Shared modules: :mod:`.config` (configs and their command line; ``--config NAME`` finds a shipped
config in ``configs/``), :mod:`.run_folder` (a run's folder: made fresh, one writer at a time,
files written whole), :mod:`.workers` (the process pools that play a run's games: local or Ray,
and what a lost worker does), :mod:`.pool` (opponent pool), :mod:`.run_evaluation` (evaluation with Wilson
intervals), :mod:`.policy_net` (the flat policy network), :mod:`.run_report` (learning curve and report).
"""
