"""``concordia``: one command for everything people run (installed with the package).

::

    concordia play --map italia --players 2 --vs heuristic      # play in the terminal
    concordia web --vs learned                                 # play in the browser (127.0.0.1:8765)
    concordia replay results/tournament.db 17 --html game.html # replay a stored game
    concordia tournament --agents random heuristic mcts:200 --games 400
    concordia train expert --config expert_quick               # a training script and a shipped config
    concordia bench throughput                                 # a benchmark
    concordia demo --map imperium --players 4                  # one random game, printed

Each subcommand is a module's ``main(argv)``: ``concordia SUBCOMMAND --help`` is that
program's own help, and ``concordia play`` (or any module below) runs
the same program. ``train`` and ``bench`` take the name of the script first.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence

#: subcommand -> (module with main(argv), one line of help)
TOOLS: dict[str, tuple[str, str]] = {
    "play": ("concordia_env.tools.play", "play in the terminal against agents"),
    "web": ("concordia_env.tools.web", "play in the browser against agents (a local web app)"),
    "replay": ("concordia_env.tools.replay", "replay a stored or new game, as text or an HTML page"),
    "tournament": ("concordia_env.tools.tournament", "agents against each other, stored in SQLite and rated"),
    "demo": ("concordia_env.tools.demo", "print one random game"),
}
#: subcommands that name a script first: subcommand -> {script: (module, help)}
SCRIPTS: dict[str, dict[str, tuple[str, str]]] = {
    "train": {
        "afterstate": ("concordia_env.training.afterstate", "the afterstate learner (the learned agent)"),
        "expert": (
            "concordia_env.training.expert_iteration",
            "expert iteration: the learned agent taught by the search",
        ),
        "selfplay": ("concordia_env.training.selfplay", "flat MaskablePPO self-play with an opponent pool"),
        "ppo_options": ("concordia_env.training.ppo_options", "single-file PPO on the options level (CleanRL style)"),
        "rllib": ("concordia_env.training.rllib", "multi-agent PPO on Ray RLlib (extra: rllib)"),
        "tianshou": ("concordia_env.training.tianshou_dqn", "masked DQN with Tianshou (extra: tianshou)"),
    },
    "bench": {
        "throughput": ("concordia_env.benchmarks.throughput", "engine and env speed against connect_four_v3"),
        "agent_speed": ("concordia_env.benchmarks.agent_speed", "each agent's cost per decision against the engine's"),
        "strength_bars": ("concordia_env.benchmarks.strength_bars", "the agents' strength bars (win rates)"),
        "ladder": ("concordia_env.benchmarks.ladder", "every reference agent rated by one round-robin tournament"),
        "openspiel_mcts": ("concordia_env.benchmarks.openspiel_mcts", "OpenSpiel's MCTS through the bridge"),
    },
}
SCRIPT_HELP = {"train": "run a training script (concordia train --help lists them)", "bench": "run a benchmark"}


def usage() -> str:
    """The top-level help: every subcommand with its line."""
    lines = ["usage: concordia SUBCOMMAND [ARGS...]   (concordia SUBCOMMAND --help for its options)", ""]
    for name, (_, text) in TOOLS.items():
        lines.append(f"  {name:<12} {text}")
    for name, scripts in SCRIPTS.items():
        lines.append(f"  {name:<12} {SCRIPT_HELP[name]}: {', '.join(scripts)}")
    return "\n".join(lines) + "\n"


def script_usage(command: str) -> str:
    scripts = SCRIPTS[command]
    lines = [f"usage: concordia {command} SCRIPT [ARGS...]   (concordia {command} SCRIPT --help for its options)", ""]
    lines += [f"  {name:<15} {text}" for name, (_, text) in scripts.items()]
    return "\n".join(lines) + "\n"


def _run(module: str, argv: list[str]) -> int:
    """Call ``module.main(argv)``; a main that returns a path or None counts as success."""
    result = importlib.import_module(module).main(argv)
    return result if isinstance(result, int) else 0


def main(argv: Sequence[str] | None = None) -> int:
    """Dispatch ``concordia SUBCOMMAND ...`` to the program's ``main``; returns the exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help", "help"):
        sys.stdout.write(usage())
        return 0 if args else 2
    command, rest = args[0], args[1:]
    if command in TOOLS:
        return _run(TOOLS[command][0], rest)
    if command in SCRIPTS:
        if not rest or rest[0] in ("-h", "--help"):
            sys.stdout.write(script_usage(command))
            return 0 if rest else 2
        script = rest[0]
        if script not in SCRIPTS[command]:
            sys.stderr.write(f"concordia {command}: no script {script!r}\n" + script_usage(command))
            return 2
        return _run(SCRIPTS[command][script][0], rest[1:])
    sys.stderr.write(f"concordia: no subcommand {command!r}\n" + usage())
    return 2


if __name__ == "__main__":
    sys.exit(main())
