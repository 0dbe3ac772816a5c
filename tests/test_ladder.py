"""The ladder benchmark: one round-robin tournament, every pair in both seats, rated with intervals."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from concordia_env.benchmarks import ladder
from concordia_env.tools.tournament import run_tournament, seating


def test_every_pair_meets_in_both_seats_once_a_round() -> None:
    agents = ("random", "heuristic", "mcts:4")
    config = ladder.ladder_config(agents, rounds=2, seed=3)
    assert config.players == 2 and config.games == 2 * 3 * 2
    seatings = Counter(tuple(seating(config, i)) for i in range(config.games))
    assert set(seatings) == {(a, b) for a in agents for b in agents if a != b}
    assert set(seatings.values()) == {2}


@pytest.mark.parametrize(
    ("agents", "rounds"),
    [(("random",), 1), (("random", "random"), 1), (("random", "heuristic"), 0)],
)
def test_bad_ladders_are_refused(agents: tuple[str, ...], rounds: int) -> None:
    with pytest.raises(ValueError):
        ladder.ladder_config(agents, rounds=rounds, seed=0)


def test_a_small_ladder_ranks_by_rating_and_counts_head_to_head(tmp_path) -> None:
    agents = ("random", "heuristic", "learned")
    config = ladder.ladder_config(agents, rounds=1, seed=11)
    result = run_tournament(config)
    rated = ladder.ladder(result.summary, result.records)
    assert rated["games"] == 6
    ordinals = [r["ordinal"] for r in rated["rungs"]]
    assert ordinals == sorted(ordinals, reverse=True)
    assert {r["agent"] for r in rated["rungs"]} == set(agents)
    for r in rated["rungs"]:
        low, high = r["interval"]
        assert low < r["mu"] < high
        assert r["games"] == 4  # two opponents, both seats
        assert r["ms_per_decision"] >= 0
    h2h = rated["head_to_head"]
    for a in agents:
        for b in agents:
            if a != b:
                assert h2h[a][b]["games"] == 2
                assert h2h[a][b]["wins"] + h2h[b][a]["wins"] == 2
    assert sum(h2h[a][b]["wins"] for a in agents for b in agents if a != b) == 6
    text = ladder.ladder_markdown(rated, "tiny")
    assert text.count("\n| ") >= 2 + 2 * len(agents)
    json.dumps(rated)  # plain data


def test_the_command_writes_the_ladder(tmp_path) -> None:
    out = tmp_path / "ladder"
    argv = ["--agents", "random", "heuristic", "--rounds", "1", "--workers", "1"]
    assert ladder.main([*argv, "--db", str(tmp_path / "l.db"), "--out", str(out)]) == 0
    data = json.loads((out / "ladder.json").read_text())
    assert data["games"] == 2
    assert "| 1 |" in (out / "ladder.md").read_text()
