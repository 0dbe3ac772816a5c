"""The text board (``render_mode="ansi"``): every public fact of a position in under 100 columns.

The text is built plain and wrapped first; colours, when asked for, are added afterwards
by marking player labels and good names, so wrapping never counts escape codes.
"""

from __future__ import annotations

import re
import textwrap
from collections import Counter
from collections.abc import Iterable

from concordia_env.engine.cards import CARD_ID, GOODS, HOUSES_PER_PLAYER
from concordia_env.engine.game import Game
from concordia_env.engine.maps import LAND, PATH_KINDS, SEA, Map

from .view import PlayerView, ProvinceView, Snapshot, card_text, goods_text, player_label, snapshot

#: the text fits a terminal this wide
TEXT_WIDTH = 100
INDENT = "    "
#: ANSI SGR codes; player 4 (black on the board) is shown bold so it stays visible on dark terminals
PLAYER_ANSI = ("1;31", "1;34", "1;32", "1;33", "1")
GOOD_ANSI = {"brick": "31", "food": "33", "tool": "90", "wine": "35", "cloth": "36"}
HEADING_ANSI = "1;4"
_PLAYER_RE = re.compile(r"\bP([0-4])\b")
_GOOD_RE = re.compile(r"\b(" + "|".join(GOODS) + r")\b")


def render_text(game: Game, color: bool = False) -> str:
    """The position as text; ``color=True`` adds ANSI colours for players, goods and headings."""
    snap = snapshot(game)
    sections = [
        _header(snap),
        _players(snap),
        _display(snap),
        _provinces(snap),
    ]
    text = "\n\n".join("\n".join(lines) for lines in sections) + "\n"
    return _colorize(text) if color else text


# --------------------------------------------------------------------------- sections
def _header(snap: Snapshot) -> list[str]:
    m = snap.map
    lines = [
        f"CONCORDIA · {m.title} · {snap.num_players} players · turn {snap.turn_count} · {snap.decision_count} decisions"
    ]
    if snap.game_over:
        places = ", ".join(f"P{p} {snap.players[p].score} VP" for p in snap.ranking)
        lines.append(f"Game over. P{snap.ranking[0]} wins. Ranking: {places}")
    else:
        whose = f"P{snap.current_player} to decide: {snap.phase_name}"
        if snap.current_player != snap.turn_player:
            whose += f" (during P{snap.turn_player}'s turn)"
        lines.append(whose)
    lines += [f"  {c}" for c in snap.context]
    lines.append(
        f"Praefectus Magnus: {player_label(snap.praefectus_magnus)} · Concordia card: "
        f"{player_label(snap.concordia_holder)}"
    )
    return lines


def _players(snap: Snapshot) -> list[str]:
    lines = ["PLAYERS"]
    for pv in snap.players:
        lines += _player_block(snap, pv)
    return lines


def _player_block(snap: Snapshot, pv: PlayerView) -> list[str]:
    m = snap.map
    marks = []
    if pv.index == snap.praefectus_magnus:
        marks.append("Praefectus Magnus")
    if pv.index == snap.concordia_holder:
        marks.append("Concordia card")
    pointer = ">" if pv.index == snap.current_player else " "
    goods = " ".join(f"{name} {int(n)}" for name, n in zip(GOODS, pv.goods, strict=True))
    head = f"{pointer} P{pv.index}  VP {pv.score:3d} · money {pv.money:3d} · {goods} ({pv.free_slots} free)"
    if marks:
        head += " · " + ", ".join(marks)
    houses = ", ".join(m.places[c] for c in pv.houses) or "none"
    hand = ", ".join(_counted(CARD_ID[t], n) for t, n in pv.hand) or "empty"
    lines = [
        head,
        *_wrap(f"houses {len(pv.houses)}/{HOUSES_PER_PLAYER}: {houses}"),
        *_wrap("colonists " + _colonists_text(m, pv)),
        *_wrap(f"hand {pv.hand_size}: {hand} · discard top: {card_text(pv.discard_top)}"),
    ]
    if pv.incoming.any():
        lines += _wrap(f"goods waiting for storage: {goods_text(pv.incoming)}")
    return lines


def _colonists_text(m: Map, pv: PlayerView) -> str:
    parts = []
    for kind in (LAND, SEA):
        spots = Counter(_location_text(m, c.location, c.on_path, c.path) for c in pv.colonists if c.kind == kind)
        where = [_counted(spot, n) for spot, n in spots.items()]
        stored = pv.stored_colonists[kind]
        if stored:
            where.append(f"{stored} stored")
        parts.append(f"{PATH_KINDS[kind]}: " + (", ".join(where) or "none"))
    return " · ".join(parts)


def _location_text(m: Map, location: int, on_path: bool, path: int) -> str:
    if not on_path:
        return m.places[location]
    _, a, b = m.paths[path]
    return f"{a}–{b}"


def _display(snap: Snapshot) -> list[str]:
    lines = [f"DISPLAY (price = card cost + slot cost; {snap.stack_size} cards left in the stack)"]
    for sv in snap.display:
        if sv.card < 0:
            lines.append(f"  {sv.slot + 1}  (empty)")
            continue
        lines.append(f"  {sv.slot + 1}  {CARD_ID[sv.card]:<16} {goods_text(sv.fixed, sv.any_good)}")
    return lines


def _provinces(snap: Snapshot) -> list[str]:
    m = snap.map
    lines = ["PROVINCES (bonus marker: good, side) and CITIES (good, houses)"]
    for pv in snap.provinces:
        lines += _wrap(_province_text(snap, pv), first="  ", width=TEXT_WIDTH)
    lines.append(f"  capital: {m.capital} (no good, no houses)")
    squares = _special_squares_text(snap)
    if squares:
        lines.append("  special squares: " + squares)
    return lines


def _province_text(snap: Snapshot, pv: ProvinceView) -> str:
    name = f"{pv.numeral} {pv.name}" if pv.numeral else pv.name
    if pv.bonus_good < 0:
        marker = "no marker (free choice)"
    else:
        marker = f"{GOODS[pv.bonus_good]} {'coin' if pv.coin_side else 'goods'} side"
    if pv.nile:
        marker += ", Nile food marker"
    cities = " · ".join(_city_text(snap, c) for c in pv.cities)
    return f"{name} [{marker}]: {cities}"


def _city_text(snap: Snapshot, place: int) -> str:
    good = int(snap.city_goods[place])
    owners = [f"P{p}" for p in range(snap.num_players) if snap.houses[p, place]]
    text = f"{snap.map.places[place]} {GOODS[good] if good >= 0 else '-'}"
    return text + (f" [{' '.join(owners)}]" if owners else "")


def _special_squares_text(snap: Snapshot) -> str:
    m = snap.map
    parts = []
    for square in m.special_squares:
        place = m.place_index(square)
        who = [f"P{pv.index}" for pv in snap.players for c in pv.colonists if not c.on_path and c.location == place]
        parts.append(f"{square}: {' '.join(who) or 'empty'}")
    return " · ".join(parts)


# --------------------------------------------------------------------------- helpers
def _counted(name: str, n: int) -> str:
    return name if n == 1 else f"{name} ×{n}"


def _wrap(text: str, first: str = INDENT, width: int = TEXT_WIDTH) -> Iterable[str]:
    return textwrap.wrap(text, width=width, initial_indent=first, subsequent_indent=first + INDENT)


def _colorize(text: str) -> str:
    def paint(code: str, s: str) -> str:
        return f"\x1b[{code}m{s}\x1b[0m"

    text = _PLAYER_RE.sub(lambda mt: paint(PLAYER_ANSI[int(mt.group(1))], mt.group(0)), text)
    text = _GOOD_RE.sub(lambda mt: paint(GOOD_ANSI[mt.group(1)], mt.group(0)), text)
    heads = ("PLAYERS", "DISPLAY", "PROVINCES", "CONCORDIA")
    return "\n".join(paint(HEADING_ANSI, line) if line.startswith(heads) else line for line in text.split("\n"))
