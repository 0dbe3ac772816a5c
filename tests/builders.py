"""Small helpers that build test positions by editing a new game's state array.

A rules test reads best as "this position, this action, this outcome". These helpers
make the position part short and readable: start from :meth:`Game.new` and change only
what the test is about, through the named offsets of :mod:`concordia_env.engine.state` (never a
bare number), so a change of the state layout cannot silently break a test.

Everything here writes the game's own array in place and returns nothing. That array is
``game._state``: the public ``game.state`` is a read-only view (``Game``, "Who owns the
state"), and a caller outside the package edits a copy and builds ``Game(edited, map)``,
which checks it. Rules tests write positions directly, some of which no check would
pass on purpose (:func:`set_field` for a single named entry). Names are the ones
players use (city names, path ids such as ``"land:Colonia Agrippina-Novaria"``, card ids
such as ``"Farmer/I"``, good names).

The module also holds :func:`expect_illegal`, the one assertion every illegal-action test
needs: the action raises ``IllegalActionError`` and leaves the state exactly unchanged.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pytest

from concordia_env import Game, IllegalActionError
from concordia_env.engine import actions as A
from concordia_env.engine.cards import (
    CARD_ID,
    COLONISTS_PER_PLAYER,
    DISPLAY_SLOTS,
    GOOD_INDEX,
    GOODS,
    NUM_CARD_TYPES,
    NUM_GOODS,
    NUM_SALE_CARDS,
    STOREHOUSE_SLOTS,
    card_type,
)
from concordia_env.engine.maps import LAND, PATH_KINDS
from concordia_env.engine.state import (
    BONUS_COIN_SIDE,
    BONUS_GOOD,
    CITY_GOOD,
    CONCORDIA_HOLDER,
    CURRENT_PLAYER,
    DISPLAY,
    FIRST_SEA_SLOT,
    LOC_STOREHOUSE,
    P_COLONISTS,
    P_DISCARD,
    P_DISCARD_TOP,
    P_GOODS,
    P_HAND,
    P_MONEY,
    PATH_LOC_BASE,
    PHASE,
    PHASE_PLAY_CARD,
    PRAEFECTUS_MAGNUS,
    STACK,
    STACK_SIZE,
    TURN_PLAYER,
    house_index,
    player_base,
)

#: colonist slots of each kind (state.P_COLONISTS): land 0-2, sea 3-5
LAND_SLOTS = tuple(range(FIRST_SEA_SLOT))
SEA_SLOTS = tuple(range(FIRST_SEA_SLOT, COLONISTS_PER_PLAYER))
STOREHOUSE = "storehouse"


# --------------------------------------------------------------------------- game
def new_game(num_players: int = 4, *, map: str = "imperium", start_player: int = 0, seed: int = 0, **options) -> Game:
    """A freshly set-up game with a fixed start player, so tests know whose turn it is."""
    return Game.new(map, num_players, seed, start_player=start_player, **options)


def set_turn(game: Game, p: int) -> None:
    """Make it player ``p``'s turn, at the start of the turn (choose a card to play)."""
    game._state[TURN_PLAYER] = p
    game._state[CURRENT_PLAYER] = p
    game._state[PHASE] = PHASE_PLAY_CARD


def set_praefectus_magnus(game: Game, p: int) -> None:
    game._state[PRAEFECTUS_MAGNUS] = p


def set_concordia_holder(game: Game, p: int) -> None:
    """Give ``p`` the Concordia card (normally taken by the player who ends the game)."""
    game._state[CONCORDIA_HOLDER] = p


def play(game: Game, kind: int) -> None:
    """Play a card of ``kind`` (``cards.K_*``) from the current player's hand."""
    game.step(A.A_PLAY + kind)


def legal(game: Game, action: int) -> bool:
    return bool(game.legal_mask()[action])


# --------------------------------------------------------------------------- money and goods
def set_money(game: Game, p: int, amount: int) -> None:
    game._state[player_base(p) + P_MONEY] = amount


def set_goods(
    game: Game, p: int, *, brick: int = 0, food: int = 0, tool: int = 0, wine: int = 0, cloth: int = 0
) -> None:
    """Set all five goods of player ``p`` (kinds not named become 0)."""
    amounts = {"brick": brick, "food": food, "tool": tool, "wine": wine, "cloth": cloth}
    base = player_base(p) + P_GOODS
    for good, n in amounts.items():
        game._state[base + GOOD_INDEX[good]] = n


def goods_of(game: Game, p: int) -> dict[str, int]:
    """Player ``p``'s goods by name, e.g. ``{"brick": 1, "food": 2, ...}``."""
    held = game.goods(p)
    return {GOODS[g]: int(held[g]) for g in range(NUM_GOODS)}


def free_slots(game: Game, p: int) -> int:
    """Storehouse slots free for goods (docs/rules.md §1): 12 - goods - colonists still stored."""
    stored = int(np.sum(game.colonist_locations(p) == LOC_STOREHOUSE))
    return STOREHOUSE_SLOTS - int(game.goods(p).sum()) - stored


# --------------------------------------------------------------------------- colonists
def location_code(game: Game, where: str) -> int:
    """State code of a location: ``"storehouse"``, a place name, or a path id."""
    if where == STOREHOUSE:
        return LOC_STOREHOUSE
    if ":" in where:
        return PATH_LOC_BASE + game.map.path_index(where)
    return game.map.place_index(where)


def location_name(game: Game, code: int) -> str:
    """Inverse of :func:`location_code`."""
    if code == LOC_STOREHOUSE:
        return STOREHOUSE
    if code >= PATH_LOC_BASE:
        return game.map.path_ids[code - PATH_LOC_BASE]
    return game.map.places[code]


def put_colonist(game: Game, p: int, slot: int, where: str) -> None:
    """Place colonist ``slot`` (land 0-2, sea 3-5) of player ``p`` at ``where``.

    Refuses a land colonist on a sea path and vice versa, so a test cannot build a
    position the rules could never reach by mistake.
    """
    if ":" in where:
        kind = where.split(":", 1)[0]
        expected = PATH_KINDS[LAND] if slot in LAND_SLOTS else PATH_KINDS[1 - LAND]
        if kind != expected:
            raise ValueError(f"colonist slot {slot} is a {expected} colonist and cannot stand on {where}")
    game._state[player_base(p) + P_COLONISTS + slot] = location_code(game, where)


def clear_colonists(game: Game, p: int) -> None:
    """All six colonists of ``p`` back in the storehouse."""
    for slot in range(COLONISTS_PER_PLAYER):
        put_colonist(game, p, slot, STOREHOUSE)


def colonist_at(game: Game, p: int, slot: int) -> str:
    return location_name(game, int(game.colonist_locations(p)[slot]))


def colonists_on_board(game: Game, p: int) -> int:
    return int(np.sum(game.colonist_locations(p) != LOC_STOREHOUSE))


# --------------------------------------------------------------------------- board
def set_city_good(game: Game, city: str, good: str) -> None:
    game._state[CITY_GOOD + game.map.place_index(city)] = GOOD_INDEX[good]


def add_house(game: Game, p: int, city: str) -> None:
    game._state[house_index(p, game.map.place_index(city))] = 1


def has_house(game: Game, p: int, city: str) -> bool:
    return bool(game.state[house_index(p, game.map.place_index(city))])


def set_bonus_marker(game: Game, province: str, good: str, *, coin_side: bool = False) -> None:
    """Put a bonus marker of ``good`` on ``province``, goods side up unless ``coin_side``."""
    v = game.map.province_index(province)
    game._state[BONUS_GOOD + v] = GOOD_INDEX[good]
    game._state[BONUS_COIN_SIDE + v] = int(coin_side)


def set_all_markers_goods_side(game: Game) -> None:
    for v in range(len(game.map.provinces)):
        game._state[BONUS_COIN_SIDE + v] = 0


def marker_coin_side(game: Game, province: str) -> bool:
    return bool(game.state[BONUS_COIN_SIDE + game.map.province_index(province)])


# --------------------------------------------------------------------------- cards
def _counts(card_ids: Iterable[str]) -> np.ndarray:
    counts = np.zeros(NUM_CARD_TYPES, dtype=np.int32)
    for cid in card_ids:
        counts[card_type(cid)] += 1
    return counts


def set_hand(game: Game, p: int, card_ids: Iterable[str]) -> None:
    """Replace player ``p``'s hand by these cards (ids as in ``cards.CARD_ID``)."""
    base = player_base(p) + P_HAND
    game._state[base : base + NUM_CARD_TYPES] = _counts(card_ids)


def set_discard(game: Game, p: int, card_ids: list[str], top: str | None = None) -> None:
    """Replace ``p``'s discard pile; ``top`` (default: the last id) is the visible card."""
    base = player_base(p) + P_DISCARD
    game._state[base : base + NUM_CARD_TYPES] = _counts(card_ids)
    if top is None and card_ids:
        top = card_ids[-1]
    if top is not None and top not in card_ids:
        raise ValueError(f"the top card {top!r} must be one of the discard pile's cards")
    game._state[player_base(p) + P_DISCARD_TOP] = card_type(top) if top is not None else -1


def set_display(game: Game, card_ids: list[str | None]) -> None:
    """Display slots 1..7 from the left; ``None`` or a short list leaves slots empty."""
    if len(card_ids) > DISPLAY_SLOTS:
        raise ValueError(f"the display has {DISPLAY_SLOTS} slots")
    game._state[DISPLAY : DISPLAY + DISPLAY_SLOTS] = -1
    for slot, cid in enumerate(card_ids):
        if cid is not None:
            game._state[DISPLAY + slot] = card_type(cid)


def display_ids(game: Game) -> list[str | None]:
    return [CARD_ID[t] if t >= 0 else None for t in game.display()]


def set_stack(game: Game, card_ids_top_first: list[str]) -> None:
    """Replace the face-down stack; the first id is the next card drawn."""
    game._state[STACK : STACK + NUM_SALE_CARDS] = -1
    bottom_first = [card_type(c) for c in reversed(card_ids_top_first)]
    game._state[STACK : STACK + len(bottom_first)] = bottom_first
    game._state[STACK_SIZE] = len(bottom_first)


def stack_size(game: Game) -> int:
    return int(game.state[STACK_SIZE])


# --------------------------------------------------------------------------- assertions
def set_field(game: Game, offset: int, value: int) -> None:
    """Write one entry of the game's own state array (``offset`` a named offset of ``state``)."""
    game._state[offset] = value


def expect_illegal(game: Game, action: object, *reason_parts: str) -> IllegalActionError:
    """Assert ``action`` is refused with an error naming it and why, and changes nothing.

    ``reason_parts`` are phrases the reason must contain (case-insensitive).
    """
    before = game.state.copy()
    with pytest.raises(IllegalActionError) as info:
        game.step(action)  # type: ignore[arg-type]
    err = info.value
    assert isinstance(err, ValueError)
    assert np.array_equal(game.state, before), "an illegal action changed the state"
    assert err.reason, "the error must say why"
    if isinstance(action, int):
        assert err.action == action
        assert f"action {action}" in str(err)
    for part in reason_parts:
        assert part.lower() in err.reason.lower(), f"{part!r} not in reason {err.reason!r}"
    return err
