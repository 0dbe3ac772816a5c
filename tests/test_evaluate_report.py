"""``concordia evaluate`` and ``concordia_env.evaluate``: Elo beside the win rate, the progress line, the
finished games kept on Ctrl-C, and the sequential test that stops when its answer is known."""

from __future__ import annotations

import io
import json
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import concordia_env
from concordia_env import Game
from concordia_env.tools import evaluate as evaluate_module
from concordia_env.tools.cli import main as cli_main
from concordia_env.tools.evaluate import EvalResult, Evaluation, EvaluationInterrupted
from concordia_env.tools.progress import Progress, duration_text
from concordia_env.tools.report import elo_difference, elo_interval, elo_text, wilson_interval, win_rate_of_elo
from concordia_env.tools.sprt import Sprt
from tests.interrupts import interruptible

ROOT = Path(__file__).resolve().parents[1]


# ---------------------------------------------------------------------- Elo
def test_elo_is_cutechess_s_at_two_players_and_the_win_share_against_the_equal_share_above() -> None:
    assert elo_difference(0.5) == 0 and elo_difference(0.75) == pytest.approx(-400 * math.log10(1 / 0.75 - 1))
    assert elo_difference(0.75) == pytest.approx(190.85, abs=0.01)  # cutechess-cli prints 190.8 for 75%
    assert elo_difference(0.25, num_players=4) == pytest.approx(0) and elo_difference(0.2, 5) == pytest.approx(0)
    assert elo_difference(0.5, num_players=4) == pytest.approx(400 * math.log10(3))
    for n in (2, 3, 4, 5):
        for elo in (-300.0, -20.0, 0.0, 55.0, 400.0):
            assert elo_difference(win_rate_of_elo(elo, n), n) == pytest.approx(elo)
    assert elo_difference(0.0) == -math.inf and elo_difference(1.0) == math.inf
    elo, low, high = elo_interval(120, 200)
    wilson = wilson_interval(120, 200)
    assert (low, high) == (elo_difference(wilson[0]), elo_difference(wilson[1])) and low < elo < high
    assert (elo_text(70.4), elo_text(-12.6), elo_text(math.inf), elo_text(-math.inf)) == ("+70", "-13", "+inf", "-inf")


def result(wins: int, games: int, opponent: str = "random") -> EvalResult:
    low, high = wilson_interval(wins, games)
    return EvalResult(opponent, games, wins, wins / games, low, high, 100.0, 90.0, 1.0)


def test_the_report_and_its_json_give_the_elo_difference_with_its_interval() -> None:
    two = Evaluation("a", [result(120, 200), result(200, 200, "weak")], "italia", 2, 0)
    text = two.report()
    assert "won 120/200 = 60.0% [95% CI 53.1%-66.5%], Elo +70 [+21, +119]" in text
    assert "won 200/200 = 100.0% [95% CI 98.1%-100.0%], Elo +inf [+687, +inf]" in text
    data = json.loads(json.dumps(two.to_dict(), allow_nan=False))  # strict JSON: an infinite end is null
    assert data["results"][0]["elo"] == pytest.approx(70.4, abs=0.1)
    assert data["results"][1]["elo"] is None and data["results"][1]["elo_ci"][1] is None
    assert EvalResult.from_dict(two.results[0].to_dict()) == two.results[0]  # the stored form is unchanged
    four = Evaluation("a", [result(50, 100)], "imperium", 4, 0).report()
    assert "Elo +191" in four and "Elo: of the win share against the equal share 25%" in four


# ---------------------------------------------------------------------- progress
def test_the_progress_line_says_games_done_elapsed_left_and_the_status() -> None:
    stream = io.StringIO()
    with Progress("vs random", 10, stream=stream, refresh_seconds=60) as line:
        line.update(4, "won 3")
        shown = line.text()
    assert shown.startswith("vs random: 4/10 games, 0s elapsed, ~0s left, won 3")
    written = stream.getvalue()
    assert written.count("\n") == 1 and written.endswith("\n") and "\r" in written
    assert duration_text(42) == "42s" and duration_text(192) == "3m12s" and duration_text(3900) == "1h05m"
    capped = Progress("vs x", 10, capped=True, stream=io.StringIO(), refresh_seconds=60)
    capped.update(1)
    assert "at most ~" in capped.text()
    capped.close()


def test_evaluate_shows_progress_only_when_asked_or_on_a_terminal(capsys: pytest.CaptureFixture[str]) -> None:
    concordia_env.evaluate("heuristic", "random", 2, progress=True)
    err = capsys.readouterr().err
    assert "vs random: 2/2 games" in err and "won 2 = 100.0%" in err and "Elo" in err
    concordia_env.evaluate("heuristic", "random", 2)  # stderr is no terminal here: nothing
    assert capsys.readouterr().err == ""
    assert cli_main(["evaluate", "heuristic", "--vs", "random", "--games", "2", "--quiet"]) == 0
    captured = capsys.readouterr()
    assert captured.err == "" and "Elo" in captured.out


# ---------------------------------------------------------------------- Ctrl-C
class StopInThirdGame:
    """An agent that plays the first legal action and is interrupted (Ctrl-C) in its third game."""

    resets = 0  # class-level: each seat plays a copy; the warm-up's throwaway decision is the first reset

    def reset(self, seed: int | None = None) -> None:
        type(self).resets += 1

    def act(self, game: Game) -> int:
        if type(self).resets > 3:
            raise KeyboardInterrupt
        return int(game.legal_actions()[0])


def test_an_interrupted_evaluation_keeps_its_finished_games() -> None:
    StopInThirdGame.resets = 0
    with pytest.raises(EvaluationInterrupted) as stop:
        concordia_env.evaluate(StopInThirdGame(), ["random", "heuristic"], 10, max_turns=40)
    assert isinstance(stop.value, KeyboardInterrupt)
    evaluation = stop.value.evaluation
    assert evaluation.interrupted and [r.opponent for r in evaluation.results] == ["random"]
    assert evaluation["random"].games == 2 and "won" in evaluation.report()


def test_concordia_evaluate_prints_the_partial_result_and_exits_130(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    partial = Evaluation("heuristic", [result(3, 4)], "italia", 2, 0, interrupted=True)

    def interrupted(*args: Any, **kwargs: Any) -> Evaluation:
        raise EvaluationInterrupted(partial)

    monkeypatch.setattr(evaluate_module, "evaluate", interrupted)
    out = tmp_path / "partial.json"
    assert cli_main(["evaluate", "heuristic", "--vs", "random", "--games", "100", "--json", str(out)]) == 130
    captured = capsys.readouterr()
    assert "won 3/4 = 75.0% [95% CI" in captured.out and "Elo +191" in captured.out
    assert (
        captured.err.splitlines()[-1] == "interrupted: the last result holds only the 4 games finished against random"
    )
    assert json.loads(out.read_text())["interrupted"] is True


def test_ctrl_c_in_a_real_run_with_workers_ends_in_one_line_and_no_traceback(tmp_path: Path) -> None:
    out = tmp_path / "partial.json"
    command = [sys.executable, "-m", "concordia_env.tools.cli", "evaluate", "heuristic"]
    command += ["--vs", "mcts:time_per_move=0.05", "--games", "400", "--workers", "2", "--json", str(out)]
    run = interruptible(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert run.stderr is not None
    header = run.stderr.readline()  # printed once the specs are checked, before the first game
    assert header.startswith("evaluating heuristic: 400 games"), header
    time.sleep(6)
    os.kill(run.pid, signal.SIGINT)
    stdout, stderr = run.communicate(timeout=120)
    assert run.returncode == 130, stderr[-3000:]
    assert "Traceback" not in stderr and "KeyboardInterrupt" not in stderr, stderr[-3000:]
    assert stderr.splitlines()[-1].startswith("interrupted: the last result holds only the ")
    assert "vs mcts:time_per_move=0.05: won" in stdout
    assert json.loads(out.read_text())["interrupted"] is True


# ---------------------------------------------------------------------- the sequential test
def test_a_sequential_evaluation_stops_when_the_test_decides_on_the_fixed_evaluation_s_games() -> None:
    sequential = concordia_env.evaluate("heuristic", "random", 100, sprt="p0=0.5 p1=0.9", workers=1)
    outcome = sequential.sprt
    assert outcome is not None and outcome.decision == "H1" and outcome.games < 100
    assert outcome.games % 2 == 0 and outcome.llr >= outcome.upper  # whole batches, one seat each equally
    fixed = concordia_env.evaluate("heuristic", "random", outcome.games)
    assert sequential["random"].wins == fixed["random"].wins == outcome.wins  # the same games, game by game
    text = sequential.report()
    assert "SPRT p0=0.5 p1=0.9" in text and "H1 accepted" in text and f"after {outcome.games} games" in text
    data = sequential.to_dict()
    assert data["sprt"]["decision"] == "H1" and data["sprt"]["games"] == outcome.games
    weaker = concordia_env.evaluate("random", "heuristic", 100, sprt={"elo0": 0, "elo1": 100})
    assert weaker.sprt is not None and weaker.sprt.decision == "H0"
    assert weaker.sprt.test.elo1 == 100 and "elo0=0 elo1=100" in weaker.report()


def test_a_sequential_test_at_four_players_is_on_the_win_share_against_the_equal_share() -> None:
    four = concordia_env.evaluate("heuristic", "random", 40, map="imperium", num_players=4, sprt="elo0=0 elo1=200")
    assert four.sprt is not None and four.sprt.test.p0 == pytest.approx(0.25)
    assert four.sprt.decision == "H1" and four.sprt.games % 4 == 0


def test_a_sequential_test_is_against_one_opponent_and_its_bounds_are_checked() -> None:
    with pytest.raises(ValueError, match="one opponent"):
        concordia_env.evaluate("random", ["random", "heuristic"], 10, sprt="elo0=0 elo1=50")
    with pytest.raises(ValueError, match="elo0 must be below elo1"):
        concordia_env.evaluate("random", "random", 10, sprt="elo0=50 elo1=0")
    assert Sprt.parse("elo0=0 elo1=50").fixed_games() == 525


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--sprt", "elo0=50", "elo1=0"], "elo0 must be below elo1"),
        (["--sprt", "elo0=0", "elo1=50", "alpha=1.5"], "alpha must be a number between 0 and 1"),
        (["--sprt", "p0=0.5", "p1=1.2"], "p1 must be a number between 0 and 1"),
        (["--sprt", "elo0=0"], "one pair"),
        (["--sprt", "elo0=0", "elo1=50", "--vs", "random", "heuristic"], "--sprt tests against one opponent"),
        (["--json", "/proc/nonexistent/x.json"], "--json: "),
    ],
)
def test_a_bad_sequential_test_or_output_is_one_line_before_any_game(
    argv: list[str], says: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def no_games(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("a game was played")

    monkeypatch.setattr(evaluate_module, "evaluate", no_games)
    with pytest.raises(SystemExit) as exit_:
        cli_main(["evaluate", "heuristic", "--vs", "random", *argv])
    assert exit_.value.code == 2
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert error.startswith("concordia evaluate: error: ") and says in error, error


def test_concordia_evaluate_sprt_reports_and_writes_the_test(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "sprt.json"
    argv = ["evaluate", "heuristic", "--vs", "random", "--sprt", "p0=0.5", "p1=0.9", "--games", "50"]
    assert cli_main([*argv, "--json", str(out)]) == 0
    captured = capsys.readouterr()
    assert "H1 accepted" in captured.out and "LLR +" in captured.out
    assert "a sequential test against random, p0=0.5 p1=0.9" in captured.err
    data = json.loads(out.read_text())
    assert data["sprt"]["decision"] == "H1" and data["sprt"]["max_games"] == 50
    assert data["results"][0]["games"] == data["sprt"]["games"]
