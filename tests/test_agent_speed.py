"""``concordia bench agent_speed``: every agent's cost as a multiple of the engine's, in one run."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

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


def test_the_targets_are_on_the_bare_engine_s_scale() -> None:
    assert agent_speed.target_of("learned:replan=False", "learned") == 25.0
    assert agent_speed.target_of("learned", "learned") == 25.0  # the default, deciding at every decision
    assert agent_speed.target_of("learned:path=m.npz", "learned") is None  # another setting: compared, no target
    assert agent_speed.RELATIVE_TARGETS["learned"] == ("heuristic", None)  # shown beside, no target
    assert agent_speed.target_of("heuristic", "heuristic") == 8.0
    assert agent_speed.target_of("mcts:30", "mcts") == 50.0


def test_the_engine_line_is_the_bare_engine_with_batched_draws(monkeypatch) -> None:
    """The denominator is legal_actions() + step(): its random numbers come in batches, never one call per decision."""
    from concordia_env.benchmarks import throughput

    batches: list[int] = []
    real_default_rng = np.random.default_rng

    class BatchOnly:
        """A generator that can only draw batches of uniforms (choice or integers would raise AttributeError)."""

        def __init__(self, seed: int) -> None:
            self._rng = real_default_rng(seed)

        def random(self, size: int) -> np.ndarray:
            batches.append(size)
            return self._rng.random(size)

    monkeypatch.setattr(throughput.np.random, "default_rng", BatchOnly)
    result = agent_speed.engine("italia", 2, 0.02)
    assert result.count >= 64 and result.count == sum(batches)
    assert set(batches) == {throughput.CLOCK_EVERY}


def test_the_learned_agent_is_measured_against_the_heuristic_of_the_same_run(tmp_path: Path) -> None:
    out = tmp_path / "speed.json"
    agent_speed.main(["--agents", "heuristic", "learned", "--seconds", "0.05", "--no-progress", "--json", str(out)])
    rows = {row["name"]: row for row in json.loads(out.read_text())["results"]}
    learned, heuristic = rows["learned"], rows["heuristic"]
    assert learned["versus"] == "heuristic" and learned["versus_target"] is None and learned["target"] == 25.0
    assert learned["versus_ratio"] == pytest.approx(learned["microseconds"] / heuristic["microseconds"])
    floor = rows[agent_speed.FLOOR_LINE]
    assert floor["versus"] == "heuristic" and floor["versus_target"] is None and floor["count"] > 0
    assert floor["versus_ratio"] == pytest.approx(floor["microseconds"] / heuristic["microseconds"])


def test_the_floor_times_the_enumeration_the_learned_agent_runs(monkeypatch) -> None:
    """The floor line times turn_options once per decision with a choice, and nothing else."""
    calls: list[int] = []
    real = agent_speed.compiled_turn_options

    def counted(sim, tables, params, remaining, status):
        calls.append(int(sim[0]))
        return real(sim, tables, params, remaining, status)

    monkeypatch.setattr(agent_speed, "compiled_turn_options", counted)
    result = agent_speed.learned_options_floor("italia", 2, 0.02)
    assert result.count == len(calls) > 0 and result.name == agent_speed.FLOOR_LINE


@pytest.mark.parametrize(
    "argv",
    [
        ["--players", "0"],
        ["--seconds", "-1"],
        ["--seconds", "nan"],
        ["--agents", "bogus"],
        ["--agents", "learned:path=no/such/model.npz"],
        ["--json", "/dev/null/speed.json"],
        ["--json", "."],
    ],
)
def test_bad_input_is_one_line_before_any_measurement(argv: list[str], monkeypatch, capsys) -> None:
    measured: list[str] = []
    monkeypatch.setattr(agent_speed, "run", lambda *a, **k: measured.append("run") or [])
    with pytest.raises(SystemExit) as stop:
        agent_speed.main([*argv, "--no-progress"])
    assert stop.value.code == 2 and measured == []
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("concordia bench agent_speed: error:")
    assert "Traceback" not in "\n".join(err)
