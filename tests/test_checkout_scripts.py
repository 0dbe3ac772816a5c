"""The scripts in the checkout's training/, benchmarks/ and agents/ folders run, each at a tiny size.

Each script is loaded from its file as a module (the folders are not packages) and its
``main(argv)`` called with a tiny setting; its output is checked for the line that says it
did its job. Every script of the three folders has a run here, and says in its docstring
how to run it and what it reaches.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ("training", "benchmarks", "agents")


def load(relative: str) -> ModuleType:
    """The script at ``relative`` as a module named after its file (so that ``module:Class`` names it)."""
    path = ROOT / relative
    name = f"checkout_{path.parent.name}_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


#: script -> (its tiny arguments, given the test's folder; a text its output must hold)
RUNS: dict[str, tuple[Callable[[Path], list[str]], str]] = {
    "training/sb3_flat.py": (
        lambda tmp: ["--steps", "32", "--envs", "4", "--eval-games", "2", "--out", str(tmp / "flat.zip")],
        "vs heuristic: won",
    ),
    "training/sb3_options.py": (  # with a learning curve (a point after the first of two chunks) from no prior
        lambda tmp: [
            *("--steps", "1024", "--envs", "2", "--eval-games", "2", "--out", str(tmp / "options.zip")),
            *("--utility-prior", "0", "--eval-every", "512", "--curve-games", "2"),
        ],
        "curve: 512 steps: vs heuristic: won",
    ),
    "training/ppo_single_file.py": (
        lambda tmp: ["--steps", "8", "--envs", "2", "--num-steps", "4", "--eval-games", "2", "--out", str(tmp / "a")],
        "greedy policy vs heuristic: won",
    ),
    "training/rllib_multiagent.py": (
        lambda tmp: ["--iterations", "1", "--batch", "100", "--hidden", "16", "--max-cycles", "99", "--out", str(tmp)],
        "iteration 1/1: ",
    ),
    "training/tianshou_dqn_masked.py": (
        lambda tmp: ["--steps", "80", "--test-games", "1", "--max-cycles", "40", "--out", str(tmp / "dqn.pt")],
        "greedy games: mean return",
    ),
    "benchmarks/engine_speed.py": (
        lambda tmp: ["--seconds", "0.02", "--maps", "italia", "--batch", "4", "--envs", "0"],
        "connect_four_v3 (AEC)",
    ),
    "benchmarks/agent_costs.py": (lambda tmp: ["--agents", "heuristic", "--seconds", "0.02"], "heuristic"),
    "benchmarks/options_level_speed.py": (
        lambda tmp: ["--seconds", "0.02", "--rounds", "1", "--threads", "1", "--envs", "2"],
        "| 1 thread, steps per **CPU** second | ",
    ),
    "benchmarks/turn_options_speed.py": (
        lambda tmp: ["--games", "1", "--passes", "1", "--features"],
        "% of them with the features of an earlier option",
    ),
    "benchmarks/sprt_error_rates.py": (lambda tmp: ["--matches", "20"], "`elo0=0 elo1=50` (2p: 50.0% vs 57.1%)"),
    "benchmarks/strength_tables.py": (
        lambda tmp: ["--table", "strength", "--rows", "1", "--games", "4", "--workers", "1"],
        "| `heuristic` vs `random` | imperium 4p |",
    ),
    "benchmarks/ladder_table.py": (
        lambda tmp: ["--agents", "random", "heuristic", "--rounds", "1", "--workers", "1", "--out", str(tmp / "l")],
        "Head to head",
    ),
    "benchmarks/openspiel_bridge.py": (
        lambda tmp: ["--games", "1", "--only", "mcts", "--time-per-move", "0.001", "--overhead-games", "1"],
        "| mcts | ",
    ),
    "agents/lookahead_agent.py": (lambda tmp: ["--games", "2", "--vs", "random"], "lookahead:money_weight=0.0 on"),
}


def test_every_script_of_the_folders_has_a_run_and_says_how_to_run_it() -> None:
    scripts = sorted(p.relative_to(ROOT).as_posix() for folder in FOLDERS for p in (ROOT / folder).glob("*.py"))
    assert scripts == sorted(RUNS)
    for script in scripts:
        text = (ROOT / script).read_text()
        assert text.startswith('"""') and f"python {script}" in text and "What it reaches" in text, script
    assert not any((ROOT / folder / "__init__.py").exists() for folder in FOLDERS), "folders of scripts, not packages"


@pytest.mark.parametrize("script", sorted(RUNS))
def test_the_script_runs_at_a_tiny_size(script: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    arguments, expected = RUNS[script]
    assert load(script).main(arguments(tmp_path)) == 0
    assert expected in capsys.readouterr().out


#: a command in backticks, as docs/benchmarks.md names what reproduces a table
DOC_COMMAND = re.compile(r"`(python |concordia |make |time )")
#: what a table's caption says when it is a second table of the run named above it
SAME_RUN = "from the same run"


def doc_tables(text: str) -> list[tuple[int, str]]:
    """Each markdown table of ``text``: its first line's number, and its text.

    The text starts with the prose since the heading or table before it (a caption names the command).
    """
    tables: list[tuple[int, str]] = []
    prose: list[str] = []
    table: list[str] = []
    first = 0
    for number, line in enumerate([*text.split("\n"), ""], start=1):
        if line.startswith("| "):
            first = first or number
            table.append(line)
            continue
        if table:
            tables.append((first, "\n".join(prose + table)))
            prose, table, first = [], [], 0
        prose = [line] if line.startswith("#") else [*prose, line]
    return tables


def test_every_table_of_the_benchmarks_doc_names_what_reproduces_it() -> None:
    text = (ROOT / "docs" / "benchmarks.md").read_text()
    tables = doc_tables(text)
    assert len(tables) > 20
    unnamed = [first for first, block in tables if not DOC_COMMAND.search(block) and SAME_RUN not in block]
    assert unnamed == [], f"docs/benchmarks.md: tables at lines {unnamed} name no command that reproduces them"
    scripts = sorted(p.name for p in (ROOT / "benchmarks").glob("*.py"))
    assert [name for name in scripts if f"python benchmarks/{name}" not in text] == []


def test_the_doc_table_check_sees_a_table_without_its_command() -> None:
    text = "## A\n\n`concordia bench x`:\n\n| a |\n| --- |\n\nThen, by hand:\n\n| b |\n| --- |\n"
    blocks = doc_tables(text)
    assert [first for first, _ in blocks] == [5, 10]
    assert [bool(DOC_COMMAND.search(block)) for _, block in blocks] == [True, False]


def test_the_strength_tables_play_the_models_they_were_measured_with(monkeypatch: pytest.MonkeyPatch) -> None:
    from concordia_env import agents

    tables = load("benchmarks/strength_tables.py").TABLES
    specs = [spec for table in tables.values() for match in table for spec in (match.agent, match.opponent)]
    paths = {found.group(1) for spec in specs if (found := re.search(r"path=([^,]+)", spec))}
    assert paths and all((ROOT / path).is_file() for path in paths), paths
    monkeypatch.chdir(ROOT)  # the scripts run from the checkout
    for spec in specs:  # every spec builds: its model loads and its options are known
        agents.from_spec(spec)
    *settings, control, after = tables["search-settings"]
    assert all("docs/reports/expert_italia2c/model.npz,simulations=150," in m.agent for m in settings)
    assert control.agent.startswith("mcts:") and "expert_italia2d/model.npz,simulations=150" in after.agent
    assert {m.seed for m in tables["search-settings"]} == {8801} and {m.seed for m in tables["curve"]} == {700}


def test_the_agent_example_registers_its_agent_under_its_name() -> None:
    from concordia_env import Game, agents

    module = load("agents/lookahead_agent.py")
    agents.register("lookahead", f"{module.__name__}:LookaheadAgent")
    agent = agents.from_spec("lookahead:money_weight=0.5")
    assert isinstance(agent, module.LookaheadAgent) and agent.money_weight == 0.5
    game = Game.new(map="italia", num_players=2, seed=0)
    before = game.to_json()
    assert agent.act(game) in game.legal_actions() and game.to_json() == before
    with pytest.raises(ValueError, match="money_weight"):
        agents.make("lookahead", money_weight=-1.0)
