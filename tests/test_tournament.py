"""The tournament machinery: seating, seeds, reproducibility, resume after SIGKILL, Ray, reports."""

from __future__ import annotations

import contextlib
import csv
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from concordia_env import Game
from concordia_env.agents.base import Agent
from concordia_env.tools import tournament
from concordia_env.tools.report import summarize, wilson_interval, write_reports
from concordia_env.tools.store import Store
from concordia_env.tools.tournament import (
    GameFailedError,
    TournamentConfig,
    game_seed,
    make_agent,
    run_tournament,
    schedule_block,
    seating,
    tasks_for,
)

ROOT = Path(__file__).resolve().parent.parent
ITALIA_2P = {"agents": ("random", "random"), "map": "italia", "players": 2}
#: the tournament is killed once this many games are stored
KILL_AFTER = 5


def outcomes(records):
    return [r.outcome() for r in records]


# ---------------------------------------------------------------------- schedule and seeds
@pytest.mark.parametrize(
    ("entries", "players"), [(1, 2), (2, 2), (2, 4), (3, 4), (4, 4), (3, 2), (5, 3), (4, 2), (6, 4)]
)
def test_every_entry_sits_in_every_seat_equally_often(entries, players):
    block = schedule_block(entries, players)
    assert all(len(lineup) == players for lineup in block)
    per_seat = [Counter(lineup[s] for lineup in block) for s in range(players)]
    counts = {per_seat[s][e] for s in range(players) for e in range(entries)}
    assert len(counts) == 1 and counts.pop() > 0, per_seat
    seats_per_entry = Counter(e for lineup in block for e in lineup)
    assert len(set(seats_per_entry.values())) == 1


@pytest.mark.parametrize(("entries", "players"), [(3, 2), (4, 2), (5, 3), (6, 4)])
def test_with_enough_entries_no_one_plays_twice_and_every_pair_meets_equally(entries, players):
    block = schedule_block(entries, players)
    assert all(len(set(lineup)) == players for lineup in block)
    meetings = Counter(pair for lineup in block for pair in combinations(sorted(lineup), 2))
    assert set(meetings) == set(combinations(range(entries), 2))
    assert len(set(meetings.values())) == 1


def test_a_spec_listed_several_times_fills_that_many_seats():
    config = TournamentConfig(agents=("heuristic", "random", "random", "random"), players=4, games=8)
    games = [seating(config, i) for i in range(config.games)]
    assert all(Counter(g) == {"heuristic": 1, "random": 3} for g in games)
    assert sorted(g.index("heuristic") for g in games) == [0, 0, 1, 1, 2, 2, 3, 3]


def test_game_seeds_are_fixed_distinct_and_depend_on_the_tournament_seed():
    seeds = [game_seed(0, i) for i in range(200)]
    assert len(set(seeds)) == len(seeds)
    assert seeds == [game_seed(0, i) for i in range(200)]
    assert seeds[:5] != [game_seed(1, i) for i in range(5)]
    assert all(0 <= s < 2**31 for s in seeds)


def test_tournament_id_ignores_the_number_of_games_only():
    a = TournamentConfig(games=10, **ITALIA_2P)
    assert a.tournament_id == TournamentConfig(games=99, **ITALIA_2P).tournament_id
    assert a.tournament_id != TournamentConfig(games=10, seed=1, **ITALIA_2P).tournament_id
    assert a.tournament_id != TournamentConfig(games=10, agents=("random",), map="italia", players=2).tournament_id
    # what given agent objects are (a learner's weights) names a tournament of its own; None adds nothing
    versioned = TournamentConfig(games=10, given_version="1f2e", **ITALIA_2P)
    assert (
        versioned.tournament_id
        != a.tournament_id
        != TournamentConfig(games=10, given_version="9c", **ITALIA_2P).tournament_id
    )
    assert "given_version" not in a.identity() and versioned.identity()["given_version"] == "1f2e"


def test_agent_specs_take_keyword_options():
    assert make_agent("random").name == "random"
    seeded = make_agent("random:seed=3")
    assert seeded.rng.integers(1000) == make_agent("random:seed=3").rng.integers(1000)
    with pytest.raises(ValueError, match="does not take"):
        make_agent("random:no_such_option=3")


# ---------------------------------------------------------------------- playing
def test_a_stored_game_replays_to_its_result():
    config = TournamentConfig(games=2, map="imperium", players=3, agents=("random",), seed=4)
    result = run_tournament(config)
    for record in result.records:
        game = Game.new(record.map, record.players, record.seed, **record.options)
        for action in record.actions:
            game.step(action)
        assert game.is_over()
        assert [int(v) for v in game.final_scores()] == record.scores
        assert record.winner == record.ranking[0] == game.winner()
        assert sum(record.decisions) == record.num_actions


def test_results_do_not_depend_on_worker_count_and_change_with_the_seed():
    config = TournamentConfig(games=6, **ITALIA_2P)
    serial = run_tournament(config, workers=1)
    parallel = run_tournament(config, workers=2)
    assert [r.game_index for r in parallel.records] == list(range(6))
    assert outcomes(serial.records) == outcomes(parallel.records)
    other = run_tournament(TournamentConfig(games=6, seed=1, **ITALIA_2P))
    assert outcomes(other.records) != outcomes(serial.records)


def test_a_larger_game_count_extends_a_stored_tournament(tmp_path):
    db = tmp_path / "t.db"
    first = run_tournament(TournamentConfig(games=3, **ITALIA_2P), db=db)
    more = run_tournament(TournamentConfig(games=5, **ITALIA_2P), db=db)
    assert (first.played, more.played, more.resumed) == (3, 2, 3)
    assert outcomes(more.records[:3]) == outcomes(first.records)
    again = run_tournament(TournamentConfig(games=5, **ITALIA_2P), db=db)
    assert (again.played, again.resumed) == (0, 5)
    with Store(db) as store:
        assert store.count() == 5


@pytest.mark.slow
def test_resume_after_sigkill_loses_and_duplicates_nothing(tmp_path):
    games, db = 80, tmp_path / "killed.db"
    cmd = [sys.executable, "-m", "concordia_env.tools.tournament", "--agents", "random", "random", "--map", "italia"]
    cmd += ["--players", "2", "--games", str(games), "--db", str(db), "--out", str(tmp_path / "out"), "--no-plots"]
    cmd += ["--workers", "2"]
    # its own session, so the kill takes the worker processes along with the parent
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    stored = 0
    try:
        deadline = time.monotonic() + 120
        while stored < KILL_AFTER and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.02)
            stored = _count_games(db)
    finally:
        with contextlib.suppress(ProcessLookupError):  # already gone: the assertion below says so
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    killed_at = _count_games(db)
    assert KILL_AFTER <= killed_at < games, "the run was not interrupted half way"

    rerun = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert rerun.returncode == 0, rerun.stderr
    assert f"{killed_at} games read back" in rerun.stdout
    config = TournamentConfig(games=games, **ITALIA_2P)
    with Store(db) as store:
        assert store.count() == games
        resumed = store.games(config.tournament_id)
    assert [r.game_index for r in resumed] == list(range(games))
    uninterrupted = run_tournament(config, workers=2)
    assert outcomes(resumed) == outcomes(uninterrupted.records)
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["games_finished"] == games


def _count_games(db: Path) -> int:
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(db, timeout=5) as conn:
            return conn.execute("SELECT count(*) FROM games").fetchone()[0]
    except sqlite3.OperationalError:  # the tables are not created yet
        return 0


@pytest.mark.slow
def test_ray_backend_plays_the_same_games():
    pytest.importorskip("ray")
    config = TournamentConfig(games=3, **ITALIA_2P)
    on_ray = run_tournament(config, backend="ray", workers=2)
    assert outcomes(on_ray.records) == outcomes(run_tournament(config).records)


def test_a_failing_agent_names_the_game_it_failed_in(monkeypatch):
    class Illegal(Agent):
        name = "illegal"

        def act(self, game: Game) -> int:
            return int(np.flatnonzero(~game.legal_mask())[0])

    real = tournament.make_agent
    monkeypatch.setattr(tournament, "make_agent", lambda spec: Illegal() if spec == "illegal" else real(spec))
    config = TournamentConfig(games=2, agents=("random", "illegal"), map="italia", players=2)
    with pytest.raises(GameFailedError, match=r"game 0 \(seed \d+, italia 2p, seats \['random', 'illegal'\]\)"):
        run_tournament(config)


def test_the_first_decision_s_loading_is_not_counted_as_thinking():
    """An agent whose first decision in a process is slow (numba loading its compiled code) is warmed up untimed."""

    class SlowFirst(Agent):
        name = "slow-first"
        loaded = False  # per process, as numba's compiled code is

        def act(self, game: Game) -> int:
            if not SlowFirst.loaded:
                time.sleep(1.0)
                SlowFirst.loaded = True
            return int(game.legal_actions()[0])

    config = TournamentConfig(games=2, agents=("random", "slow-first"), map="italia", players=2)
    result = run_tournament(config, given={"slow-first": SlowFirst()})
    (slow,) = [a for a in result.summary["agents"] if a["agent"] == "slow-first"]
    assert slow["ms_per_decision"] < 100, "the one-second first call was counted in a game"
    played = TournamentConfig(games=2, agents=("heuristic", "random"), map="italia", players=2)
    direct = [tournament.play_game(task) for task in tasks_for(played, range(2))]  # no warm-up
    assert outcomes(run_tournament(played).records) == outcomes(direct), "the warm-up changed no decision"


# ---------------------------------------------------------------------- statistics and reports
def test_wilson_interval_matches_known_values():
    low, high = wilson_interval(0, 10)
    assert low == 0 and high == pytest.approx(0.2775, abs=1e-4)
    low, high = wilson_interval(5, 10)
    assert (low, high) == (pytest.approx(0.2366, abs=1e-4), pytest.approx(0.7634, abs=1e-4))
    low, high = wilson_interval(10, 10)
    assert low == pytest.approx(0.7225, abs=1e-4) and high == pytest.approx(1)


def test_summary_counts_every_seat_once():
    config = TournamentConfig(games=6, agents=("random", "random", "random"), map="imperium", players=3, seed=2)
    summary = summarize(config, run_tournament(config).records)
    (agent,) = summary["agents"]
    assert agent["seats"] == 18 and agent["wins"] == 6 and agent["games"] == 6
    assert agent["seat_counts"] == [6, 6, 6]
    assert sum(agent["rank_counts"]) == 18 and agent["rank_counts"] == [6, 6, 6]
    assert sum(s["wins"] for s in summary["seats"]) == 6
    breakdown_total = sum(agent["score_breakdown"].values())
    assert breakdown_total == pytest.approx(agent["vp"]["mean"])


def test_reports_are_written(tmp_path):
    config = TournamentConfig(games=4, **ITALIA_2P)
    result = run_tournament(config)
    files = write_reports(result.summary, result.records, tmp_path)
    names = {f.name for f in files}
    assert {"summary.json", "games.csv", "ratings.csv"} <= names
    pngs = [f for f in files if f.suffix == ".png"]
    assert {"win_rates.png", "vp_distribution.png", "rank_distribution.png"} <= {f.name for f in pngs}
    for png in pngs:
        with Image.open(png) as image:
            assert image.format == "PNG" and min(image.size) > 200
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["tournament_id"] == config.tournament_id and summary["games_finished"] == 4
    with (tmp_path / "games.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert [int(r["game_index"]) for r in rows] == [0, 1, 2, 3]
    assert [int(r["seat0_vp"]) for r in rows] == [r.scores[0] for r in result.records]
    with (tmp_path / "ratings.csv").open() as f:
        (rating,) = list(csv.DictReader(f))
    assert rating["agent"] == "random" and float(rating["sigma"]) > 0


def test_tasks_carry_everything_a_remote_worker_needs():
    config = TournamentConfig(games=3, agents=("random", "random"), map="italia", players=2, intermediate_scoring=True)
    (task,) = tasks_for(config, [2])
    assert task.seed == game_seed(config.seed, 2)
    assert task.options == {"intermediate_scoring": True, "display_costs": "standard"}
    assert task.seats == ("random", "random")


def test_strength_bars_judge_the_rate_and_the_time_budget():
    from concordia_env.benchmarks.strength_bars import judge, strength_bars

    heuristic_bar, mcts_bar, *learned = strength_bars(games_heuristic=8, games_mcts=4, mcts_spec="mcts:1", seed=0)
    assert Counter(heuristic_bar.config.agents) == {"heuristic": 1, "random": 3}
    assert (mcts_bar.config.map, mcts_bar.config.players) == ("italia", 2)
    by_key = {bar.key: bar for bar in learned}
    imperium = {"learned-imperium3", "learned-imperium", "learned-imperium5"}
    other_maps = {"learned-aegyptus", "learned-aegyptus4", "learned-creta", "learned-creta4"}
    duels = {"learned-random", "learned-heuristic", "learned-mcts", "learned-mcts150"}
    assert set(by_key) == duels | imperium | other_maps
    assert by_key["learned-mcts"].config.agents == ("learned", "mcts:1")
    # the fixed budget: 150 simulations, whatever the time budget of bar 2
    assert by_key["learned-mcts150"].config.agents == ("learned", "mcts:150")
    assert (by_key["learned-mcts150"].config.games, by_key["learned-mcts150"].min_win_rate) == (200, 0.5)
    assert Counter(by_key["learned-imperium"].config.agents) == {"learned": 1, "heuristic": 3}
    # the models taught by search at 3, 4 and 5 players: 80%, 75% and 65% against heuristics
    assert by_key["learned-imperium"].min_win_rate == 0.75
    for key, players, rate in (("learned-imperium3", 3, 0.80), ("learned-imperium5", 5, 0.65)):
        assert Counter(by_key[key].config.agents) == {"learned": 1, "heuristic": players - 1}
        assert (by_key[key].config.map, by_key[key].config.players, by_key[key].min_win_rate) == (
            "imperium",
            players,
            rate,
        )
    assert (by_key["learned-creta4"].config.map, by_key["learned-creta4"].config.players) == ("creta", 4)
    assert by_key["learned-creta4"].min_win_rate == 0.25
    assert by_key["learned-heuristic"].config.games == 400

    def summary(agent, wins, seats, ms):
        stats = {"agent": agent, "wins": wins, "seats": seats, "win_rate": wins / seats, "ms_per_decision": ms}
        return {"agents": [{**stats, "win_ci95": list(wilson_interval(wins, seats))}]}

    assert judge(heuristic_bar, summary("heuristic", 9, 10, 5.0))[0]
    assert not judge(heuristic_bar, summary("heuristic", 8, 10, 5.0))[0]
    assert judge(mcts_bar, summary("mcts:1", 6, 10, 900.0))[0]
    passed, line = judge(mcts_bar, summary("mcts:1", 6, 10, 1500.0))
    assert not passed and "OVER" in line


def test_a_spec_that_reads_a_model_names_the_model_in_the_tournament_id(tmp_path, monkeypatch):
    from concordia_env.agents import spec_version
    from concordia_env.agents.learned import shipped_model_path

    # `learned` plays whichever model is shipped for the table: its bytes are part of the id
    shipped = TournamentConfig(agents=("learned", "heuristic"), map="italia", players=2, games=4)
    digest = shipped.identity()["files"]["learned"]
    assert digest == spec_version("learned", 2) and len(digest) == 16
    assert spec_version("learned", 4) != digest  # another player count, another shipped model
    assert shipped_model_path(2).is_file()
    # agents that read no file leave the id as it was
    assert "files" not in TournamentConfig(games=4, **ITALIA_2P).identity()
    assert spec_version("mcts:150", 2) is None and spec_version("no-such-agent", 2) is None
    # a model file at a path: another file under the same spec is another tournament
    model = tmp_path / "model.npz"
    model.write_bytes(shipped_model_path(2).read_bytes())
    spec = f"learned:path={str(model)!r}"
    config = TournamentConfig(agents=(spec, "heuristic"), map="italia", players=2, games=4)
    first = config.tournament_id
    assert config.identity()["files"][spec] == digest
    model.write_bytes(shipped_model_path(3).read_bytes())
    assert config.tournament_id == first  # one config, one id: the files are read once
    again = TournamentConfig(agents=(spec, "heuristic"), map="italia", players=2, games=4)
    assert again.tournament_id != first and again == config  # the same fields, another model
    # a path with nothing there: no digest (building the agent says what is missing)
    assert spec_version("learned:path='/no/such/model.npz'", 2) is None
