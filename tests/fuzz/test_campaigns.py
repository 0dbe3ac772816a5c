"""Fuzzing in the test suite: every campaign of :mod:`tests.fuzz.campaigns`, a few seconds each.

The campaigns themselves (what they draw, what must hold) are documented in
``tests/fuzz/campaigns.py``; ``python -m tests.fuzz.campaigns --hours N`` runs them for longer. Here
each runs as an ordinary Hypothesis test, so a failure is shrunk, printed and replayed
first on the next run. ``raw-state`` and ``state-mutation`` run in a child process: a
crash of compiled code there fails this test instead of ending the test runner.

* ``positions`` is the property test of the position loader: every position it accepts,
  however it was edited, keeps every invariant for 200 random moves and round-trips
  through JSON before and after them.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.fuzz import campaigns as fuzz

ROOT = Path(__file__).resolve().parents[2]
#: inputs per campaign in the test suite: all together about a minute on one loaded core
CI_EXAMPLES = {
    "positions": 100,
    "position-text": 100,
    "actions": 100,
    "vector": 40,
    "options": 150,
    "env-orders": 40,
    "openspiel": 60,
    "web": 25,
    "web-attacks": 60,
    "opponents": 60,
    "stored-rows": 60,
    "concurrent": 30,
    "training-faults": 2,
}
#: inputs of the campaigns that run in a child process (a crash there must not end the test runner)
ISOLATED_EXAMPLES = {"raw-state": 400, "state-mutation": 150}


@pytest.mark.parametrize("name", list(CI_EXAMPLES))
def test_campaign(name: str) -> None:
    check = fuzz.CAMPAIGNS[name].check

    @settings(
        max_examples=CI_EXAMPLES[name],
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
    )
    @given(data=st.data())
    def campaign(data: st.DataObject) -> None:
        check(data)

    campaign()


def test_every_campaign_runs_in_the_test_suite() -> None:
    isolated = {name for name, c in fuzz.CAMPAIGNS.items() if c.isolated}
    assert set(CI_EXAMPLES) | isolated == set(fuzz.CAMPAIGNS) and isolated == set(ISOLATED_EXAMPLES)


@pytest.mark.parametrize("name", list(ISOLATED_EXAMPLES))
def test_isolated_campaign_in_a_child_process(name: str) -> None:
    """raw-state: corrupted arrays refused with ValueError or surviving every call; state-mutation: writes
    through handed-out arrays refused or into copies. A segfault fails here, not the test runner."""
    examples = ISOLATED_EXAMPLES[name]
    cmd = [sys.executable, "-m", "tests.fuzz.campaigns", "--campaigns", name]
    cmd += ["--examples", str(examples), "--chunk", str(examples)]
    run = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    row = re.search(rf"^\| {name} \| (\d+) \| 0 \| 0 \|", run.stdout, re.MULTILINE)
    assert row and int(row.group(1)) >= examples, run.stdout[-2000:]


def test_a_crashing_child_is_reported_not_fatal(monkeypatch: pytest.MonkeyPatch) -> None:
    """The runner survives a child that dies by a signal, and reports it as a crash."""
    real_run = subprocess.run

    def crash_instead(cmd, **kwargs):  # the child campaign is replaced by a process that segfaults
        crash = "import ctypes; ctypes.string_at(0)"
        return real_run([sys.executable, "-c", crash], **kwargs)

    monkeypatch.setattr(fuzz.subprocess, "run", crash_instead)
    tallies = fuzz.run(["raw-state"], examples=1, seconds=None, chunk=1, base_seed=0, log=lambda _: None)
    assert len(tallies["raw-state"].crashes) == 1 and "killed by signal" in tallies["raw-state"].crashes[0]
