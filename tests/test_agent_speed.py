"""``concordia bench agent_speed``: every agent's cost as a multiple of the engine's, in one run."""

from __future__ import annotations

import json
from pathlib import Path

from concordia_env.benchmarks import agent_speed


def test_costs_are_ratios_to_the_engine_per_decision_or_per_simulation(tmp_path: Path, capsys) -> None:
    out = tmp_path / "speed.json"
    assert (
        agent_speed.main(["--agents", "mcts:3", "heuristic", "--seconds", "0.05", "--no-progress", "--json", str(out)])
        == 0
    )
    printed = capsys.readouterr().out
    assert "mcts:3" in printed and "simulation" in printed and "× engine" in printed
    rows = {row["name"]: row for row in json.loads(out.read_text())["results"]}
    assert rows["mcts:3"]["unit"] == "simulation" and rows["heuristic"]["unit"] == "decision"
    assert rows["mcts:3"]["target"] == agent_speed.TARGETS["mcts"]
    for row in rows.values():
        assert row["count"] > 0 and row["seconds"] > 0 and row["ratio"] > 0


def test_the_learned_target_is_the_plan_following_agent_s() -> None:
    assert agent_speed.target_of("learned:replan=False", "learned") == 10.0
    assert agent_speed.target_of("learned", "learned") is None  # deciding at every decision: measured, no target
    assert agent_speed.target_of("heuristic", "heuristic") == 7.0
    assert agent_speed.target_of("mcts:30", "mcts") == 20.0
