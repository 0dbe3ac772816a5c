"""What a rendering shows, gathered once from a :class:`~concordia_env.engine.game.Game`.

Both renderers (the text board and the board picture) draw the same facts; collecting them
here keeps the two in agreement and keeps the drawing code free of state offsets.

Everything is read through the public ``Game`` API (its rule queries for free slots, prices
and the cash bonus); nothing here knows state offsets or works a rule out again.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from concordia_env.engine.cards import CARD_ID, COLONISTS_PER_PLAYER, GOODS, KIND_NAMES, MERCATOR_KINDS
from concordia_env.engine.describe import money_text
from concordia_env.engine.game import Game
from concordia_env.engine.maps import Map
from concordia_env.engine.state import (
    LOC_STOREHOUSE,
    PATH_LOC_BASE,
    PHASE_ARCHITECT_MOVE,
    PHASE_BUY_CARDS,
    PHASE_MERCATOR,
    PHASE_OVERFLOW,
    PHASE_PREFECT,
)


# --------------------------------------------------------------------------- the snapshot
@dataclass(frozen=True)
class Colonist:
    """One colonist on the board: its kind and where it stands."""

    kind: int  # maps.LAND or maps.SEA
    location: int  # a place id, or PATH_LOC_BASE + path id

    @property
    def on_path(self) -> bool:
        return self.location >= PATH_LOC_BASE

    @property
    def path(self) -> int:
        return self.location - PATH_LOC_BASE


@dataclass(frozen=True)
class PlayerView:
    index: int
    money: int
    goods: np.ndarray  # units per good
    free_slots: int  # storehouse slots free for goods
    houses: tuple[int, ...]  # place ids
    colonists: tuple[Colonist, ...]  # on the board
    stored_colonists: tuple[int, int]  # (land, sea) still in the storehouse
    hand: tuple[tuple[int, int], ...]  # (card type, count), card types in order
    discard_top: int  # card type, -1 empty
    score: int
    incoming: np.ndarray  # goods waiting for an overflow choice

    @property
    def hand_size(self) -> int:
        return sum(n for _, n in self.hand)


@dataclass(frozen=True)
class SlotView:
    """One display slot with the price a Senator pays: the card's own cost plus the slot's."""

    slot: int
    card: int  # card type, -1 empty
    fixed: np.ndarray  # goods units to pay (card cost + slot's named goods)
    any_good: int  # units of a good of the buyer's choice ("any" under the slot)


@dataclass(frozen=True)
class ProvinceView:
    index: int
    name: str
    numeral: str | None
    cities: tuple[int, ...]  # place ids
    bonus_good: int  # -1: no marker (Gavdos before / after use)
    coin_side: bool
    nile: bool  # holds the Nile food marker


@dataclass(frozen=True)
class Snapshot:
    """Everything the renderers show, as plain Python values."""

    map: Map
    num_players: int
    turn_count: int
    decision_count: int
    current_player: int
    turn_player: int
    phase: int
    phase_name: str
    game_over: bool
    praefectus_magnus: int
    concordia_holder: int | None
    players: tuple[PlayerView, ...]
    display: tuple[SlotView, ...]
    stack_size: int
    provinces: tuple[ProvinceView, ...]
    city_goods: np.ndarray  # per place, -1 capital/square
    houses: np.ndarray  # bool [player, place]
    context: tuple[str, ...]  # pending-decision details in words
    ranking: tuple[int, ...]  # players from first to last place (tie-break included)

    @property
    def capital(self) -> int:
        return self.map.place_index(self.map.capital)


def snapshot(game: Game) -> Snapshot:
    """Collect what a rendering shows of ``game``."""
    m = game.map
    markers = game.bonus_markers()
    nile = game.nile_marker
    houses = game.houses()
    provinces = tuple(
        ProvinceView(
            index=v,
            name=name,
            numeral=m.province_numerals.get(name),
            cities=tuple(m.place_index(c) for c in cities),
            bonus_good=markers[v][0],
            coin_side=markers[v][1],
            nile=nile == v,
        )
        for v, (name, cities) in enumerate(m.provinces.items())
    )
    return Snapshot(
        map=m,
        num_players=game.num_players,
        turn_count=game.turn_count,
        decision_count=game.decision_count,
        current_player=game.current_player,
        turn_player=game.turn_player,
        phase=game.phase,
        phase_name=game.phase_name,
        game_over=game.is_over(),
        praefectus_magnus=game.praefectus_magnus,
        concordia_holder=game.concordia_holder,
        players=tuple(_player_view(game, p, houses) for p in range(game.num_players)),
        display=_display_view(game),
        stack_size=game.stack_size,
        provinces=provinces,
        city_goods=game.city_goods(),
        houses=houses,
        context=pending_context(game),
        ranking=tuple(game.ranking()),
    )


def _player_view(game: Game, p: int, houses: np.ndarray) -> PlayerView:
    locations = game.colonist_locations(p)
    goods = game.goods(p)
    board: list[Colonist] = []
    stored = [0, 0]
    for slot in range(COLONISTS_PER_PLAYER):
        kind = game.colonist_kind(slot)
        if locations[slot] == LOC_STOREHOUSE:
            stored[kind] += 1
        else:
            board.append(Colonist(kind, int(locations[slot])))
    hand = game.hand(p)
    return PlayerView(
        index=p,
        money=game.money(p),
        goods=goods,
        free_slots=game.free_slots(p),
        houses=tuple(int(c) for c in np.flatnonzero(houses[p])),
        colonists=tuple(board),
        stored_colonists=(stored[0], stored[1]),
        hand=tuple((int(t), int(hand[t])) for t in np.flatnonzero(hand)),
        discard_top=game.discard_top(p),
        score=game.score_breakdown(p)["total"],
        incoming=game.incoming_goods(p),
    )


def _display_view(game: Game) -> tuple[SlotView, ...]:
    slots = []
    for slot, card in enumerate(game.display()):
        goods, any_units = game.display_price(slot) if card >= 0 else game.slot_cost(slot)
        slots.append(SlotView(slot, int(card), goods, any_units))
    return tuple(slots)


def pending_context(game: Game) -> tuple[str, ...]:
    """Details of the pending decision a reader needs beyond its name (steps left, kinds traded, ...)."""
    out: list[str] = []
    played, acting = game.played_kind, game.action_kind
    if played >= 0 and acting >= 0 and acting != played:
        out.append(f"{KIND_NAMES[played]} copies {KIND_NAMES[acting]}")
    phase = game.phase
    if phase == PHASE_ARCHITECT_MOVE:
        out.append(f"Architect steps left: {game.steps_left}")
    elif phase == PHASE_MERCATOR:
        traded = game.traded_goods()
        names = ", ".join(GOODS[g] for g in traded) if traded else "none yet"
        out.append(f"Mercator kinds traded: {names} (at most {MERCATOR_KINDS})")
    elif phase == PHASE_PREFECT:
        out.append(f"cash bonus now: {money_text(game.cash_bonus())}")
    elif phase == PHASE_BUY_CARDS:
        out.append(f"cards that may still be bought: {game.buys_left}")
    elif phase == PHASE_OVERFLOW and game.current_player >= 0:
        waiting = game.incoming_goods(game.current_player)
        out.append(f"goods waiting for storage: {goods_text(waiting)}")
    final = game.final_turns_left
    if final is not None and not game.is_over():
        out.append(f"end triggered: {final} final turn(s) left")
    return tuple(out)


# --------------------------------------------------------------------------- words
GOOD_LETTERS = "".join(g[0].upper() for g in GOODS)


def goods_text(counts: np.ndarray | list[int], any_units: int = 0) -> str:
    """``"2 tool, 1 cloth + 1 any"``; ``"-"`` when nothing."""
    parts = [f"{int(n)} {GOODS[g]}" for g, n in enumerate(counts) if n]
    text = ", ".join(parts)
    if any_units:
        text = f"{text} + {any_units} any" if text else f"{any_units} any"
    return text or "-"


def card_text(card: int) -> str:
    return CARD_ID[card] if card >= 0 else "-"


def player_label(p: int | None) -> str:
    return f"P{p}" if p is not None and p >= 0 else "-"
