"""Every form of the game takes the same defaults for the same keyword, or differs where the defaults module says why.

One row per form (the engine, PettingZoo, Gymnasium by class and by id, the batches, OpenSpiel,
the commands): what it plays when told nothing, read from the object it builds where it
builds one, else from its signature.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium
import pytest

import concordia_env
from concordia_env import ConcordiaVectorEnv, Game, SingleAgentEnv, VectorGame
from concordia_env.engine import defaults
from concordia_env.tools import evaluate, replay, tournament

#: the forms whose default differs from the shared one, and the name the defaults module gives it
DIFFERENCES = {
    ("Game.new", "seed"): (defaults.ENGINE_SEED, "Game.new"),
    ("concordia evaluate", "seed"): (defaults.COMMAND_SEED, "evaluate"),
    ("concordia_env.evaluate()", "seed"): (defaults.COMMAND_SEED, "evaluate"),
    ("concordia tournament", "seed"): (defaults.COMMAND_SEED, "tournament"),
    ("TournamentConfig", "seed"): (defaults.COMMAND_SEED, "tournament"),
    ("concordia replay --play", "seed"): (defaults.COMMAND_SEED, "replay --play"),
}
SHARED = {"map": defaults.MAP, "num_players": defaults.NUM_PLAYERS, "seed": defaults.SEED}


def _signature(func: Callable[..., Any], *names: str) -> dict[str, Any]:
    """The defaults of ``names`` in ``func``'s signature."""
    params = inspect.signature(func).parameters
    return {name: params[name].default for name in names}


def _pettingzoo(make: Callable[[], Any]) -> dict[str, Any]:
    unwrapped = make().unwrapped
    game = unwrapped.game if hasattr(unwrapped, "game") else unwrapped.aec_env.unwrapped.game
    return {"map": game.map.name, "num_players": game.num_players}


def _single(env: Any) -> dict[str, Any]:
    inner = env.unwrapped
    return {"map": inner.game.map.name, "num_players": inner.game.num_players, "opponents": inner._opponent_specs[0]}


def _vector(env: Any) -> dict[str, Any]:
    return {"map": env.games.map.name, "num_players": env.games.num_players}


def _openspiel() -> dict[str, Any]:
    pytest.importorskip("pyspiel")
    from concordia_env.integrations import openspiel

    game = openspiel.load()
    return {"map": game.get_parameters()["map"], "num_players": game.num_players()}


def _command(parser: Any, argv: list[str]) -> dict[str, Any]:
    args = parser.parse_args(argv)
    return {"map": args.map, "num_players": getattr(args, "players", defaults.NUM_PLAYERS), "seed": args.seed}


#: form -> what it plays when told nothing (only the keywords it takes)
FORMS: dict[str, Callable[[], dict[str, Any]]] = {
    "Game.new": lambda: {
        "map": Game.new().map.name,
        "num_players": Game.new().num_players,
        **_signature(Game.new, "seed"),
    },
    "env()": lambda: {**_pettingzoo(concordia_env.env), **_signature(concordia_env.env, "seed")},
    "raw_env": lambda: {**_pettingzoo(concordia_env.raw_env), **_signature(concordia_env.raw_env, "seed")},
    "parallel_env()": lambda: _pettingzoo(concordia_env.parallel_env),
    "SingleAgentEnv": lambda: {**_single(SingleAgentEnv()), **_signature(SingleAgentEnv, "seed")},
    "gymnasium.make('Concordia-v1')": lambda: _single(gymnasium.make("Concordia-v1")),
    "gymnasium.make('ConcordiaOptions-v1')": lambda: _single(gymnasium.make("ConcordiaOptions-v1")),
    "VectorGame": lambda: {**_vector_game(), **_signature(VectorGame, "seed")},
    "ConcordiaVectorEnv": lambda: {
        **_vector(ConcordiaVectorEnv(2)),
        **_signature(ConcordiaVectorEnv, "seed", "opponents"),
    },
    "gymnasium.make_vec('ConcordiaVector-v1')": lambda: _vector(gymnasium.make_vec("ConcordiaVector-v1", num_envs=2)),
    "OpenSpiel": _openspiel,
    "concordia evaluate": lambda: _command(evaluate.build_parser(), ["heuristic"]),
    "concordia_env.evaluate()": lambda: _signature(evaluate.evaluate, "map", "num_players", "seed"),
    "concordia tournament": lambda: _command(tournament.build_parser(), ["--agents", "heuristic", "random"]),
    "TournamentConfig": lambda: _tournament_config(),
    "concordia replay --play": lambda: _command(replay.build_parser(), ["--play", "heuristic", "random"]),
}


def _vector_game() -> dict[str, Any]:
    games = VectorGame(2)
    return {"map": games.map.name, "num_players": games.num_players}


def _tournament_config() -> dict[str, Any]:
    config = tournament.TournamentConfig(agents=("heuristic", "random"))
    return {"map": config.map, "num_players": config.players, "seed": config.seed}


@pytest.mark.parametrize("form", sorted(FORMS))
def test_every_form_takes_the_shared_defaults_or_a_documented_one(form: str) -> None:
    seen = FORMS[form]()
    for keyword, value in seen.items():
        expected, named = DIFFERENCES.get((form, keyword), (SHARED.get(keyword, defaults.OPPONENTS), None))
        assert value == expected, f"{form}: {keyword} defaults to {value!r}, not {expected!r}"
        if named is not None:  # a form that differs is named, with its reason, where the defaults are
            assert named in (defaults.__doc__ or ""), f"{form}'s {keyword} default is not explained in defaults"


def test_a_two_agent_tournament_gives_each_agent_one_seat() -> None:
    args = tournament.build_parser().parse_args(["--agents", "heuristic", "random", "--games", "2"])
    config = tournament.config_from_args(args)
    assert [sorted(tournament.seating(config, i)) for i in range(2)] == [["heuristic", "random"]] * 2


def test_the_docs_say_the_defaults() -> None:
    text = (Path(__file__).resolve().parents[1] / "docs" / "environments.md").read_text()
    assert "concordia_env.engine.defaults" in text and '"italia"' in text and '"random"' in text


def test_every_command_takes_map_and_players_from_the_one_place() -> None:
    """One home for the table's options, ``--map`` and ``--players``: ``tools.arguments.add_table``.

    Two exceptions: the training commands' ``--players`` is their config key ``num_players``
    (``training.config``), and the picture tool below the tools layer reads ``engine.defaults``.
    """
    package = Path(concordia_env.__file__).parent
    allowed = {"tools/arguments.py", "training/config.py", "views/render/__main__.py"}
    elsewhere = [
        f"{path.relative_to(package)}: {option}"
        for path in sorted(package.rglob("*.py"))
        if path.relative_to(package).as_posix() not in allowed
        for option in ('"--map"', '"--players"')
        if f"add_argument({option}" in path.read_text()
    ]
    assert not elsewhere, elsewhere
    render = (package / "views/render/__main__.py").read_text()
    assert "default=defaults.MAP" in render and "default=defaults.NUM_PLAYERS" in render
