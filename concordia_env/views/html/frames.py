"""What a replay page shows at each decision, as one flat integer vector per position.

A *frame* is every public fact the page draws (money, goods, houses, colonists, hands,
the display with its prices, bonus markers, score breakdown...) read through
:func:`concordia_env.views.render.view.snapshot` and :meth:`Game.score_breakdown`, the same
sources the PNG renderer uses; nothing here knows the rules or the state offsets. The page
never computes a rule: it only shows the numbers stored here.

Frames are stored compactly (:func:`encode_frames`): the first one in full, then per
decision the ``[index, value, index, value, ...]`` pairs that changed. The frames of a
4-player Imperium game between random agents (674 decisions) take 30 kB this way; its whole
page, board, descriptions and scripts included, 112 kB.

The layout is described by name in the page's data (:meth:`FrameLayout.to_json`), so the
JavaScript reads ``money`` of player 2 as ``frame[player_base + 2 * player_size + offset]``
without hard-coded positions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

import numpy as np

from concordia_env.engine.cards import COLONISTS_PER_PLAYER, DISPLAY_SLOTS, NUM_CARD_TYPES, NUM_GOODS
from concordia_env.engine.game import Game

from ..render.view import snapshot

#: value stored for "nobody" / "no card" / "not triggered"
NONE = -1


@dataclass(frozen=True)
class FrameLayout:
    """Named ranges of a frame: global fields first, then one block per player."""

    globals: dict[str, tuple[int, int]]  # name -> (offset, length)
    player: dict[str, tuple[int, int]]  # name -> (offset inside a player's block, length)
    player_base: int
    player_size: int
    num_players: int
    score_keys: tuple[str, ...]

    @property
    def size(self) -> int:
        return self.player_base + self.num_players * self.player_size

    def slot(self, name: str, player: int | None = None) -> slice:
        """Where a named field lies: ``slot("money", 1)``, ``slot("display")``."""
        if player is None:
            offset, length = self.globals[name]
        else:
            field_offset, length = self.player[name]
            offset = self.player_base + player * self.player_size + field_offset
        return slice(offset, offset + length)

    def to_json(self) -> dict[str, Any]:
        return {
            "globals": {k: list(v) for k, v in self.globals.items()},
            "player": {k: list(v) for k, v in self.player.items()},
            "player_base": self.player_base,
            "player_size": self.player_size,
            "num_players": self.num_players,
            "score_keys": list(self.score_keys),
        }


def _ranges(fields: Sequence[tuple[str, int]], start: int = 0) -> tuple[dict[str, tuple[int, int]], int]:
    out, offset = {}, start
    for name, length in fields:
        out[name] = (offset, length)
        offset += length
    return out, offset


def frame_layout(game: Game) -> FrameLayout:
    """The layout for ``game``'s map and player count (the score keys depend on the map)."""
    places = len(game.map.places)
    provinces = len(game.map.provinces)
    score_keys = tuple(game.score_breakdown(0))
    globals_, base = _ranges(
        [
            ("turn", 1),
            ("decision", 1),
            ("current_player", 1),
            ("turn_player", 1),
            ("phase", 1),
            ("game_over", 1),
            ("praefectus_magnus", 1),
            ("concordia_holder", 1),
            ("stack_size", 1),
            ("final_turns_left", 1),
            ("context", 1),  # index into the page's string table
            ("display", DISPLAY_SLOTS),  # card type per slot, -1 empty
            ("display_price", DISPLAY_SLOTS * (NUM_GOODS + 1)),  # per slot: goods to pay, then "any" units
            ("city_goods", places),  # good of each place's city token, -1 capital/square
            ("houses", places),  # per place: bit p set when player p has a house there
            ("marker_good", provinces),  # bonus marker's good, -1 none
            ("marker_coin", provinces),  # 1 when on its coin side
            ("nile", 1),  # province with the Nile marker, -1
        ]
    )
    player, size = _ranges(
        [
            ("money", 1),
            ("goods", NUM_GOODS),
            ("free_slots", 1),
            ("stored_colonists", 2),  # land, sea still in the storehouse
            ("colonists", COLONISTS_PER_PLAYER),  # on the board: location * 2 + kind, -1 unused
            ("hand", NUM_CARD_TYPES),  # cards per card type
            ("discard_top", 1),
            ("incoming", NUM_GOODS),  # goods waiting for an overflow choice
            ("score", len(score_keys)),  # score_breakdown values in score_keys order
        ]
    )
    return FrameLayout(globals_, player, base, size, game.num_players, score_keys)


class StringTable:
    """Deduplicated strings of a replay (contexts, descriptions): each stored once, referred to by index."""

    def __init__(self) -> None:
        self.strings: list[str] = []
        self._index: dict[str, int] = {}

    def add(self, text: str) -> int:
        if text not in self._index:
            self._index[text] = len(self.strings)
            self.strings.append(text)
        return self._index[text]


def frame(game: Game, layout: FrameLayout, strings: StringTable) -> np.ndarray:
    """The frame of ``game``'s current position."""
    snap = snapshot(game)
    out = np.full(layout.size, NONE, dtype=np.int64)

    def put(name: str, value: Any, player: int | None = None) -> None:
        out[layout.slot(name, player)] = value

    put("turn", snap.turn_count)
    put("decision", snap.decision_count)
    put("current_player", snap.current_player)
    put("turn_player", snap.turn_player)
    put("phase", snap.phase)
    put("game_over", int(snap.game_over))
    put("praefectus_magnus", snap.praefectus_magnus)
    put("concordia_holder", NONE if snap.concordia_holder is None else snap.concordia_holder)
    put("stack_size", snap.stack_size)
    final = game.final_turns_left
    put("final_turns_left", NONE if final is None else final)
    put("context", strings.add("\n".join(snap.context)))
    put("display", [sv.card for sv in snap.display])
    prices = np.zeros((DISPLAY_SLOTS, NUM_GOODS + 1), dtype=np.int64)
    for sv in snap.display:
        if sv.card >= 0:
            prices[sv.slot, :NUM_GOODS] = sv.fixed
            prices[sv.slot, NUM_GOODS] = sv.any_good
    put("display_price", prices.ravel())
    put("city_goods", snap.city_goods)
    put("houses", (snap.houses.astype(np.int64) << np.arange(snap.num_players)[:, None]).sum(axis=0))
    put("marker_good", [pv.bonus_good for pv in snap.provinces])
    put("marker_coin", [int(pv.coin_side) for pv in snap.provinces])
    put("nile", next((pv.index for pv in snap.provinces if pv.nile), NONE))
    for pv in snap.players:
        p = pv.index
        put("money", pv.money, p)
        put("goods", pv.goods, p)
        put("free_slots", pv.free_slots, p)
        put("stored_colonists", pv.stored_colonists, p)
        colonists = [c.location * 2 + c.kind for c in pv.colonists]
        put("colonists", colonists + [NONE] * (COLONISTS_PER_PLAYER - len(colonists)), p)
        hand = np.zeros(NUM_CARD_TYPES, dtype=np.int64)
        for card, count in pv.hand:
            hand[card] = count
        put("hand", hand, p)
        put("discard_top", pv.discard_top, p)
        put("incoming", pv.incoming, p)
        breakdown = game.score_breakdown(p)
        put("score", [breakdown[k] for k in layout.score_keys], p)
    return out


def encode_frames(frames: Sequence[np.ndarray]) -> dict[str, Any]:
    """``{"first": full first frame, "deltas": [[i, v, i, v, ...] per later frame]}``."""
    if not frames:
        raise ValueError("a replay needs at least its start position")
    deltas = []
    for prev, cur in pairwise(frames):
        changed = np.flatnonzero(cur != prev)
        deltas.append(np.stack([changed, cur[changed]], axis=1).ravel().tolist())
    return {"first": frames[0].tolist(), "deltas": deltas}


def decode_frames(encoded: dict[str, Any]) -> list[np.ndarray]:
    """The inverse of :func:`encode_frames` (what the page's JavaScript does, for tests)."""
    frames = [np.array(encoded["first"], dtype=np.int64)]
    for delta in encoded["deltas"]:
        cur = frames[-1].copy()
        pairs = np.array(delta, dtype=np.int64).reshape(-1, 2)
        cur[pairs[:, 0]] = pairs[:, 1]
        frames.append(cur)
    return frames
