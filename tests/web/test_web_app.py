"""The web app's JSON API without a browser (Starlette's TestClient): moves, refusals, independent games."""

from __future__ import annotations

import random
import threading
import warnings

import numpy as np
import pytest

from concordia_env import Game
from concordia_env.tools.session import group_choices
from concordia_env.tools.web import LOCAL_URL, GameOptions, create_app, main

with warnings.catch_warnings():
    # Starlette 1.x notes that its TestClient will move from httpx to httpx2; httpx works
    warnings.filterwarnings("ignore", message=".*httpx2.*")
    from starlette.testclient import TestClient

OPTIONS = GameOptions(map="italia", players=2, vs=("random",), seat=0, seed=7)


@pytest.fixture
def client():
    with TestClient(create_app(OPTIONS), base_url=LOCAL_URL) as c:
        yield c


def server_of(client):
    return client.app.state.server


def new_game(client, **options) -> dict:
    response = client.post("/api/games", json=options)
    assert response.status_code == 201, response.text
    return response.json()


def take(client, view: dict, rng: random.Random) -> dict:
    """One decision: the person's (a random offered choice) or the agent's."""
    if view["waiting_for"] == "you":
        group = rng.choice(view["choices"])
        body = {"step": view["step"], "action": rng.choice(group["actions"])}
        response = client.post(f"/api/games/{view['id']}/act", json=body)
    else:
        response = client.post(f"/api/games/{view['id']}/advance", json={"step": view["step"]})
    assert response.status_code == 200, response.text
    return response.json()


def starter(seed: int, map_name: str = "italia", players: int = 2) -> int:
    """The seat that takes the first decision of the game with this seed."""
    return Game.new(map_name, players, seed).current_player


def replayed(view: dict, actions: list[int]) -> Game:
    game = Game.new(view["map"], view["players"], view["seed"])
    for a in actions:
        game.step(a)
    return game


def test_page_is_served_with_its_scripts(client):
    response = client.get("/")
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/html")
    assert "ConcordiaBoard" in response.text and "concordiaApp" in response.text
    assert '"map":"italia"' in response.text  # the command line's options are the new-game form's defaults


def test_a_new_game_offers_the_persons_legal_choices_grouped(client):
    view = new_game(client, seat=starter(7))
    seats = ["random", "random"]
    seats[starter(7)] = "you"
    assert view["step"] == 0 and view["seats"] == seats and view["human"] == starter(7)
    assert view["seed"] == 7 and "meta" in view and view["waiting_for"] == "you"
    game = Game.new("italia", 2, 7)
    offered = sorted(a for g in view["choices"] for a in g["actions"])
    expected = sorted(a for g in group_choices(game) for a in g.actions)
    assert offered == expected and set(offered) <= set(game.legal_actions().tolist())
    assert all(g["cards"] for g in view["choices"])  # the first decision is which card to play
    assert view["frame"][view["meta"]["layout"]["globals"]["turn"][0]] == 0


def test_a_card_that_cannot_be_played_is_explained_in_the_view(client):
    view = new_game(client, seat=starter(7))  # the first decision: every Diplomat has nothing to copy yet
    assert view["unplayable"] == ["Diplomat: no opponent's discard pile shows a card a Diplomat may copy"]
    assert "cannot be played now: ${esc(note)}" in client.get("/").text, "the page shows them under the choices"


def test_a_whole_game_through_the_api_matches_the_engine(client):
    rng = random.Random(3)
    view = new_game(client, vs="random", seed=11)
    history = list(view["history"])
    while not view["over"]:
        before = view["step"]
        view = take(client, view, rng)
        assert view["step"] == before + 1 and [h["step"] for h in view["history"]] == [before]
        history += view["history"]
    room = server_of(client).room(view["id"])
    game = replayed(view, room.session.actions)
    assert game.is_over() and view["result"]["scores"] == game.final_scores().tolist()
    assert view["result"]["winner"] == game.winner()
    assert len(history) == len(room.session.actions)
    full = client.get(f"/api/games/{view['id']}").json()
    assert full["history"] == history and full["over"] and full["choices"] == []
    # the finished game's replay
    response = client.get(f"/api/games/{view['id']}/replay")
    assert response.status_code == 200 and "attachment" in response.headers["content-disposition"]
    assert f"final-score-{game.winner()}" in response.text
    # nothing more can be played
    refused = client.post(f"/api/games/{view['id']}/advance", json={"step": view["step"]})
    assert refused.status_code == 409 and "over" in refused.json()["error"]


def test_agents_move_only_when_asked_and_only_on_their_turn(client):
    view = new_game(client, seat=1 - starter(3), seed=3)  # the agent decides first
    assert view["waiting_for"] == "agent" and view["choices"] == []
    refused = client.post(
        f"/api/games/{view['id']}/act", json={"step": 0, "action": int(Game.new("italia", 2, 3).legal_actions()[0])}
    )
    assert refused.status_code == 409 and "not yours" in refused.json()["error"]
    view = client.post(f"/api/games/{view['id']}/advance", json={"step": 0}).json()
    assert view["step"] == 1 and view["history"][0]["player"] == starter(3)
    while view["waiting_for"] == "agent":
        view = client.post(f"/api/games/{view['id']}/advance", json={"step": view["step"]}).json()
    refused = client.post(f"/api/games/{view['id']}/advance", json={"step": view["step"]})
    assert refused.status_code == 409 and "your decision" in refused.json()["error"]


@pytest.mark.parametrize(
    ("path", "body", "status", "words"),
    [
        ("act", {"step": 5, "action": 0}, 409, "stale step"),
        ("act", {"step": 0, "action": 768}, 422, "illegal"),
        ("act", {"step": 0, "action": -4}, 422, "illegal"),
        ("act", {"step": 0, "action": 10**30}, 422, "illegal"),
        ("act", {"step": 0}, 400, "missing 'action'"),
        ("act", {"step": "0", "action": 1}, 400, "integer"),
        ("act", {"step": 0, "action": True}, 400, "integer"),
        ("act", {"step": 0, "action": 1.0}, 400, "integer"),
        ("act", {"step": 0, "action": 1, "extra": 1}, 400, "unknown field"),
        ("act", [0, 1], 400, "JSON object"),
        ("advance", {"step": 0}, 409, "your decision"),
    ],
)
def test_bad_requests_get_a_clear_4xx_and_change_nothing(client, path, body, status, words):
    view = new_game(client, seed=7, seat=starter(7))
    assert view["waiting_for"] == "you"
    room = server_of(client).room(view["id"])
    before = room.game.state.copy()
    response = client.post(f"/api/games/{view['id']}/{path}", json=body)
    assert response.status_code == status and words in response.json()["error"], response.text
    assert np.array_equal(room.game.state, before) and room.session.actions == []
    assert client.get(f"/api/games/{view['id']}").json()["step"] == 0


def test_malformed_json_and_unknown_games_are_refused(client):
    view = new_game(client)
    response = client.post(
        f"/api/games/{view['id']}/act", content=b"{not json", headers={"content-type": "application/json"}
    )
    assert response.status_code == 400 and "not JSON" in response.json()["error"]
    for method, path in [("GET", ""), ("POST", "/act"), ("POST", "/advance"), ("GET", "/replay")]:
        response = client.request(method, f"/api/games/nosuchgame{path}", json={"step": 0, "action": 0})
        assert response.status_code == 404 and "no game 'nosuchgame'" in response.json()["error"]
    response = client.get("/api/elsewhere")
    assert response.status_code == 404 and "error" in response.json()


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"map": "atlantis"}, "unknown map"),
        ({"players": 9}, "cannot start"),
        ({"vs": "grandmaster"}, "unknown agent"),
        ({"vs": ["random", "random"]}, "one opponent spec"),
        ({"seat": 2}, "--seat must be in"),
        ({"seed": -1}, "'seed' must be in"),
        ({"seed": "7"}, "integer"),
        ({"players": True}, "integer"),
        ({"vs": []}, "'vs' must be"),
        ({"colour": "red"}, "unknown field"),
    ],
)
def test_bad_game_options_are_refused(client, options, words):
    response = client.post("/api/games", json=options)
    assert response.status_code == 400 and words in response.json()["error"], response.text
    assert server_of(client).rooms == {}


def test_several_games_at_once_are_independent(client):
    """Two games moved in turns: each ends exactly as its own actions replayed alone say."""
    rng = random.Random(5)
    views = [new_game(client, seed=21), new_game(client, seed=21), new_game(client, map="creta", players=3, seed=4)]
    assert len({v["id"] for v in views}) == 3
    for _ in range(60):
        k = rng.randrange(3)
        if not views[k]["over"]:
            views[k] = take(client, views[k], rng)
    server = server_of(client)
    for view in views:
        room = server.room(view["id"])
        assert room.step == view["step"] > 0
        assert replayed(view, room.session.actions) == room.game
    # a stale step of one game does not touch another
    stale = client.post(f"/api/games/{views[0]['id']}/advance", json={"step": views[1]["step"] + 100})
    assert stale.status_code == 409


def test_simultaneous_requests_for_one_step_apply_once(client):
    view = new_game(client, seat=1 - starter(9), seed=9)
    results: list[int] = []

    def advance() -> None:
        results.append(client.post(f"/api/games/{view['id']}/advance", json={"step": 0}).status_code)

    threads = [threading.Thread(target=advance) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == [200, 409, 409, 409]
    assert server_of(client).room(view["id"]).step == 1


def test_too_many_games_are_refused_not_dropped():
    with TestClient(create_app(OPTIONS, max_games=2), base_url=LOCAL_URL) as c:
        first, _ = new_game(c), new_game(c)
        response = c.post("/api/games", json={})
        assert response.status_code == 429 and "2 games" in response.json()["error"]
        assert c.get(f"/api/games/{first['id']}").status_code == 200


def test_command_line_refuses_bad_options_before_serving(capsys):
    with pytest.raises(SystemExit):
        main(["--map", "atlantis", "--no-browser"])
    with pytest.raises(SystemExit):
        main(["--vs", "grandmaster", "--no-browser"])
    assert "unknown agent" in capsys.readouterr().err
