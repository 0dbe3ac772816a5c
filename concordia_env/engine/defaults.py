"""The keywords every form of the game shares, with one default each, and where a form differs, why.

The forms: the engine (``Game.new``), the PettingZoo env (``env``, ``raw_env``,
``parallel_env``; RLlib's and Tianshou's wrappers take its defaults), Gymnasium's
``SingleAgentEnv`` (``"Concordia-v1"``, ``"ConcordiaOptions-v1"``), ``VectorGame``,
``ConcordiaVectorEnv`` (``"ConcordiaVector-v1"``) and ``SB3VecEnv``, OpenSpiel's game, and the
``concordia`` commands (``--map``, ``--players``, ``--seed``). Each takes its defaults from
here, so the same keyword means the same thing in every form:

* ``map``: ``"italia"`` (:data:`MAP`) everywhere.
* ``num_players``: ``2`` (:data:`NUM_PLAYERS`) everywhere; OpenSpiel names it ``players`` (its
  convention for a game parameter) and the commands ``--players``.
* ``seed``: ``None`` (:data:`SEED`), a fresh one, in the environments. Two forms differ, for a
  reason: ``Game.new`` takes ``0`` (:data:`ENGINE_SEED`), so that a position to read or test
  from is the same every time; the commands that measure (``evaluate`` and ``concordia_env.evaluate()``, ``tournament``,
  ``replay --play``) take ``0`` (:data:`COMMAND_SEED`), so that a report is reproduced by its
  command line.
* ``opponents``: ``"random"`` (:data:`OPPONENTS`), the learner's opponents in
  ``SingleAgentEnv`` and the vector envs. (``VectorGame``'s ``opponents`` means something else:
  ``None``, its default, leaves every seat to the caller.)

The map and the player count are checked where the game is set up, by the engine, for every
form alike: ``Game.new`` refuses an unknown map and a player count the map is not played by,
in one line; the environments build a game at construction and the commands before they
play, so that one check answers everywhere.

2-player Italia is the smallest game (about 76 decisions a seat between heuristics), the one
the training recipes and the shipped 2-player model play, and a two-agent table
where each agent has one seat. ``"random"`` opponents cost nothing and let a learner from
scratch win games; ``"heuristic"`` is one keyword away. A seed of ``None`` follows Gymnasium
and PettingZoo: ``reset()`` without a seed draws a fresh game.
"""

from __future__ import annotations

from typing import Final

#: the map every form plays unless told
MAP: Final = "italia"
#: the player count every form plays unless told (OpenSpiel's ``players``, the commands' ``--players``)
NUM_PLAYERS: Final = 2
#: the environments' seed unless told: None draws a fresh one (Gymnasium's and PettingZoo's convention)
SEED: Final = None
#: ``Game.new``'s seed unless told: the same position every time (the engine is a tool to test and read with)
ENGINE_SEED: Final = 0
#: the measuring commands' ``--seed`` unless told: a report is reproduced by its command line
COMMAND_SEED: Final = 0
#: the learner's opponents in the single-agent and vector envs unless told (an agent spec)
OPPONENTS: Final = "random"
