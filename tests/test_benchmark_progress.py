"""``concordia bench throughput`` and ``agent_speed`` show their progress: each line as it ends, the set-up apart.

On first use compiling takes minutes; before, nothing was printed until the end and the
compile time was nowhere. Now every line is printed (flushed) as soon as it is measured,
with its set-up (building the env, compiling or loading its code, the warm-up) in seconds of
its own, never in the measured seconds.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from concordia_env.benchmarks import agent_speed, throughput
from tests.compile_counting import ROOT, checkout_env

#: the benchmark at its smallest, with its AEC line's build held at a gate until the test has read
#: the lines measured before it, and held a second more after (set-up, not measurement); exit
#: status 3 when the gate was never opened (the lines before it were not there to read)
GATED_THROUGHPUT = """
import select, sys, time
from concordia_env.benchmarks import throughput
build_aec, opened = throughput.concordia_aec, []
def gated(*args, **kwargs):
    opened.append(bool(select.select([sys.stdin], [], [], 120)[0]))
    time.sleep(1.0)
    return build_aec(*args, **kwargs)
throughput.concordia_aec = gated
code = throughput.main(sys.argv[1:])
raise SystemExit(code if opened == [True] else 3)
"""
SMALLEST = ["--seconds", "0.02", "--maps", "creta", "--batch", "8", "--envs", "0"]


def test_throughput_prints_each_line_as_it_is_measured_and_its_set_up_apart(tmp_path: Path) -> None:
    out = tmp_path / "throughput.json"
    argv = [sys.executable, "-c", GATED_THROUGHPUT, *SMALLEST, "--json", str(out)]
    env = {k: v for k, v in checkout_env().items() if k != "PYTHONUNBUFFERED"}  # a pipe's stdout buffers, as a user's
    with tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(
            argv, cwd=ROOT, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err, text=True
        )
        assert proc.stdin is not None and proc.stdout is not None
        before_gate = []
        while not before_gate or not before_gate[-1].startswith(throughput.ENGINE_TOTAL):
            line = proc.stdout.readline()
            assert line, "the run ended before printing the engine's lines"
            before_gate.append(line.rstrip("\n"))
        still_running = proc.poll() is None  # held at the gate: what came so far came line by line
        try:
            proc.stdin.write("go\n")
            proc.stdin.close()
        except BrokenPipeError:  # the gate gave up waiting: the status says so below
            pass
        rest = proc.stdout.read().splitlines()
        proc.wait(timeout=600)
        err.seek(0)
        assert proc.returncode == 0, f"status {proc.returncode} (3: the lines were not printed in time)\n{err.read()}"
    assert still_running and before_gate[0] == throughput.PROGRESS_HEADER
    assert [line[:46].strip() for line in before_gate[1:]] == [
        "connect_four_v3 (AEC)",
        "engine creta 4p",
        throughput.ENGINE_TOTAL,
    ]
    measured = rest[: rest.index("")]
    assert [line[:46].strip() for line in measured] == [
        "AEC env creta 4p",
        "Gymnasium SingleAgentEnv italia 2p",
        "VectorGame(8) creta 4p, no obs",
        "VectorGame(8) creta 4p",
        "VectorGame(8) creta 4p, 2 threads",
        "connect_four_v3 (AEC), again",
    ]
    table = rest[len(measured) + 1 :]
    assert table[0].startswith("measurement") and any(line.startswith("time: ") for line in table)
    rows = {row["name"]: row for row in json.loads(out.read_text())["results"]}
    assert all(row["setup_seconds"] > 0 for row in rows.values())
    aec = rows["AEC env creta 4p"]  # its build waited at the gate and a second more: set-up, not measurement
    assert aec["setup_seconds"] >= 1.0 > aec["seconds"]
    (aec_line,) = [line for line in measured if line.startswith("AEC env")]
    assert float(aec_line.split()[-1].rstrip("s")) >= 1.0 > float(aec_line.split()[-2].rstrip("s"))


def test_a_warm_up_goes_on_while_its_rounds_compile(monkeypatch: pytest.MonkeyPatch) -> None:
    """A round that takes far more CPU time than its length compiled something: another round follows."""
    monkeypatch.setattr(throughput, "SETTLED_SLACK", 0.05)
    rounds: list[float] = []

    def play(seconds: float, compiling: int) -> None:
        rounds.append(seconds)
        if len(rounds) <= compiling:  # what a compile looks like: CPU time far past the round's length
            end = time.process_time() + 0.2
            while time.process_time() < end:
                pass

    throughput.warm_up(lambda s: play(s, compiling=2), 0.01)
    assert rounds == [0.01] * 3
    rounds.clear()
    throughput.warm_up(lambda s: play(s, compiling=0), 0.01)
    assert rounds == [0.01]  # a warm cache: one round, as before
    rounds.clear()
    throughput.warm_up(lambda s: play(s, compiling=99), 0.01)
    assert len(rounds) == throughput.WARMUP_ROUNDS  # never endless


def test_agent_speed_prints_each_set_up_and_line_as_it_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    printed = []
    measure_heuristic = agent_speed.agent_cost

    def watched(spec: str, map_name: str, players: int, seconds: float, seed: int = 0) -> agent_speed.Result:
        printed.append(capsys.readouterr().out)  # what was printed before this call
        return measure_heuristic(spec, map_name, players, seconds, seed)

    monkeypatch.setattr(agent_speed, "agent_cost", watched)
    out = tmp_path / "speed.json"
    assert agent_speed.main(["--agents", "heuristic", "--seconds", "0.05", "--json", str(out)]) == 0
    printed.append(capsys.readouterr().out)
    warmup, measurement, after = printed[0], "".join(printed[1:-1]), printed[-1]
    assert "set-up" in warmup and "heuristic" not in warmup.split("\n", 1)[1]
    # before the heuristic is measured: every set-up, then the engine's first half, each on its own line
    set_ups = measurement.splitlines()
    assert set_ups[0].split()[0] == "heuristic" and set_ups[1].startswith(f"  {agent_speed.ENGINE_LINE}")
    assert set_ups[2].startswith("measured") and set_ups[3].startswith(agent_speed.ENGINE_LINE)
    assert after.splitlines()[0].startswith("heuristic") and "µs" in after and "× engine" in after
    assert after.index(f"{agent_speed.ENGINE_LINE}, again") < after.index("× engine")
    rows = {row["name"]: row for row in json.loads(out.read_text())["results"]}
    assert all(row["setup_seconds"] > 0 for row in rows.values())
    for line in set_ups[:2]:  # the set-up in seconds, apart from the measured CPU seconds
        assert line.endswith(" s") and float(line.split()[-2]) >= 0


def test_agent_speed_without_progress_prints_the_table_alone(capsys: pytest.CaptureFixture[str]) -> None:
    assert agent_speed.main(["--agents", "heuristic", "--seconds", "0.02", "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("italia, 2 players") and "set-up" not in printed
