"""Positions the rules cannot reach, and inputs that are no position at all: each refused with ``PositionError``.

* storehouse choices: a storehouse-overflow choice that the engine would not ask (a full storehouse, one
  kind of good, fewer goods than free slots, goods waiting for a player who already stored);
* dead decisions: a decision nobody can take (a Diplomat with nothing to copy);
* counters beyond their documented bounds (``state_check``), int32 overflow included;
* allowances and context: an action with more allowance than it began with (a Consul buying twice, an
  Architect with more steps than colonists), context outside its decision, an action the
  engine would have closed (two goods traded, only "done" left);
* not a position: any text or object: ``PositionError`` only, with a short message.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from concordia_env import Game
from concordia_env.engine.position import PositionError, from_dict, from_json, to_dict
from concordia_env.engine.state import (
    INCOMING,
    PHASE_BUY_CARDS,
    PHASE_DIPLOMAT,
    PHASE_MERCATOR,
    PHASE_OVERFLOW,
    PHASE_TRIBUNE_COLONIST,
)
from concordia_env.engine.state_check import COUNTER_LIMIT, MAX_DECISIONS, MAX_INCOMING, MAX_MONEY, MAX_TURNS
from tests.test_position import _reach, _reach_mid_action

TURN_BOUNDARY = Path(__file__).resolve().parent / "positions" / "italia-2p-turn-boundary.json"
#: no refusal message is longer than this (the loader cuts key paths and problems short)
MESSAGE_LIMIT = 600


def _base() -> dict[str, Any]:
    return json.loads(TURN_BOUNDARY.read_text())


def _refused(d: Any, pattern: str) -> PositionError:
    with pytest.raises(PositionError, match=pattern) as info:
        from_dict(d)
    assert len(str(info.value)) <= MESSAGE_LIMIT
    return info.value


# =========================================================================== storehouse choices
@pytest.fixture(scope="module")
def overflow() -> Game:
    """A pending storehouse choice of a player other than the turn player (Creta, 2 players)."""
    return _reach("creta", 2, 20, lambda g: g.phase == PHASE_OVERFLOW and g.current_player != g.turn_player)


def test_a_reachable_storehouse_choice_loads(overflow: Game) -> None:
    assert from_dict(to_dict(overflow)) == overflow


def test_a_choice_with_a_full_storehouse_is_refused(overflow: Game) -> None:
    """Keeping a good would overfill, and the forced storing once left brick at -1."""
    d = to_dict(overflow)
    chooser = d["players"][overflow.current_player]
    stored = sum(chooser["goods"].values()) + sum(1 for _ in range(6 - len(chooser["colonists"])))
    chooser["goods"]["brick"] += 12 - stored  # every slot taken
    _refused(d, r"pending.incoming\[\d\]: player \d has 0 free storehouse slots")


def test_a_choice_of_one_kind_of_good_or_that_fits_is_refused(overflow: Game) -> None:
    d = to_dict(overflow)
    waiting = d["pending"]["incoming"][overflow.current_player]
    one_kind = copy.deepcopy(d)
    one_kind["pending"]["incoming"][overflow.current_player] = {next(iter(waiting)): sum(waiting.values())}
    _refused(one_kind, "stored or lost without a choice")
    fits = copy.deepcopy(d)
    fits["pending"]["incoming"][overflow.current_player] = {"brick": 1}
    _refused(fits, "stored or lost without a choice")


def test_goods_cannot_wait_for_a_player_who_already_stored(overflow: Game) -> None:
    """Storing goes round from the turn player: the turn player is done before the chooser."""
    d = to_dict(overflow)
    d["pending"]["incoming"][overflow.turn_player] = {"wine": 1}
    _refused(d, f"player {overflow.turn_player} stores before player {overflow.current_player}")


# =========================================================================== dead decisions
def test_a_diplomat_with_nothing_to_copy_is_refused() -> None:
    """Once accepted, and then is_over() was False and no action was legal."""
    game = _reach("italia", 2, 3, lambda g: g.phase == PHASE_DIPLOMAT)
    d = to_dict(game)
    for p, player in enumerate(d["players"]):
        if p != game.turn_player:  # the opponents take their discard piles back into their hands
            player["hand"] += player["discard"]
            player["discard"] = []
    _refused(d, "cannot be taken: no opponent's discard pile shows a card a Diplomat may copy")


def test_a_decision_that_only_offers_done_is_refused() -> None:
    """The engine closes such a decision by itself (a Tribune who cannot pay for a colonist)."""
    game = _reach("italia", 2, 4, lambda g: g.phase == PHASE_TRIBUNE_COLONIST)
    d = to_dict(game)
    d["players"][game.turn_player]["goods"] = {"cloth": 1}
    _refused(d, "offers nothing but 'done' here")


# =========================================================================== counters
@pytest.mark.parametrize(
    ("key", "bound"),
    [("players.0.money", MAX_MONEY), ("turn_count", MAX_TURNS), ("decision_count", MAX_DECISIONS)],
)
def test_counters_are_bounded(key: str, bound: int) -> None:
    """Values near 2**31 once wrapped negative after a few moves; 2**31 raised OverflowError."""

    def with_value(value: int) -> dict[str, Any]:
        d = _base()
        *parents, last = key.split(".")
        target: Any = d
        for part in parents:
            target = target[int(part)] if part.isdigit() else target[part]
        target[last] = value
        return d

    assert from_dict(with_value(bound)) is not None  # the bound itself is accepted
    for value in (bound + 1, 2**31 - 2, 2**31, 2**63, 10**5000):
        _refused(with_value(value), "must be at most")


def test_a_game_at_the_money_bound_plays_on_without_wrapping() -> None:
    """Play passes a position's bound; the state's own range leaves room, and only the JSON is refused."""
    d = _base()
    for player in d["players"]:
        player["money"] = MAX_MONEY
    game = from_dict(d)
    rng = np.random.default_rng(0)
    for _ in range(300):
        if game.is_over():
            break
        game.step(int(rng.choice(game.legal_actions())))
        assert all(0 <= game.money(p) < COUNTER_LIMIT for p in range(game.num_players))
        assert game.observation(game.current_player if game.current_player >= 0 else 0).min() >= 0
    assert max(game.money(p) for p in range(game.num_players)) > MAX_MONEY
    assert Game(game.state.copy(), game.map) == game  # a state array may hold it
    _refused(game.to_dict(), "money: must be at most 1000000")  # a position may not claim it


def test_incoming_goods_are_bounded(overflow: Game) -> None:
    d = to_dict(overflow)
    d["pending"]["incoming"][overflow.current_player] = {"brick": MAX_INCOMING + 1, "wine": 1}
    _refused(d, "must be at most")
    assert int(overflow.state[INCOMING : INCOMING + 10].max()) <= MAX_INCOMING


# =========================================================================== allowances and context
def test_a_consul_buys_one_card() -> None:
    """A Consul with 2 purchases left was once accepted."""
    game = _reach_mid_action("italia", 4, 2, PHASE_BUY_CARDS, "BUY_CARD")  # a Senator after one purchase
    d = to_dict(game)
    assert from_dict(copy.deepcopy(d)) == game
    d["pending"]["buys_left"] = 2  # two more after one: three in all
    _refused(d, r"a Senator buys 2 card\(s\) in all: 1 bought leaves 1, not 2")


def test_an_architect_has_no_more_steps_than_colonists_on_the_board() -> None:
    """An Architect with 6 steps and 2 colonists on the board was once accepted."""
    d = _base()
    d["current_player"] = 1
    d["pending"] = {"decision": "Architect: move colonists or build", "card": "Architect", "steps_left": 6}
    _refused(d, "the Architect began with 2 steps")
    d["pending"]["steps_left"] = 2
    assert from_dict(d).steps_left == 2


def test_action_context_exists_during_its_own_decision_only() -> None:
    d = _base()
    d["pending"] = {"steps_left": 1}
    _refused(d, r"pending.steps_left: belongs to 'Architect: move colonists or build'")
    d["pending"] = {"buys_left": 1}
    _refused(d, "pending.buys_left: belongs to 'buy cards from the display'")


def test_a_mercator_that_traded_two_goods_is_over() -> None:
    game = _reach_mid_action("italia", 2, 3, PHASE_MERCATOR, "SELL")
    d = to_dict(game)
    traded = d["pending"]["traded"]
    d["pending"]["traded"] = [*traded, next(g for g in ("brick", "food", "tool", "wine") if g not in traded)]
    _refused(d, "the action has used up what it may do")


def test_every_state_of_random_games_still_loads() -> None:
    """The new checks refuse nothing the engine reaches (every decision of a few games on every map)."""
    rng = np.random.default_rng(5)
    for i, name in enumerate(("imperium", "italia", "aegyptus", "creta")):
        game = Game.new(name, 3, seed=i, intermediate_scoring=True)
        seen = 0
        while not game.is_over():
            if game.phase != 0 or rng.random() < 0.2:
                assert from_json(game.to_json()) == game
                seen += 1
            game.step(int(rng.choice(game.legal_actions())))
        assert seen > 50


# =========================================================================== not a position
@pytest.mark.parametrize(
    "text",
    [
        "[" * 100_000 + "]" * 100_000,
        '{"a":' * 50_000 + "1" + "}" * 50_000,
        "9" * 10_000,
        b"\xff\xfe",
        "",
        "NaN",
    ],
    ids=["deep list", "deep object", "huge integer", "not UTF-8", "empty", "NaN"],
)
def test_any_text_is_refused_with_position_error(text: Any) -> None:
    with pytest.raises(PositionError, match="position") as info:
        from_json(text)
    assert len(str(info.value)) <= MESSAGE_LIMIT


@pytest.mark.parametrize(
    "value", [None, 42, 1.5, ["a"], object(), {"format": 1}], ids=["None", "int", "float", "list", "object", "dict"]
)
def test_any_object_is_refused_with_position_error(value: Any) -> None:
    with pytest.raises(PositionError):
        from_json(value)
    with pytest.raises(PositionError):
        from_dict(value)


def test_huge_names_give_short_messages() -> None:
    """A 5 MB city name once gave a 10-million-character error message."""
    d = _base()
    d["cities"]["x" * 5_000_000] = {"good": "wine"}
    error = _refused(d, "no city")
    assert "xxx..." in str(error)
    d = _base()
    d["players"][0]["hand"].append(_nested(10_000))
    _refused(d, "unknown card id")


def _nested(depth: int) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


def test_bytes_load_like_text() -> None:
    text = TURN_BOUNDARY.read_text()
    assert from_json(text.encode()) == from_json(text)
