"""Self-contained HTML replays: one file with the board, every decision in words, a VP chart.

::

    from concordia_env.views.html import write_replay
    write_replay(actions, seed=0, map="imperium", players=4, path="game.html", seats=["heuristic", ...])

The file holds everything inline (SVG board, CSS, JavaScript and the game's data): it
opens from disk with no network. The game is replayed here in Python with the engine and
every position is stored as a frame (:mod:`concordia_env.views.html.frames`); the page only
shows what is stored, so what it shows is what :class:`~concordia_env.Game` said.

The page shows a summary (map, players and their agents, final scores and winner) at the
top, the board and the players' panels at the selected decision, the list of decisions in
words (``describe_action``), controls (first/previous/play/next/last, a slider, jump to
turn, the arrow keys), each player's VP-if-the-game-ended-now over the game and the final
score breakdown per god.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape
from importlib import resources
from os import PathLike
from pathlib import Path
from typing import Any

from concordia_env.engine.cards import CARD_GOD, CARD_ID, CARD_KIND, GODS, GOODS, KIND_NAMES
from concordia_env.engine.errors import IllegalActionError
from concordia_env.engine.game import Game
from concordia_env.engine.state import PHASE_NAMES

from ..render.style import PLAYER_COLORS
from .board_svg import board_data
from .frames import StringTable, encode_frames, frame, frame_layout

#: format of the embedded data; bumped when the page could no longer read older data
REPLAY_VERSION = 1
_PLACEHOLDER = re.compile(r"<!--@(\w+)-->")


def asset(name: str) -> str:
    """The text of one of the page assets shipped with the package (``board.js``, ``replay.css``...)."""
    return resources.files("concordia_env.views.html").joinpath("assets").joinpath(name).read_text(encoding="utf-8")


def fill_template(template: str, parts: dict[str, str]) -> str:
    """Replace every ``<!--@name-->`` of ``template`` with ``parts[name]`` in one pass (no re-expansion)."""

    def part(match: re.Match[str]) -> str:
        return parts[match.group(1)]

    return _PLACEHOLDER.sub(part, template)


def script_json(data: Any) -> str:
    """JSON safe to embed in a ``<script>`` element (no ``</script>`` can close it early)."""
    return json.dumps(data, separators=(",", ":")).replace("<", "\\u003c")


def static_names() -> dict[str, Any]:
    """Names the page shows: cards, their gods and kinds, goods, gods, decisions."""
    return {
        "cards": list(CARD_ID),
        "card_gods": [GODS[int(g)] for g in CARD_GOD],
        "card_kinds": [KIND_NAMES[int(k)] for k in CARD_KIND],
        "goods": list(GOODS),
        "phases": list(PHASE_NAMES),
    }


@dataclass
class Replay:
    """A game recorded for the page: built by :func:`record_replay`, written by :meth:`write`."""

    data: dict[str, Any]

    @property
    def num_decisions(self) -> int:
        return len(self.data["moves"])

    def html(self) -> str:
        """The whole page as one string."""
        return fill_template(
            asset("replay.html"),
            {
                "title": escape(self.data["title"]),
                "style": asset("replay.css"),
                "summary": summary_html(self.data),
                "data": script_json(self.data),
                "board_js": asset("board.js"),
                "replay_js": asset("replay.js"),
            },
        )

    def write(self, path: str | PathLike[str]) -> Path:
        """Write the page to ``path`` (UTF-8); returns the path."""
        path = Path(path)
        path.write_text(self.html(), encoding="utf-8")
        return path


def record_replay(
    start: Game,
    actions: Sequence[int],
    *,
    seats: Sequence[str] | None = None,
    title: str | None = None,
    seed: int | None = None,
    options: dict[str, Any] | None = None,
) -> Replay:
    """Replay ``actions`` from ``start`` (left unchanged) and keep every position.

    ``seats[p]`` names who played seat ``p`` (an agent spec, ``"human"``...); ``seed`` and
    ``options`` are shown in the summary when the game began with ``Game.new``. An action
    that is not legal where it is played raises :class:`IllegalActionError` naming the
    decision; a game that is not over is recorded as it stands (the summary says so).
    """
    game = start.clone()
    n = game.num_players
    seats = [f"P{p}" for p in range(n)] if seats is None else [str(s) for s in seats]
    if len(seats) != n:
        raise ValueError(f"seats names {len(seats)} players, the game has {n}")
    layout = frame_layout(game)
    strings = StringTable()
    frames = [frame(game, layout, strings)]
    moves: list[list[int]] = []
    for k, action in enumerate(actions):
        before = game.clone()
        try:
            game.step(action)
        except IllegalActionError as exc:
            where = "after the end" if before.is_over() else f"{before.phase_name} of P{before.current_player}"
            raise IllegalActionError(exc.action, f"at decision {k} ({where}): {exc.reason}") from exc
        moves.append([int(action), strings.add(before.describe_action(int(action)))])
        frames.append(frame(game, layout, strings))
    finished = game.is_over()
    data = {
        "version": REPLAY_VERSION,
        "title": title or f"Concordia · {game.map.title} · {n} players",
        "map": game.map.name,
        "map_title": game.map.title,
        "players": n,
        "seed": seed,
        "options": dict(options or {}),
        "seats": seats,
        "colors": list(PLAYER_COLORS[:n]),
        "result": {
            "finished": finished,
            "decisions": len(moves),
            "turns": game.turn_count,
            "scores": [int(v) for v in game.scores()],
            "ranking": game.ranking(),
            "winner": game.winner() if finished else None,
            "breakdown": [game.score_breakdown(p) for p in range(n)],
        },
        "names": static_names(),
        "layout": layout.to_json(),
        "board": board_data(game.map.name),
        "strings": strings.strings,
        "frames": encode_frames(frames),
        "moves": moves,
    }
    return Replay(data)


def write_replay(
    actions: Sequence[int],
    seed: int,
    map: str,
    players: int,
    path: str | PathLike[str],
    *,
    options: dict[str, Any] | None = None,
    seats: Sequence[str] | None = None,
    title: str | None = None,
) -> Path:
    """Write the HTML replay of the game ``Game.new(map, players, seed, **options)`` + ``actions`` to ``path``.

    Bad input (an unknown map, a player count the map does not allow, an illegal action,
    a wrong number of seat names) raises before anything is written. Returns the path.
    """
    start = Game.new(map, players, seed, **(options or {}))
    replay = record_replay(start, actions, seats=seats, title=title, seed=seed, options=options)
    return replay.write(path)


def summary_html(data: dict[str, Any]) -> str:
    """The summary at the top of the page, in plain HTML (readable before any script runs)."""
    result = data["result"]
    ranking = result["ranking"]
    rows = []
    for place, p in enumerate(ranking, start=1):
        color = data["colors"][p]
        won = p == result["winner"]
        rows.append(
            f'<tr class="{"winner" if won else ""}" data-player="{p}"><td>{place}.</td>'
            f'<td><span class="swatch" style="background:{color}"></span> P{p}</td>'
            f"<td>{escape(data['seats'][p])}</td>"
            f'<td class="num" data-testid="final-score-{p}">{result["scores"][p]}</td>'
            f"<td>{'winner' if won else ''}</td></tr>"
        )
    if result["finished"]:
        outcome = (
            f'<span data-testid="winner" data-player="{result["winner"]}">P{result["winner"]} '
            f"({escape(data['seats'][result['winner']])}) wins</span> after {result['turns']} turns, "
            f"{result['decisions']} decisions"
        )
        score_head = "final VP"
    else:
        outcome = (
            f'<span data-testid="unfinished">not finished</span>: stopped after {result["turns"]} turns, '
            f"{result['decisions']} decisions; VP as if the game ended there"
        )
        score_head = "VP"
    setup = f"seed {data['seed']}" if data["seed"] is not None else "from a position"
    if data["options"]:
        setup += ", " + ", ".join(f"{k}={v}" for k, v in data["options"].items())
    return (
        f'<h1>{escape(data["title"])}</h1><p class="outcome">{outcome}</p>'
        f'<p class="setup">{escape(data["map_title"])}, {data["players"]} players, {escape(setup)}</p>'
        f'<table class="standings"><thead><tr><th></th><th>seat</th><th>agent</th><th>{score_head}</th><th></th>'
        f"</tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )
