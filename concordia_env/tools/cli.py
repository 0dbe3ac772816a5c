"""``concordia``: one command for everything people run (installed with the package).

::

    concordia play --map italia --players 2 --vs heuristic      # play in the terminal
    concordia web --vs learned                                 # play in the browser (127.0.0.1:8765)
    concordia replay results/tournament.db 17 --html game.html # replay a stored game
    concordia tournament --agents random heuristic mcts:200 --games 400
    concordia train expert --config expert_quick               # a training script and a shipped config
    concordia bench throughput                                 # a benchmark
    concordia evaluate policy:model.zip --vs random heuristic  # a saved model's win rates, with intervals
    concordia warmup                                           # compile everything ahead of time
    concordia demo --map imperium --players 4                  # one random game, printed

Each subcommand is a module's ``main(argv)``: ``concordia SUBCOMMAND --help`` is that
program's own help, and ``concordia play`` (or any module below) runs
the same program. ``train`` and ``bench`` take the name of the script first.

Extras
------
The core install (``pip install concordia-env``) runs ``play``, ``replay``, ``evaluate``,
``warmup`` and ``demo``. The others need an extra, which ``concordia --help`` shows beside
each (``[extra: tournament]``): ``web``, ``tournament``, ``train`` (and ``rllib`` or
``tianshou`` for those scripts), ``bench`` (and ``openspiel``). A subcommand whose extra is
missing says so in one line on stderr and exits with status 1, before it starts::

    concordia tournament: needs the "tournament" extra (rich is not installed): pip install "concordia-env[tournament]"

(:data:`concordia_env._extras.EXTRA_MODULES` lists what each extra brings; the check imports
nothing.) A module
of an extra that a run reaches later (``evaluate policy:model.zip`` needs torch) is named
the same way when its import fails.

Ctrl-C
------
Every subcommand stops on Ctrl-C with one line on stderr and exit status 130. The programs
handle it where their work is (``evaluate`` and ``tournament`` keep the finished games, a
training run its checkpoint); this module catches it anywhere else, while a program imports
or compiles, including an interrupt that a library swallowed (:class:`InterruptWatch`).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence
from typing import Any, NamedTuple

from concordia_env._extras import (
    DISTRIBUTION,
    EXTRA_MODULES,
    MODULE_EXTRA,
    extra_of,
    install_line,
    missing_extra,
    needs_text,
)

# the extras' tables and their one line live in concordia_env._extras, where the Python entry
# points that need an extra find them too
__all__ = ["DISTRIBUTION", "EXTRA_MODULES", "MODULE_EXTRA", "install_line", "main", "missing_extra", "usage"]


class Program(NamedTuple):
    """A program the command runs: the module with ``main(argv)``, its line of help, the extras it needs."""

    module: str
    help: str
    extras: tuple[str, ...] = ()


#: subcommand -> its program
TOOLS: dict[str, Program] = {
    "play": Program("concordia_env.tools.play", "play in the terminal against agents"),
    "web": Program("concordia_env.tools.web", "play in the browser against agents (a local web app)", ("web",)),
    "replay": Program("concordia_env.tools.replay", "replay a stored or new game, as text or an HTML page"),
    "tournament": Program(
        "concordia_env.tools.tournament", "agents against each other, stored in SQLite and rated", ("tournament",)
    ),
    "evaluate": Program(
        "concordia_env.tools.evaluate", "a saved model or an agent against the reference agents: win rates"
    ),
    "warmup": Program("concordia_env.tools.warmup", "compile every compiled part ahead of time (first run: minutes)"),
    "demo": Program("concordia_env.tools.demo", "print one random game"),
}
#: subcommands that name a script first: subcommand -> {script: its program}
SCRIPTS: dict[str, dict[str, Program]] = {
    "train": {
        "afterstate": Program(
            "concordia_env.training.afterstate_learning", "the afterstate learner (the learned agent)", ("train",)
        ),
        "expert": Program(
            "concordia_env.training.expert_iteration",
            "expert iteration: the learned agent taught by the search",
            ("train",),
        ),
        "selfplay": Program(
            "concordia_env.training.selfplay", "flat MaskablePPO self-play with an opponent pool", ("train",)
        ),
        "ppo_options": Program(
            "concordia_env.training.ppo_options", "single-file PPO on the options level (CleanRL style)", ("train",)
        ),
        "rllib": Program("concordia_env.training.rllib_ppo", "multi-agent PPO on Ray RLlib", ("train", "rllib")),
        "tianshou": Program("concordia_env.training.tianshou_dqn", "masked DQN with Tianshou", ("train", "tianshou")),
    },
    "bench": {
        "throughput": Program(
            "concordia_env.benchmarks.throughput", "engine and env speed against connect_four_v3", ("bench",)
        ),
        "agent_speed": Program(
            "concordia_env.benchmarks.agent_speed", "each agent's cost per decision against the engine's", ("bench",)
        ),
        "strength_bars": Program(
            "concordia_env.benchmarks.strength_bars", "the agents' strength bars (win rates)", ("bench",)
        ),
        "ladder": Program(
            "concordia_env.benchmarks.ladder", "every reference agent rated by one round-robin tournament", ("bench",)
        ),
        "openspiel_mcts": Program(
            "concordia_env.benchmarks.openspiel_mcts", "OpenSpiel's MCTS through the bridge", ("bench", "openspiel")
        ),
        "compiled_code": Program(
            "concordia_env.benchmarks.compiled_code",
            "the shipped compiled code's speed against a native one",
            ("bench",),
        ),
    },
}
SCRIPT_HELP = {"train": "run a training script (concordia train --help lists them)", "bench": "run a benchmark"}


def _extras_note(extras: Sequence[str]) -> str:
    return f"  [extra: {', '.join(extras)}]" if extras else ""


def usage() -> str:
    """The top-level help: every subcommand with its line and the extras it needs."""
    lines = ["usage: concordia SUBCOMMAND [ARGS...]   (concordia SUBCOMMAND --help for its options)", ""]
    for name, program in TOOLS.items():
        lines.append(f"  {name:<12} {program.help}{_extras_note(program.extras)}")
    for name, scripts in SCRIPTS.items():
        extras = tuple(dict.fromkeys(e for program in scripts.values() for e in program.extras[:1]))
        lines.append(f"  {name:<12} {SCRIPT_HELP[name]}: {', '.join(scripts)}{_extras_note(extras)}")
    lines += [
        "",
        f"[extra: X]: needs {install_line(['X'])}; the rest runs with the core install (pip install {DISTRIBUTION}).",
    ]
    return "\n".join(lines) + "\n"


def script_usage(command: str) -> str:
    scripts = SCRIPTS[command]
    lines = [f"usage: concordia {command} SCRIPT [ARGS...]   (concordia {command} SCRIPT --help for its options)", ""]
    lines += [f"  {name:<15} {p.help}{_extras_note(p.extras)}" for name, p in scripts.items()]
    return "\n".join(lines) + "\n"


def _needs(command: str, extras: Sequence[str], module: str) -> int:
    sys.stderr.write(f"{command}: {needs_text(extras, module)}\n")
    return 1


#: the exit status of a command stopped by Ctrl-C (128 + SIGINT, as a shell reports it)
INTERRUPTED = 130


class InterruptWatch:
    """Notes a Ctrl-C that a library swallowed while a command ran (``sys.unraisablehook``, in a ``with`` block).

    A Ctrl-C in the middle of a numba compile (a first use) can land in one of llvmlite's
    destructors: Python prints it as "Exception ignored in ..." with a traceback and goes on,
    and numba then fails on the half-built code (``RuntimeError: no compiled object yet``).
    The watch drops that print and remembers the interrupt, so that the command ends in the
    one line of an interrupt instead of the error that followed; once a process was
    interrupted, llvmlite's half-built objects also fail quietly when it exits.
    """

    def __init__(self) -> None:
        self.interrupted = False
        self._previous = sys.unraisablehook

    def __enter__(self) -> InterruptWatch:
        sys.unraisablehook = self._unraisable
        return self

    def __exit__(self, exc_type: object, exc: BaseException | None, traceback: object) -> None:
        # a Ctrl-C that ended the block: raised, or a program's own exit with the status of one
        if isinstance(exc, KeyboardInterrupt) or (isinstance(exc, SystemExit) and exc.code == INTERRUPTED):
            self.interrupted = True
        sys.unraisablehook = self._teardown if self.interrupted else self._previous

    def _unraisable(self, unraisable: Any) -> None:
        if isinstance(unraisable.exc_value, KeyboardInterrupt):
            self.interrupted = True
        elif not self.interrupted:
            self._previous(unraisable)

    def _teardown(self, unraisable: Any) -> None:
        if not str(getattr(unraisable.object, "__module__", "")).startswith("llvmlite."):
            self._previous(unraisable)


def _interrupted(command: str) -> int:
    sys.stderr.write(f"{command}: interrupted\n")
    return INTERRUPTED


def _run(command: str, program: Program, argv: list[str]) -> int:
    """Call the program's ``main(argv)`` if its extras are there; a main that returns a path or None is success.

    A Ctrl-C the program does not handle itself (while it imports, or compiles) ends it in one
    line with status 130, as one it handles does; so does an error that a swallowed Ctrl-C
    caused (:class:`InterruptWatch`).
    """
    missing = missing_extra(program.extras)
    if missing is not None:
        return _needs(command, program.extras, missing[1])
    watch = InterruptWatch()
    try:
        with watch:
            result = _call(command, program, argv)
            watch.interrupted |= result == INTERRUPTED  # the program's own one line of a Ctrl-C
    except KeyboardInterrupt:
        return _interrupted(command)
    except Exception:
        if watch.interrupted:
            return _interrupted(command)
        raise
    return result if isinstance(result, int) else 0


def _call(command: str, program: Program, argv: list[str]) -> Any:
    """The program's ``main(argv)``; a module of an extra that its run reaches is named in one line."""
    try:
        main = importlib.import_module(program.module).main
        return main(argv)
    except ModuleNotFoundError as exc:  # a module of an extra reached later (evaluate policy:x.zip needs torch)
        extra = extra_of(exc)
        if extra is None:
            raise
        return _needs(command, (extra,), (exc.name or "").split(".")[0])


def main(argv: Sequence[str] | None = None) -> int:
    """Dispatch ``concordia SUBCOMMAND ...`` to the program's ``main``; returns the exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help", "help"):
        sys.stdout.write(usage())
        return 0 if args else 2
    command, rest = args[0], args[1:]
    if command in TOOLS:
        return _run(f"concordia {command}", TOOLS[command], rest)
    if command in SCRIPTS:
        if not rest or rest[0] in ("-h", "--help"):
            sys.stdout.write(script_usage(command))
            return 0 if rest else 2
        script = rest[0]
        if script not in SCRIPTS[command]:
            sys.stderr.write(f"concordia {command}: no script {script!r}\n" + script_usage(command))
            return 2
        return _run(f"concordia {command} {script}", SCRIPTS[command][script], rest[1:])
    sys.stderr.write(f"concordia: no subcommand {command!r}\n" + usage())
    return 2


if __name__ == "__main__":
    sys.exit(main())
