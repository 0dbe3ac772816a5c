"""Benchmarks: engine and environment throughput, tournaments between agents, replays.

Each module is a command: ``python -m benchmarks.throughput``, ``python -m benchmarks.tournament``, ...
"""
