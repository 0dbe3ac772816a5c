"""Rendering: the text board states the position's facts; the picture is a real, changing image."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable

import numpy as np
import pytest

import concordia_env.views.render as render
from concordia_env import Game
from concordia_env.engine import actions as A
from concordia_env.engine.cards import BONUS_MARKER_COINS, CARD_ID, GOODS
from concordia_env.engine.maps import MAP_NAMES
from concordia_env.engine.state import PHASE_ARCHITECT_MOVE, PHASE_MERCATOR, PHASE_OVERFLOW, PHASE_PREFECT
from concordia_env.views.render import HumanViewer, render_rgb, render_text, save_png
from concordia_env.views.render import viewer as viewer_module
from concordia_env.views.render.__main__ import demo_position
from concordia_env.views.render.__main__ import main as render_main
from concordia_env.views.render.frame import frame_layout
from concordia_env.views.render.geometry import board_geometry
from concordia_env.views.render.text import TEXT_WIDTH
from concordia_env.views.render.view import snapshot

#: a small picture keeps the tests fast; the layout scales with the width
TEST_WIDTH = 800
PLAYERS = {"imperium": 5, "italia": 3, "aegyptus": 4, "creta": 2}
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def play_until(game: Game, seed: int, done: Callable[[Game], bool], max_steps: int = 3000) -> Game:
    """Random legal play until ``done(game)`` holds; fails the test when it never does."""
    rng = np.random.default_rng(seed)
    for _ in range(max_steps):
        if done(game):
            return game
        if game.is_over():
            break
        game.step(int(rng.choice(game.legal_actions())))
    pytest.fail(f"random play did not reach the wanted position (seed {seed})")


def find_position(map_name: str, players: int, done: Callable[[Game], bool], seeds: int = 10) -> Game:
    """The first position where ``done`` holds in random games of seeds 0, 1, ... (rare positions)."""
    for seed in range(seeds):
        game, rng = Game.new(map_name, players, seed=seed), np.random.default_rng(seed)
        while not game.is_over():
            if done(game):
                return game
            game.step(int(rng.choice(game.legal_actions())))
    pytest.fail(f"no random game of {seeds} reached the wanted position")


def mid_game(map_name: str, seed: int = 0, decisions: int = 150) -> Game:
    game = Game.new(map_name, PLAYERS[map_name], seed=seed)
    return play_until(game, seed, lambda g: g.decision_count >= decisions)


# --------------------------------------------------------------------------- text
def assert_text_facts(game: Game, text: str) -> None:
    """The text names every player's VP and money, each city with its good and houses, and the decision."""
    flat = " ".join(text.split())  # undo the wrapping
    for p in range(game.num_players):
        score = game.score_breakdown(p)["total"]
        assert re.search(rf"P{p}\s+VP\s+{score} · money\s+{game.money(p)}\b", text), f"player {p} line"
        top = game.discard_top(p)
        assert f"discard top: {CARD_ID[top] if top >= 0 else '-'}" in flat
    goods = game.city_goods()
    houses = game.houses()
    for c, city in enumerate(game.map.places):
        if goods[c] < 0:
            continue
        owners = " ".join(f"P{p}" for p in range(game.num_players) if houses[p, c])
        expected = f"{city} {GOODS[goods[c]]}" + (f" [{owners}]" if owners else "")
        assert expected in flat, f"{expected!r} missing"
    assert f"P{game.current_player} to decide: {game.phase_name}" in text
    assert f"Praefectus Magnus: P{game.praefectus_magnus}" in text


@pytest.mark.parametrize("map_name", MAP_NAMES)
def test_text_new_game_states_the_facts(map_name: str) -> None:
    game = Game.new(map_name, PLAYERS[map_name], seed=3)
    text = render_text(game)
    assert_text_facts(game, text)
    assert f"{game.map.capital}" in text
    assert "Prefect ×2" in text  # the starting hand
    assert "goods side" in text and "coin side" not in text


@pytest.mark.parametrize("map_name", MAP_NAMES)
def test_text_mid_game_states_the_facts(map_name: str) -> None:
    game = mid_game(map_name)
    assert game.houses().any(), "the random game should have built houses by now"
    text = render_text(game)
    assert_text_facts(game, text)
    for line in text.splitlines():
        assert len(line) <= TEXT_WIDTH, f"line longer than {TEXT_WIDTH}: {line!r}"
    for slot, card in enumerate(game.display()):
        if card >= 0:
            assert re.search(rf"^\s+{slot + 1}\s+{re.escape(CARD_ID[card])}\s", text, re.M)


def test_text_names_the_nile_marker_and_special_squares() -> None:
    text = render_text(Game.new("aegyptus", 3, seed=1))
    assert re.search(r"Kush \[[^\]]*Nile food marker\]", text)
    assert "special squares: frankincense: empty · gold: empty" in text


def test_text_shows_the_architect_steps_left() -> None:
    game = play_until(Game.new("italia", 3, seed=5), 5, lambda g: g.phase == PHASE_ARCHITECT_MOVE)
    assert f"Architect steps left: {game.steps_left}" in render_text(game)


def test_text_shows_the_mercator_kinds_traded() -> None:
    def traded_once(g: Game) -> bool:
        return g.phase == PHASE_MERCATOR and bool(g.traded_goods())

    game = play_until(Game.new("imperium", 4, seed=2), 2, traded_once)
    kinds = ", ".join(GOODS[g] for g in game.traded_goods())
    assert f"Mercator kinds traded: {kinds}" in render_text(game)


def test_text_shows_the_cash_bonus_a_prefect_would_take() -> None:
    def prefect_with_coins(g: Game) -> bool:
        return g.phase == PHASE_PREFECT and any(coin_side for _, coin_side in g.bonus_markers())

    game = play_until(Game.new("creta", 3, seed=1), 1, prefect_with_coins)
    coins = sum(int(BONUS_MARKER_COINS[g]) for g, coin_side in game.bonus_markers() if coin_side)
    assert f"cash bonus now: {coins + 2} sestertii" in render_text(game)  # Creta pays 2 more


def test_text_shows_goods_waiting_for_an_overflow_choice() -> None:
    game = find_position("aegyptus", 4, lambda g: g.phase == PHASE_OVERFLOW)
    waiting = game.incoming_goods(game.current_player)
    parts = [f"{n} {GOODS[g]}" for g, n in enumerate(waiting) if n]
    text = render_text(game)
    assert "goods waiting for storage: " + ", ".join(parts) in text
    assert f"P{game.current_player} to decide: storehouse full" in text


def test_text_colours_are_optional_and_change_nothing_else() -> None:
    game = mid_game("creta")
    plain = render_text(game)
    coloured = render_text(game, color=True)
    assert "\x1b[" not in plain
    assert "\x1b[" in coloured
    assert ANSI.sub("", coloured) == plain


def test_text_lists_every_hand_by_card_id() -> None:
    game = mid_game("imperium")
    text = " ".join(render_text(game).split())  # undo the wrapping
    for p in range(game.num_players):
        hand = game.hand(p)
        cards = ", ".join(CARD_ID[t] if hand[t] == 1 else f"{CARD_ID[t]} ×{hand[t]}" for t in np.flatnonzero(hand))
        assert f"hand {hand.sum()}: {cards} · discard top" in text


def test_text_and_picture_of_a_finished_game() -> None:
    game = demo_position("italia", 3, seed=3, decisions=5000)
    assert game.is_over()
    text = render_text(game)
    winner = game.winner()
    assert f"Game over. P{winner} wins." in text
    assert f"Concordia card: P{game.concordia_holder}" in text
    frame = render_rgb(game, width=TEST_WIDTH)
    assert frame.shape == (frame_layout("italia", 3, TEST_WIDTH).height, TEST_WIDTH, 3)


def test_command_line_prints_the_board_and_writes_a_png(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "demo.png"
    render_main(["--map", "creta", "--players", "2", "--decisions", "30", "--png", str(path), "--width", "640"])
    out = capsys.readouterr().out
    assert out.startswith("CONCORDIA · Creta · 2 players")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# --------------------------------------------------------------------------- picture
@pytest.mark.parametrize("map_name", MAP_NAMES)
def test_rgb_is_a_real_picture_of_constant_shape(map_name: str) -> None:
    game = Game.new(map_name, PLAYERS[map_name], seed=1)
    first = render_rgb(game, width=TEST_WIDTH)
    layout = frame_layout(map_name, game.num_players, TEST_WIDTH)
    assert first.dtype == np.uint8
    assert first.shape == (layout.height, TEST_WIDTH, 3)
    assert len(np.unique(first.reshape(-1, 3), axis=0)) > 50, "a blank or flat picture"
    later = render_rgb(mid_game(map_name, seed=1, decisions=60), width=TEST_WIDTH)
    assert later.shape == first.shape, "frames of one game must have one shape (videos)"
    assert not np.array_equal(later, first)


def test_rgb_changes_on_the_map_when_a_house_is_built() -> None:
    def can_build(g: Game) -> bool:
        legal = g.legal_actions()
        return bool(np.any((legal >= A.A_BUILD) & (legal < A.A_BUILD + len(g.map.places))))

    game = play_until(Game.new("imperium", 3, seed=4), 4, can_build)
    build = next(int(a) for a in game.legal_actions() if A.A_BUILD <= a < A.A_BUILD + len(game.map.places))
    after = game.clone()
    after.step(build)
    assert after.houses().sum() == game.houses().sum() + 1
    layout = frame_layout("imperium", 3, TEST_WIDTH)
    before_map = render_rgb(game, TEST_WIDTH)[: layout.map_height]
    after_map = render_rgb(after, TEST_WIDTH)[: layout.map_height]
    changed = np.argwhere(np.any(before_map != after_map, axis=2))
    assert len(changed), "the new house is not drawn"
    # the change is next to the city built in
    geo = board_geometry("imperium")
    city = geo.places[build - A.A_BUILD]
    x0, x1, y0, y1 = geo.bounds
    col = (city[0] - x0) / (x1 - x0) * layout.map_width
    row = (city[1] - y0) / (y1 - y0) * layout.map_height
    near = np.hypot(changed[:, 1] - col, changed[:, 0] - row) < 0.08 * layout.map_width
    assert near.mean() > 0.9


def test_save_png_writes_a_png(tmp_path) -> None:
    from PIL import Image

    game = mid_game("aegyptus", decisions=40)
    path = tmp_path / "board.png"
    save_png(game, path, width=TEST_WIDTH)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with Image.open(path) as image:
        assert image.format == "PNG"
        assert image.size == (TEST_WIDTH, frame_layout("aegyptus", 4, TEST_WIDTH).height)
        assert np.array_equal(np.asarray(image.convert("RGB")), render_rgb(game, TEST_WIDTH))


def test_rgb_refuses_a_width_too_small_for_the_text() -> None:
    with pytest.raises(ValueError, match="width"):
        render_rgb(Game.new("italia", 2), width=100)


def test_missing_matplotlib_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # makes `import matplotlib` fail
    for name in ("board_map", "panel"):
        monkeypatch.delitem(sys.modules, f"concordia_env.views.render.{name}", raising=False)
        monkeypatch.delattr(render, name, raising=False)
    with pytest.raises(ImportError, match=re.escape("pip install concordia-env[render]")):
        render_rgb(Game.new("italia", 2))


# --------------------------------------------------------------------------- snapshot and window
def test_snapshot_display_prices_add_card_and_slot_costs() -> None:
    from concordia_env.engine.cards import CARD_COST, SLOT_ANY_COST, SLOT_FIXED_COST

    game = Game.new("creta", 3, seed=2, display_costs="alternative")
    for sv in snapshot(game).display:
        assert np.array_equal(sv.fixed, CARD_COST[sv.card] + SLOT_FIXED_COST[1, sv.slot])
        assert sv.any_good == SLOT_ANY_COST[1, sv.slot]


def test_human_viewer_without_a_display_warns_once_and_does_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(viewer_module, "interactive_backend", lambda: None)
    monkeypatch.setattr(viewer_module, "_warned", False)
    viewer = HumanViewer(width=TEST_WIDTH)
    game = Game.new("italia", 2)
    with pytest.warns(RuntimeWarning, match="no interactive matplotlib backend"):
        viewer.render(game)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        viewer.render(game)
        HumanViewer(width=TEST_WIDTH).render(game)  # a second viewer stays quiet too
    assert not viewer.available
    viewer.close()
