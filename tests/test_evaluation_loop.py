"""One evaluation loop and one seeding scheme: tournaments, strength bars and training evaluations.

The training evaluation (``training.run_evaluation.evaluate``) and the afterstate learner's are
tournaments (``tools.tournament.duel``) with the tournament's seeds; their games are stored,
so any of them is replayed by its id with ``concordia replay``, a game stopped at the turn cap
included.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from concordia_env.engine.observation import OBS_SIZE
from concordia_env.tools.replay import main as replay_main
from concordia_env.tools.store import SCHEMA_VERSION, Store
from concordia_env.tools.tournament import TournamentConfig, duel, game_seed, run_tournament, seating
from concordia_env.training.policy_net import NumpyActor
from concordia_env.training.run_evaluation import LEARNER, eval_seed, eval_seeds, evaluate

ROOT = Path(__file__).resolve().parents[1]


def actor(seed: int = 0) -> NumpyActor:
    rng = np.random.default_rng(seed)
    return NumpyActor([rng.normal(size=(OBS_SIZE, 769)).astype(np.float32)], [np.zeros(769, np.float32)], "relu")


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "concordia_env.tools.cli", *args], cwd=ROOT, capture_output=True, text=True, timeout=300
    )


def test_a_training_evaluation_is_a_tournament_with_the_tournament_s_seeds(tmp_path: Path) -> None:
    db = tmp_path / "eval.db"
    result = evaluate(actor(), "random", 4, map="italia", num_players=2, seed=5, index=3, max_turns=400, db=db)
    with Store(db) as store:
        (info,) = store.tournaments()
        records = store.games(info.tournament_id)
    config = duel(LEARNER, "random", map="italia", players=2, games=4, seed=eval_seed(5, 3), max_turns=400)
    assert info.tournament_id == config.tournament_id
    assert (
        [r.seed for r in records] == [game_seed(eval_seed(5, 3), i) for i in range(4)] == eval_seeds(5, 3, 4).tolist()
    )
    assert [r.seats for r in records] == [seating(config, i) for i in range(4)]
    assert sorted(r.seats.index(LEARNER) for r in records) == [0, 0, 1, 1]  # every seat equally
    assert result.games == 4 and result.wins == sum(r.winner == r.seats.index(LEARNER) for r in records)


def test_an_evaluation_of_other_weights_is_not_read_back(tmp_path: Path) -> None:
    """The same evaluation asked again reads its games back; one named by other weights plays its own."""
    from concordia_env.training.run_evaluation import weights_digest

    db = tmp_path / "eval.db"
    kwargs = {"map": "italia", "num_players": 2, "seed": 5, "index": 0, "max_turns": 60, "db": db}
    one, other = actor(1), actor(2)
    v1, v2 = (weights_digest([*a.weights, *a.biases]) for a in (one, other))
    assert v1 != v2 == weights_digest([*other.weights, *other.biases])
    first = evaluate(one, "random", 2, given_version=v1, **kwargs)
    again = evaluate(other, "random", 2, given_version=v1, **kwargs)  # read back: what v1 means is the caller's word
    assert (again.wins, again.mean_vp, again.mean_opponent_vp) == (first.wins, first.mean_vp, first.mean_opponent_vp)
    evaluate(other, "random", 2, given_version=v2, **kwargs)
    with Store(db) as store:
        versions = sorted(t.config["given_version"] for t in store.tournaments())
    assert versions == sorted([v1, v2])


def test_every_evaluation_game_replays_by_its_id_even_one_stopped_at_the_cap(tmp_path: Path, capsys) -> None:
    db = tmp_path / "eval.db"
    capped = evaluate(actor(1), "random", 2, map="italia", num_players=2, seed=0, index=0, max_turns=5, db=db)
    assert capped.truncated == 2
    evaluate(actor(1), "random", 2, map="italia", num_players=2, seed=0, index=1, max_turns=1000, db=db)
    with Store(db) as store:
        records = [r for t in store.tournaments() for r in store.games(t.tournament_id)]
    assert [r.over for r in records] == [False, False, True, True]
    assert replay_main([str(db)]) == 0 and capsys.readouterr().out.count(LEARNER) == 2
    for record in (records[0], records[2]):  # a game stopped at the cap, one played to its end
        shown = cli("replay", str(db), str(record.game_id), "--no-color")
        assert shown.returncode == 0, shown.stdout[-500:] + shown.stderr[-2000:]
        said = "stopped at the turn cap after turn 5; scores as they stood" if not record.over else "replayed scores"
        assert f"{said} equal the stored ones: {record.scores}" in shown.stdout.replace("\n", "")
    for record in records:
        page = tmp_path / f"{record.game_id}.html"
        assert replay_main([str(db), str(record.game_id), "--html", str(page)]) == 0 and page.is_file()


def test_a_turn_cap_is_part_of_the_tournament_only_when_set() -> None:
    plain = TournamentConfig(agents=("random",), map="italia", players=2)
    assert "max_turns" not in plain.identity()  # the ids of tournaments without a cap stay what they were
    capped = TournamentConfig(agents=("random",), map="italia", players=2, max_turns=50)
    assert capped.identity()["max_turns"] == 50 and capped.tournament_id != plain.tournament_id
    with pytest.raises(ValueError, match="max_turns"):
        TournamentConfig(agents=("random",), max_turns=0)


def test_given_agents_must_be_among_the_tournament_s_agents() -> None:
    config = TournamentConfig(agents=("random",), map="italia", players=2, games=1)
    with pytest.raises(ValueError, match="not among the tournament's agents"):
        run_tournament(config, given={"learner": object()})  # type: ignore[dict-item]


def test_a_results_file_of_schema_1_is_upgraded_in_place(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    config = TournamentConfig(agents=("random",), map="italia", players=2, games=1, seed=2)
    run_tournament(config, db=db)
    with sqlite3.connect(db) as conn:  # what schema 1 looked like: no `over` column
        conn.execute("ALTER TABLE games DROP COLUMN over")
        conn.execute("PRAGMA user_version = 1")
    with Store(db) as store:
        (record,) = store.games(config.tournament_id)
    assert record.over
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert json.loads(conn.execute("SELECT scores_json FROM games").fetchone()[0]) == record.scores


def test_an_afterstate_run_keeps_its_evaluation_games(tmp_path: Path) -> None:
    from concordia_env.training.afterstate_learning import AfterstateConfig, AfterstateRun
    from concordia_env.training.loop import LEARNER as AFTERSTATE_LEARNER

    config = AfterstateConfig.from_dict(
        {"name": "t", "runs_dir": str(tmp_path), "workers": 1, "progress": False, "iterations": 1,
         "games_per_iteration": 2, "buffer_games": 2, "epochs": 1, "hidden": [8], "rollout_samples": 1,
         "eval_every": 1, "eval_games": 2, "final_eval_games": {"random": 2}}
    )  # fmt: skip
    run = AfterstateRun.create(config)
    run.train()
    run.finish("completed")
    db = run.run_dir / AfterstateRun.EVAL_DB
    with Store(db) as store:
        tournaments = store.tournaments()
        records = [r for t in tournaments for r in store.games(t.tournament_id)]
    assert len(tournaments) == 2 and len(records) == 4  # the periodic and the final evaluation
    assert all(AFTERSTATE_LEARNER in r.seats for r in records)
    shown = cli("replay", str(db), str(records[-1].game_id), "--no-color")
    assert shown.returncode == 0 and "MISMATCH" not in shown.stdout
