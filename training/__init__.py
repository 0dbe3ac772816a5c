"""Self-play training for concordia-env: MaskablePPO against an opponent pool.

Entry point: ``python -m training.selfplay --config training/configs/quick.yaml`` (see
:mod:`training.selfplay`). Modules: :mod:`~training.config` (the config and its command
line), :mod:`~training.pool` (opponent pool), :mod:`~training.evaluate` (evaluation with
Wilson intervals), :mod:`~training.policy_net` (the network), :mod:`~training.report`
(learning curve and report).
"""
