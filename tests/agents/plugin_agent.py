"""An agent of "another package", for the registry tests: found by an entry point or registered at run time.

It knows nothing of ``concordia_env.agents``: its builder reads its own spec
(``last-legal`` or ``last-legal:skip=N``) and the agent plays the legal action ``skip``
places from the end.
"""

from __future__ import annotations

from concordia_env import Game

#: every spec the builder was given, in order (what the tests look at)
BUILT: list[str] = []


class LastLegal:
    def __init__(self, skip: int) -> None:
        self.skip = skip
        self.seeds: list[int | None] = []

    def reset(self, seed: int | None = None) -> None:
        self.seeds.append(seed)

    def act(self, game: Game) -> int:
        legal = game.legal_actions()
        return int(legal[max(0, len(legal) - 1 - self.skip)])


def build(spec: str) -> LastLegal:
    BUILT.append(spec)
    _, _, rest = spec.partition(":")
    options = dict(item.split("=") for item in rest.split(",") if item)
    unknown = set(options) - {"skip", "seed"}
    if unknown:
        raise ValueError(f"last-legal takes skip=N, not {sorted(unknown)}")
    return LastLegal(int(options.get("skip", 0)))
