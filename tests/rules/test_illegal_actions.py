"""Illegal actions raise ``IllegalActionError`` (a ValueError) naming the action and why,
and leave the state array exactly as it was (checked by ``builders.expect_illegal``)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from builders import (
    add_house,
    clear_colonists,
    expect_illegal,
    new_game,
    play,
    put_colonist,
    set_bonus_marker,
    set_city_good,
    set_discard,
    set_display,
    set_goods,
    set_hand,
    set_money,
    set_stack,
)

from concordia_env import NUM_ACTIONS, Game, IllegalActionError
from concordia_env.engine import actions as A
from concordia_env.engine.cards import (
    FOOD,
    K_ARCHITECT,
    K_COLONIST,
    K_CONSUL,
    K_DIPLOMAT,
    K_MERCATOR,
    K_PREFECT,
    K_SENATOR,
    K_TRIBUNE,
    K_WEAVER,
    TOOL,
    WINE,
)
from concordia_env.engine.state import PHASE_PLAY_CARD


def start() -> Game:
    return new_game(4)


def test_the_error_is_a_value_error_with_action_and_reason() -> None:
    game = start()
    err = expect_illegal(game, A.A_PLAY + K_CONSUL, "no consul in hand")
    assert isinstance(err, ValueError)
    assert err.action == A.A_PLAY + K_CONSUL
    assert "Consul" in str(err)
    assert issubclass(IllegalActionError, ValueError)


@pytest.mark.parametrize("action", [-1, NUM_ACTIONS, NUM_ACTIONS + 5, 10**9])
def test_out_of_range(action: int) -> None:
    expect_illegal(start(), action, f"0..{NUM_ACTIONS - 1}")


@pytest.mark.parametrize("action", [1.5, "3", None, [1]])
def test_not_an_integer(action: object) -> None:
    game = start()
    before = game.state.copy()
    with pytest.raises(IllegalActionError, match="integer"):
        game.step(action)  # type: ignore[arg-type]
    assert np.array_equal(game.state, before)


def test_numpy_integers_are_accepted() -> None:
    game = start()
    game.step(np.int64(A.A_PLAY + K_TRIBUNE))
    assert game.decision_count == 1


@pytest.mark.parametrize("kind", [K_CONSUL, K_COLONIST, K_WEAVER])
def test_playing_a_card_not_in_hand(kind: int) -> None:
    expect_illegal(start(), A.A_PLAY + kind, "in hand")


def test_diplomat_with_nothing_to_copy() -> None:
    expect_illegal(start(), A.A_PLAY + K_DIPLOMAT, "no opponent")


@pytest.mark.parametrize(
    "action",
    [
        A.A_BUILD + 4,
        A.move(0, 36),
        A.A_PRODUCE + 0,
        A.A_CASH,
        A.A_GOOD + 0,
        A.sell(0, 1),
        A.buy(0, 1),
        A.buy_card(0),
        A.settle(0, 30),
        A.A_TAX,
        A.A_TRIBUNE_COLONIST,
        A.A_DIPLOMAT,
    ],
)
def test_an_action_of_another_decision(action: int) -> None:
    expect_illegal(start(), action, "another decision")


def test_done_when_a_card_must_be_played() -> None:
    expect_illegal(start(), A.A_DONE, "no 'done'")


def test_done_when_the_prefect_must_choose() -> None:
    game = start()
    play(game, K_PREFECT)
    expect_illegal(game, A.A_DONE, "no 'done'")


def test_illegal_architect_actions() -> None:
    game = start()
    clear_colonists(game, 0)
    put_colonist(game, 0, 0, "Roma")
    put_colonist(game, 0, 3, "Roma")
    put_colonist(game, 1, 3, "sea:Massilia-Roma")
    set_money(game, 0, 0)
    play(game, K_ARCHITECT)
    m = game.map
    expect_illegal(game, A.move(0, m.path_index("land:Colonia Agrippina-Lutetia")), "3 steps")
    expect_illegal(game, A.move(3, m.path_index("sea:Massilia-Roma")), "occupied")
    expect_illegal(game, A.move(0, m.path_index("sea:Carthago-Roma")), "cannot use a sea path")
    expect_illegal(game, A.move(1, m.path_index("land:Novaria-Roma")), "still in the storehouse")
    expect_illegal(game, A.A_BUILD + m.place_index("Roma"), "no house may be built")
    expect_illegal(game, A.A_BUILD + m.place_index("Tyros"), "no colonist")
    game.step(A.move(3, m.path_index("sea:Carthago-Roma")))
    expect_illegal(game, A.A_BUILD + m.place_index("Carthago"), "sestertii")


def test_illegal_prefect_actions() -> None:
    game = start()
    set_bonus_marker(game, "Gallia", "cloth", coin_side=True)
    play(game, K_PREFECT)
    expect_illegal(game, A.A_PRODUCE + game.map.province_index("Gallia"), "coin side")


def test_places_beyond_a_smaller_map() -> None:
    """Italia has fewer paths, places and provinces than the shared action space."""
    game = new_game(3, map="italia")
    m = game.map
    play(game, K_ARCHITECT)
    expect_illegal(game, A.move(0, len(m.path_ids)), f"only {len(m.path_ids)} paths")
    expect_illegal(game, A.A_BUILD + len(m.places), "no house may be built")
    game.step(A.A_DONE)
    play(game, K_PREFECT)
    expect_illegal(game, A.A_PRODUCE + len(m.provinces), f"only {len(m.provinces)} provinces")


def test_illegal_mercator_actions() -> None:
    game = start()
    set_goods(game, 0, wine=1)
    set_money(game, 0, 0)
    play(game, K_MERCATOR)
    expect_illegal(game, A.sell(WINE, 2), "holds only 1")
    expect_illegal(game, A.buy(TOOL, 1))  # 3 sestertii buy no tool
    game.step(A.sell(WINE, 1))
    expect_illegal(game, A.buy(WINE, 1))


def test_illegal_card_purchases() -> None:
    game = start()
    set_display(game, ["Mason/I", "Colonist/I", None, "Farmer/I"])
    set_stack(game, [])
    set_goods(game, 0, food=2)
    play(game, K_SENATOR)
    expect_illegal(game, A.buy_card(2), "holds no card")
    expect_illegal(game, A.buy_card(1), "'any' good")
    expect_illegal(game, A.buy_card(0, FOOD), "no 'any' cost")
    expect_illegal(game, A.buy_card(3), "cannot pay")


def test_illegal_consul_payment_variant() -> None:
    game = start()
    set_hand(game, 0, ["Consul/II"])
    set_goods(game, 0, food=2)
    play(game, K_CONSUL)
    expect_illegal(game, A.buy_card(1, FOOD), "own cost")


def test_illegal_colonist_actions() -> None:
    game = start()
    set_hand(game, 0, ["Colonist/I"])
    add_house(game, 1, "Massilia")
    set_goods(game, 0, food=1, tool=1)
    play(game, K_COLONIST)
    expect_illegal(game, A.settle(0, game.map.place_index("Massilia")))
    expect_illegal(game, A.settle(1, game.map.place_index("Novaria")))


def test_illegal_diplomat_target() -> None:
    game = start()
    set_discard(game, 1, ["Prefect"])
    set_discard(game, 2, ["Diplomat"])
    play(game, K_DIPLOMAT)
    expect_illegal(game, A.A_DIPLOMAT + 1, "diplomat cannot copy a diplomat")
    expect_illegal(game, A.A_DIPLOMAT + 2, "empty")


def test_diplomat_target_beyond_the_opponents() -> None:
    game = new_game(3)
    set_discard(game, 1, ["Prefect"])
    play(game, K_DIPLOMAT)
    expect_illegal(game, A.A_DIPLOMAT + 3, "only 2 opponents")


def test_illegal_overflow_choice() -> None:
    game = start()
    for city, good in (("Burdigala", "food"), ("Lutetia", "tool")):
        set_city_good(game, city, good)
        add_house(game, 2, city)
    set_bonus_marker(game, "Gallia", "tool")
    set_goods(game, 2, brick=7)
    play(game, K_PREFECT)
    game.step(A.A_PRODUCE + game.map.province_index("Gallia"))
    assert game.current_player == 2
    expect_illegal(game, A.A_GOOD + WINE, "receives no wine")
    expect_illegal(game, A.A_DONE, "no 'done'")
    expect_illegal(game, A.A_PLAY + K_TRIBUNE, "another decision")


def test_tribune_colonist_of_a_kind_not_in_the_storehouse() -> None:
    game = start()
    for slot in (1, 2):
        put_colonist(game, 0, slot, "Roma")
    play(game, K_TRIBUNE)
    expect_illegal(game, A.A_TRIBUNE_COLONIST + 0)


def test_after_game_over_everything_is_refused() -> None:
    game = start()
    set_display(game, ["Mason/I"])
    set_stack(game, [])
    set_goods(game, 0, food=1)
    play(game, K_SENATOR)
    game.step(A.buy_card(0))
    for _ in range(3):  # the three other players' final turns
        play(game, K_TRIBUNE)
        if game.phase != PHASE_PLAY_CARD and not game.is_over():
            game.step(A.A_DONE)
    assert game.is_over()
    for action in (0, A.A_DONE, A.A_TAX, A.buy_card(0), NUM_ACTIONS - 1):
        expect_illegal(game, action, "game is over")
    expect_illegal(game, -1, "0..")


@pytest.mark.parametrize(("action", "shown"), [("3", "'3'"), (1.5, "1.5"), (None, "None"), (True, "True")])
def test_a_value_that_is_no_index_is_named_in_the_message(action: object, shown: str) -> None:
    """``game.step('3')`` says "illegal action '3'", not the sentinel index -1; a pickled copy says the same."""
    with pytest.raises(IllegalActionError) as caught:
        start().step(action)  # type: ignore[arg-type]
    err = caught.value
    assert str(err).startswith(f"illegal action {shown}: an action is an integer index in 0..{NUM_ACTIONS - 1}")
    assert type(action).__name__ in str(err) and "-1" not in str(err)
    assert (err.action, err.given) == (-1, shown)
    for copy in (pickle.loads(pickle.dumps(err)), type(err)(err)):
        assert (str(copy), copy.given, copy.action) == (str(err), err.given, -1)
