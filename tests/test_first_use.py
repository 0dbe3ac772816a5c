"""What a user meets first with the installed package: the names it lists, the extras each command
needs, one call and one command that evaluate a policy, and the compile that first use pays."""

from __future__ import annotations

import json
import os
import pydoc
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
import tomllib

import concordia_env
from concordia_env import agents
from concordia_env.tools import cli
from concordia_env.tools.evaluate import Evaluation, games_for_margin, margin
from tests.interrupts import interruptible

ROOT = Path(__file__).resolve().parents[1]
#: the names of the package that are imported on first use
LAZY_NAMES = ("env", "raw_env", "parallel_env", "SingleAgentEnv", "VectorGame", "ConcordiaVectorEnv", "evaluate")


# ---------------------------------------------------------------------- the package's names and help
def test_dir_and_all_list_the_lazy_names_and_help_shows_them() -> None:
    assert set(LAZY_NAMES) <= set(dir(concordia_env))
    assert set(LAZY_NAMES) <= set(concordia_env.__all__)
    assert all(hasattr(concordia_env, name) for name in concordia_env.__all__)
    text = pydoc.render_doc(concordia_env, renderer=pydoc.plaintext)
    for name in ("SingleAgentEnv", "VectorGame", "ConcordiaVectorEnv", "parallel_env", "evaluate"):
        assert re.search(rf"\b{name}\b", text.split("CLASSES", 1)[-1]), name


def test_help_works_on_the_core_install_and_a_name_of_an_extra_says_which() -> None:
    """Without torch (the train extra), help() and dir() skip OptionsPolicy, and asking for it names the extra."""
    code = (
        "import sys, pydoc\n"
        "sys.modules['torch'] = None\n"
        "import concordia_env\n"
        "assert 'OptionsPolicy' not in dir(concordia_env) and 'SingleAgentEnv' in dir(concordia_env)\n"
        "assert 'evaluate' in pydoc.render_doc(concordia_env, renderer=pydoc.plaintext)\n"
        "try:\n"
        "    concordia_env.OptionsPolicy\n"
        "except ModuleNotFoundError as e:\n"
        "    print(e)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert 'torch is not installed): pip install "concordia-env[train]"' in done.stdout


def test_the_package_docstring_is_a_quick_start_that_points_only_to_what_ships() -> None:
    doc = concordia_env.__doc__ or ""
    for name in ("Game.new", "env(", "SingleAgentEnv", "ConcordiaVectorEnv", "VectorGame", "evaluate", "warmup"):
        assert name in doc, name
    assert "docs/" not in doc and ".md" not in doc, "the wheel ships no docs folder"
    for module in re.findall(r":mod:`(concordia_env[\w.]*)`", doc):  # every module it names exists and ships
        assert (ROOT / Path(*module.split("."))).with_suffix(".py").is_file() or (
            ROOT / Path(*module.split(".")) / "__init__.py"
        ).is_file(), module


def test_pettingzoo_s_api_test_prints_no_warning_of_the_project() -> None:
    from pettingzoo.test import api_test

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(concordia_env.env(map="italia", num_players=2), num_cycles=20)
    ours = [str(w.message) for w in caught if "reset()" in str(w.message) or "concordia" in w.filename]
    assert ours == []


# ---------------------------------------------------------------------- the extras of the subcommands
def _programs() -> list[tuple[str, cli.Program]]:
    found = [(f"concordia {name}", p) for name, p in cli.TOOLS.items()]
    found += [(f"concordia {c} {s}", p) for c, scripts in cli.SCRIPTS.items() for s, p in scripts.items()]
    return found


def test_each_extra_declares_the_modules_the_command_checks_for() -> None:
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    distribution_of = {"yaml": "pyyaml", "pyspiel": "open_spiel", "stable_baselines3": "stable-baselines3"}
    distribution_of["sb3_contrib"] = "sb3-contrib"
    for extra, modules in cli.EXTRA_MODULES.items():
        declared = {re.split(r"[<>=!~\[; ]", r, maxsplit=1)[0].lower() for r in extras[extra]}
        for module in modules:
            assert distribution_of.get(module, module) in declared, f"{extra} does not declare {module}"
    assert {e for _, p in _programs() for e in p.extras} <= set(cli.EXTRA_MODULES)


def test_help_names_the_extra_of_every_subcommand_that_needs_one() -> None:
    text = cli.usage()
    for name, program in cli.TOOLS.items():
        (line,) = [line for line in text.splitlines() if line.startswith(f"  {name} ")]
        assert (f"[extra: {', '.join(program.extras)}]" in line) == bool(program.extras), line
    assert "[extra: train]" in text and "[extra: bench]" in text and 'pip install "concordia-env[X]"' in text
    for command, scripts in cli.SCRIPTS.items():
        assert all(f"[extra: {', '.join(p.extras)}]" in cli.script_usage(command) for p in scripts.values())


@pytest.mark.parametrize(
    ("argv", "module", "extra"),
    [
        (["tournament", "--agents", "random", "--games", "1"], "rich", "tournament"),
        (["tournament", "--agents", "random", "--games", "1"], "openskill", "tournament"),
        (["web"], "starlette", "web"),
        (["bench", "throughput"], "pygame", "bench"),
        (["train", "afterstate"], "torch", "train"),
        (["train", "tianshou"], "tianshou", "train,tianshou"),
    ],
)
def test_a_missing_extra_is_named_in_one_line(
    argv: list[str], module: str, extra: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, module, None)  # what an install without that extra looks like to an import
    assert cli.main(argv) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    (line,) = captured.err.splitlines()
    assert f'pip install "concordia-env[{extra}]"' in line and f"{module} is not installed" in line
    assert line.startswith(f"concordia {' '.join(argv[:2] if argv[0] in cli.SCRIPTS else argv[:1])}: ")


def test_a_module_of_an_extra_reached_later_is_named_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "needs_torch_later.py").write_text("def main(argv):\n    import torch\n    return 0\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(sys.modules, "torch", None)
    assert cli._run("concordia evaluate", cli.Program("needs_torch_later", "x"), []) == 1
    assert 'torch is not installed): pip install "concordia-env[train]"' in capsys.readouterr().err
    (tmp_path / "broken.py").write_text("def main(argv):\n    import no_such_module_anywhere\n")
    with pytest.raises(ModuleNotFoundError):  # a module no extra brings is a bug, not a missing extra
        cli._run("concordia x", cli.Program("broken", "x"), [])


#: run in a fresh interpreter where the train extra's modules cannot be found (an install without it)
WITHOUT_TRAIN = """
import sys

class Blocker:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {"torch", "stable_baselines3", "sb3_contrib"}:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, Blocker())
import concordia_env
from concordia_env._extras import MissingExtraError

def sb3():
    from concordia_env.envs.sb3 import SB3VecEnv

entry_points = {
    "evaluate": lambda: concordia_env.evaluate("policy:m.zip", "random", 2),
    "vector env": lambda: concordia_env.ConcordiaVectorEnv(2, opponents="policy:m.zip"),
    "sb3": sb3,
    "OptionsPolicy": lambda: concordia_env.OptionsPolicy,
}
for label, call in entry_points.items():
    try:
        call()
    except MissingExtraError as e:
        print(f"{label}|{type(e).__mro__[1].__name__}|{e}")
    else:
        print(f"{label}|no error|")
"""


def test_every_python_entry_point_that_needs_the_train_extra_names_it_in_one_line(tmp_path: Path) -> None:
    """Without torch and Stable-Baselines3 each ends in one line naming the extra, not a bare import error."""
    (tmp_path / "m.zip").write_bytes(b"not read: the import fails first")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", WITHOUT_TRAIN], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    lines = {label: (base, text) for label, base, text in (line.split("|") for line in done.stdout.splitlines())}
    assert set(lines) == {"evaluate", "vector env", "sb3", "OptionsPolicy"}, done.stdout
    for label, (base, text) in lines.items():
        assert base == "ModuleNotFoundError", (label, base)  # what callers catch today still catches it
        assert text.endswith('is not installed): pip install "concordia-env[train]"'), (label, text)
        assert "\n" not in text and "No module named" not in text, (label, text)
    assert lines["evaluate"][1].startswith('the policy agent needs the "train" extra (torch is not installed)')
    assert lines["sb3"][1].startswith('concordia_env.envs.sb3 needs the "train" extra (stable_baselines3 is not')


def test_concordia_evaluate_of_a_saved_model_names_the_extra_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    model = tmp_path / "m.zip"
    model.write_bytes(b"not read: the import fails first")
    monkeypatch.setitem(sys.modules, "torch", None)
    assert cli.main(["evaluate", f"policy:{model}", "--vs", "random", "--games", "2"]) == 1
    captured = capsys.readouterr()
    (line,) = captured.err.splitlines()
    assert (
        line
        == 'concordia evaluate: needs the "train" extra (torch is not installed): pip install "concordia-env[train]"'
    )
    assert captured.out == ""


# ---------------------------------------------------------------------- evaluate
def test_evaluate_a_spec_an_agent_or_a_callable_with_intervals_and_how_much_the_games_tell() -> None:
    first = concordia_env.evaluate("heuristic", opponents=["random"], games=4)
    assert isinstance(first, Evaluation) and first.seed == 0 and first.policy == "heuristic"
    result = first["random"]
    assert result.games == 4 and 0 <= result.ci_low <= result.win_rate <= result.ci_high <= 1
    report = first.report()
    assert "vs random: won" in report and "95% CI" in report and "equal strength (50%" in report
    assert "4 games give a 95% interval of about ±49 points" in report and "fewer than 100 games" in report
    again = concordia_env.evaluate(agents.make("heuristic"), opponents="random", games=4)
    assert again["random"].wins == result.wins, "the same seed plays the same games"
    first_legal = concordia_env.evaluate(lambda game: int(game.legal_actions()[0]), ["random", "heuristic"], 2)
    assert [r.opponent for r in first_legal.results] == ["random", "heuristic"]
    assert all(r.games == 2 for r in first_legal.results)
    with pytest.raises(TypeError):
        concordia_env.evaluate(42, games=2)
    with pytest.raises(ValueError):
        concordia_env.evaluate("no-such-agent", games=2)
    for bad in ({"games": 0}, {"games": 2.5}, {"seed": -1}, {"opponents": []}, {"map": "atlantis"}):
        with pytest.raises((ValueError, TypeError)):
            concordia_env.evaluate("random", **{"games": 2, **bad})


def test_evaluate_a_stable_baselines3_model_in_memory() -> None:
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    from concordia_env import SingleAgentEnv

    model = MaskablePPO("MlpPolicy", SingleAgentEnv(opponents="random", map="italia", num_players=2), seed=0)
    evaluation = concordia_env.evaluate(model, opponents="random", games=2, max_turns=60)
    assert evaluation["random"].games == 2 and evaluation.policy == "MaskablePPO"


def test_how_many_games_make_a_result_meaningful() -> None:
    assert games_for_margin(0.05) == 385 and games_for_margin(0.03) == 1068
    assert margin(200) == pytest.approx(0.069, abs=0.001) and margin(400) == pytest.approx(0.049, abs=0.001)
    with pytest.raises(ValueError):
        games_for_margin(5)


def test_concordia_evaluate_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "eval.json"
    assert cli.main(["evaluate", "heuristic", "--vs", "random", "--games", "2", "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "heuristic on italia, 2 players (seed 0)" in printed and "vs random: won" in printed
    assert json.loads(out.read_text())["results"][0]["games"] == 2
    with pytest.raises(SystemExit) as exit_:
        cli.main(["evaluate", "no-such-agent"])
    assert exit_.value.code == 2 and "no-such-agent" in capsys.readouterr().err


# ---------------------------------------------------------------------- compiling
@pytest.mark.parametrize("jobs", [1, 2, 3, 8])
def test_warmup_runs_each_part_once_after_the_parts_it_needs(jobs: int) -> None:
    from concordia_env.tools.compile_coverage import PARTS
    from concordia_env.tools.warmup import schedule

    stages = schedule(jobs)
    stage_of = {index: number for number, groups in enumerate(stages) for group in groups for index in group}
    assert sorted(index for groups in stages for group in groups for index in group) == list(range(len(PARTS)))
    assert all(len(groups) <= jobs for groups in stages)
    for index, part in enumerate(PARTS):
        assert all(need < index and stage_of[need] < stage_of[index] for need in part.needs), part.name
    assert stages[0] == [[0]]  # the rules alone: every other part calls them


def test_warmup_on_two_cores_compiles_the_heuristic_beside_vectorgame_then_balances_the_rest() -> None:
    from concordia_env.tools.compile_coverage import PARTS
    from concordia_env.tools.warmup import schedule

    stages = schedule(2)
    assert [[PARTS[i].name for i in group] for group in stages[1]] == [["the heuristic"], ["VectorGame"]]
    longest = sorted((i for group in stages[2] for i in group), key=lambda i: -PARTS[i].seconds)[:2]
    assert len(stages[2]) == 2 and all(len(set(longest) & set(group)) == 1 for group in stages[2])


def test_warmup_has_help_and_runs(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        cli.main(["warmup", "--help"])
    assert exit_.value.code == 0 and "ahead of time" in capsys.readouterr().out
    assert cli.main(["warmup"]) == 0
    printed = capsys.readouterr().out
    parts = ("the rules", "the heuristic", "MCTS", "the learned agent", "VectorGame", "the vector env", "the options")
    for part in parts:
        assert f"  {part}" in printed, part
    assert "ready in" in printed


@pytest.mark.parametrize("argv", [["--jobs", "0"], ["--jobs", "two"], ["--portable", "{file}"]])
def test_warmup_refuses_bad_input_in_one_line_before_compiling(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a-file").write_text("")
    with pytest.raises(SystemExit) as exit_:
        cli.main(["warmup", *[a.format(file=tmp_path / "a-file") for a in argv]])
    assert exit_.value.code == 2
    assert len([line for line in capsys.readouterr().err.splitlines() if "error" in line]) == 1


def test_ctrl_c_in_warmup_is_one_line_and_exit_130() -> None:
    """What was compiled is kept (each function as it compiles), so an interrupted warmup says so and stops."""
    import signal

    proc = interruptible(
        [sys.executable, "-m", "concordia_env.tools.warmup", "--jobs", "1"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stdout.readline().startswith("compiling every part")
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=300)
    if proc.returncode == 0:
        pytest.skip("the warmup ended before the interrupt reached it")
    assert proc.returncode == 130 and "Traceback" not in err, err
    interrupted = "concordia warmup: interrupted; what it compiled is kept, run it again to finish"
    assert err.strip().splitlines() == [interrupted]


def test_a_cold_cache_says_once_that_it_compiles_and_a_warm_one_says_nothing(tmp_path: Path) -> None:
    code = (
        "from concordia_env.engine.rules.state_helpers import count_bits, lowest_bit\n"
        "assert count_bits(5) == 2 and count_bits(7) == 3 and lowest_bit(4) == 2\n"
    )
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(ROOT)}
    env.pop("CONCORDIA_COMPILE_NOTICE", None)
    env["CONCORDIA_SHIPPED_CODE"] = "0"  # not the checkout's compiled code (built by the wheel build)
    cold = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert cold.returncode == 0, cold.stderr
    assert cold.stderr.count("compiling the rules with numba (first run only") == 1, cold.stderr
    warm = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert warm.returncode == 0 and "compiling" not in warm.stderr, warm.stderr
