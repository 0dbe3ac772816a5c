"""Expert iteration (``concordia train expert``): labels, the pool backends, resume, the saved model.

The runs are the tiny config (two iterations of four games, searches of 8 simulations): seconds.
One test starts a local 2-CPU Ray instance, runs the same tiny run on it and shuts it down,
leaving no Ray process behind.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import pytest

from concordia_env import Game, agents
from concordia_env.agents.heuristic import HeuristicAgent
from concordia_env.agents.learned import SHIPPED_MODELS, LearnedAgent, shipped_model_path
from concordia_env.agents.learned_model import MARGIN_SCALE, AfterstateModel, candidates
from concordia_env.agents.mcts import MCTSAgent
from concordia_env.training.expert_iteration import (
    COLUMNS,
    ExpertConfig,
    ExpertRun,
    GameSpec,
    main,
    make_teacher,
    model_from_bytes,
    pick_gated,
    play_game,
    search_label,
)
from concordia_env.training.run_evaluation import EvalResult

ROOT = Path(__file__).resolve().parents[1]
TINY_CONFIG = ROOT / "concordia_env" / "training" / "configs" / "expert_tiny.yaml"
#: the tiny config without periodic evaluations (the final one stays): what the backend and resume tests run
QUICK = ["--eval_every", "0", "--final_eval_games", "{heuristic: 2}"]


def _run(tmp_path: Path, *extra: str) -> Path:
    """Run ``concordia train expert`` on the tiny config in ``tmp_path``; return the run directory."""
    return main(["--config", str(TINY_CONFIG), "--runs_dir", str(tmp_path), *QUICK, *extra]).parent


def _config(tmp_path: Path, **changes) -> ExpertConfig:
    values = {**ExpertConfig.load(TINY_CONFIG).to_dict(), "runs_dir": str(tmp_path), "eval_every": 0, **changes}
    return ExpertConfig.from_dict(values)


def _weights(path: Path) -> list[np.ndarray]:
    model = AfterstateModel.load(path)
    return [*model.weights, *model.biases, np.array([model.a, model.b])]


def _same_run(a: Path, b: Path) -> None:
    """Two run directories hold the same data and the same model, bit for bit."""
    for x, y in zip(_weights(a / "model.npz"), _weights(b / "model.npz"), strict=True):
        assert np.array_equal(x, y)
    files = sorted(p.name for p in (a / "data").iterdir())
    assert files == sorted(p.name for p in (b / "data").iterdir())
    for name in files:
        with np.load(a / "data" / name) as one, np.load(b / "data" / name) as two:
            for key in COLUMNS:
                assert np.array_equal(one[key], two[key], equal_nan=True), (name, key)


def _position(seed: int = 5, decisions: int = 9) -> Game:
    """A 2-player Italia game a few heuristic decisions in, at a decision with several options."""
    game = Game.new("italia", 2, seed=seed)
    heuristic = HeuristicAgent(seed)
    for _ in range(decisions):
        game.step(heuristic.act(game))
    while len(game.legal_actions()) < 2:
        game.step(heuristic.act(game))
    return game


# ---------------------------------------------------------------------- labels
def test_the_search_reports_every_root_move_and_plays_the_best_mean() -> None:
    game = _position()
    agent = MCTSAgent(seed=3, simulations=40)
    with pytest.raises(RuntimeError, match="not searched"):
        agent.last_search()
    action = agent.act(game)
    stats = agent.last_search()
    assert len(stats.first) == len(stats.visits) == len(stats.values)
    assert stats.visits.sum() == pytest.approx(40 + len(stats.first))  # every move's first estimate counts once
    assert np.all((stats.means > 0) & (stats.means < 1))
    best = max(range(len(stats.first)), key=lambda k: (stats.means[k], stats.visits[k]))
    assert stats.first[best][0] == action


@pytest.mark.parametrize("teacher", ["learned", "mcts"])
def test_labels_are_the_values_of_the_pending_decisions_options(teacher: str) -> None:
    game = _position()
    model = AfterstateModel.load(shipped_model_path(2))
    cands = candidates(game, HeuristicAgent(0), np.random.default_rng(0))
    search = make_teacher(teacher, {}, model, 60, 0)
    targets, visits = search_label(search, game, cands, seed=11)
    assert targets.shape == visits.shape == (len(cands.options),)
    # the candidates line up with the search's root moves: each target is its move's mean value as a margin
    stats = search.last_search()
    assert sorted(cands.keys()) == sorted(stats.first)
    for key, target, n in zip(cands.keys(), targets, visits, strict=True):
        k = stats.first.index(key)
        assert n == stats.visits[k]
        assert np.tanh(target * MARGIN_SCALE / search.value_scale) == pytest.approx(2 * stats.means[k] - 1, abs=1e-5)
    # a candidate's first action is the action its option plays first
    for key, option in zip(cands.keys(), cands.options, strict=True):
        assert key[0] == option.plan.actions[0]
    again, _ = search_label(make_teacher(teacher, {}, model, 60, 0), game, cands, seed=11)
    assert np.array_equal(targets, again)  # a label is a function of the position and its seed


def test_a_search_of_another_decision_is_refused() -> None:
    game = _position()
    other = _position(seed=6, decisions=30)
    cands = candidates(other, HeuristicAgent(0), np.random.default_rng(0))
    if sorted(cands.keys()) == sorted(candidates(game, HeuristicAgent(0), np.random.default_rng(0)).keys()):
        pytest.skip("the two positions happen to have the same options")
    with pytest.raises(RuntimeError, match="not the student's options"):
        search_label(MCTSAgent(seed=0, simulations=8), game, cands, seed=0)


def test_a_game_gives_one_group_of_rows_per_student_decision() -> None:
    settings = {**ExpertConfig.load(TINY_CONFIG).to_dict(), "label_share": 0.5}
    model = AfterstateModel.load(shipped_model_path(2))
    rows = play_game(GameSpec(seed=3, game_id=7, opponent="heuristic", learner_seats=[1]), settings, model)
    assert set(np.unique(rows["player"])) == {1} and set(np.unique(rows["game"])) == {7}
    steps = rows["step"]
    assert np.all(np.diff(steps) >= 0)  # one player's decisions in order, rows of a decision together
    labelled = 0
    for step in np.unique(steps):
        group = steps == step
        assert rows["chosen"][group].sum() == 1
        if rows["weight"][group][0] > 0:
            labelled += 1
            assert group.sum() >= 2 and np.all(np.isfinite(rows["target"][group]))
            assert np.all(rows["visits"][group] >= 1)
        else:
            assert group.sum() == 1 and np.isnan(rows["target"][group][0])
    assert 0 < labelled < len(np.unique(steps))  # about half the decisions are labelled
    assert len(np.unique(rows["margin"])) == 1  # the decider's final margin


def test_a_replanning_student_is_labelled_at_its_turns_later_decisions_too() -> None:
    """``replan``: the student decides (and may be labelled) at every decision with a choice, not only turn starts."""
    model = AfterstateModel.load(shipped_model_path(2))
    spec = GameSpec(seed=3, game_id=7, opponent="heuristic", learner_seats=[1])
    groups = {}
    for replan in (False, True):
        settings = {**ExpertConfig.load(TINY_CONFIG).to_dict(), "label_share": 0.5, "replan": replan}
        rows = play_game(spec, settings, model)
        groups[replan] = len(np.unique(rows["step"]))
        assert np.all(np.isfinite(rows["target"][rows["weight"] > 0]))
    assert groups[True] > groups[False]


def test_models_travel_as_bytes_and_are_decoded_once_per_worker() -> None:
    model = AfterstateModel.load(shipped_model_path(2))
    data = model.to_bytes()
    assert data == shipped_model_path(2).read_bytes() or AfterstateModel.load_bytes(data).a == model.a
    first = model_from_bytes(data, "digest-a")
    assert model_from_bytes(b"not read again", "digest-a") is first
    for x, y in zip(first.weights, model.weights, strict=True):
        assert np.array_equal(x, y)
    with pytest.raises(ValueError, match="not an afterstate model"):
        AfterstateModel.load_bytes(b"garbage")
    with pytest.raises(TypeError):
        AfterstateModel.load_bytes("a path")  # type: ignore[arg-type]


# ---------------------------------------------------------------------- runs
@pytest.mark.slow
def test_the_same_seed_gives_the_same_run_on_either_backend(tmp_path: Path) -> None:
    ray = pytest.importorskip("ray")
    local = _run(tmp_path / "mp")
    summary = json.loads((local / "summary.json").read_text())
    assert summary["iterations"] == 2 and summary["games"] == 8 and summary["labelled_decisions"] > 0
    report = (local / "report.md").read_text()
    for words in ("games/hour", "labelled decisions/s", "CPU-hours", "agreement"):
        assert words in report

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    session = ray._private.worker._global_node.get_session_dir_path()
    try:
        on_ray = _run(tmp_path / "ray", "--backend", "ray")
    finally:
        ray.shutdown()
    _same_run(local, on_ray)
    assert _results(json.loads((on_ray / "summary.json").read_text())["final"]) == _results(summary["final"])
    for _ in range(50):  # the instance's processes exit within moments of the shutdown
        if not _ray_processes(session):
            break
        time.sleep(0.2)
    assert not _ray_processes(session)


def _results(final: list[dict]) -> list[dict]:
    """The evaluation results without their wall-clock seconds (the one thing a run may not repeat)."""
    return [{k: v for k, v in r.items() if k != "seconds"} for r in final]


def _ray_processes(session: str) -> list[str]:
    """Command lines of running processes that belong to the Ray session ``session``."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            line = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if session in line:
            found.append(line)
    return found


def test_resume_after_an_interrupted_iteration_ends_as_an_uninterrupted_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = ExpertRun.create(_config(tmp_path / "a"))
    original = ExpertRun.fit

    def interrupted(self: ExpertRun, iteration: int) -> dict:
        if iteration == 1:
            raise KeyboardInterrupt  # after the second iteration's games were played and written
        return original(self, iteration)

    monkeypatch.setattr(ExpertRun, "fit", interrupted)
    with pytest.raises(KeyboardInterrupt):
        run.train()
    monkeypatch.setattr(ExpertRun, "fit", original)
    assert (run.run_dir / "data" / "iter_0001.npz").is_file()
    resumed = ExpertRun.open(run.run_dir, {})
    assert resumed.state.iteration == 1
    resumed.train()
    straight = ExpertRun.create(_config(tmp_path / "b"))
    straight.train()
    assert resumed.state.iteration == straight.state.iteration == 2
    assert resumed.state.games == straight.state.games == 8
    assert resumed.state.labels == straight.state.labels > 0
    _same_run(run.run_dir, straight.run_dir)


def test_a_run_resumed_for_more_iterations_evaluates_its_new_model(tmp_path: Path) -> None:
    """The final evaluation after ``--resume --iterations N`` plays the new model on the same seeds.

    Evaluation games are kept in the run's ``evaluations.db`` and read back when the same
    tournament is asked for again (an interrupted evaluation goes on); the tournament is named
    by the model's weights, so the new model's final evaluation is not the old one's games.
    """
    from concordia_env.tools.store import Store
    from concordia_env.training.run_evaluation import weights_digest

    run = ExpertRun.create(_config(tmp_path, iterations=1, final_eval_games={"random": 2}))
    run.train()
    run.finish("completed")
    first = AfterstateModel.load(run.model_path)
    resumed = ExpertRun.open(run.run_dir, {"iterations": 2})
    resumed.train()
    resumed.finish("completed")
    second = AfterstateModel.load(resumed.model_path)
    assert weights_digest(first.compiled) != weights_digest(second.compiled)
    with Store(run.run_dir / ExpertRun.EVAL_DB) as store:
        finals = store.tournaments()
        games = {t.tournament_id: store.games(t.tournament_id) for t in finals}
    assert len(finals) == 2 and all(len(g) == 2 for g in games.values())  # each model played its own games
    (a, b) = games.values()
    assert [r.seed for r in a] == [r.seed for r in b]  # on the same seeds
    assert {t.config["given_version"] for t in finals} == {weights_digest(m.compiled) for m in (first, second)}


def test_config_refuses_nonsense(tmp_path: Path) -> None:
    for changes in (
        {"backend": "spark"},
        {"address": "auto"},  # a cluster address needs the ray backend
        {"teacher": "oracle"},
        {"teacher_options": {"exploration": -1}},
        {"label_share": 0.0},
        {"label_temperature": 0.0},
        {"opponent_shares": {"nobody": 1.0}},
        {"num_players": 7},
        {"features_version": 3},
        {"features_version": "2"},
        {"gate_games": -1},
        {"gate_share": 0.0},
        {"gate_share": 1.5},
        {"value_weight": -1.0},
        {"value_weight": float("nan")},
        {"value_weight": float("inf")},
    ):
        with pytest.raises((ValueError, TypeError)):
            _config(tmp_path, **changes)
    run = ExpertRun.create(_config(tmp_path, iterations=1))
    run.checkpoint()
    with pytest.raises(ValueError, match="cannot change"):
        ExpertRun.open(run.run_dir, {"label_simulations": 4})


def test_a_version_1_model_warm_starts_a_version_2_run(tmp_path: Path) -> None:
    """A version-1 model (the 2-player one shipped until 2026-12-05), widened: it scores as it did, training
    moves the new weights."""
    version_1 = ROOT / "docs" / "reports" / "expert_italia2d" / "model.npz"
    shipped = AfterstateModel.load(version_1)
    assert shipped.features_version == 1
    config = _config(tmp_path, features_version=2, init_model=str(version_1), hidden=[128, 128])
    start = AfterstateModel.load(ExpertRun.create(config).model_path)
    assert start.features_version == 2
    np.testing.assert_array_equal(start.weights[0][: shipped.num_features], shipped.weights[0])
    assert not start.weights[0][shipped.num_features :].any()
    run_dir = _run(tmp_path, "--features_version", "2", "--init_model", str(version_1),
                   "--hidden", "[128, 128]", "--iterations", "1")  # fmt: skip
    trained = AfterstateModel.load(run_dir / "model.npz")
    assert trained.features_version == 2 and trained.weights[0][shipped.num_features :].any()
    with pytest.raises(ValueError, match="layers"):  # a version-2 model does not narrow into a version-1 run
        ExpertRun.create(_config(tmp_path, init_model=str(run_dir / "model.npz"), hidden=[128, 128]))


# ---------------------------------------------------------------------- the value term
def test_the_value_term_brings_the_scores_to_the_search_values(tmp_path: Path) -> None:
    """The same iteration (the same games and labels) fitted with and without the value term: the held-out
    value error starts equal and ends lower with it; the report shows it by epoch."""
    fits = []
    for name, weight in (("without", 0.0), ("with", 50.0)):
        run = ExpertRun.create(_config(tmp_path / name, iterations=1, value_weight=weight, learning_rate=0.01))
        run.train()
        run.finish("completed")
        fits.append(run.state.fits[0])
        assert "value error by epoch" in (run.run_dir / "report.md").read_text()
    without, with_term = fits
    assert len(with_term["value_error"]) == len(with_term["held_loss"]) == run.config.epochs + 1
    assert with_term["value_error"][0] == without["value_error"][0]  # epoch 0: the same network, the same labels
    assert with_term["value_error"][-1] < without["value_error"][-1]
    assert with_term["value_error"][-1] < with_term["value_error"][0]


# ---------------------------------------------------------------------- the gate
def _gate_result(wins: int, games: int = 10) -> EvalResult:
    return EvalResult(opponent="epoch 0", games=games, wins=wins, win_rate=wins / games, ci_low=0.0, ci_high=1.0,
                      mean_vp=0.0, mean_opponent_vp=0.0, seconds=0.0)  # fmt: skip


def test_the_gate_keeps_the_epoch_that_won_most_if_it_won_enough() -> None:
    assert pick_gated([_gate_result(w) for w in (4, 7, 6)], 0.55) == 2  # epochs 1, 2, 3: the second won most
    assert pick_gated([_gate_result(w) for w in (6, 6)], 0.55) == 1  # the earliest of equals
    assert pick_gated([_gate_result(w) for w in (5, 5, 4)], 0.55) == 0  # none won enough: the network stays
    assert pick_gated([_gate_result(w) for w in (5, 5, 4)], 0.5) == 1


def test_a_gated_fit_plays_every_epoch_against_the_network_that_played(tmp_path: Path) -> None:
    """Every epoch's network plays ``gate_games`` search-free games against epoch 0, on the same seeds, and the
    kept network is the one :func:`pick_gated` names; the report shows the matches. The same seed gives the
    same gate."""
    runs = []
    for name in ("a", "b"):
        run = ExpertRun.create(_config(tmp_path / name, iterations=1, gate_games=4, gate_share=0.5))
        start = _weights(run.model_path)
        run.train()
        run.finish("completed")
        runs.append(run)
    fit = runs[0].state.fits[0]
    assert len(fit["gate"]) == runs[0].config.epochs
    assert all(g["games"] == 4 for g in fit["gate"])
    kept = pick_gated([EvalResult.from_dict(g) for g in fit["gate"]], 0.5)
    assert fit["best_epoch"] == kept and fit["lowest_loss_epoch"] == int(np.argmin(fit["held_loss"]))
    assert (kept == 0) == all(np.array_equal(x, y) for x, y in zip(start, _weights(runs[0].model_path), strict=True))
    assert runs[0].state.gate_seconds > 0
    assert "## The gate" in (runs[0].run_dir / "report.md").read_text()
    assert [g["wins"] for g in fit["gate"]] == [g["wins"] for g in runs[1].state.fits[0]["gate"]]
    _same_run(runs[0].run_dir, runs[1].run_dir)


def test_a_network_that_loses_its_gate_is_not_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where every epoch loses its match the network that played goes on unchanged, whatever the held-out loss."""
    run = ExpertRun.create(_config(tmp_path, iterations=1, gate_games=2))
    start = _weights(run.model_path)
    lost = [_gate_result(0, 2), _gate_result(1, 2)]
    monkeypatch.setattr(ExpertRun, "gate", lambda self, iteration, snapshots: lost)
    run.train()
    assert run.state.fits[0]["best_epoch"] == 0
    for x, y in zip(start, _weights(run.model_path), strict=True):
        assert np.array_equal(x, y)


@pytest.mark.parametrize(
    "path",
    sorted((ROOT / "concordia_env" / "training" / "configs").glob("expert_*.yaml"))
    + sorted((ROOT / "docs" / "reports").glob("expert_*/config.yaml")),
    ids=lambda p: p.parent.name if p.name == "config.yaml" else p.stem,
)
def test_every_expert_config_is_valid_and_its_warm_start_fits(path: Path, tmp_path: Path) -> None:
    config = ExpertConfig.load(path)
    config.validate()
    if config.init_model is not None:
        init = AfterstateModel.load(ROOT / config.init_model)
        assert [w.shape[1] for w in init.weights[:-1]] == list(config.hidden)
        assert init.features_version <= config.features_version


def test_make_run_trains_with_a_shipped_expert_config() -> None:
    """``make run`` is ``concordia train expert --config expert_quick``: the config ships and is valid."""
    import re

    from concordia_env.training.config import find_config

    recipe = (ROOT / "Makefile").read_text().split("\nrun:", 1)[1].split("\n\n", 1)[0]
    command = re.search(r"concordia train expert --config (\S+)", recipe)
    assert command is not None, recipe
    config = ExpertConfig.load(find_config(command.group(1)))
    config.validate()
    assert config.map == "italia" and config.num_players == 2 and config.init_model is None  # from scratch
    # a fixed amount of work on any machine: the time limit is only a guard, far above the ~12 minutes it takes
    assert config.iterations == 8 and config.games_per_iteration == 200
    assert config.time_limit_minutes is None or config.time_limit_minutes >= 30
    assert {"random", "heuristic"} <= set(config.final_eval_games)  # its targets: >= 95% and >= 70%


def test_a_run_cut_short_by_its_time_limit_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The guard stops after the iteration that crosses it, and the summary and output say the run was cut short."""
    import json

    run_dir = _run(tmp_path, "--iterations", "3", "--time_limit_minutes", "1e-6")
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["iterations"] == 1
    assert summary["stop_reason"].startswith("CUT SHORT") and "--resume" in summary["stop_reason"]
    captured = capsys.readouterr()
    assert "iteration 1/3 done" in captured.err and "min left" in captured.err
    assert "CUT SHORT" in captured.out


# ---------------------------------------------------------------------- the models
def _play_out(game: Game, agent: LearnedAgent) -> None:
    while not game.is_over():
        action = agent.act(game)
        assert game.legal_mask()[action]
        game.step(action)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_a_saved_model_reloads_and_plays_only_legal_actions(tmp_path: Path, players: int) -> None:
    model = AfterstateModel.load(shipped_model_path(players))
    path = tmp_path / "model.npz"
    AfterstateModel.load_bytes(model.to_bytes()).save(path)
    map_name = "italia" if players == 2 else "imperium"
    _play_out(Game.new(map_name, players, seed=players), agents.make("learned", path=path, seed=1))
    # and the shipped model of this player count (or the nearest), as ``learned`` plays it
    _play_out(Game.new(map_name, players, seed=10 + players), agents.make("learned", seed=2))


def test_every_shipped_model_is_in_the_package() -> None:
    for count, name in SHIPPED_MODELS.items():
        assert shipped_model_path(count).name == name
        AfterstateModel.load(shipped_model_path(count))
