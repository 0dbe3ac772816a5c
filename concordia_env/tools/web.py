"""Play Concordia in the browser against agents: a small local web app.

::

    concordia web --map italia --players 2 --vs heuristic [--seat 0] [--seed S] [--port 8765] [--no-browser]

starts a server on ``127.0.0.1`` (Starlette + uvicorn) and opens the game in the browser.
You click the card to play, then each decision of it; the choices are grouped as in the
terminal game (:func:`concordia_env.tools.session.group_choices`: Architect moves by colonist, Mercator
trades by good, purchases by display slot) and only legal choices are offered. The agents'
moves are shown one at a time with their descriptions; when the game ends the page offers
its HTML replay (:mod:`concordia_env.views.html`). Several games may be open at once (several
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
a malformed body or bad options, 403 a cross-site request, 404 an unknown game, 409 a stale
step / not your decision / not an agent's decision / the game is over, 413 a body over 64 KiB,
415 a body that is not ``application/json``, 421 a ``Host`` other than this server's, 422 an
illegal action, 429 too many games (see the threat model below). Every refusal's message
is short (it names the bad value, it does not repeat it), and no request body makes the
server answer 500.

Threat model
------------
The server is a local app for the person at this machine, and it trusts nothing that
comes over the network, because any web page the person visits can make their browser
send requests to ``127.0.0.1`` (cross-site requests), and a page on a hostile domain can
rebind that domain to ``127.0.0.1`` to read the answers (DNS rebinding). So:

* it binds to ``127.0.0.1`` only, and answers only requests whose ``Host`` names that
  address (``127.0.0.1``, ``localhost`` or ``[::1]``, any port): a rebound domain gets 421.
  ``Host`` and ``Origin`` are compared as exact text (:func:`local_authority`): a user-info
  form (``http://evil.com@127.0.0.1:8765``), a path or anything else around the name is refused;
* a request that carries an ``Origin`` other than this server's (or ``Sec-Fetch-Site:
  cross-site``) is refused with 403, and every ``POST`` body must be ``application/json``
  (415 otherwise): a cross-site page cannot send JSON without a CORS preflight, which the
  server never grants;
* agent specs from a request name a known agent (:data:`WEB_OPTIONS`) with only the
  options listed there, each range-checked (budgets capped at :data:`WEB_MAX_SIMULATIONS`
  simulations and :data:`WEB_MAX_TIME_PER_MOVE` seconds): no file paths and no weights,
  so a request never opens a file nor unpickles anything; the shipped models are chosen by
  player count. A spec given on the command line (``--vs policy:my.zip``) is the user's
  own and may be asked for again by its exact text;
* a request must arrive whole (headers and body) within :data:`READ_TIMEOUT` seconds of the
  connection opening, or of the previous response, else the connection is closed
  (:func:`timed_protocol`): idle and slow clients do not hold connections open;
* every number is range-checked before anything is allocated or built, a body is read
  only up to 64 KiB, and the games held are capped (:data:`MAX_GAMES`): a finished game
  untouched for :data:`FINISHED_TTL` seconds, or any game untouched for :data:`IDLE_TTL`
  seconds, is dropped to make room, and when the cap is reached the least recently used
  finished game goes first.

A view is ``{id, step, map, players, seats, human, to_move, waiting_for, frame, context,
choices, unplayable, history, over, result}`` (``unplayable``: the cards in the person's hand
that cannot be played now, each with the reason; plus ``meta``, the board and frame layout, when asked
with ``?meta=1``): ``frame`` is the position as :func:`concordia_env.views.html.frames.frame`
writes it for the replay page, which the app's page draws with the same ``board.js``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import secrets
import sys
import threading
import time
import uuid
import webbrowser
from collections import OrderedDict
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from concordia_env import Game, IllegalActionError
from concordia_env.agents import names as agent_names
from concordia_env.agents import parse_spec
from concordia_env.agents.mcts import EVALUATIONS, ROLLOUTS
from concordia_env.agents.option_checks import choice_option, float_option, int_option
from concordia_env.engine import actions as A
from concordia_env.engine.errors import short_repr
from concordia_env.engine.maps import MAP_NAMES
from concordia_env.engine.state import MAX_PLAYERS
from concordia_env.tools import arguments
from concordia_env.tools.session import (
    HUMAN,
    MAX_SEED,
    SHOW_ALL_LIMIT,
    SMALL_GROUP,
    Session,
    group_choices,
    new_session,
    unplayable_cards,
)
from concordia_env.views.html import asset, record_replay
from concordia_env.views.html.board_svg import board_data
from concordia_env.views.html.frames import StringTable, frame, frame_layout
from concordia_env.views.html.replay_page import fill_template, script_json, static_names
from concordia_env.views.render.style import PLAYER_COLORS

DEFAULT_PORT = 8765
#: the address the server is bound to (what ``Host`` must name, see the threat model)
LOCAL_URL = f"http://127.0.0.1:{DEFAULT_PORT}"
#: games kept in memory at once; creating one more is refused (429) rather than dropping a game
MAX_GAMES = 200
#: the largest request body read (a move or new-game body is a few dozen bytes); larger ones get 413
MAX_BODY_BYTES = 64 * 1024
#: the host names the server answers to: it binds to 127.0.0.1 only (see the threat model)
LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
#: seconds after which an untouched finished game, or any untouched game, is dropped
FINISHED_TTL = 10 * 60
IDLE_TTL = 60 * 60
#: the budgets a request may ask of a searching agent
WEB_MAX_SIMULATIONS = 2_000
WEB_MAX_TIME_PER_MOVE = 10.0
#: the longest agent spec and map name a request may send
MAX_SPEC_LENGTH = 200


def _mcts_options(agent: str) -> dict[str, Callable[[Any], Any]]:
    """The search options a request may set, each with its range (budgets capped for the web)."""
    return {
        "simulations": lambda v: int_option(
            v, "simulations", 0 if agent == "learned" else 1, WEB_MAX_SIMULATIONS, agent=agent
        ),
        "time_per_move": lambda v: float_option(
            v, "time_per_move", 0.0, WEB_MAX_TIME_PER_MOVE, agent=agent, low_open=True
        ),
    }


#: the agents a request may ask for, and the options it may set on each (option -> check of its value)
WEB_OPTIONS: dict[str, dict[str, Callable[[Any], Any]]] = {
    "random": {},
    "heuristic": {},
    "learned": _mcts_options("learned"),
    "mcts": {
        **_mcts_options("mcts"),
        "exploration": lambda v: float_option(v, "exploration", 0.0, 10.0, agent="mcts"),
        "determinizations": lambda v: int_option(v, "determinizations", 1, 16, agent="mcts"),
        "rollout": lambda v: choice_option(v, "rollout", ROLLOUTS, agent="mcts"),
        "rollout_rounds": lambda v: int_option(v, "rollout_rounds", 1, 10, agent="mcts"),
        "evaluation": lambda v: choice_option(v, "evaluation", EVALUATIONS, agent="mcts"),
        "value_scale": lambda v: float_option(v, "value_scale", 0.0, 1000.0, agent="mcts", low_open=True),
    },
}


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
    #: when a request last asked for this game (the server's clock), for dropping idle games
    touched: float = 0.0

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
            raise RequestError(
                409, f"stale step: the game is at step {self.step}, the request was made at step {short_repr(step)}"
            )

    def act(self, step: int, action: int) -> None:
        """The person's decision at ``step``."""
        self.check_step(step)
        player = self.game.current_player
        if player != self.session.human_seat:
            raise RequestError(409, f"it is P{player}'s ({self.session.seats[player]}) decision, not yours")
        if not 0 <= action < A.NUM_ACTIONS:
            raise RequestError(
                422, f"illegal action {short_repr(action)}: outside the action space 0..{A.NUM_ACTIONS - 1}"
            )
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
            # cards in the person's hand that cannot be played now, with the rules' reason
            "unplayable": unplayable_cards(game) if not over and player == human else [],
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
    one game are taken one at a time and requests on different games do not wait for each other.

    ``trusted_specs`` are the agent specs the user gave on the command line: a request may ask
    for those by their exact text; any other spec must pass :func:`checked_spec`.
    """

    def __init__(
        self,
        defaults: GameOptions,
        max_games: int = MAX_GAMES,
        *,
        trusted_specs: Collection[str] = (),
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.defaults = defaults
        self.max_games = max_games
        self.trusted_specs = frozenset(trusted_specs) | frozenset(defaults.vs)
        self.clock = clock
        self.rooms: OrderedDict[str, Room] = OrderedDict()
        self._lock = threading.Lock()

    def create(self, body: dict[str, Any]) -> Room:
        options = _options(body, self.defaults, self.trusted_specs)
        with self._lock:
            self._evict()
        self._check_room_left()
        seed = secrets.randbelow(MAX_SEED) if options.seed is None else options.seed
        try:
            session = new_session(options.map, options.players, list(options.vs), options.seat, seed)
        except (ValueError, TypeError, FileNotFoundError, ImportError) as exc:
            raise RequestError(400, f"cannot start that game: {str(exc)[:300]}") from None
        room = Room(uuid.uuid4().hex[:12], session, options, touched=self.clock())
        with self._lock:
            self._evict()
            self._check_room_left()  # again: another request may have taken the last place meanwhile
            self.rooms[room.id] = room
        return room

    def _evict(self) -> None:
        """Drop games nobody asked for lately (see the threat model); at the cap, the stalest finished one."""
        now = self.clock()
        for game_id, room in list(self.rooms.items()):
            idle = now - room.touched
            if idle >= IDLE_TTL or (room.game.is_over() and idle >= FINISHED_TTL):
                del self.rooms[game_id]
        finished = [room for room in self.rooms.values() if room.game.is_over()]
        if len(self.rooms) >= self.max_games and finished:
            del self.rooms[min(finished, key=lambda room: room.touched).id]

    def _check_room_left(self) -> None:
        if len(self.rooms) >= self.max_games:
            raise RequestError(
                429,
                f"{self.max_games} games are open on this server; finish one, or wait until an idle one is dropped",
            )

    def room(self, game_id: str) -> Room:
        room = self.rooms.get(game_id)
        if room is None:
            raise RequestError(404, f"no game {short_repr(game_id)} on this server")
        room.touched = self.clock()
        return room


def checked_spec(spec: str, trusted: Collection[str] = ()) -> str:
    """``spec`` if a request may ask for it: one of the user's own (``trusted``) or a known agent
    with only the options of :data:`WEB_OPTIONS`, each in range. Otherwise a 400 naming why."""
    if spec in trusted:
        return spec
    if len(spec) > MAX_SPEC_LENGTH:
        raise RequestError(400, f"an agent spec is at most {MAX_SPEC_LENGTH} characters")
    try:
        name, options = parse_spec(spec)
    except ValueError as exc:
        raise RequestError(400, str(exc)[:300]) from None
    if name not in agent_names():
        raise RequestError(400, f"unknown agent {short_repr(name)}; known agents: {', '.join(sorted(WEB_OPTIONS))}")
    allowed = WEB_OPTIONS.get(name)
    if allowed is None:
        raise RequestError(
            400, f"agent {name!r} is not offered by the web app (it reads files); it offers {sorted(WEB_OPTIONS)}"
        )
    for key, value in options.items():
        if key not in allowed:
            raise RequestError(
                400, f"the web app does not take option {short_repr(key)} of {name!r}; it takes {sorted(allowed)}"
            )
        try:
            allowed[key](value)
        except (TypeError, ValueError) as exc:
            raise RequestError(400, str(exc)[:300]) from None
    return spec


_OPTION_KEYS = {"map", "players", "vs", "seat", "seed"}


def _options(body: dict[str, Any], defaults: GameOptions, trusted: Collection[str] = ()) -> GameOptions:
    """The options of a new game from a request body, each checked for its type and size before
    anything is built (the rules check the rest)."""
    unknown = set(body) - _OPTION_KEYS
    if unknown:
        raise RequestError(
            400, f"unknown option(s) {short_repr(sorted(unknown))}; a new game takes {sorted(_OPTION_KEYS)}"
        )
    map_name = body.get("map", defaults.map)
    if not isinstance(map_name, str) or len(map_name) > MAX_SPEC_LENGTH:
        raise RequestError(400, f"'map' must be a map name, got {short_repr(map_name)}")
    vs = body.get("vs", defaults.vs)
    if isinstance(vs, str):
        vs = [vs]
    if not isinstance(vs, (list, tuple)) or not vs or not all(isinstance(v, str) and v for v in vs):
        raise RequestError(400, f"'vs' must be an agent spec or a list of them, got {short_repr(vs)}")
    if len(vs) > MAX_PLAYERS - 1:
        raise RequestError(400, f"'vs' names at most {MAX_PLAYERS - 1} opponents, got {len(vs)}")
    vs = [checked_spec(v, trusted) for v in vs]
    seed = body.get("seed", defaults.seed)
    if seed is not None:
        seed = _integer(body, "seed", seed)
        if not 0 <= seed < MAX_SEED:
            raise RequestError(400, f"'seed' must be in 0..{MAX_SEED - 1}, got {short_repr(seed)}")
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
        raise RequestError(400, f"{key!r} must be an integer, got {short_repr(value)}")
    return value


async def _body(request: Request, keys: set[str]) -> dict[str, Any]:
    """The JSON object of a request; anything else, or a field not in ``keys``, is refused (400; 413 if too large)."""
    raw = bytearray()
    async for chunk in request.stream():  # read no further than the limit, whatever Content-Length claims
        raw += chunk
        if len(raw) > MAX_BODY_BYTES:
            raise RequestError(413, f"the body is larger than {MAX_BODY_BYTES} bytes")
    if not raw.strip():
        data: Any = {}
    else:
        try:
            data = json.loads(raw)
        except RecursionError:
            raise RequestError(400, "the body is not JSON this server reads: nested too deeply") from None
        except ValueError as exc:  # not JSON, not UTF-8, an integer of more digits than Python reads
            raise RequestError(400, f"the body is not JSON: {str(exc)[:200]}") from None
    if not isinstance(data, dict):
        raise RequestError(400, f"the body must be a JSON object, got {type(data).__name__}")
    unknown = set(data) - keys
    if unknown:
        raise RequestError(400, f"unknown field(s) {short_repr(sorted(unknown))}; expected {sorted(keys)}")
    return data


#: ``name`` or ``name:port`` and nothing else: no user info (``evil.com@``), no path, no spaces
_AUTHORITY = re.compile(r"(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(?::([0-9]{1,5}))?")


def local_authority(text: str, hosts: Collection[str] = LOCAL_HOSTS) -> tuple[str, int | None] | None:
    """``(name, port)`` if ``text`` is exactly ``name`` or ``name:port`` with ``name`` in ``hosts``, else None.

    The header text is compared whole: ``evil.com@127.0.0.1:8765`` (user info), ``127.0.0.1:8765/x``
    (a path) or ``127.0.0.1:8765 `` are not this server, whatever a URL parser makes of them.
    An IPv6 name is written in brackets (``[::1]:8765``).
    """
    match = _AUTHORITY.fullmatch(text)
    if match is None:
        return None
    name = (match.group(1)[1:-1] if match.group(1).startswith("[") else match.group(1)).lower()  # DNS: any case
    port = None if match.group(2) is None else int(match.group(2))
    if name not in hosts or (port is not None and not 0 < port <= 65535):
        return None
    return name, port


def request_refusal(method: str, headers: Headers, hosts: Collection[str] = LOCAL_HOSTS) -> tuple[int, str] | None:
    """Why a request must be refused before it is read (status, reason), or None (see the threat model).

    ``Host`` must name this machine's loopback address (421 otherwise: a DNS-rebound name), an
    ``Origin`` must be this server's own (403: a cross-site page), and a ``POST`` body must be
    ``application/json`` (415: what a cross-site form or ``no-cors`` fetch sends is not).
    """
    host = headers.get("host", "")
    here = local_authority(host, hosts)
    if here is None:
        return 421, f"this server answers only requests for {', '.join(sorted(hosts))}, not Host {short_repr(host)}"
    origin = headers.get("origin")
    if origin is not None:
        there = local_authority(origin.removeprefix("http://"), hosts) if origin.startswith("http://") else None
        if there is None or there[1] != here[1]:
            return 403, f"cross-origin requests are refused (Origin {short_repr(origin)})"
    if headers.get("sec-fetch-site", "same-origin") not in ("same-origin", "none"):
        return 403, "cross-site requests are refused (Sec-Fetch-Site)"
    if method == "POST":
        media_type = headers.get("content-type", "").split(";")[0].strip().lower()
        if media_type != "application/json":
            return 415, f"a request body must be application/json, got {short_repr(media_type or 'none')}"
    return None


class LocalOnly:
    """ASGI middleware: every HTTP request passes :func:`request_refusal` before the app sees it."""

    def __init__(self, app: Any, hosts: Collection[str] = LOCAL_HOSTS) -> None:
        self.app = app
        self.hosts = frozenset(hosts)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            refusal = request_refusal(scope["method"], Headers(scope=scope), self.hosts)
            if refusal is not None:
                status, reason = refusal
                await JSONResponse({"error": reason}, status_code=status)(scope, receive, send)
                return
        await self.app(scope, receive, send)


def create_app(
    defaults: GameOptions | None = None,
    *,
    max_games: int = MAX_GAMES,
    trusted_specs: Collection[str] = (),
    clock: Callable[[], float] = time.monotonic,
) -> Starlette:
    """The web app (an ASGI application): the page and the JSON API above.

    ``defaults`` are the command line's options (its ``vs`` specs are trusted, see
    :class:`GameServer`); ``clock`` is what idle games are timed by (tests pass their own).
    """
    server = GameServer(defaults or GameOptions(), max_games, trusted_specs=trusted_specs, clock=clock)

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
        middleware=[Middleware(LocalOnly)],
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
    parser = argparse.ArgumentParser(prog="concordia web", description="Play Concordia against agents in the browser.")
    arguments.add_table(parser, seed_default=None, seed_help="setup seed of the first game (default: a random one)")
    parser.add_argument(
        "--vs", nargs="+", default=["heuristic"], help="opponent spec(s): one for all opponents, or one per opponent"
    )
    parser.add_argument(
        "--seat", type=arguments.index, default=0, help="your seat, 0..players-1 (the seed draws who starts)"
    )
    parser.add_argument("--port", type=arguments.port, default=DEFAULT_PORT)
    parser.add_argument("--no-browser", action="store_true", help="only print the address")
    args = parser.parse_args(argv)
    defaults = GameOptions(args.map, args.players, tuple(args.vs), args.seat, args.seed)
    try:  # refuse a bad command line before serving anything (its own specs are trusted)
        _options({}, defaults, defaults.vs)
        new_session(args.map, args.players, args.vs, args.seat, 0 if args.seed is None else args.seed)
    except (RequestError, ValueError, OSError) as exc:  # OSError: a policy: or learned: spec naming a missing file
        parser.error(str(exc))
    import uvicorn

    url = f"http://127.0.0.1:{args.port}/"  # bound to the loopback address only (see the threat model)
    print(f"Concordia: {url}  (Ctrl+C stops the server)")
    if not args.no_browser:
        threading.Timer(1.0, webbrowser.open, args=(url,)).start()
    uvicorn.run(
        create_app(defaults), host="127.0.0.1", port=args.port, log_level="warning", http=timed_protocol(READ_TIMEOUT)
    )
    return 0


#: the longest one request may take to arrive whole, headers and body (seconds): a client that
#: sends nothing, or a byte now and then, is cut off (uvicorn alone waits for it forever)
READ_TIMEOUT = 10.0


def timed_protocol(read_timeout: float = READ_TIMEOUT) -> type:
    """uvicorn's h11 protocol with a deadline: each request must arrive whole within ``read_timeout`` s.

    The clock starts when a connection opens and again after each response on a kept-alive
    connection; it stops once a request's headers and body are read (the app's own time is
    not counted). A connection past its deadline is closed. Pass it as uvicorn's ``http``.
    """
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class TimedH11Protocol(H11Protocol):
        _deadline: asyncio.TimerHandle | None = None

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def handle_events(self) -> None:
            super().handle_events()
            cycle = self.cycle
            if cycle is not None and not cycle.response_complete and not cycle.more_body:
                self._disarm()  # this request is read whole: the app answers it in its own time

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._arm()  # the next request of this kept-alive connection

        def _arm(self) -> None:
            self._disarm()
            self._deadline = self.loop.call_later(read_timeout, self._too_slow)

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def _too_slow(self) -> None:
            self._deadline = None
            if not self.transport.is_closing():
                self.transport.close()

    return TimedH11Protocol


if __name__ == "__main__":
    sys.exit(main())
