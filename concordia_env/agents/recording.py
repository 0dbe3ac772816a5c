"""Recording: an agent that keeps every decision of the agent it wraps (training's data).

``RecordingAgent(agent)`` plays as ``agent`` does, move for move, and keeps in :attr:`~RecordingAgent.trace`
each :class:`Decision` the agent shows: the player, the candidates it chose among (their turn
options and features) and the index of the one it played. The agent shows its last decision in
``last_decision`` (:class:`ShowsItsDecisions`): the ``learned`` agent's Python route does
(:class:`concordia_env.agents.learned.SampledLearnedAgent`), and ``learned:record=True`` is that
agent wrapped here. A forced action or a step of a planned turn is no decision among candidates
and is not kept.
"""

from __future__ import annotations

from typing import NamedTuple, Protocol, runtime_checkable

from concordia_env import Game
from concordia_env.engine.errors import short_repr

from .base import Agent
from .learned_model import Candidates


class Decision(NamedTuple):
    """One decision among candidates: who chose, among what, and which one was played."""

    #: the player who decided
    player: int
    #: the turn options chosen among, with their features
    candidates: Candidates
    #: the index of the option played
    choice: int


@runtime_checkable
class ShowsItsDecisions(Protocol):
    """An agent that shows its last decision among candidates (None after a move that was none)."""

    last_decision: Decision | None
    strict: bool

    @property
    def spec(self) -> str: ...

    def act(self, game: Game) -> int: ...

    def reset(self, seed: int | None = None) -> None: ...


class RecordingAgent(Agent):
    """Plays as ``agent`` does and keeps its every decision among candidates in :attr:`trace`."""

    name = "recording"

    def __init__(self, agent: ShowsItsDecisions) -> None:
        if not isinstance(agent, ShowsItsDecisions):
            raise TypeError(f"{short_repr(agent)} shows no decisions to record (no last_decision)")
        super().__init__(None, agent.strict)
        #: the agent that decides
        self.agent = agent
        #: its decisions among candidates so far this game, in order
        self.trace: list[Decision] = []

    @property
    def spec(self) -> str:
        return self.agent.spec

    def reset(self, seed: int | None = None) -> None:
        """A new game: the agent is reset with ``seed`` and the trace starts empty."""
        self.agent.reset(seed)
        self.trace = []

    def act(self, game: Game) -> int:
        """The agent's action; its decision is kept when it chose among candidates."""
        action = self.agent.act(game)
        if self.agent.last_decision is not None:
            self.trace.append(self.agent.last_decision)
        return action


__all__ = ["Decision", "RecordingAgent", "ShowsItsDecisions"]
