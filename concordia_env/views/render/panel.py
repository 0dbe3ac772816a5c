"""The panel of the board picture: whose decision it is, the players, the display.

The panel is pure text in coloured pieces; Pillow draws text some ten times faster than
matplotlib, which keeps a frame well under a second. Lines are monospaced, so the pieces of
one line are placed by counting characters, and a column never holds more than
``COLUMN_CHARS`` characters (longer lines are cut with an ellipsis).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import cache
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from concordia_env.engine.cards import CARD_ID, GOODS, HOUSES_PER_PLAYER
from concordia_env.engine.maps import LAND

from .frame import COLUMN_CHARS, COLUMN_PADDING, LINE_SPACING, ROW_PADDING, FrameLayout
from .style import GOOD_TEXT_COLORS, HIGHLIGHT, MUTED, PANEL_BACKGROUND, PLAYER_COLORS, TEXT
from .view import PlayerView, Snapshot, player_label

Piece = tuple[str, str, bool]  # text, colour, bold
#: the title line is set this much larger than the rest
TITLE_SCALE = 1.15


@cache
def _font(px: int, bold: bool) -> ImageFont.FreeTypeFont:
    """DejaVu Sans Mono, which ships with matplotlib (so it is there whenever the render extra is)."""
    import matplotlib

    name = "DejaVuSansMono-Bold.ttf" if bold else "DejaVuSansMono.ttf"
    return ImageFont.truetype(str(Path(matplotlib.get_data_path()) / "fonts" / "ttf" / name), px)


class _Writer:
    """Writes monospaced lines of coloured pieces down one column."""

    def __init__(self, draw: ImageDraw.ImageDraw, x0: float, y0: float, font_px: int) -> None:
        self.draw = draw
        self.x0 = x0
        self.y = y0
        self.font_px = font_px

    def line(self, pieces: list[Piece], indent: int = 0, scale: float = 1.0) -> None:
        px = max(1, round(self.font_px * scale))
        char = _font(px, False).getlength("M")
        x = self.x0 + indent * char
        room = COLUMN_CHARS - indent
        for text, color, bold in pieces:
            if room <= 0:
                break
            if len(text) > room:
                text = text[: room - 1] + "…"
            self.draw.text((x, self.y), text, font=_font(px, bold), fill=color)
            x += len(text) * char
            room -= len(text)
        self.y += LINE_SPACING * px

    def swatch(self, color: str, indent: int) -> None:
        """A filled square in a player's colour at the start of the current line."""
        char = _font(self.font_px, False).getlength("M")
        side = self.font_px * 0.8
        x = self.x0 + indent * char
        y = self.y + self.font_px * 0.2
        self.draw.rectangle((x, y, x + side, y + side), fill=color, outline=TEXT, width=max(1, self.font_px // 12))

    def gap(self, lines: float = 0.5) -> None:
        self.y += LINE_SPACING * self.font_px * lines


#: a block of the panel: writes its lines for a snapshot
Block = Callable[[_Writer, Snapshot], None]


def draw_panel(snap: Snapshot, layout: FrameLayout) -> np.ndarray:
    """The panel for ``snap``: an (H, W, 3) uint8 array of the layout's panel size."""
    image = Image.new("RGB", (layout.panel_width, layout.panel_height), PANEL_BACKGROUND)
    draw = ImageDraw.Draw(image)
    font = layout.font_px
    pad = COLUMN_PADDING * _font(font, False).getlength("M")
    columns = _columns(snap, layout.columns)
    for k, blocks in enumerate(columns):
        w = _Writer(draw, x0=k * layout.column_width + pad, y0=ROW_PADDING * LINE_SPACING * font, font_px=font)
        for block in blocks:
            block(w, snap)
    return np.asarray(image)


def _columns(snap: Snapshot, count: int) -> list[list[Block]]:
    """Blocks per column: one column holds everything; several hold header and display, then the players."""
    players = [_player_block(p) for p in range(snap.num_players)]
    if count == 1:
        return [[_header, *players, _display]]
    per_column = math.ceil(len(players) / (count - 1))
    header: list[Block] = [_header, _display]
    return [header, *(players[k : k + per_column] for k in range(0, len(players), per_column))]


# --------------------------------------------------------------------------- blocks
def _header(w: _Writer, snap: Snapshot) -> None:
    w.line(
        [(f"CONCORDIA · {snap.map.title}", TEXT, True), (f"  turn {snap.turn_count}", MUTED, False)], scale=TITLE_SCALE
    )
    if snap.game_over:
        w.line([("Game over: ", HIGHLIGHT, True), (f"P{snap.ranking[0]} wins", TEXT, True)])
        w.line([("ranking " + " ".join(f"P{p}" for p in snap.ranking), MUTED, False)], indent=2)
    else:
        who = snap.current_player
        pieces: list[Piece] = [("▶ ", HIGHLIGHT, True), (f"P{who}", TEXT, True), (" to decide", TEXT, True)]
        if who != snap.turn_player:
            pieces.append((f" (in P{snap.turn_player}'s turn)", MUTED, False))
        w.line(pieces)
        w.line([(snap.phase_name, TEXT, False)], indent=2)
        for context in snap.context:
            w.line([(context, MUTED, False)], indent=2)
    holder = player_label(snap.concordia_holder)
    w.line([(f"Praefectus Magnus {player_label(snap.praefectus_magnus)} · Concordia card {holder}", MUTED, False)])
    w.gap()


def _player_block(player: int) -> Block:
    def block(w: _Writer, snap: Snapshot) -> None:
        _player(w, snap, snap.players[player])

    return block


def _player(w: _Writer, snap: Snapshot, pv: PlayerView) -> None:
    current = pv.index == snap.current_player
    w.swatch(PLAYER_COLORS[pv.index], indent=2)
    head: list[Piece] = [
        ("▶" if current else " ", HIGHLIGHT, True),
        ("   ", TEXT, False),
        (f"P{pv.index}", TEXT, True),
        (f"  VP {pv.score:3d}", TEXT, True),
        (f"  money {pv.money:3d}  hand {pv.hand_size:2d}", TEXT, False),
    ]
    if pv.index == snap.praefectus_magnus:
        head.append(("  Praef. Magnus", HIGHLIGHT, True))
    if pv.index == snap.concordia_holder:
        head.append(("  Concordia", HIGHLIGHT, True))
    w.line(head)
    goods: list[Piece] = [("goods ", MUTED, False)]
    goods += [(f"{GOODS[g][0].upper()}{int(n)} ", GOOD_TEXT_COLORS[g], True) for g, n in enumerate(pv.goods)]
    goods.append((f"({pv.free_slots:2d} free)  discard {_card(pv.discard_top)}", MUTED, False))
    w.line(goods, indent=4)
    land = sum(1 for c in pv.colonists if c.kind == LAND)
    sea = len(pv.colonists) - land
    stored = sum(pv.stored_colonists)
    houses = f"houses {len(pv.houses):2d}/{HOUSES_PER_PLAYER}  colonists {land} land + {sea} sea, {stored} stored"
    w.line([(houses, MUTED, False)], indent=4)
    if pv.incoming.any():
        waiting = ", ".join(f"{int(n)} {GOODS[g]}" for g, n in enumerate(pv.incoming) if n)
        w.line([(f"waiting for storage: {waiting}", HIGHLIGHT, True)], indent=4)
    w.gap(0.5)


def _card(card: int) -> str:
    return CARD_ID[card] if card >= 0 else "-"


def _display(w: _Writer, snap: Snapshot) -> None:
    w.line([("DISPLAY", TEXT, True), (f"  stack {snap.stack_size}  price: card + slot, ? = any", MUTED, False)])
    for sv in snap.display:
        pieces: list[Piece] = [(f" {sv.slot + 1}  ", MUTED, False)]
        if sv.card < 0:
            w.line([*pieces, ("(empty)", MUTED, False)])
            continue
        pieces.append((f"{CARD_ID[sv.card]:<16}", TEXT, False))
        for g, n in enumerate(sv.fixed):
            pieces += [(f"{GOODS[g][0].upper()} ", GOOD_TEXT_COLORS[g], True)] * int(n)
        pieces += [("? ", TEXT, True)] * sv.any_good
        w.line(pieces)
