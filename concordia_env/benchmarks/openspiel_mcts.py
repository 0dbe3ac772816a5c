"""OpenSpiel's MCTS and the project's ``mcts`` against ``heuristic`` at equal time per move, and the bridge's cost.

::

    concordia bench openspiel_mcts [--games 100] [--time-per-move 0.1] [--map italia] [--players 2]
                                        [--only NAME ...] [--seed 0] [--json results/openspiel_mcts.json]

Every game goes through the OpenSpiel bridge (:mod:`concordia_env.integrations.openspiel`) and is played
by OpenSpiel's ``evaluate_bots``, chance included; the project's agents play through
``AgentBot``. Each contender meets ``heuristic`` in ``--games`` games, its seat rotating
game by game (game i: seat ``i % players``), each game with fresh seeds for the chance
draws and for both players. The contenders play their games interleaved (game 0 of each,
then game 1 ...), so a change of machine load during the run affects them alike.

Contenders, all at the same budget of ``--time-per-move`` seconds of wall time per move:

* ``openspiel-mcts``: OpenSpiel's ``MCTSBot`` as it comes (UCT, ``uct_c=2``,
  ``RandomRolloutEvaluator`` with one random rollout to the end of the game);
* ``openspiel-mcts-standing``: the same search with the bridge's ``StandingEvaluator``
  (a leaf is worth what the position would pay if the game ended there: no rollout);
* ``mcts``: the project's agent, ``mcts:time_per_move=...``.

"A move" is a decision the agent is asked for. OpenSpiel's ``MCTSBot`` searches a fixed
number of simulations, so its count is set before every decision from its measured cost
per simulation so far (two simulations, the least that picks a move, on the first
decision, then the budget divided by a running mean), which keeps its mean time per
decision at the budget. The project's
``mcts`` searches for the budget at the first decision of a turn and plays the rest of
the turn from that search, so its mean time per *decision* is below the budget: the
table reports both agents' measured milliseconds per decision. The win rates come with
95% Wilson intervals.

The bridge's cost per step is measured too: uniformly random games through the bridge
(``legal_actions`` + ``apply_action``, chance outcomes drawn from ``chance_outcomes``)
against the same through ``Game`` (``legal_actions`` + ``step``), games interleaved, and
``clone()`` against ``Game.clone()`` (the fastest of several interleaved rounds), in
microseconds and as a ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import evaluate_bots, mcts

from concordia_env import Game, agents
from concordia_env.integrations.openspiel import GAME_NAME, AgentBot, StandingEvaluator
from concordia_env.tools import arguments
from concordia_env.tools.report import wilson_interval

CONTENDERS = ("openspiel-mcts", "openspiel-mcts-standing", "mcts")
OPPONENT = "heuristic"
#: OpenSpiel's exploration constant in its examples (values in [-1, 1])
UCT_C = 2.0
#: MCTSBot's first simulation only evaluates the root; the second expands it, so two is the least
MIN_SIMULATIONS = 2
#: weight of the newest decision in the running cost per simulation
COST_SMOOTHING = 0.3
DEFAULT_JSON = "results/openspiel_mcts.json"
CLONE_ROUNDS = 7
CLONES_PER_ROUND = 500


# =========================================================================== timed bots
class TimedBot(pyspiel.Bot):
    """Measures the thinking time of a bot's decisions."""

    def __init__(self, bot: pyspiel.Bot) -> None:
        pyspiel.Bot.__init__(self)
        self.bot = bot
        self.seconds = 0.0
        self.decisions = 0

    def restart_at(self, state: pyspiel.State) -> None:
        self.bot.restart_at(state)

    def inform_action(self, state: pyspiel.State, player_id: int, action: int) -> None:
        self.bot.inform_action(state, player_id, action)

    def step(self, state: pyspiel.State) -> int:
        start = time.perf_counter()
        action = self._decide(state)
        self.seconds += time.perf_counter() - start
        self.decisions += 1
        return action

    def _decide(self, state: pyspiel.State) -> int:
        return self.bot.step(state)


class BudgetedMCTS(TimedBot):
    """OpenSpiel's ``MCTSBot`` held to a time budget per decision by choosing its simulation count."""

    def __init__(self, bot: mcts.MCTSBot, seconds_per_move: float) -> None:
        super().__init__(bot)
        self.budget = seconds_per_move
        self.per_simulation: float | None = None
        self.simulations = 0

    def _decide(self, state: pyspiel.State) -> int:
        sims = MIN_SIMULATIONS
        if self.per_simulation is not None:
            sims = max(MIN_SIMULATIONS, round(self.budget / self.per_simulation))
        self.bot.max_simulations = sims
        start = time.perf_counter()
        action = self.bot.step(state)
        cost = (time.perf_counter() - start) / sims
        self.per_simulation = (
            cost if self.per_simulation is None else (1 - COST_SMOOTHING) * self.per_simulation + COST_SMOOTHING * cost
        )
        self.simulations += sims
        return action


def contender(name: str, game: pyspiel.Game, seconds: float, seed: int) -> TimedBot:
    if name == "mcts":
        return TimedBot(AgentBot(agents.make("mcts", time_per_move=seconds), seed=seed))
    rng = np.random.RandomState(seed)
    evaluator = StandingEvaluator() if name == "openspiel-mcts-standing" else mcts.RandomRolloutEvaluator(1, rng)
    return BudgetedMCTS(mcts.MCTSBot(game, UCT_C, 1, evaluator, random_state=rng), seconds)


# =========================================================================== the matches
@dataclass
class Tally:
    """One contender's games against the opponent."""

    name: str
    games: int = 0
    wins: int = 0
    vp: list[int] = field(default_factory=list)
    opponent_vp: list[int] = field(default_factory=list)
    seconds: float = 0.0
    decisions: int = 0
    simulations: int = 0

    def add(self, won: bool, vp: int, opponent_vp: int, bot: TimedBot) -> None:
        self.games += 1
        self.wins += int(won)
        self.vp.append(vp)
        self.opponent_vp.append(opponent_vp)
        self.seconds += bot.seconds
        self.decisions += bot.decisions
        self.simulations += getattr(bot, "simulations", 0)

    def summary(self) -> dict[str, Any]:
        low, high = wilson_interval(self.wins, self.games)
        return {
            "contender": self.name,
            "games": self.games,
            "wins": self.wins,
            "win_rate": self.wins / self.games if self.games else float("nan"),
            "ci95": [low, high],
            "mean_vp": float(np.mean(self.vp)) if self.vp else float("nan"),
            "mean_opponent_vp": float(np.mean(self.opponent_vp)) if self.opponent_vp else float("nan"),
            "ms_per_decision": 1000 * self.seconds / self.decisions if self.decisions else float("nan"),
            "decisions_per_game": self.decisions / self.games if self.games else float("nan"),
            "simulations_per_decision": self.simulations / self.decisions if self.simulations else None,
        }


def play_match(
    game: pyspiel.Game, name: str, seconds: float, index: int, seeds: np.random.SeedSequence, tally: Tally
) -> None:
    """Game ``index``: ``name`` in seat ``index % players``, ``heuristic`` in the others."""
    players = game.num_players()
    seat = index % players
    chance_seed, bot_seed, *opponent_seeds = (int(s.generate_state(1)[0]) for s in seeds.spawn(players + 1))
    bot = contender(name, game, seconds, bot_seed)
    opponents = iter(AgentBot(agents.make(OPPONENT), seed=s) for s in opponent_seeds)
    bots = [bot if p == seat else next(opponents) for p in range(players)]
    state = game.new_initial_state()
    returns = evaluate_bots.evaluate_bots(state, bots, np.random.RandomState(chance_seed))
    scores = state.scores()
    others = [p for p in range(players) if p != seat]
    tally.add(returns[seat] > 0, int(scores[seat]), int(max(scores[p] for p in others)), bot)


def warm_up(game: pyspiel.Game, names: Sequence[str], seconds: float) -> None:
    """One untimed decision of every player, so that compiling their code is not charged to a game."""
    state = game.new_initial_state()
    chance = np.random.RandomState(0)
    while state.is_chance_node():
        outcomes, probs = zip(*state.chance_outcomes(), strict=True)
        state.apply_action(int(chance.choice(outcomes, p=probs)))
    for name in names:
        contender(name, game, seconds, 0).step(state)
    AgentBot(agents.make(OPPONENT), seed=0).step(state)


def run_matches(
    names: Sequence[str], games: int, seconds: float, map_name: str, players: int, seed: int, log: Callable
) -> dict[str, Tally]:
    game = pyspiel.load_game(GAME_NAME, {"map": map_name, "players": players})
    warm_up(game, names, seconds)
    tallies = {name: Tally(name) for name in names}
    root = np.random.SeedSequence(seed)
    game_seeds = root.spawn(games)
    for i in range(games):
        for k, name in enumerate(names):
            play_match(game, name, seconds, i, game_seeds[i].spawn(len(names))[k], tallies[name])
        if (i + 1) % 10 == 0 or i + 1 == games:
            log(f"{i + 1}/{games} games: " + ", ".join(f"{t.name} {t.wins}/{t.games}" for t in tallies.values()))
    return tallies


# =========================================================================== the bridge's cost
def random_game_engine(map_name: str, players: int, rng: np.random.Generator) -> int:
    game = Game.new(map_name, players, seed=int(rng.integers(2**31)))
    n = 0
    while not game.is_over():
        legal = game.legal_actions()
        game.step(int(legal[rng.integers(len(legal))]))
        n += 1
    return n


def random_game_bridge(game: pyspiel.Game, rng: np.random.Generator) -> int:
    state = game.new_initial_state()
    n = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(outcomes[int(rng.choice(len(outcomes), p=probs))])
        else:
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])
            n += 1
    return n


def bridge_overhead(map_name: str, players: int, games: int, seed: int) -> dict[str, float]:
    """Microseconds per player decision of random play, and per ``clone()``, bridge against ``Game``."""
    game = pyspiel.load_game(GAME_NAME, {"map": map_name, "players": players})
    rng = np.random.default_rng(seed)
    random_game_engine(map_name, players, rng)  # warm-up: the compiled rules are loaded
    random_game_bridge(game, rng)
    engine_t = bridge_t = 0.0
    engine_n = bridge_n = 0
    for _ in range(games):
        start = time.perf_counter()
        engine_n += random_game_engine(map_name, players, rng)
        engine_t += time.perf_counter() - start
        start = time.perf_counter()
        bridge_n += random_game_bridge(game, rng)
        bridge_t += time.perf_counter() - start
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    position = state.position()
    engine_clone = bridge_clone = float("inf")
    for _ in range(CLONE_ROUNDS):  # the fastest round of each: the least disturbed by other load
        start = time.perf_counter()
        for _ in range(CLONES_PER_ROUND):
            position.clone()
        engine_clone = min(engine_clone, (time.perf_counter() - start) / CLONES_PER_ROUND)
        start = time.perf_counter()
        for _ in range(CLONES_PER_ROUND):
            state.clone()
        bridge_clone = min(bridge_clone, (time.perf_counter() - start) / CLONES_PER_ROUND)
    return {
        "games": games,
        "engine_us_per_decision": 1e6 * engine_t / engine_n,
        "bridge_us_per_decision": 1e6 * bridge_t / bridge_n,
        "step_ratio": (bridge_t / bridge_n) / (engine_t / engine_n),
        "engine_clone_us": 1e6 * engine_clone,
        "bridge_clone_us": 1e6 * bridge_clone,
        "clone_ratio": bridge_clone / engine_clone,
    }


# =========================================================================== report
def report(summaries: list[dict[str, Any]], overhead: dict[str, float] | None, args: argparse.Namespace) -> str:
    lines = [
        f"{args.map} {args.players}p, {args.time_per_move:g} s per move, against {OPPONENT}, seats rotated",
        "",
        "| contender | wins | win rate | 95% CI | mean VP (vs best heuristic) | ms/decision | sims/decision |",
        "| --- | ---: | ---: | --- | ---: | ---: | ---: |",
    ]
    for s in summaries:
        sims = "-" if s["simulations_per_decision"] is None else f"{s['simulations_per_decision']:.1f}"
        lines.append(
            f"| {s['contender']} | {s['wins']}/{s['games']} | {100 * s['win_rate']:.1f}% | "
            f"{100 * s['ci95'][0]:.1f}% – {100 * s['ci95'][1]:.1f}% | "
            f"{s['mean_vp']:.0f} ({s['mean_opponent_vp']:.0f}) | {s['ms_per_decision']:.0f} | {sims} |"
        )
    if overhead:
        lines += [
            "",
            f"bridge cost, random play ({overhead['games']} games each, interleaved): "
            f"Game {overhead['engine_us_per_decision']:.1f} µs/decision, "
            f"bridge {overhead['bridge_us_per_decision']:.1f} µs/decision "
            f"({overhead['step_ratio']:.2f}×); clone: Game {overhead['engine_clone_us']:.1f} µs, "
            f"bridge {overhead['bridge_clone_us']:.1f} µs ({overhead['clone_ratio']:.2f}×)",
        ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="concordia bench openspiel_mcts", description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=arguments.count, default=100, help="games per contender")
    parser.add_argument("--time-per-move", type=arguments.seconds, default=0.1, help="seconds per decision")
    arguments.add_table(parser)
    parser.add_argument("--only", nargs="+", choices=CONTENDERS, help="contenders to run (default: all)")
    parser.add_argument(
        "--overhead-games", type=arguments.index, default=20, help="random games for the bridge's cost (0: skip)"
    )
    parser.add_argument("--json", default=DEFAULT_JSON, help="where to write the results")
    args = parser.parse_args(argv)
    arguments.refuse_unwritable(parser, "--json", args.json)  # before the matches, not after them

    def log(text: str) -> None:
        print(text, flush=True)

    overhead = None
    if args.overhead_games > 0:
        overhead = bridge_overhead(args.map, args.players, args.overhead_games, args.seed)
        log(f"bridge cost: {json.dumps(overhead)}")
    names = tuple(args.only or CONTENDERS)
    tallies = run_matches(names, args.games, args.time_per_move, args.map, args.players, args.seed, log)
    summaries = [tallies[name].summary() for name in names]
    text = report(summaries, overhead, args)
    print(text)
    out = Path(args.json)
    os.makedirs(out.parent, exist_ok=True)
    out.write_text(
        json.dumps(
            {
                "config": vars(args),
                "summaries": summaries,
                "overhead": overhead,
                "report": text,
                "tallies": [asdict(t) for t in tallies.values()],
            },
            indent=1,
        )
    )
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
