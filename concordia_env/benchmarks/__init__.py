"""Benchmarks: speed against a peer or the engine in the same run, strength as win rates with intervals.

Each module is a command (``concordia bench NAME`` or ``python -m concordia_env.benchmarks.NAME``):
``throughput`` (the engine and environments against PettingZoo's ``connect_four_v3``),
``strength_bars`` (the agents' strength bars), ``ladder`` (every reference agent rated by one
round-robin tournament), ``openspiel_mcts`` (OpenSpiel's MCTS through the bridge).
"""
