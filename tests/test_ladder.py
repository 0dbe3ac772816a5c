"""The ladder benchmark: one round-robin tournament, every pair in both seats, rated with intervals."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from concordia_env.benchmarks import ladder
from concordia_env.tools import tournament
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
        assert r["games"] == r["seats"] == 4  # two opponents, both seats
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


def test_a_four_player_ladder_seats_every_table_in_every_rotation() -> None:
    agents = ("random", "heuristic", "learned", "mcts:4", "learned:simulations=4")
    config = ladder.ladder_config(agents, rounds=1, seed=5, map="imperium", players=4)
    assert config.players == 4 and config.games == 4 * 5  # C(5, 4) tables, 4 rotations each
    seatings = Counter(tuple(seating(config, i)) for i in range(config.games))
    assert len(seatings) == config.games and all(len(set(s)) == 4 for s in seatings)
    for a in agents:  # every agent in every seat equally often
        assert {sum(s[seat] == a for s in seatings) for seat in range(4)} == {4}  # C(4, 3) tables each


def test_four_player_head_to_head_counts_who_finished_ahead() -> None:
    agents = ("random", "heuristic", "learned", "mcts:4")
    config = ladder.ladder_config(agents, rounds=1, seed=2, map="imperium", players=4)
    result = run_tournament(config)
    rated = ladder.ladder(result.summary, result.records)
    h2h = rated["head_to_head"]
    for a in agents:
        for b in agents:
            if a != b:
                assert h2h[a][b]["games"] == 4  # both sit at every table
                assert h2h[a][b]["wins"] + h2h[b][a]["wins"] == 4
                ahead = sum(r.ranks()[r.seats.index(a)] < r.ranks()[r.seats.index(b)] for r in result.records)
                assert h2h[a][b]["wins"] == ahead
    # the winner of a game finished ahead of all three others
    assert sum(h2h[a][b]["wins"] for a in agents for b in agents if a != b) == 4 * 6
    assert "finished ahead" in ladder.ladder_markdown(rated, "four players")


@pytest.mark.parametrize(
    ("agents", "players"),
    [(("random",), 4), (("random", "heuristic"), 6), (("random", "heuristic"), 1)],
)
def test_bad_table_sizes_are_refused(agents: tuple[str, ...], players: int) -> None:
    with pytest.raises(ValueError):
        ladder.ladder_config(agents, rounds=1, seed=0, players=players)


def test_the_command_refuses_bad_input_in_one_line(tmp_path, capsys) -> None:
    db = tmp_path / "l.db"
    with pytest.raises(SystemExit) as exit_info:
        ladder.main(["--agents", "random", "bogus", "--rounds", "1", "--db", str(db), "--out", str(tmp_path / "o")])
    assert exit_info.value.code == 2
    assert "unknown agent 'bogus'" in capsys.readouterr().err
    assert not db.exists()


def test_two_models_head_to_head_at_three_players_count_every_pair_of_seats() -> None:
    agents = ("heuristic", "learned")
    config = ladder.ladder_config(agents, rounds=3, seed=4, map="imperium", players=3)
    assert config.games == 6
    result = run_tournament(config)
    h2h = ladder.head_to_head(result.records, agents)
    # every table seats one agent twice and the other once: two pairs of seats a game
    assert h2h["learned"]["heuristic"]["games"] == h2h["heuristic"]["learned"]["games"] == 12
    assert h2h["learned"]["heuristic"]["wins"] + h2h["heuristic"]["learned"]["wins"] == 12
    slow = 0
    for record in result.records:
        place = record.ranks()
        seats = record.seats
        slow += sum(
            place[i] < place[j] for i in range(3) for j in range(3) if seats[i] == "learned" and seats[j] == "heuristic"
        )
    assert h2h["learned"]["heuristic"]["wins"] == slow


def test_a_ladder_with_an_agent_twice_at_a_table_reports_wins_per_seat() -> None:
    config = ladder.ladder_config(("heuristic", "random"), rounds=1, seed=8, map="imperium", players=3)
    result = run_tournament(config)
    rated = ladder.ladder(result.summary, result.records)
    for r in rated["rungs"]:
        assert r["games"] == 2 and r["seats"] == 3
        assert r["win_rate"] == r["wins"] / 3
    assert "/3 = " in ladder.ladder_markdown(rated, "two agents, three seats")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--agents", "random", "learned:path=no-such-model.npz"], "no afterstate model at no-such-model.npz"),
        (["--agents", "random", "heuristic", "--players", "5"], "the Italia map is played by 2, 3, 4 players, not 5"),
    ],
)
def test_the_command_refuses_an_unplayable_ladder_before_any_file(tmp_path, capsys, argv, message) -> None:
    db = tmp_path / "l.db"
    with pytest.raises(SystemExit) as exit_info:
        ladder.main([*argv, "--db", str(db), "--out", str(tmp_path / "o")])
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err
    assert not db.exists() and not (tmp_path / "o").exists()


def test_a_file_that_is_not_a_results_file_is_one_line_and_left_alone(tmp_path, capsys) -> None:
    db = tmp_path / "notes.db"
    db.write_text("my notes, not a results file\n")
    argv = ["--agents", "random", "heuristic", "--rounds", "1", "--workers", "1"]
    assert ladder.main([*argv, "--db", str(db), "--out", str(tmp_path / "o")]) == 2
    said = capsys.readouterr().out
    assert "results file refused" in said and "Traceback" not in said
    assert db.read_text() == "my notes, not a results file\n"
    # the way on the refusal names: --reset moves the file aside, never deletes it
    assert ladder.main([*argv, "--db", str(db), "--out", str(tmp_path / "o"), "--reset"]) == 0
    assert "renamed to" in capsys.readouterr().out
    (aside,) = tmp_path.glob("notes.db.old-*")
    assert aside.read_text() == "my notes, not a results file\n"


def test_an_interrupted_ladder_says_how_to_resume(tmp_path, capsys, monkeypatch) -> None:
    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(tournament, "run_tournament", interrupted)
    argv = ["--agents", "random", "heuristic", "--rounds", "1", "--workers", "1"]
    assert ladder.main([*argv, "--db", str(tmp_path / "l.db"), "--out", str(tmp_path / "o")]) == 130
    assert "run the same command again to resume" in capsys.readouterr().out


def test_the_report_names_the_command_that_plays_it_again(tmp_path) -> None:
    out = tmp_path / "ladder"
    argv = ["--agents", "random", "heuristic", "--rounds", "1", "--seed", "7", "--workers", "1"]
    assert ladder.main([*argv, "--db", str(tmp_path / "l.db"), "--out", str(out)]) == 0
    data = json.loads((out / "ladder.json").read_text())
    assert data["command"] == "concordia bench ladder --rounds 1 --seed 7 --agents random heuristic"
    assert f"`{data['command']}`" in (out / "ladder.md").read_text()
    four = ladder.ladder_config(ladder.REFERENCE_AGENTS, 2, 2026, "imperium", 4)
    assert ladder.ladder_command(four) == "concordia bench ladder --players 4 --map imperium --rounds 2 --seed 2026"
