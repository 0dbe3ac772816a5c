"""Play Concordia in the browser against agents: a small local web app.

::

    python -m agents.web --map italia --players 2 --vs heuristic [--seat 0] [--seed S] [--port 8765] [--no-browser]

starts a server on ``127.0.0.1`` (Starlette + uvicorn) and opens the game in the browser.
You click the card to play, then each decision of it; the choices are grouped as in the
terminal game (:func:`agents.play.group_choices`: Architect moves by colonist, Mercator
trades by good, purchases by display slot) and only legal choices are offered. The agents'
moves are shown one at a time with their descriptions; when the game ends the page offers
its HTML replay (:mod:`concordia_env.web`). Several games may be open at once (several
tabs, or "new game"), each independent of the others.

HTTP API (JSON). Every refusal is a 4xx answer ``{"error": "..."}`` and changes nothing:

=====  ===========================  ==============================  ====================================
verb   path                         body                            answer
=====  ===========================  ==============================  ====================================
GET    ``/``                        -                               the page
POST   ``/api/games``               ``{map, players, vs, seat,      201, the new game's view (``vs``: one
                                    seed}``, each optional          spec for all opponents or one each)
GET    ``/api/games/{id}``          -                               the view, with the whole history
POST   ``/api/games/{id}/act``      ``{step, action}``              your decision; the view after it
POST   ``/api/games/{id}/advance``  ``{step}``                      one agent decision; the view after it
GET    ``/api/games/{id}/replay``   -                               the HTML replay (a download)
=====  ===========================  ==============================  ====================================

``step`` is the number of decisions taken so far, as the view said: a request made for
another step (a second tab, a double click) is stale and refused with 409. Statuses: 400
a malformed body or bad options, 404 an unknown game, 409 a stale step / not your decision
/ not an agent's decision / the game is over, 422 an illegal action, 429 too many games.

A view is ``{id, step, map, players, seats, human, to_move, waiting_for, frame, context,
choices, history, over, result}`` (plus ``meta``, the board and frame layout, when asked
with ``?meta=1``): ``frame`` is the position as :func:`concordia_env.web.frames.frame`
writes it for the replay page, which the app's page draws with the same ``board.js``.
"""

from __future__ import annotations

import argparse
import json
import secrets
import sys
import threading
import uuid
import webbrowser
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from concordia_env import Game, IllegalActionError
from concordia_env import actions as A
from concordia_env.maps import MAP_NAMES
from concordia_env.render.style import PLAYER_COLORS
from concordia_env.web import asset, record_replay
from concordia_env.web.board import board_data
from concordia_env.web.frames import StringTable, frame, frame_layout
from concordia_env.web.replay import fill_template, script_json, static_names

from . import names as agent_names
from .play import HUMAN, MAX_SEED, SHOW_ALL_LIMIT, SMALL_GROUP, Session, group_choices, new_session

DEFAULT_PORT = 8765
#: games kept in memory at once; creating one more is refused (429) rather than dropping a game
MAX_GAMES = 200


class RequestError(Exception):
    """A refused request: its HTTP status and the reason, sent as ``{"error": reason}``."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


@dataclass(frozen=True)
class GameOptions:
    """How a new game is set up (the command line's options are the defaults of ``POST /api/games``)."""

    map: str = "italia"
    players: int = 2
    vs: tuple[str, ...] = ("heuristic",)
    seat: int = 0
    seed: int | None = None


@dataclass
class Room:
    """One game in the server: the session (game, agents, actions) and a lock that serialises its requests."""

    id: str
    session: Session
    options: GameOptions
    lock: threading.Lock = field(default_factory=threading.Lock)
    history: list[dict[str, Any]] = field(default_factory=list)
    strings: StringTable = field(default_factory=StringTable)

    def __post_init__(self) -> None:
        self.layout = frame_layout(self.session.game)

    @property
    def game(self) -> Game:
        return self.session.game

    @property
    def step(self) -> int:
        return len(self.session.actions)

    def seat_labels(self) -> list[str]:
        return ["you" if spec == HUMAN else spec for spec in self.session.seats]

    # ------------------------------------------------------------------ moves
    def check_step(self, step: int) -> None:
        if self.game.is_over():
            raise RequestError(409, f"the game is over (after {self.step} decisions)")
        if step != self.step:
            raise RequestError(409, f"stale step: the game is at step {self.step}, the request was made at step {step}")

    def act(self, step: int, action: int) -> None:
        """The person's decision at ``step``."""
        self.check_step(step)
        player = self.game.current_player
        if player != self.session.human_seat:
            raise RequestError(409, f"it is P{player}'s ({self.session.seats[player]}) decision, not yours")
        if not 0 <= action < A.NUM_ACTIONS:
            raise RequestError(422, f"illegal action {action}: outside the action space 0..{A.NUM_ACTIONS - 1}")
        try:
            self._apply(player, action)
        except IllegalActionError as exc:
            raise RequestError(422, str(exc)) from None

    def advance(self, step: int) -> None:
        """One decision of the agent to move at ``step``."""
        self.check_step(step)
        player = self.game.current_player
        if player == self.session.human_seat:
            raise RequestError(409, "it is your decision: an agent cannot move now")
        # an agent that plans an illegal move is a bug of the server's, not a bad request: it raises (500)
        self._apply(player, int(self.session.agents[player].act(self.game.clone())))

    def _apply(self, player: int, action: int) -> None:
        """Take ``action`` (in range); an illegal one raises IllegalActionError and changes nothing."""
        game = self.game
        turn = game.turn_count
        text = game.describe_action(action)
        game.step(action)
        self.session.actions.append(action)
        self.session.decisions[player] += 1
        self.history.append({"step": self.step - 1, "player": player, "turn": turn, "text": text})

    # ------------------------------------------------------------------ what the page shows
    def view(self, *, since: int = 0, meta: bool = False) -> dict[str, Any]:
        game = self.game
        over = game.is_over()
        player = game.current_player
        human = self.session.human_seat
        position = frame(game, self.layout, self.strings)
        context = self.strings.strings[int(position[self.layout.slot("context")][0])]
        out: dict[str, Any] = {
            "id": self.id,
            "step": self.step,
            "map": game.map.name,
            "players": game.num_players,
            "seats": self.seat_labels(),
            "human": human,
            "seed": self.session.seed,
            "to_move": player,
            "waiting_for": "nobody" if over else ("you" if player == human else "agent"),
            "frame": position.tolist(),
            "context": context,
            "choices": self.choices() if not over and player == human else [],
            "history": self.history[since:],
            "over": over,
            "result": _result(game) if over else None,
        }
        if meta:
            out["meta"] = {
                "board": board_data(game.map.name),
                "layout": self.layout.to_json(),
                "names": static_names(),
                "colors": list(PLAYER_COLORS[: game.num_players]),
            }
        return out

    def choices(self) -> list[dict[str, Any]]:
        """The person's legal actions in groups (as in the terminal game); big menus start folded."""
        groups = group_choices(self.game)
        fold = sum(len(g.actions) for g in groups) > SHOW_ALL_LIMIT
        return [
            {
                "title": g.title,
                "actions": [int(a) for a in g.actions],
                "texts": g.texts,
                "folded": fold and len(g.actions) > SMALL_GROUP,
                "cards": all(A.decode(int(a))[0] == "PLAY" for a in g.actions),
            }
            for g in groups
        ]

    def replay_html(self) -> str:
        session = self.session
        start = Game.new(self.options.map, self.options.players, session.seed)
        title = f"Concordia · {start.map.title} · you vs {', '.join(s for s in session.seats if s != HUMAN)}"
        replay = record_replay(start, session.actions, seats=self.seat_labels(), title=title, seed=session.seed)
        return replay.html()


def _result(game: Game) -> dict[str, Any]:
    return {
        "scores": [int(v) for v in game.final_scores()],
        "ranking": game.ranking(),
        "winner": game.winner(),
        "breakdown": [game.score_breakdown(p) for p in range(game.num_players)],
    }


# ---------------------------------------------------------------------- the server
class GameServer:
    """The open games, by id. Each request on a game holds that game's lock, so requests on
    one game are taken one at a time and requests on different games do not wait for each other."""

    def __init__(self, defaults: GameOptions, max_games: int = MAX_GAMES) -> None:
        self.defaults = defaults
        self.max_games = max_games
        self.rooms: OrderedDict[str, Room] = OrderedDict()
        self._lock = threading.Lock()

    def create(self, body: dict[str, Any]) -> Room:
        options = _options(body, self.defaults)
        self._check_room_left()
        seed = secrets.randbelow(MAX_SEED) if options.seed is None else options.seed
        try:
            session = new_session(options.map, options.players, list(options.vs), options.seat, seed)
        except (ValueError, TypeError, FileNotFoundError, ImportError) as exc:
            raise RequestError(400, f"cannot start that game: {exc}") from None
        room = Room(uuid.uuid4().hex[:12], session, options)
        with self._lock:
            self._check_room_left()  # again: another request may have taken the last place meanwhile
            self.rooms[room.id] = room
        return room

    def _check_room_left(self) -> None:
        if len(self.rooms) >= self.max_games:
            raise RequestError(429, f"{self.max_games} games are open on this server; restart it to start more")

    def room(self, game_id: str) -> Room:
        room = self.rooms.get(game_id)
        if room is None:
            raise RequestError(404, f"no game {game_id!r} on this server")
        return room


_OPTION_KEYS = {"map", "players", "vs", "seat", "seed"}


def _options(body: dict[str, Any], defaults: GameOptions) -> GameOptions:
    """The options of a new game from a request body, each checked for its type (the rules check the rest)."""
    unknown = set(body) - _OPTION_KEYS
    if unknown:
        raise RequestError(400, f"unknown option(s) {sorted(unknown)}; a new game takes {sorted(_OPTION_KEYS)}")
    map_name = body.get("map", defaults.map)
    if not isinstance(map_name, str):
        raise RequestError(400, f"'map' must be a map name, got {map_name!r}")
    vs = body.get("vs", defaults.vs)
    if isinstance(vs, str):
        vs = [vs]
    if not isinstance(vs, (list, tuple)) or not vs or not all(isinstance(v, str) and v for v in vs):
        raise RequestError(400, f"'vs' must be an agent spec or a list of them, got {vs!r}")
    seed = body.get("seed", defaults.seed)
    if seed is not None:
        seed = _integer(body, "seed", seed)
        if not 0 <= seed < MAX_SEED:
            raise RequestError(400, f"'seed' must be in 0..{MAX_SEED - 1}, got {seed}")
    return GameOptions(
        map=map_name,
        players=_integer(body, "players", body.get("players", defaults.players)),
        vs=tuple(vs),
        seat=_integer(body, "seat", body.get("seat", defaults.seat)),
        seed=seed,
    )


def _integer(body: dict[str, Any], key: str, value: Any = None) -> int:
    value = body.get(key) if value is None else value
    if value is None:
        raise RequestError(400, f"missing {key!r}")
    if isinstance(value, bool) or not isinstance(value, int):
        raise RequestError(400, f"{key!r} must be an integer, got {value!r}")
    return value


async def _body(request: Request, keys: set[str]) -> dict[str, Any]:
    """The JSON object of a request; anything else, or a field not in ``keys``, is refused with 400."""
    raw = await request.body()
    if not raw.strip():
        data: Any = {}
    else:
        try:
            data = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise RequestError(400, f"the body is not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise RequestError(400, f"the body must be a JSON object, got {type(data).__name__}")
    unknown = set(data) - keys
    if unknown:
        raise RequestError(400, f"unknown field(s) {sorted(unknown)}; expected {sorted(keys)}")
    return data


def create_app(defaults: GameOptions | None = None, *, max_games: int = MAX_GAMES) -> Starlette:
    """The web app (an ASGI application): the page and the JSON API above."""
    server = GameServer(defaults or GameOptions(), max_games)

    async def page(request: Request) -> HTMLResponse:
        return HTMLResponse(_page_html(server.defaults))

    async def new_game(request: Request) -> JSONResponse:
        body = await _body(request, _OPTION_KEYS)
        room = await run_in_threadpool(server.create, body)
        return JSONResponse(_locked_view(room, meta=True), status_code=201)

    async def show(request: Request) -> JSONResponse:
        room = server.room(request.path_params["game_id"])
        meta = request.query_params.get("meta") == "1"
        return JSONResponse(await run_in_threadpool(_locked_view, room, meta=meta))

    async def act(request: Request) -> JSONResponse:
        room = server.room(request.path_params["game_id"])
        body = await _body(request, {"step", "action"})
        step, action = _integer(body, "step"), _integer(body, "action")
        return JSONResponse(await run_in_threadpool(_move, room, step, lambda: room.act(step, action)))

    async def advance(request: Request) -> JSONResponse:
        room = server.room(request.path_params["game_id"])
        step = _integer(await _body(request, {"step"}), "step")
        return JSONResponse(await run_in_threadpool(_move, room, step, lambda: room.advance(step)))

    async def replay(request: Request) -> Response:
        room = server.room(request.path_params["game_id"])
        html = await run_in_threadpool(_locked_replay, room)
        name = f"concordia-{room.options.map}-{room.id}.html"
        return HTMLResponse(html, headers={"Content-Disposition": f'attachment; filename="{name}"'})

    async def refused(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestError)
        return JSONResponse({"error": exc.reason}, status_code=exc.status)

    async def http_error(request: Request, exc: Exception) -> JSONResponse:
        status = getattr(exc, "status_code", 500)
        return JSONResponse({"error": f"{request.method} {request.url.path}: {getattr(exc, 'detail', exc)}"}, status)

    app = Starlette(
        routes=[
            Route("/", page),
            Route("/api/games", new_game, methods=["POST"]),
            Route("/api/games/{game_id}", show),
            Route("/api/games/{game_id}/act", act, methods=["POST"]),
            Route("/api/games/{game_id}/advance", advance, methods=["POST"]),
            Route("/api/games/{game_id}/replay", replay),
        ],
        exception_handlers={RequestError: refused, HTTPException: http_error},
    )
    app.state.server = server
    return app


def _locked_view(room: Room, meta: bool = False) -> dict[str, Any]:
    with room.lock:
        return room.view(meta=meta)


def _move(room: Room, step: int, move: Any) -> dict[str, Any]:
    """Take one move under the game's lock; the view carries only the history from ``step`` on."""
    with room.lock:
        move()
        return room.view(since=step)


def _locked_replay(room: Room) -> str:
    with room.lock:
        return room.replay_html()


def _page_html(defaults: GameOptions) -> str:
    config = {
        "defaults": {"map": defaults.map, "players": defaults.players, "vs": list(defaults.vs), "seat": defaults.seat},
        "maps": list(MAP_NAMES),
        "agents": agent_names(),
    }
    return fill_template(
        asset("app.html"),
        {
            "style": asset("replay.css"),
            "config": script_json(config),
            "board_js": asset("board.js"),
            "app_js": asset("app.js"),
        },
    )


# ---------------------------------------------------------------------- command line
def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m agents.web", description="Play Concordia against agents in the browser."
    )
    parser.add_argument("--map", default="italia")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument(
        "--vs", nargs="+", default=["heuristic"], help="opponent spec(s): one for all opponents, or one per opponent"
    )
    parser.add_argument("--seat", type=int, default=0, help="your seat, 0..players-1 (the seed draws who starts)")
    parser.add_argument("--seed", type=int, default=None, help="setup seed of the first game (default: a random one)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT)
    parser.add_argument("--no-browser", action="store_true", help="only print the address")
    args = parser.parse_args(argv)
    defaults = GameOptions(args.map, args.players, tuple(args.vs), args.seat, args.seed)
    try:  # refuse a bad command line before serving anything
        _options({}, defaults)
        new_session(args.map, args.players, args.vs, args.seat, 0 if args.seed is None else args.seed)
    except (RequestError, ValueError) as exc:
        parser.error(str(exc))
    import uvicorn

    url = f"http://127.0.0.1:{args.port}/"
    print(f"Concordia: {url}  (Ctrl+C stops the server)")
    if not args.no_browser:
        threading.Timer(1.0, webbrowser.open, args=(url,)).start()
    uvicorn.run(create_app(defaults), host="127.0.0.1", port=args.port, log_level="warning")
    return 0


if __name__ == "__main__":
    sys.exit(main())
