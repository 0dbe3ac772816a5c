"""Ctrl-C in any ``concordia`` command ends it in one line with status 130, never a traceback.

Each command handles Ctrl-C where its work is (the evaluation keeps its finished games, a
training run its checkpoint); ``cli`` catches the rest: an interrupt while the program
imports or compiles, and an error that an interrupt swallowed by a library caused (a Ctrl-C
landing in one of llvmlite's destructors during a first-use compile, after which numba fails
with ``RuntimeError: no compiled object yet``: seen in a real run).
"""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import types
from pathlib import Path
from typing import Any

import pytest

from concordia_env.tools import cli
from tests.interrupts import interruptible

ROOT = Path(__file__).resolve().parents[1]


def fake_program(monkeypatch: pytest.MonkeyPatch, main: Any) -> cli.Program:
    module = types.ModuleType("fake_concordia_program")
    module.main = main  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, module.__name__, module)
    return cli.Program(module.__name__, "a program of the test")


class SwallowsAnInterrupt:
    """What llvmlite's destructor does with a Ctrl-C that lands in it: Python prints it and goes on."""

    def __del__(self) -> None:
        raise KeyboardInterrupt


def test_an_interrupt_the_program_does_not_handle_is_one_line_and_130(monkeypatch, capsys) -> None:
    def main(argv: list[str]) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(sys, "unraisablehook", sys.unraisablehook)  # put back after the test
    assert cli._run("concordia fake", fake_program(monkeypatch, main), []) == cli.INTERRUPTED
    captured = capsys.readouterr()
    assert captured.err == "concordia fake: interrupted\n" and captured.out == ""


def test_an_error_after_a_swallowed_interrupt_is_the_interrupt_s_one_line(monkeypatch, capsys) -> None:
    def main(argv: list[str]) -> int:
        SwallowsAnInterrupt()  # dropped at once: its destructor's interrupt goes to sys.unraisablehook
        raise RuntimeError("no compiled object yet for <Library 'deal'>")

    monkeypatch.setattr(sys, "unraisablehook", sys.unraisablehook)  # put back after the test
    assert cli._run("concordia fake", fake_program(monkeypatch, main), []) == cli.INTERRUPTED
    assert capsys.readouterr().err == "concordia fake: interrupted\n"


def test_without_an_interrupt_errors_and_ignored_exceptions_are_as_before(monkeypatch, capsys) -> None:
    seen: list[Any] = []
    monkeypatch.setattr(sys, "unraisablehook", seen.append)

    class FailsQuietly:
        def __del__(self) -> None:
            raise ValueError("a destructor's error")

    def main(argv: list[str]) -> int:
        FailsQuietly()
        raise RuntimeError("a bug")

    with pytest.raises(RuntimeError, match="a bug"):
        cli._run("concordia fake", fake_program(monkeypatch, main), [])
    assert [type(u.exc_value) for u in seen] == [ValueError]
    assert sys.unraisablehook == seen.append  # the hook the process had is back


def stopped_by_a_raised_interrupt(argv: list[str]) -> int:
    raise KeyboardInterrupt


def stopped_by_its_own_handler_exiting(argv: list[str]) -> int:
    raise SystemExit(cli.INTERRUPTED)  # what a training run does after its one line


def stopped_by_its_own_handler_returning(argv: list[str]) -> int:
    return cli.INTERRUPTED  # what evaluate and tournament do after theirs


@pytest.mark.parametrize(
    "main", [stopped_by_a_raised_interrupt, stopped_by_its_own_handler_exiting, stopped_by_its_own_handler_returning]
)
def test_after_an_interrupt_only_llvmlite_s_teardown_is_quiet(monkeypatch, main) -> None:
    seen: list[Any] = []
    monkeypatch.setattr(sys, "unraisablehook", seen.append)

    try:
        assert cli._run("concordia fake", fake_program(monkeypatch, main), []) == cli.INTERRUPTED
    except SystemExit as exit_:  # a program's own exit passes through, its status unchanged
        assert exit_.code == cli.INTERRUPTED
    llvmlite_del = types.SimpleNamespace(__module__="llvmlite.binding.ffi")
    for origin in (llvmlite_del, types.SimpleNamespace(__module__="somewhere.else")):
        sys.unraisablehook(types.SimpleNamespace(exc_value=AttributeError("_as_parameter_"), object=origin))
    assert [u.object.__module__ for u in seen] == ["somewhere.else"]


PROGRAM = """
import sys, time, types
from concordia_env.tools import cli

class Slow:
    def __del__(self):
        print("in the destructor", flush=True)
        time.sleep(60)  # the Ctrl-C lands here, and Python swallows it

def main(argv):
    Slow()
    raise RuntimeError("no compiled object yet")

module = types.ModuleType("fake_concordia_program")
module.main = main
sys.modules[module.__name__] = module
cli.TOOLS["fake"] = cli.Program(module.__name__, "a program of the test")
sys.exit(cli.main(["fake"]))
"""


def test_a_real_ctrl_c_swallowed_in_a_destructor_ends_in_one_line() -> None:
    run = interruptible(
        [sys.executable, "-c", textwrap.dedent(PROGRAM)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert run.stdout is not None
    assert run.stdout.readline() == "in the destructor\n"
    run.send_signal(signal.SIGINT)
    _, stderr = run.communicate(timeout=60)
    assert run.returncode == cli.INTERRUPTED and stderr == "concordia fake: interrupted\n", stderr
