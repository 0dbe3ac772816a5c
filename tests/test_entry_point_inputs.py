"""Bad input at the entry points beyond ``Game``: the OpenSpiel bridge, ``parallel_env``, the web app.

Each refusal is the documented exception with a short message, and changes nothing.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from concordia_env import NUM_ACTIONS, Game, IllegalActionError, ResetNeededError, parallel_env
from concordia_env.engine.errors import SHORT_REPR_LIMIT, ArgumentTypeError

#: the longest message a refusal below may carry
MESSAGE_LIMIT = 300
#: what the web app takes a body as (anything else is refused with 415 before it is read)
JSON = {"content-type": "application/json"}
ODD_ACTIONS = [1.5, None, "3", -1, NUM_ACTIONS, 2**63, -(2**63) - 1, True, np.float64(2.0), [1], np.array([1, 2])]


# --------------------------------------------------------------------------- OpenSpiel bridge
@pytest.fixture(scope="module")
def osp():
    return pytest.importorskip("concordia_env.integrations.openspiel", reason="OpenSpiel is not installed")


def _played(osp, chance: bool):
    """An italia state at a chance node (the setup) or at a player decision after it."""
    state = osp.load("italia", 2).new_initial_state()
    while state.is_chance_node() and not chance:
        state.apply_action(state.chance_outcomes()[0][0])
    return state


@pytest.mark.parametrize("chance", [False, True], ids=["player", "chance"])
@pytest.mark.parametrize("action", ODD_ACTIONS, ids=repr)
def test_openspiel_apply_action_refuses_any_odd_value_unchanged(osp, chance: bool, action) -> None:
    state = _played(osp, chance)
    before, history = state.to_json(), state.history()
    with pytest.raises(IllegalActionError) as refused:
        state.apply_action(action)
    assert len(str(refused.value)) <= MESSAGE_LIMIT
    assert state.to_json() == before and state.history() == history
    state.apply_action((state.chance_outcomes()[0][0]) if chance else state.legal_actions()[0])  # still playable


def test_openspiel_impossible_chance_outcome_and_illegal_action(osp) -> None:
    chance = _played(osp, chance=True)
    impossible = next(a for a in range(NUM_ACTIONS) if a not in dict(chance.chance_outcomes()))
    with pytest.raises(IllegalActionError, match="not a possible chance outcome"):
        chance.apply_action(impossible)
    player = _played(osp, chance=False)
    illegal = next(a for a in range(NUM_ACTIONS) if a not in player.legal_actions())
    history = player.history()
    with pytest.raises(IllegalActionError):
        player.apply_action(illegal)
    assert player.history() == history


def test_openspiel_action_to_string_checks_its_range(osp) -> None:
    chance = _played(osp, chance=True)
    for outcome in (-1, 5, 2**63 - 1):  # five goods are the city tokens' outcomes
        with pytest.raises(ValueError, match="chance outcome"):
            chance.action_to_string(osp.CHANCE, outcome)
    assert "city token" in chance.action_to_string(osp.CHANCE, chance.chance_outcomes()[0][0])
    player = _played(osp, chance=False)
    with pytest.raises(ValueError, match="outside the action space"):
        player.action_to_string(player.current_player(), NUM_ACTIONS)


@pytest.mark.parametrize(
    ("document", "words"),
    [
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        ("9" * 5000, "JSON text"),
        (json.dumps({"format": "x" * 5_000_000}), "format must be"),
        (json.dumps({"format": "concordia-openspiel/1", "game": "x" * 5_000_000}), "game parameters"),
        ("not json", "JSON text"),
        (123, "JSON object"),
    ],
    ids=["deep", "digits", "huge-format", "huge-game", "not-json", "int"],
)
def test_openspiel_documents_are_refused_with_short_messages(osp, document, words: str) -> None:
    with pytest.raises(ValueError, match=words) as refused:
        osp.load("italia", 2).new_initial_state(document)
    assert len(str(refused.value)) <= MESSAGE_LIMIT


@pytest.mark.parametrize(
    ("params", "words"),
    [
        ({"max_game_length": 2**40}, "at most"),
        ({"max_game_length": 0}, "at least 1"),
        ({"players": 2**70}, "played by"),
        ({"map": "x" * 5_000_000}, "unknown map"),
        ({"players": np.int64(2)}, "parameter players is a int"),
        ({"utility": "x" * 5_000_000}, "utility must be one of"),
    ],
    ids=["long-cap", "no-cap", "huge-players", "huge-map", "numpy-players", "huge-utility"],
)
def test_openspiel_load_checks_parameters_before_openspiel(osp, params, words: str) -> None:
    args = {"map": "italia", "players": 2, **params}
    with pytest.raises(ValueError, match=words) as refused:
        osp.load(**args)
    assert len(str(refused.value)) <= MESSAGE_LIMIT


# --------------------------------------------------------------------------- parallel_env
def test_parallel_step_before_reset_raises_and_changes_nothing() -> None:
    par = parallel_env(map="italia", num_players=2, seed=0)
    before = par.unwrapped.game.state.copy()
    with pytest.raises(ResetNeededError, match="reset"):
        par.step({"player_0": 0, "player_1": 0})
    assert np.array_equal(par.unwrapped.game.state, before)


@pytest.mark.parametrize(
    ("actions", "error"),
    [
        (None, ArgumentTypeError),
        ([0, 1], ArgumentTypeError),
        (7, ArgumentTypeError),
        ({}, IllegalActionError),
        ("selected agent: 1.5", IllegalActionError),
        ("selected agent: 2**63", IllegalActionError),
        ("selected agent: None", IllegalActionError),
        ("selected agent: NUM_ACTIONS", IllegalActionError),
    ],
    ids=["None", "list", "int", "empty", "float", "2**63", "none-action", "out-of-space"],
)
def test_parallel_step_refuses_bad_actions_unchanged(actions, error) -> None:
    par = parallel_env(map="italia", num_players=2, seed=0)
    par.reset(seed=1)
    agent = par.aec_env.agent_selection
    if isinstance(actions, str):
        value = {"1.5": 1.5, "2**63": 2**63, "None": None, "NUM_ACTIONS": NUM_ACTIONS}[actions.split(": ")[1]]
        actions = {a: value if a == agent else 0 for a in par.agents}
    before, agents = par.unwrapped.game.state.copy(), list(par.agents)
    with pytest.raises(error) as refused:
        par.step(actions)
    assert len(str(refused.value)) <= MESSAGE_LIMIT
    assert np.array_equal(par.unwrapped.game.state, before) and par.agents == agents
    legal = int(np.flatnonzero(par.aec_env.observe(agent)["action_mask"])[0])
    par.step({agent: legal})  # the other agents' entries may be left out
    assert par.unwrapped.game.decision_count == 1


def test_parallel_penalize_ends_the_game_on_a_value_outside_the_space() -> None:
    par = parallel_env(map="italia", num_players=2, seed=0, illegal_action="penalize")
    par.reset(seed=1)
    offender = par.aec_env.agent_selection
    _, rewards, terminations, truncations, _ = par.step({offender: 2**63})
    assert rewards[offender] == -1 and all(terminations.values()) and all(truncations.values())
    assert par.agents == [] and par.step({}) == ({}, {}, {}, {})


# --------------------------------------------------------------------------- web app
@pytest.fixture
def client():
    pytest.importorskip("starlette", reason="the web extra is not installed")
    from starlette.testclient import TestClient

    from concordia_env.tools.web import LOCAL_URL, create_app

    with TestClient(create_app(), base_url=LOCAL_URL) as c:
        yield c


@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        (b"[" * 20_000 + b"]" * 20_000, 400, "nested too deeply"),
        (b'{"step": ' + b"9" * 5000 + b', "action": 1}', 400, "not JSON"),
        (b'{"step": 0, "action": "' + b"x" * 70_000 + b'"}', 413, "larger than"),
        (b'{"step": 0, "action": "' + b"x" * 10_000 + b'"}', 400, "integer"),
        (b"\xff\xfe", 400, "not JSON"),
        (json.dumps({"step": 0, "action": 10**4000}).encode(), 422, "illegal"),
        (json.dumps({"step": 10**4000, "action": 1}).encode(), 409, "stale"),
        (json.dumps({"x" * 10_000: 1}).encode(), 400, "unknown field"),
    ],
    ids=["deep", "digits", "too-large", "long-string", "not-utf8", "huge-action", "huge-step", "long-key"],
)
def test_web_bad_bodies_get_short_refusals_never_500(client, body: bytes, status: int, words: str) -> None:
    seat = Game.new("italia", 2, 1).current_player  # the person decides first
    view = client.post(
        "/api/games", json={"map": "italia", "players": 2, "vs": "random", "seed": 1, "seat": seat}
    ).json()
    game = client.app.state.server.room(view["id"]).game
    before = game.state.copy()
    response = client.post(f"/api/games/{view['id']}/act", content=body, headers=JSON)
    error = response.json()["error"]
    assert response.status_code == status and words in error, (response.status_code, error[:200])
    assert len(error) <= MESSAGE_LIMIT and np.array_equal(game.state, before)


@pytest.mark.parametrize(
    "options",
    [{"vs": "x" * 100_000}, {"map": ["x" * 100_000]}, {"players": "9" * 100_000}, {"y" * 100_000: 1}],
    ids=["vs", "map", "players", "key"],
)
def test_web_bad_options_get_short_refusals(client, options) -> None:
    response = client.post("/api/games", json=options)
    assert response.status_code in (400, 413) and len(response.json()["error"]) <= MESSAGE_LIMIT
    missing = client.get("/api/games/" + "z" * 10_000)
    assert missing.status_code == 404 and len(missing.json()["error"]) <= SHORT_REPR_LIMIT + 40
