"""Training for concordia-env, one script per method (config at the top, the loop in plain sight).

* ``python -m training.afterstate --config training/configs/afterstate_quick.yaml``: afterstate
  value iteration, the learner that beats the heuristic (:mod:`training.afterstate`; the
  ``learned`` agent; ``docs/training.md``).
* ``python -m training.selfplay --config training/configs/quick.yaml``: MaskablePPO over the flat
  actions against an opponent pool (:mod:`training.selfplay`).
* ``python -m training.rllib``: multi-agent PPO on RLlib / Ray (:mod:`training.rllib`).

Shared modules: :mod:`~training.config` (configs and their command line), :mod:`~training.pool`
(opponent pool), :mod:`~training.evaluate` (evaluation with Wilson intervals),
:mod:`~training.policy_net` (the flat policy network), :mod:`~training.report` (learning curve
and report).
"""
