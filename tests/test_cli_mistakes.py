"""Every ``concordia`` subcommand turns a person's mistake into an error line, never a traceback.

Output paths are checked before the work that fills them (a game played, a tournament's
games); a ``policy:`` spec naming a missing file is a usage error; a stored game whose
values no game has (changed outside concordia-env) is refused when it is read, naming the
game and the value, as a position file is; a killed tournament worker ends the tournament
with one line saying how to resume. A refused command changes no file.
"""

from __future__ import annotations

import importlib
import os
import signal
import socket
import sqlite3
import time
from pathlib import Path

import pytest

from concordia_env.tools import replay as replay_tool
from concordia_env.tools import tournament as tournament_tool
from concordia_env.tools import web as web_tool
from concordia_env.tools.store import Store, StoreError
from concordia_env.training import expert_iteration

TWO_GAMES = ["--agents", "random", "random", "--map", "italia", "--players", "2", "--games", "2", "--workers", "1"]


def _error_line(capsys: pytest.CaptureFixture, prog: str) -> str:
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    line = captured.err.strip().splitlines()[-1]
    assert line.startswith(f"{prog}: error: "), captured.err
    return line


def _files(folder: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}


# ---------------------------------------------------------------------- output paths, before the work
def test_replay_html_onto_a_directory_is_refused_before_the_game_is_played(
    tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(replay_tool, "play_new_game", lambda *a: pytest.fail("the game was played"))
    with pytest.raises(SystemExit) as exit_:
        replay_tool.main(["--play", "random", "random", "--map", "italia", "--html", str(tmp_path)])
    assert exit_.value.code == 2
    assert (
        _error_line(capsys, "concordia replay")
        == f"concordia replay: error: --html: {tmp_path} is a directory, not a file"
    )


def test_replay_html_under_a_file_is_refused_and_into_a_missing_folder_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    (tmp_path / "a file").write_text("")
    with pytest.raises(SystemExit):
        replay_tool.main(
            ["--play", "random", "random", "--map", "italia", "--html", str(tmp_path / "a file" / "x.html")]
        )
    assert "is not a directory" in _error_line(capsys, "concordia replay")
    target = tmp_path / "new" / "folder" / "game.html"
    assert replay_tool.main(["--play", "random", "random", "--map", "italia", "--html", str(target)]) == 0
    assert target.is_file()


@pytest.mark.parametrize(
    ("module", "prog", "run_name", "argv"),
    [
        (
            "concordia_env.tools.evaluate",
            "concordia evaluate",
            "evaluate",
            ["random", "--vs", "random", "--games", "2"],
        ),
        ("concordia_env.benchmarks.throughput", "concordia bench throughput", "run", ["--seconds", "0.01"]),
        ("concordia_env.benchmarks.agent_speed", "concordia bench agent_speed", "run", ["--no-progress"]),
        ("concordia_env.benchmarks.openspiel_mcts", "concordia bench openspiel_mcts", "run_matches", ["--games", "1"]),
    ],
)
@pytest.mark.parametrize("where", ["a directory", "under a file"])
def test_a_json_that_cannot_be_written_is_refused_before_the_work(
    module: str,
    prog: str,
    run_name: str,
    argv: list[str],
    where: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Before, ``--json`` onto a directory failed with a traceback after every game was played."""
    tool = importlib.import_module(module)
    monkeypatch.setattr(tool, run_name, lambda *a, **k: pytest.fail("the work was done"))
    (tmp_path / "a file").write_text("mine")
    target = tmp_path if where == "a directory" else tmp_path / "a file" / "out.json"
    before = _files(tmp_path)
    with pytest.raises(SystemExit) as exit_:
        tool.main([*argv, "--json", str(target)])
    assert exit_.value.code == 2
    assert "--json: " in _error_line(capsys, prog)
    assert _files(tmp_path) == before


@pytest.mark.parametrize(
    ("module", "prog", "argv"),
    [
        ("concordia_env.benchmarks.throughput", "concordia bench throughput", ["--seconds", "0"]),
        ("concordia_env.benchmarks.throughput", "concordia bench throughput", ["--seconds", "nan"]),
        ("concordia_env.benchmarks.throughput", "concordia bench throughput", ["--batch", "-4"]),
        ("concordia_env.benchmarks.openspiel_mcts", "concordia bench openspiel_mcts", ["--time-per-move", "-1"]),
        ("concordia_env.benchmarks.openspiel_mcts", "concordia bench openspiel_mcts", ["--games", "0"]),
        ("concordia_env.benchmarks.openspiel_mcts", "concordia bench openspiel_mcts", ["--seed", "-2"]),
    ],
)
def test_a_benchmark_refuses_a_time_or_count_it_cannot_measure(
    module: str, prog: str, argv: list[str], capsys: pytest.CaptureFixture
) -> None:
    with pytest.raises(SystemExit) as exit_:
        importlib.import_module(module).main(argv)
    assert exit_.value.code == 2
    assert f"argument {argv[0]}: must be " in _error_line(capsys, prog)


def test_tournament_out_onto_a_file_is_refused_before_any_game(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    (tmp_path / "report").write_text("mine")
    before = _files(tmp_path)
    with pytest.raises(SystemExit) as exit_:
        tournament_tool.main([*TWO_GAMES, "--db", str(tmp_path / "t.db"), "--out", str(tmp_path / "report")])
    assert exit_.value.code == 2
    assert _error_line(capsys, "concordia tournament").endswith(
        f"--out: {tmp_path / 'report'} exists and is not a directory"
    )
    assert _files(tmp_path) == before  # no results file either


def test_tournament_address_without_the_ray_backend_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit) as exit_:
        tournament_tool.main([*TWO_GAMES, "--db", str(tmp_path / "t.db"), "--address", "127.0.0.1:6379"])
    assert exit_.value.code == 2
    assert _error_line(capsys, "concordia tournament").endswith("--address joins a Ray cluster: it needs --backend ray")
    assert not any(tmp_path.iterdir())


# ---------------------------------------------------------------------- a policy: spec naming a missing file
@pytest.mark.parametrize("tool", ["replay", "tournament", "web"])
def test_a_policy_spec_naming_a_missing_file_is_a_usage_error(
    tool: str, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    spec = f"policy:{tmp_path / 'missing.zip'}"
    argv = {
        "replay": ["--play", spec, "random", "--map", "italia", "--html", str(tmp_path / "g.html")],
        "tournament": ["--agents", spec, "random", "--map", "italia", "--players", "2", "--db", str(tmp_path / "t.db")],
        "web": ["--vs", spec, "--map", "italia", "--players", "2", "--no-browser"],
    }[tool]
    main = {"replay": replay_tool.main, "tournament": tournament_tool.main, "web": web_tool.main}[tool]
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    assert "missing.zip" in _error_line(capsys, f"concordia {tool}")
    assert not any(tmp_path.iterdir())


# ---------------------------------------------------------------------- stored rows with bad values
@pytest.fixture(scope="module")
def tournament_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("tournament")
    db = folder / "t.db"
    assert tournament_tool.main([*TWO_GAMES, "--db", str(db), "--out", str(folder / "out"), "--no-plots"]) == 0
    return db


BAD_VALUES = {
    "actions nested deep": ("actions_json", "[" * 100_000 + "]" * 100_000, "actions is nested too deeply"),
    "a text winner": ("winner", "abc", "winner 'abc' is not an integer"),
    "a winner who is not a seat": ("winner", 7, "winner 7 is not a seat (0..1)"),
    "garbage options": ("options_json", "{not json", "options is not JSON"),
    "an unknown option": ("options_json", '{"fog": true}', "option 'fog': True is not a setup option"),
    "a wrong map": ("map", "atlantis", "map 'atlantis' is not one of imperium, italia, aegyptus, creta"),
    "a player count the map refuses": ("players", 5, "players 5: the italia map is played by (2, 3, 4)"),
    "seats of another game": ("seats_json", '["random"]', "seats ['random'] is not a list of 2"),
    "an action out of range": ("actions_json", "[0, 769]", "actions holds 769"),
    "an action that is a bool": ("actions_json", "[true]", "actions holds True"),
    "a ranking that is no order": ("ranking_json", "[0, 0]", "ranking [0, 0] is not an order of the seats"),
    "a text duration": ("duration", "slow", "duration 'slow' is not a number"),
}


@pytest.mark.parametrize("bad", list(BAD_VALUES))
def test_a_stored_row_with_a_bad_value_is_refused_when_read(
    bad: str, tournament_db: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    column, value, why = BAD_VALUES[bad]
    db = tmp_path / "t.db"
    db.write_bytes(tournament_db.read_bytes())
    with sqlite3.connect(db) as conn:
        conn.execute(f"UPDATE games SET {column} = ? WHERE id = 1", (value,))
    with Store(db) as store, pytest.raises(StoreError, match=r"game 1 in .* holds a value no game has") as refused:
        store.game(1)
    assert why in str(refused.value) and "\n" not in str(refused.value)
    with Store(db) as store:
        assert store.game(2).game_id == 2  # the other games are still read
    before = _files(tmp_path)
    with pytest.raises(SystemExit) as exit_:
        replay_tool.main([str(db), "1"])
    assert exit_.value.code == 2 and why in _error_line(capsys, "concordia replay")
    if column == "actions_json":
        return  # a tournament's report reads no actions
    # the tournament that wrote the row reads it back to report: refused, nothing written
    assert tournament_tool.main([*TWO_GAMES, "--db", str(db), "--out", str(tmp_path / "out"), "--no-plots"]) == 2
    assert " ".join(why.split()) in " ".join(capsys.readouterr().out.split())  # the console may wrap the line
    assert _files(tmp_path) == before


def test_stored_actions_the_rules_refuse_end_the_replay_with_one_line(
    tournament_db: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    db = tmp_path / "t.db"
    db.write_bytes(tournament_db.read_bytes())
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE games SET actions_json = '[768, 768]', num_actions = 2 WHERE id = 1")
    assert replay_tool.main([str(db), "1"]) == replay_tool.EXIT_MISMATCH
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and err.startswith("concordia replay: game 1 does not replay: its stored action list holds")


def test_a_garbage_tournament_config_is_refused_when_listed(
    tournament_db: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    db = tmp_path / "t.db"
    db.write_bytes(tournament_db.read_bytes())
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE tournaments SET config_json = '[1, 2'")
    with pytest.raises(SystemExit) as exit_:
        replay_tool.main([str(db)])
    assert exit_.value.code == 2 and "config is not JSON" in _error_line(capsys, "concordia replay")


# ---------------------------------------------------------------------- a killed tournament worker
def _killed(task: tournament_tool.GameTask) -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def test_a_killed_tournament_worker_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    monkeypatch.setattr(tournament_tool, "play_game", _killed)
    argv = [*TWO_GAMES[:-1], "2", "--db", str(tmp_path / "t.db"), "--out", str(tmp_path / "out")]
    assert tournament_tool.main(argv) == 1
    out = capsys.readouterr().out
    assert "a worker process died" in out and "run the same command again to resume" in out


# ---------------------------------------------------------------------- a Ray address that cannot be reached
def _closed_port() -> int:
    """A port on this machine where nothing listens (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize("address", ["127.0.0.1:{port}", "ray://127.0.0.1:{port}", "not an address"])
def test_an_unreachable_ray_address_is_refused_in_seconds(
    address: str, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    address = address.format(port=_closed_port())
    start = time.monotonic()
    with pytest.raises(SystemExit) as exit_:
        tournament_tool.main([*TWO_GAMES, "--db", str(tmp_path / "t.db"), "--backend", "ray", "--address", address])
    assert exit_.value.code == 2
    line = _error_line(capsys, "concordia tournament")
    assert ("a Ray address is" if address == "not an address" else "cannot reach the Ray cluster") in line
    argv = ["--config", "expert_tiny", "--runs_dir", str(tmp_path / "runs"), "--backend", "ray", "--address", address]
    with pytest.raises(SystemExit) as exit_:
        expert_iteration.main(argv)
    assert exit_.value.code == 2
    line = _error_line(capsys, "concordia train expert")
    assert ("a Ray address is" if address == "not an address" else "cannot reach the Ray cluster") in line
    assert time.monotonic() - start < 30
    assert not any(tmp_path.iterdir())  # no results file, no run directory


def test_a_resume_with_an_unreachable_ray_address_changes_no_file(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    from concordia_env.training.expert_iteration import ExpertConfig, ExpertRun

    config = ExpertConfig.load(expert_iteration.__file__.replace("expert_iteration.py", "configs/expert_tiny.yaml"))
    run = ExpertRun.create(config.replace(runs_dir=str(tmp_path), backend="ray"))
    before = _files(tmp_path)
    with pytest.raises(SystemExit) as exit_:
        expert_iteration.main(["--resume", str(run.run_dir), "--address", f"127.0.0.1:{_closed_port()}"])
    assert exit_.value.code == 2 and "cannot reach the Ray cluster" in _error_line(capsys, "concordia train expert")
    assert _files(tmp_path) == before  # config.yaml still names no address


@pytest.mark.parametrize(
    ("script", "module_name", "argv", "says"),
    [
        ("rllib", "rllib_ppo", ["--config", "no-such-config"], "no config file no-such-config"),
        ("rllib", "rllib_ppo", ["--config", "docs/configs/rllib.yaml", "--level", "options"], "flat level's actions"),
        ("selfplay", "selfplay", ["--config", "no-such-config"], "no config file no-such-config"),
        ("selfplay", "selfplay", ["--resume", "no-such-run-dir"], "nothing to resume"),
    ],
)
def test_the_other_training_scripts_say_a_config_mistake_in_one_line(
    script: str, module_name: str, argv: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    module = importlib.import_module(f"concordia_env.training.{module_name}")
    with pytest.raises(SystemExit) as stopped:
        module.main(argv)
    assert stopped.value.code == 2
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert error.startswith(f"concordia train {script}: error: ") and says in error, error


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--only", "heuristic", "--out", "{tmp}/a file"], "--out: {tmp}/a file exists and is not a directory"),
        (["--only", "mcts", "--mcts-spec", "bogus"], "unknown agent 'bogus'"),
        (["--only", "learned-random", "--learned-spec", "learned:path={tmp}/none.npz"], "no afterstate model at"),
        (["--games-learned", "nan"], "argument --games-learned: must be a number > 0, got 'nan'"),
        (["--seed", "-1"], "argument --seed: must be an integer >= 0, got '-1'"),
        (["--workers", "0"], "argument --workers: must be an integer >= 1, got '0'"),
    ],
)
def test_strength_bars_refuse_bad_input_before_the_first_game(
    argv: list[str], says: str, tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    from concordia_env.benchmarks import strength_bars

    monkeypatch.setattr(strength_bars, "run_for_command", lambda *a, **k: pytest.fail("a bar was played"))
    (tmp_path / "a file").write_text("mine")
    before = _files(tmp_path)
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv] + ["--db", str(tmp_path / "bars.db")]
    if "--out" not in argv:
        argv += ["--out", str(tmp_path / "out")]
    with pytest.raises(SystemExit) as exit_:
        strength_bars.main(argv)
    assert exit_.value.code == 2
    assert says.replace("{tmp}", str(tmp_path)) in _error_line(capsys, "concordia bench strength_bars")
    assert _files(tmp_path) == before


def test_strength_bars_on_a_results_file_that_is_not_one_say_so_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    from concordia_env.benchmarks import strength_bars

    code = strength_bars.main(["--only", "heuristic", "--games-heuristic", "4", "--db", str(tmp_path)])
    out = capsys.readouterr()
    assert code == 2 and "Traceback" not in out.err + out.out
    assert f"results file refused: {tmp_path} is a directory" in " ".join(out.out.split())
