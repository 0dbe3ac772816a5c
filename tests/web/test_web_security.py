"""The web app trusts nothing from the network: each reproducer of the security findings is a test here.

A page on another site can make the browser send requests to ``127.0.0.1`` (cross-site
requests) and, by rebinding its own name to ``127.0.0.1``, read the answers. Before these
checks a ``text/plain`` body from any ``Origin`` could name ``policy:/path/evil.zip``, and the
server unpickled that file; one small body allocated a gigabyte; bad agent options locked a
game forever; and the 200-game cap never freed.
"""

from __future__ import annotations

import base64
import json
import os
import pickle
import tracemalloc
import warnings
import zipfile

import numpy as np
import pytest

from concordia_env import Game
from concordia_env.tools.web import FINISHED_TTL, IDLE_TTL, LOCAL_URL, WEB_MAX_SIMULATIONS, GameOptions, create_app

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message=".*httpx2.*")
    from starlette.testclient import TestClient

OPTIONS = GameOptions(map="italia", players=2, vs=("random",), seat=0, seed=7)
JSON = {"content-type": "application/json"}


class Clock:
    """A clock the test moves by hand (the server times idle games by it)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def client():
    with TestClient(create_app(OPTIONS), base_url=LOCAL_URL) as c:
        yield c


def rooms(client) -> dict:
    return client.app.state.server.rooms


class _RunsCommand:
    """A pickle that runs a shell command when it is loaded (what a hostile model file holds)."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def hostile_model(tmp_path) -> tuple[str, str]:
    """A ``.zip`` laid out as a saved MaskablePPO model whose JSON holds a command-running pickle."""
    marker = str(tmp_path / "the-pickle-ran")
    payload = base64.b64encode(pickle.dumps(_RunsCommand(marker))).decode()
    data = {"policy_kwargs": {":type:": "<class 'dict'>", ":serialized:": payload}}
    path = tmp_path / "evil.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("data", json.dumps(data))
        archive.writestr("policy.pth", b"")
    return str(path), marker


# --------------------------------------------------------------------------- code from a request
def test_the_cross_site_reproducer_is_refused_and_runs_nothing(client, tmp_path):
    path, marker = hostile_model(tmp_path)
    body = json.dumps({"vs": f"policy:{path}"})
    # the reproducer: a text/plain body (no CORS preflight) from another site
    response = client.post(
        "/api/games", content=body, headers={"content-type": "text/plain", "origin": "http://evil.example"}
    )
    assert response.status_code in (403, 415)
    # the same spec in a well-formed same-origin request: a request may not name a file at all
    response = client.post("/api/games", content=body, headers=JSON)
    assert response.status_code == 400 and "not offered by the web app" in response.json()["error"]
    assert not os.path.exists(marker) and rooms(client) == {}


@pytest.mark.parametrize(
    ("headers", "status", "words"),
    [
        ({"origin": "http://evil.example"}, 403, "cross-origin"),
        ({"origin": "null"}, 403, "cross-origin"),
        ({"origin": "http://127.0.0.1:9999"}, 403, "cross-origin"),  # another local server's page
        ({"origin": "https://127.0.0.1:8765"}, 403, "cross-origin"),
        ({"sec-fetch-site": "cross-site"}, 403, "cross-site"),
        ({"host": "evil.example:8765"}, 421, "Host"),  # a DNS-rebound name
        ({"host": "127.0.0.1.evil.example"}, 421, "Host"),
        ({"host": "evil.example@127.0.0.1:8765"}, 421, "Host"),  # user info: the header text is compared whole
        ({"host": "127.0.0.1:8765/path"}, 421, "Host"),
        ({"host": "127.0.0.1:99999"}, 421, "Host"),
        ({"origin": "http://evil.example@127.0.0.1:8765"}, 403, "cross-origin"),
        ({"origin": "http://127.0.0.1:8765/"}, 403, "cross-origin"),
        ({"origin": "http://127.0.0.1:8765 "}, 403, "cross-origin"),
        ({"content-type": "text/plain"}, 415, "application/json"),
        ({"content-type": "application/x-www-form-urlencoded"}, 415, "application/json"),
        ({"content-type": "multipart/form-data; boundary=x"}, 415, "application/json"),
    ],
)
def test_cross_site_rebound_and_non_json_requests_are_refused(client, headers, status, words):
    response = client.post("/api/games", content=b"{}", headers={**JSON, **headers})
    assert response.status_code == status and words in response.json()["error"], response.text
    assert rooms(client) == {}
    if "host" in headers or "origin" in headers:  # reading is refused too (a rebound page reads the answers)
        assert client.get("/", headers=headers).status_code in (403, 421)


def test_same_origin_requests_and_every_loopback_name_are_served(client):
    for host in ("127.0.0.1:8765", "localhost:8765", "[::1]:8765", "LOCALHOST"):
        response = client.post("/api/games", json={"seed": 1}, headers={"host": host})
        assert response.status_code == 201, (host, response.text)
    same = client.post(
        "/api/games", json={"seed": 1}, headers={"origin": "http://127.0.0.1:8765", "sec-fetch-site": "same-origin"}
    )
    assert same.status_code == 201, same.text


@pytest.mark.parametrize(
    "spec",
    [
        "policy:/etc",
        "policy:/no/such/file.zip",
        "policy:path=/etc/passwd",
        "learned:/etc/passwd",
        "learned:path=/etc/passwd",
        "heuristic:weights={'money': 0.5}",
        "mcts:rollout=heuristic,seed=3",
    ],
)
def test_a_request_may_name_no_file_and_no_weights(client, spec):
    response = client.post("/api/games", json={"vs": spec})
    assert response.status_code == 400, response.text
    assert rooms(client) == {}


def test_refusals_do_not_tell_whether_a_path_exists(client, tmp_path):
    (tmp_path / "there.zip").write_bytes(b"x")
    there = client.post("/api/games", json={"vs": f"policy:{tmp_path / 'there.zip'}"}).json()["error"]
    missing = client.post("/api/games", json={"vs": f"policy:{tmp_path / 'missing.zip'}"}).json()["error"]
    assert there == missing


def test_a_fifo_named_in_a_request_is_never_opened(client, tmp_path):
    fifo = tmp_path / "fifo.zip"
    os.mkfifo(fifo)  # opening it for reading would block the request forever
    response = client.post("/api/games", json={"vs": f"policy:{fifo}"})
    assert response.status_code == 400


def test_the_users_own_command_line_specs_may_be_asked_for_again():
    beyond = f"mcts:simulations={WEB_MAX_SIMULATIONS + 1}"
    with TestClient(create_app(OPTIONS), base_url=LOCAL_URL) as c:
        assert c.post("/api/games", json={"vs": beyond}).status_code == 400
    trusted = GameOptions(map="italia", players=2, vs=(beyond,), seat=0, seed=7)
    with TestClient(create_app(trusted), base_url=LOCAL_URL) as c:
        assert c.post("/api/games", json={"vs": beyond}).status_code == 201
        refused = c.post("/api/games", json={"vs": f"mcts:simulations={WEB_MAX_SIMULATIONS + 2}"})
        assert refused.status_code == 400 and "simulations" in refused.json()["error"]


# --------------------------------------------------------------------------- memory from one body
@pytest.mark.parametrize("players", [60_000_000, 10**100, 2**62, -(2**62)])
def test_a_huge_player_count_is_refused_before_anything_is_allocated(client, players):
    tracemalloc.start()
    try:
        response = client.post("/api/games", json={"players": players, "vs": "random"})
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert response.status_code == 400 and "players" in response.json()["error"], response.text
    assert peak < 20 * 2**20, f"a refused request allocated {peak / 2**20:.0f} MiB"


def test_too_many_opponent_specs_are_refused_by_count(client):
    response = client.post("/api/games", json={"vs": ["random"] * 1_000})
    assert response.status_code == 400 and "at most" in response.json()["error"]


# --------------------------------------------------------------------------- options checked at creation
@pytest.mark.parametrize(
    "spec",
    [
        "mcts:determinizations=2.5",
        "mcts:exploration=float",
        "mcts:exploration=nan",
        "mcts:simulations=0",
        "mcts:time_per_move=1e12,simulations=999999999999",
        "mcts:time_per_move=-1",
        "mcts:rollout=everything",
        "mcts:rollout_rounds=None",
        "learned:simulations=-3",
        "learned:time_per_move=True",
        "heuristic:weights=None",
        "heuristic:weights=[1]",
        "heuristic:weights={'money':'x'}",
        "random:strict=1",
    ],
)
def test_bad_agent_options_are_refused_when_the_game_is_created(client, spec):
    response = client.post("/api/games", json={"vs": spec})
    assert response.status_code == 400, response.text
    assert rooms(client) == {}


def test_finished_and_idle_games_are_dropped_so_the_cap_frees():
    clock = Clock()
    with TestClient(create_app(OPTIONS, max_games=2, clock=clock), base_url=LOCAL_URL) as c:
        first = c.post("/api/games", json={"seed": 1}).json()["id"]
        second = c.post("/api/games", json={"seed": 2}).json()["id"]
        assert c.post("/api/games", json={"seed": 3}).status_code == 429  # two games in play: the cap holds
        # a game asked for lately stays; an idle one is dropped once IDLE_TTL has passed
        clock.now += IDLE_TTL - 1
        assert c.get(f"/api/games/{second}").status_code == 200
        clock.now += 2
        third = c.post("/api/games", json={"seed": 3})
        assert third.status_code == 201
        assert set(rooms(c)) == {second, third.json()["id"]} and first not in rooms(c)
        # at the cap a finished game makes room at once; one finished long ago is dropped anyway
        room = rooms(c)[second]
        finish(room.game)
        fourth = c.post("/api/games", json={"seed": 4})
        assert fourth.status_code == 201 and second not in rooms(c)
        finish(rooms(c)[fourth.json()["id"]].game)
        clock.now += FINISHED_TTL
        assert c.get(f"/api/games/{third.json()['id']}").status_code == 200
        c.post("/api/games", json={"seed": 5})
        assert fourth.json()["id"] not in rooms(c) and len(rooms(c)) == 2


def finish(game: Game) -> None:
    """Play ``game`` to its end with random legal actions (a random game ends in a few hundred decisions)."""
    rng = np.random.default_rng(0)
    while not game.is_over():
        game.step(int(rng.choice(game.legal_actions())))


def test_the_module_documents_its_threat_model():
    import concordia_env.tools.web

    doc = concordia_env.tools.web.__doc__
    for words in ("Threat model", "127.0.0.1", "Origin", "Host", "application/json", "no file paths"):
        assert words in doc


def test_slow_and_idle_connections_are_closed_and_whole_requests_served() -> None:
    """Each request must arrive whole within the read timeout; a client that idles or trickles is cut off."""
    import socket
    import threading
    import time

    import uvicorn

    from concordia_env.tools.web import timed_protocol

    config = uvicorn.Config(
        create_app(OPTIONS), host="127.0.0.1", port=0, log_level="warning", http=timed_protocol(0.5)
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:

        def closed_within(sock: socket.socket, seconds: float) -> bool:
            """Whether the server closes ``sock`` within ``seconds`` (what it still sends is read and dropped)."""
            end = time.monotonic() + seconds
            while time.monotonic() < end:
                sock.settimeout(max(0.01, end - time.monotonic()))
                try:
                    if sock.recv(65536) == b"":
                        return True
                except TimeoutError:
                    return False
            return False

        with socket.create_connection(("127.0.0.1", port)) as idle:  # sends nothing
            assert closed_within(idle, 5)
        with socket.create_connection(("127.0.0.1", port)) as slow:  # headers that never end
            slow.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            time.sleep(0.3)
            slow.sendall(b"X-Slow: 1\r\n")  # a byte now and then does not extend the deadline
            assert closed_within(slow, 5)
        with socket.create_connection(("127.0.0.1", port)) as whole:
            whole.sendall(f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
            whole.settimeout(10)
            assert whole.recv(12).startswith(b"HTTP/1.1 200")
            assert closed_within(whole, 5)  # the rest of the page, then idle: closed after the next deadline
    finally:
        server.should_exit = True
        thread.join(timeout=10)
