"""The OpenSpiel bridge: OpenSpiel's own checks, the chance/information model, serialisation, bots."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python.algorithms import evaluate_bots, mcts  # noqa: E402

from concordia_env import NUM_ACTIONS, Game, IllegalActionError  # noqa: E402
from concordia_env.agents import make as make_agent  # noqa: E402
from concordia_env.engine.cards import CARD_DECK, CITY_TOKENS, DISPLAY_SLOTS  # noqa: E402
from concordia_env.engine.observation import OBS_SIZE, OBS_SIZE_V0, observe  # noqa: E402
from concordia_env.engine.state import DISPLAY, STACK, STACK_SIZE  # noqa: E402
from concordia_env.integrations import openspiel as cos  # noqa: E402

DOCS = Path(__file__).resolve().parent.parent / "docs" / "openspiel.md"


def load(**params):
    return pyspiel.load_game(cos.GAME_NAME, params)


def chance_step(state, rng: np.random.Generator) -> None:
    outcomes, probs = zip(*state.chance_outcomes(), strict=True)
    state.apply_action(int(rng.choice(outcomes, p=probs)))


def random_step(state, rng: np.random.Generator) -> None:
    if state.is_chance_node():
        chance_step(state, rng)
    else:
        state.apply_action(int(rng.choice(state.legal_actions())))


def play_until(state, rng: np.random.Generator, stop) -> None:
    """Random play (chance by its probabilities) until ``stop(state)`` or the end."""
    while not state.is_terminal() and not stop(state):
        random_step(state, rng)


def in_play(state) -> bool:
    return state.board.game is not None and not state.is_chance_node()


def refill_pending(state) -> bool:
    """A chance node that draws for the display after a purchase (not the setup's first draws)."""
    return state.is_chance_node() and state.board.game is not None and state.board.game.decision_count > 0


def canonical(stack: np.ndarray) -> bool:
    """Stored bottom first: read from the top, decks ascend and card types ascend within a deck."""
    top_first = [(int(CARD_DECK[t]), int(t)) for t in stack[::-1]]
    return top_first == sorted(top_first)


# =========================================================================== OpenSpiel's own conformance test
@pytest.mark.parametrize(
    "params",
    [
        {"map": "italia", "players": 2},
        {"map": "imperium", "players": 4, "utility": "vp_share"},
        {"map": "aegyptus", "players": 3, "display_costs": "alternative"},
        {"map": "creta", "players": 5, "intermediate_scoring": True},
    ],
    ids=lambda p: f"{p['map']}-{p['players']}",
)
def test_random_sim_test_with_serialization(params) -> None:
    pyspiel.random_sim_test(load(**params), num_sims=1, serialize=True, verbose=False)


def test_random_sim_test_with_a_short_turn_cap() -> None:
    pyspiel.random_sim_test(
        load(map="italia", players=3, max_game_length=60), num_sims=3, serialize=True, verbose=False
    )


# =========================================================================== game facts
def test_game_type_and_info() -> None:
    game = load(map="italia", players=2)
    gt = game.get_type()
    assert gt.short_name == "python_concordia"
    assert gt.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert gt.information == pyspiel.GameType.Information.PERFECT_INFORMATION
    assert gt.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert gt.reward_model == pyspiel.GameType.RewardModel.TERMINAL
    assert gt.provides_information_state_tensor and gt.provides_observation_tensor
    assert gt.provides_information_state_string and gt.provides_observation_string
    assert game.num_distinct_actions() == NUM_ACTIONS
    assert game.num_players() == 2
    assert (game.min_utility(), game.max_utility(), game.utility_sum()) == (-1.0, 1.0, 0.0)
    assert game.max_game_length() == cos.DEFAULT_PARAMETERS["max_game_length"]
    assert game.observation_tensor_size() == OBS_SIZE == game.information_state_tensor_size()
    # 26 cities, 25 of them with a token; the start player; decks I and II (15 cards)
    assert game.max_chance_nodes_in_history() == 25 + 1 + 15
    vp = load(map="creta", players=5, utility="vp_share", max_game_length=500)
    assert vp.get_type().utility == pyspiel.GameType.Utility.CONSTANT_SUM
    assert (vp.min_utility(), vp.max_utility(), vp.utility_sum()) == (0.0, 1.0, 1.0)
    assert vp.max_game_length() == 500


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"map": "mars"}, "unknown map"),
        ({"map": "italia", "players": 5}, "played by 2, 3, 4 players"),
        ({"map": "imperium", "players": 2}, "played by 3, 4, 5 players"),
        ({"utility": "vp"}, "utility must be one of"),
        ({"display_costs": "cheap"}, "display_costs must be one of"),
        ({"max_game_length": 0}, "max_game_length must be at least 1"),
    ],
)
def test_bad_parameters_are_refused(params, message) -> None:
    with pytest.raises(ValueError, match=message):
        load(**params)
    with pytest.raises(ValueError, match=message):
        cos.ConcordiaGame(params)


def test_parameters_of_the_wrong_type_or_name_are_refused() -> None:
    with pytest.raises(pyspiel.SpielError, match="Unknown parameter 'seats'"):
        load(seats=2)
    with pytest.raises(pyspiel.SpielError, match="Wrong type for parameter players"):
        load(players="4")
    with pytest.raises(ValueError, match="unknown parameter"):
        cos.ConcordiaGame({"seats": 2})
    with pytest.raises(ValueError, match="parameter players is a int"):
        cos.ConcordiaGame({"players": 4.0})


def test_load_helper_is_load_game() -> None:
    game = cos.load("aegyptus", 5, utility="vp_share")
    assert str(game) == str(load(map="aegyptus", players=5, utility="vp_share"))


# =========================================================================== the chance model
def test_setup_draws_tokens_start_player_and_display_by_chance() -> None:
    game = load(map="italia", players=2)
    state = game.new_initial_state()
    config = game.config
    rng = np.random.default_rng(1)
    drawn: dict[str, list[int]] = {}
    for city in config.lettered_cities:
        assert state.is_chance_node()
        letter = config.map.letters[city]
        left = list(CITY_TOKENS[letter])
        for good in drawn.get(letter, []):
            left.remove(good)
        outcomes, probs = zip(*state.chance_outcomes(), strict=True)
        assert list(outcomes) == sorted(set(left))
        assert list(probs) == pytest.approx([left.count(g) / len(left) for g in outcomes])
        before = len(state.history())
        chance_step(state, rng)
        drawn.setdefault(letter, []).append(state.history()[before])
    assert state.chance_outcomes() == [(0, 0.5), (1, 0.5)]  # the start player
    chance_step(state, rng)
    for k in range(DISPLAY_SLOTS):
        outcomes = state.chance_outcomes()
        deck_one_left = [t for t in np.flatnonzero(CARD_DECK == 1) if t not in state.board.game.display()]
        assert [t for t, _ in outcomes] == deck_one_left  # deck I lies on top
        assert all(p == pytest.approx(1 / (8 - k)) for _, p in outcomes)
        assert "display slot" in state.action_to_string(pyspiel.PlayerId.CHANCE, outcomes[0][0])
        chance_step(state, rng)
    assert not state.is_chance_node() and state.current_player() == state.board.game.turn_player
    g = state.position()
    assert (g.display() >= 0).all() and g.stack_size == 15 - DISPLAY_SLOTS
    assert sorted(g.city_goods()[g.city_goods() >= 0].tolist()) == sorted(g for goods in drawn.values() for g in goods)


def test_a_refill_is_drawn_at_chance_nodes_from_the_current_deck() -> None:
    game = load(map="italia", players=3)
    rng = np.random.default_rng(7)
    seen = 0
    for _ in range(3):
        state = game.new_initial_state()
        play_until(state, rng, in_play)
        while not state.is_terminal():
            play_until(state, rng, refill_pending)
            if state.is_terminal():
                break
            board = state.board
            s = board.game.state
            stack = s[STACK : STACK + s[STACK_SIZE]]
            top_deck = CARD_DECK[stack].min()
            expected = sorted(t for t in stack.tolist() if CARD_DECK[t] == top_deck)
            outcomes = state.chance_outcomes()
            assert [t for t, _ in outcomes] == expected
            assert sum(p for _, p in outcomes) == pytest.approx(1.0)
            assert len({p for _, p in outcomes}) == 1
            slot = board.undrawn[0]
            assert s[DISPLAY + slot] == -1  # the slot waits for its card
            # the future is not fixed: two clones draw two different cards
            if len(outcomes) > 1:
                a, b = state.clone(), state.clone()
                a.apply_action(outcomes[0][0])
                b.apply_action(outcomes[-1][0])
                assert a.board.game.display()[slot] == outcomes[0][0]
                assert b.board.game.display()[slot] == outcomes[-1][0]
            seen += 1
            chance_step(state, rng)
    assert seen > 3


def test_the_stack_is_always_in_canonical_order() -> None:
    game = load(map="imperium", players=4)
    state = game.new_initial_state()
    rng = np.random.default_rng(3)
    while not state.is_terminal():
        random_step(state, rng)
        if state.board.game is not None:
            s = state.board.game.state
            assert canonical(s[STACK : STACK + s[STACK_SIZE]])


def permuted_stack(game: Game, rng: np.random.Generator) -> Game:
    """The same position with the stack shuffled within each deck (the order differs)."""
    edited = game.state.copy()
    size = game.stack_size
    cards = edited[STACK : STACK + size]
    decks = CARD_DECK[cards]
    for deck in np.unique(decks):
        where = np.flatnonzero(decks == deck)
        if len(where) > 1:
            cards[where] = cards[np.roll(where, 1)]  # a rotation: every card moves
    other = Game(edited, game.map)
    assert not np.array_equal(other.state, game.state)
    return other


def test_states_that_differ_only_in_stack_order_look_the_same() -> None:
    g1 = Game.new("imperium", 4, seed=5)
    rng = np.random.default_rng(5)
    for _ in range(40):
        g1.step(int(rng.choice(g1.legal_actions())))
    g2 = permuted_stack(g1, rng)
    game = load(map="imperium", players=4)
    s1, s2 = game.new_initial_state(g1), game.new_initial_state(g2)
    for p in range(4):
        assert s1.observation_string(p) == s2.observation_string(p)
        assert s1.information_state_string(p) == s2.information_state_string(p)
        assert s1.observation_tensor(p) == s2.observation_tensor(p)
        assert s1.information_state_tensor(p) == s2.information_state_tensor(p)
    assert s1.to_json() == s2.to_json()
    assert s1.serialize() == s2.serialize()
    # the bridge keeps no order at all: the whole engine state is the same array
    assert np.array_equal(s1.board.game.state, s2.board.game.state)


def test_a_search_cannot_read_the_stack() -> None:
    """OpenSpiel's MCTS from two positions that differ only in stack order searches identically."""
    g1 = Game.new("italia", 2, seed=11)
    rng = np.random.default_rng(11)
    for _ in range(30):
        g1.step(int(rng.choice(g1.legal_actions())))
    g2 = permuted_stack(g1, rng)
    game = load(map="italia", players=2)
    trees = []
    for g in (g1, g2):
        bot = mcts.MCTSBot(
            game,
            uct_c=2.0,
            max_simulations=40,
            evaluator=mcts.RandomRolloutEvaluator(1, np.random.RandomState(0), max_length=30),
            random_state=np.random.RandomState(0),
        )
        root = bot.mcts_search(game.new_initial_state(g))
        trees.append([(c.action, c.explore_count, c.total_reward) for c in root.children])
    assert trees[0] == trees[1]


def test_an_older_observation_version() -> None:
    game = load(map="italia", players=2, observation_version=0)
    assert game.observation_tensor_size() == OBS_SIZE_V0 == game.information_state_tensor_size()
    state = game.new_initial_state()
    play_until(state, np.random.default_rng(13), in_play)
    expected = observe(state.position(), 1, version=0)
    assert np.array_equal(np.array(state.observation_tensor(1), dtype=np.float32), expected)
    with pytest.raises(ValueError, match="observation_version must be one of"):
        load(observation_version=7)


def test_observers_of_every_kind_show_the_position() -> None:
    from open_spiel.python.observation import make_observation

    game = load(map="italia", players=2)
    state = game.new_initial_state()
    play_until(state, np.random.default_rng(12), in_play)
    default = make_observation(game)
    default.set_from(state, 1)
    assert np.array_equal(default.tensor, state.position().observation(1))
    assert default.string_from(state, 1) == str(state) == state.observation_string(0)
    info = make_observation(game, pyspiel.IIGObservationType(perfect_recall=True))
    info.set_from(state, 0)
    assert np.array_equal(info.tensor, np.array(state.information_state_tensor(0), dtype=np.float32))
    assert json.loads(info.string_from(state, 0)) == json.loads(state.information_state_string(1))
    private_only = pyspiel.IIGObservationType(
        public_info=False, perfect_recall=False, private_info=pyspiel.PrivateInfoType.SINGLE_PLAYER
    )
    private = make_observation(game, private_only)
    assert private.tensor is None and private.string_from(state, 0) == ""
    with pytest.raises(ValueError, match="take no parameters"):
        game.make_py_observer(None, {"x": 1})
    cpp_side = game.make_observer(pyspiel.IIGObservationType(perfect_recall=False), {})
    assert cpp_side is not None


# =========================================================================== play, turn cap, returns
def test_player_actions_are_the_engine_actions() -> None:
    game = load(map="aegyptus", players=2)
    state = game.new_initial_state()
    rng = np.random.default_rng(2)
    play_until(state, rng, in_play)
    g = state.position()
    assert state.legal_actions() == g.legal_actions().tolist()
    assert state.legal_actions(1 - state.current_player()) == []
    a = state.legal_actions()[0]
    assert state.action_to_string(state.current_player(), a) == g.describe_action(a)
    illegal = next(x for x in range(NUM_ACTIONS) if x not in state.legal_actions())
    before = state.to_json()
    with pytest.raises(IllegalActionError):
        state.apply_action(illegal)
    assert state.to_json() == before
    for p in range(2):
        assert np.array_equal(np.array(state.observation_tensor(p), dtype=np.float32), g.observation(p))
    assert state.observation_tensor(0) != state.observation_tensor(1)  # each from its own seat


def test_chance_nodes_refuse_impossible_outcomes() -> None:
    state = load(map="italia", players=2).new_initial_state()
    with pytest.raises(ValueError, match="not a possible chance outcome"):
        state.apply_action(7)
    assert state.history() == []


def test_the_turn_cap_ends_the_game_scored_as_it_stands() -> None:
    game = load(map="italia", players=2, max_game_length=50)
    rng = np.random.default_rng(4)
    state = game.new_initial_state()
    decisions = 0
    while not state.is_terminal():
        if not state.is_chance_node():
            decisions += 1
        random_step(state, rng)
    g = state.board.game
    assert decisions == 50 == g.decision_count and not g.is_over()
    leader = g.ranking()[0]
    assert state.returns() == [1.0 if p == leader else -1.0 for p in range(2)]
    assert "Turn cap of 50 decisions reached" in str(state)
    assert state.legal_actions() == [] and state.current_player() == pyspiel.PlayerId.TERMINAL


def test_a_position_past_the_cap_is_terminal() -> None:
    g = Game.new("italia", 2, seed=1)
    rng = np.random.default_rng(1)
    for _ in range(12):
        g.step(int(rng.choice(g.legal_actions())))
    state = load(map="italia", players=2, max_game_length=10).new_initial_state(g)
    assert state.is_terminal() and sum(state.returns()) == 0.0


@pytest.mark.parametrize("utility", cos.UTILITIES)
def test_returns_at_the_end_of_a_game(utility: str) -> None:
    game = load(map="creta", players=3, utility=utility)
    state = game.new_initial_state()
    rng = np.random.default_rng(8)
    while not state.is_terminal():
        assert state.returns() == [0.0] * 3 == state.rewards()
        random_step(state, rng)
    g = state.board.game
    assert g.is_over()
    returns = state.returns()
    assert state.rewards() == returns
    if utility == "win":
        assert returns[g.winner()] == 1.0 and sorted(returns) == [-0.5, -0.5, 1.0]
    else:
        scores = g.final_scores()
        assert returns == pytest.approx((scores / scores.sum()).tolist())
        assert np.array_equal(state.scores(), scores)
        assert sum(returns) == pytest.approx(1.0)


# =========================================================================== serialisation
def test_documents_and_serialization_round_trip_at_every_kind_of_node() -> None:
    game = load(map="creta", players=4)
    state = game.new_initial_state()
    rng = np.random.default_rng(6)
    kinds = set()
    k = 0
    while True:
        kinds.add(
            "setup"
            if state.board.game is None
            else "draw"
            if state.is_chance_node()
            else "over"
            if state.is_terminal()
            else "play"
        )
        if k % 7 == 0 or state.is_terminal() or state.is_chance_node():
            doc = state.to_json()
            again = game.new_initial_state(doc)
            assert again.to_json() == doc and str(again) == str(state)
            assert game.new_initial_state(json.loads(doc)).to_json() == doc
            _, back = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))
            assert back.to_json() == doc and back.history() == state.history()
        if state.is_terminal():
            break
        random_step(state, rng)
        k += 1
    assert kinds == {"setup", "draw", "play", "over"}


def test_the_document_carries_the_position_format() -> None:
    game = load(map="italia", players=2)
    state = game.new_initial_state()
    rng = np.random.default_rng(9)
    play_until(state, rng, refill_pending)
    doc = state.to_dict()
    assert doc["format"] == "concordia-openspiel/1" and doc["game"] == game.config.params()
    pos = doc["position"]
    assert pos["format"] == "concordia-position/1"
    assert doc["undrawn_slots"] and all(pos["display"][slot] is None for slot in doc["undrawn_slots"])
    # a plain position (text, dict or Game) gives the state at that position
    g = Game.new("italia", 2, seed=3)
    for given in (g, g.to_json(), g.to_dict()):
        s = game.new_initial_state(given)
        assert not s.is_chance_node() and s.legal_actions() == g.legal_actions().tolist()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(format="other/1"), "format must be"),
        (lambda d: d["game"].update(players=3), "the document is of the game"),
        (lambda d: d.pop("position"), "either 'setup' or 'position'"),
        (lambda d: d.update(game=["italia"]), "'game' holds the game parameters"),
        (lambda d: d.update(undrawn_slots=[6, 5]), "consecutive slots"),
        (lambda d: d.update(undrawn_slots=[9]), "display slots 0..6"),
        (lambda d: d.update(undrawn_slots=[0]), "undrawn display slots must be null"),
        (lambda d: d["position"].update(stack=[]), "lists its 'stack'"),
    ],
)
def test_bad_documents_are_refused(change, message) -> None:
    game = load(map="italia", players=2)
    state = game.new_initial_state()
    play_until(state, np.random.default_rng(9), refill_pending)
    doc = state.to_dict()
    change(doc)
    with pytest.raises(ValueError, match=message):
        game.new_initial_state(doc)


def test_bad_setups_and_positions_are_refused() -> None:
    game = load(map="italia", players=2)
    first, second = game.config.lettered_cities[:2]
    setup = {"format": "concordia-openspiel/1", "game": game.config.params()}
    with pytest.raises(ValueError, match="drawn in map order"):
        game.new_initial_state({**setup, "setup": {"city_tokens": {second: "brick"}}})
    with pytest.raises(ValueError, match="unknown good"):
        game.new_initial_state({**setup, "setup": {"city_tokens": {first: "gold"}}})
    with pytest.raises(ValueError, match="the position is"):
        game.new_initial_state(Game.new("creta", 2, seed=0))
    with pytest.raises(ValueError, match="JSON text"):
        game.new_initial_state("{not json")
    with pytest.raises(ValueError, match="a state document is a JSON object"):
        game.new_initial_state([1, 2])


# =========================================================================== OpenSpiel's algorithms
def test_mcts_bot_plays_full_games_against_the_heuristic() -> None:
    game = load(map="italia", players=2)
    rng = np.random.RandomState(0)
    for seat in range(2):
        bot = mcts.MCTSBot(
            game, uct_c=2.0, max_simulations=4, evaluator=cos.StandingEvaluator(), random_state=np.random.RandomState(1)
        )
        heuristic = cos.AgentBot(make_agent("heuristic"), seed=seat)
        bots = [bot, heuristic] if seat == 0 else [heuristic, bot]
        returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rng)
        assert sorted(returns) == [-1.0, 1.0]


def test_mcts_bot_with_random_rollouts_plays_a_full_game() -> None:
    game = load(map="creta", players=2, max_game_length=300)
    bot = mcts.MCTSBot(
        game,
        uct_c=2.0,
        max_simulations=2,
        evaluator=mcts.RandomRolloutEvaluator(1, np.random.RandomState(2), max_length=20),
        random_state=np.random.RandomState(2),
    )
    returns = evaluate_bots.evaluate_bots(game.new_initial_state(), [bot, bot], np.random.RandomState(2))
    assert sorted(returns) == [-1.0, 1.0]


def test_evaluate_bots_with_uniform_random_bots() -> None:
    game = load(map="imperium", players=3, utility="vp_share")
    bots = [pyspiel.make_uniform_random_bot(p, 100 + p) for p in range(3)]
    returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, np.random.RandomState(3))
    assert len(returns) == 3 and sum(returns) == pytest.approx(1.0) and min(returns) > 0


def test_standing_evaluator_scores_the_position_as_it_stands() -> None:
    game = load(map="italia", players=2)
    state = game.new_initial_state()
    evaluator = cos.StandingEvaluator()
    assert evaluator.evaluate(state).tolist() == [0.0, 0.0]  # the setup: nobody leads
    assert evaluator.prior(state) == state.chance_outcomes()
    play_until(state, np.random.default_rng(5), lambda s: in_play(s) and s.board.game.decision_count > 40)
    leader = state.board.game.ranking()[0]
    assert evaluator.evaluate(state).tolist() == [1.0 if p == leader else -1.0 for p in range(2)]
    prior = evaluator.prior(state)
    assert [a for a, _ in prior] == state.legal_actions() and sum(p for _, p in prior) == pytest.approx(1.0)


def test_agent_bot_needs_a_player_decision() -> None:
    game = load(map="italia", players=2)
    bot = cos.AgentBot(make_agent("random"), seed=0)
    with pytest.raises(ValueError, match="needs a player decision"):
        bot.step(game.new_initial_state())


# =========================================================================== the docs
def test_the_docs_example_runs() -> None:
    blocks = re.findall(r"```python\n(.*?)```", DOCS.read_text(), flags=re.S)
    assert blocks, "docs/openspiel.md has python examples"
    for block in blocks:
        exec(compile(block, str(DOCS), "exec"), {"__name__": "docs_example"})


# =========================================================================== deserialize_state
def _played(game, moves: int, seed: int = 0):
    state = game.new_initial_state()
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        random_step(state, rng)
    return state


@pytest.mark.parametrize(
    ("source", "target", "named"),
    [
        ({"map": "italia", "players": 2}, {"map": "imperium", "players": 4}, ["map 'italia'", "players 2"]),
        ({"map": "italia", "players": 2, "utility": "vp_share"}, {"map": "italia", "players": 2}, ["utility"]),
        ({"map": "italia", "players": 2}, {"map": "italia", "players": 3}, ["players 2 (the game has 3)"]),
        ({"map": "creta", "players": 2, "max_game_length": 50}, {"map": "creta", "players": 2}, ["max_game_length"]),
    ],
)
def test_deserialize_state_refuses_a_state_of_another_game(source: dict, target: dict, named: list[str]) -> None:
    """An Italia 2-player state loaded into the Imperium 4-player game: 4 players, 2 returns, MCTS searched it."""
    state = _played(pyspiel.load_game("python_concordia", source), 40)
    game = pyspiel.load_game("python_concordia", target)
    with pytest.raises(ValueError, match="the state is of another python_concordia game") as caught:
        game.deserialize_state(state.serialize())
    assert all(text in str(caught.value) for text in named)
    during_setup = _played(pyspiel.load_game("python_concordia", source), 3)
    with pytest.raises(ValueError, match="another python_concordia game"):
        game.deserialize_state(during_setup.serialize())


def test_deserialize_state_takes_its_own_games_states() -> None:
    game = pyspiel.load_game("python_concordia", {"map": "aegyptus", "players": 3, "utility": "vp_share"})
    state = _played(game, 60, seed=2)
    again = game.deserialize_state(state.serialize())
    assert str(again) == str(state) and again.history() == state.history()
    assert again.num_players() == 3 and len(again.returns()) == 3
    _, twin = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))
    assert str(twin) == str(state) and twin.clone().history() == state.history()
    with pytest.raises(ValueError, match="holds a Board"):
        state.board = "not a board"
