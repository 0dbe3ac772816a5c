"""In headless Chromium: the replay page shows what ``Game`` says, its controls work, and a whole
game is played in the web app by clicking only.

Every page is compared with the engine, not with the data it was given: ``Game`` is
replayed to decision k and its money, goods, houses, VP, colonists and markers are read
through its own accessors.
"""

from __future__ import annotations

import random
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from web_server import ServedApp

from concordia_env import Game
from concordia_env.engine.maps import MAP_NAMES
from concordia_env.engine.state import LOC_STOREHOUSE
from concordia_env.tools.web import GameOptions, create_app
from concordia_env.views.html import write_replay

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
PLAYERS = {"imperium": 4, "italia": 2, "aegyptus": 3, "creta": 5}
SEED = 8


def random_game(map_name: str, players: int, seed: int) -> list[int]:
    rng = np.random.default_rng(seed)
    game = Game.new(map_name, players, seed)
    actions = []
    while not game.is_over():
        action = int(rng.choice(game.legal_actions()))
        game.step(action)
        actions.append(action)
    return actions


def game_at(map_name: str, players: int, seed: int, actions: list[int], k: int) -> Game:
    game = Game.new(map_name, players, seed)
    for a in actions[:k]:
        game.step(a)
    return game


@pytest.fixture(scope="module")
def replays(tmp_path_factory) -> dict[str, tuple[str, list[int]]]:
    """One random game per map, written as a replay: map -> (file URL, actions)."""
    folder = tmp_path_factory.mktemp("replays")
    out = {}
    for map_name in MAP_NAMES:
        actions = random_game(map_name, PLAYERS[map_name], SEED)
        path = write_replay(actions, SEED, map_name, PLAYERS[map_name], folder / f"{map_name}.html")
        out[map_name] = (path.resolve().as_uri(), actions)
    return out


def open_replay(page, url: str) -> None:
    page.goto(url)
    page.wait_for_function("window.concordiaReplay !== undefined")


def shown_step(page) -> int:
    return int(page.inner_text("#step"))


def go_with_slider(page, k: int) -> None:
    page.locator("#slider").fill(str(k))
    assert shown_step(page) == k


def check_page_against_game(page, game: Game) -> None:
    """Panel and board of the page against the engine's public accessors."""
    text = lambda testid: page.inner_text(f"[data-testid={testid}]")  # noqa: E731
    assert int(text("turn")) == game.turn_count
    houses = game.houses()
    for p in range(game.num_players):
        assert int(text(f"money-{p}")) == game.money(p)
        assert [int(text(f"goods-{p}-{g}")) for g in range(5)] == game.goods(p).tolist()
        assert int(text(f"vp-{p}")) == game.score_breakdown(p)["total"]
        assert int(text(f"houses-{p}")) == int(houses[p].sum())
        on_board = sorted(int(loc) for loc in game.colonist_locations(p) if loc != LOC_STOREHOUSE)
        drawn = page.eval_on_selector_all(
            f"#board .colonist[data-player='{p}']", "els => els.map(e => Number(e.dataset.location))"
        )
        assert sorted(drawn) == on_board
    drawn_houses = page.eval_on_selector_all(
        "#board .house", "els => els.map(e => [Number(e.dataset.player), Number(e.dataset.place)])"
    )
    assert sorted(map(tuple, drawn_houses)) == sorted(map(tuple, np.argwhere(houses).tolist()))
    markers = page.eval_on_selector_all(
        "#board .marker", "els => els.map(e => [Number(e.dataset.good), Number(e.dataset.coin)])"
    )
    assert [tuple(m) for m in markers] == [(g, int(c)) for g, c in game.bonus_markers()]
    nile = page.eval_on_selector_all("#board .nile-marker", "els => els.map(e => Number(e.dataset.province))")
    assert nile == ([] if game.nile_marker is None else [game.nile_marker])
    cities = page.eval_on_selector_all("#board .city", "els => els.map(e => Number(e.dataset.good))")
    assert cities == [int(g) for g in game.city_goods() if g >= 0]
    if not game.is_over():
        assert int(page.get_attribute("[data-testid=to-decide]", "data-player")) == game.current_player


# ---------------------------------------------------------------------- the replay page
@pytest.mark.parametrize("map_name", MAP_NAMES)
def test_replay_shows_the_game_at_decision_k(page, replays, map_name):
    url, actions = replays[map_name]
    open_replay(page, url)
    players = PLAYERS[map_name]
    n = len(actions)
    assert int(page.inner_text("#steps")) == n
    for k in (0, 1, n // 3, 2 * n // 3, n):
        go_with_slider(page, k)
        check_page_against_game(page, game_at(map_name, players, SEED, actions, k))


def test_summary_chart_breakdown_and_log(page, replays):
    url, actions = replays["imperium"]
    game = game_at("imperium", 4, SEED, actions, len(actions))
    open_replay(page, url)
    summary = page.inner_text("#summary")
    winner = game.winner()
    assert "Imperium" in summary and f"P{winner} (P{winner}) wins" in summary
    assert int(page.get_attribute("[data-testid=winner]", "data-player")) == winner
    for p, score in enumerate(game.final_scores()):
        assert int(page.inner_text(f"[data-testid=final-score-{p}]")) == score
        breakdown = game.score_breakdown(p)
        for key, value in breakdown.items():
            assert int(page.inner_text(f"[data-testid=breakdown-{key}-{p}]")) == value
    # the chart: one line per player, one point per position, ending at the final order
    lines = page.eval_on_selector_all(
        "#chart .vp-line", "els => els.map(e => e.getAttribute('points').trim().split(' ').length)"
    )
    assert lines == [len(actions) + 1] * 4
    ends = page.eval_on_selector_all(
        "#chart .vp-line", "els => els.map(e => Number(e.getAttribute('points').trim().split(' ').pop().split(',')[1]))"
    )
    # higher VP is drawn higher up (smaller y)
    assert np.argsort(ends, kind="stable").tolist() == np.argsort(-game.final_scores(), kind="stable").tolist()
    # every decision in words, in order
    log = page.eval_on_selector_all("#log li[data-step]", "els => els.map(e => e.textContent)")
    assert len(log) == len(actions)
    replay = Game.new("imperium", 4, SEED)
    for k in (0, 5, len(actions) - 1):
        while replay.decision_count < k:
            replay.step(actions[replay.decision_count])
        assert log[k].endswith(replay.describe_action(actions[k]))
    # a click on a decision in the list goes there
    page.click("#log li[data-step='5']")
    assert shown_step(page) == 5


def test_arrows_buttons_and_keys_step_through_the_game(page, replays):
    url, actions = replays["italia"]
    open_replay(page, url)
    n = len(actions)
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    assert shown_step(page) == 3
    page.keyboard.press("ArrowLeft")
    assert shown_step(page) == 2
    page.click("#next")
    page.click("#next")
    assert shown_step(page) == 4
    page.click("#prev")
    assert shown_step(page) == 3
    page.keyboard.press("End")
    assert shown_step(page) == n and page.is_disabled("#next")
    page.keyboard.press("ArrowRight")
    assert shown_step(page) == n
    page.keyboard.press("Home")
    assert shown_step(page) == 0 and page.is_disabled("#prev")
    page.click("#last")
    assert shown_step(page) == n
    page.click("#first")
    assert shown_step(page) == 0
    go_with_slider(page, n // 2)
    # the slider has the focus now: the arrows still move one decision
    page.keyboard.press("ArrowRight")
    assert shown_step(page) == n // 2 + 1
    # ArrowUp: the first decision of the next turn
    game = game_at("italia", 2, SEED, actions, n // 2 + 1)
    page.keyboard.press("ArrowUp")
    later = game_at("italia", 2, SEED, actions, shown_step(page))
    before = game_at("italia", 2, SEED, actions, shown_step(page) - 1)
    assert later.turn_count == game.turn_count + 1 and before.turn_count == game.turn_count
    # the "last" and "next" lines are decisions k-1 and k in words
    k = shown_step(page)
    assert page.inner_text("#last-move").endswith(before.describe_action(actions[k - 1]))
    assert page.inner_text("#next-move").endswith(later.describe_action(actions[k]))


def test_jump_to_turn(page, replays):
    url, actions = replays["creta"]
    open_replay(page, url)
    turns = [game_at("creta", 5, SEED, actions, k).turn_count for k in range(0, len(actions) + 1)]
    for turn in (7, 40, turns[-1]):
        page.fill("#turn-input", str(turn))
        page.click("#turn-go")
        assert shown_step(page) == turns.index(turn)
        assert int(page.inner_text("[data-testid=turn]")) == turn
    page.fill("#turn-input", "12")
    page.press("#turn-input", "Enter")
    assert shown_step(page) == turns.index(12)


def test_play_and_pause(page, replays):
    url, actions = replays["aegyptus"]
    open_replay(page, url)
    page.select_option("#speed", "40")
    page.click("#play")
    page.wait_for_function("window.concordiaReplay.step >= 6")
    assert "pause" in page.inner_text("#play")
    page.click("#play")
    stopped = shown_step(page)
    assert "play" in page.inner_text("#play") and not page.evaluate("window.concordiaReplay.playing()")
    page.wait_for_timeout(300)
    assert shown_step(page) == stopped >= 6
    check_page_against_game(page, game_at("aegyptus", 3, SEED, actions, stopped))
    page.keyboard.press(" ")  # space plays again
    page.wait_for_function(f"window.concordiaReplay.step > {stopped}")
    page.keyboard.press(" ")
    assert not page.evaluate("window.concordiaReplay.playing()")


def test_hostile_seat_names_stay_text(page, tmp_path):
    evil = "<img src=x onerror=\"document.title='pwned'\">"
    actions = random_game("italia", 2, 1)[:30]
    path = write_replay(actions, 1, "italia", 2, tmp_path / "evil.html", seats=[evil, "random"])
    open_replay(page, path.resolve().as_uri())
    page.keyboard.press("End")
    assert page.title() != "pwned" and evil in page.inner_text("#summary")


# ---------------------------------------------------------------------- the web app
#: waits until the page waits for the person (or the game is over) at a step other than ``prev``;
#: returns what is offered: which choices sit in a folded group
_NEXT_DECISION = """(prev) => {
  const b = document.body.dataset;
  if (b.step === prev || !["you", "nobody"].includes(b.waiting)) return null;
  const buttons = [...document.querySelectorAll("#choices button.choice")];
  return {waiting: b.waiting, step: b.step, folded: buttons.map((e) => !!e.closest("details:not([open])"))};
}"""


def click_a_choice(page, folded: list[bool], rng: random.Random) -> None:
    """Click one of the offered choices at random, opening its folded group first."""
    k = rng.randrange(len(folded))
    button = page.locator("#choices button.choice").nth(k)
    if folded[k]:
        button.locator("xpath=ancestor::details/summary").click()
    button.click()


def test_a_whole_game_against_random_by_clicking(page, tmp_path):
    rng = random.Random(2)
    with ServedApp(create_app(GameOptions(map="italia", players=2, vs=("random",), seat=0, seed=SEED))) as served:
        page.goto(f"{served.url}/?delay=0")
        clicks, step = 0, None
        while True:
            offered = page.wait_for_function(_NEXT_DECISION, arg=step).json_value()
            if offered["waiting"] == "nobody":
                break
            click_a_choice(page, offered["folded"], rng)
            clicks, step = clicks + 1, offered["step"]
        (room,) = served.app.state.server.rooms.values()
        game = room.game
        assert game.is_over() and clicks == room.session.decisions[0] > 20
        scores = game.final_scores()
        for p in range(2):
            assert int(page.inner_text(f"[data-testid=final-score-{p}]")) == scores[p]
        assert int(page.get_attribute("[data-testid=winner]", "data-player")) == game.winner()
        check_page_against_game(page, game)
        assert page.locator("#log li[data-step]").count() == len(room.session.actions)
        # the finished game's replay, downloaded from the page
        with page.expect_download() as download:
            page.click("#download")
        saved = tmp_path / "downloaded.html"
        download.value.save_as(saved)
        html = saved.read_text(encoding="utf-8")
        for p in range(2):
            assert re.search(rf'data-testid="final-score-{p}">{scores[p]}<', html)


def test_a_stale_click_from_a_second_tab_is_refused_and_resynced(page, browser):
    with ServedApp(create_app(GameOptions(map="italia", players=2, vs=("random",), seat=0, seed=5))) as served:
        page.goto(f"{served.url}/?delay=0")
        page.wait_for_function("document.body.dataset.waiting === 'you'")
        (room,) = served.app.state.server.rooms.values()
        other = page.context.new_page()
        other.goto(f"{served.url}/?delay=0#{room.id}")  # the same game in a second tab
        other.wait_for_function("document.body.dataset.waiting === 'you'")
        page.locator("#choices button.choice").first.click()
        page.wait_for_function("document.body.dataset.step !== '0'")
        moved = room.step
        page.console_errors_allowed = other.console_errors_allowed = True  # the refused request is logged
        other.locator("#choices button.choice").first.click()
        other.wait_for_function("document.getElementById('error').textContent.includes('stale step')")
        other.wait_for_function(f"Number(document.body.dataset.step) >= {moved}")
        assert room.session.decisions[room.session.human_seat] == 1, "only the first tab's click was taken"
        assert int(other.evaluate("document.body.dataset.step")) == room.step
        other.close()


def test_screenshot_command_writes_a_picture_of_decision_k(browser, replays, tmp_path):
    """The command runs in its own process (Playwright's sync API allows one driver per thread)."""
    url, _ = replays["italia"]
    png = tmp_path / "shot.png"
    command = [sys.executable, "-m", "concordia_env.views.html.browser", url.removeprefix("file://"), str(png)]
    done = subprocess.run([*command, "--step", "20", "--width", "900"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    header = png.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n" and int.from_bytes(header[16:20], "big") == 900


def first_house(map_name: str, players: int, actions: list[int]) -> tuple[int, int, int]:
    """(decision, player, place) of the first house built in the game."""
    game = Game.new(map_name, players, SEED)
    for k, action in enumerate(actions):
        before = game.houses().copy()
        game.step(action)
        built = np.argwhere(game.houses() & ~before).tolist()
        if built:
            return k, built[0][0], built[0][1]
    raise AssertionError("no house was built")


def test_a_new_house_glows_after_one_step_and_nothing_glows_after_a_jump(page, replays):
    url, actions = replays["italia"]
    k, player, place = first_house("italia", 2, actions)
    open_replay(page, url)
    go_with_slider(page, k)
    assert page.locator("#board .fresh").count() == 0
    page.keyboard.press("ArrowRight")
    fresh = page.eval_on_selector_all(
        "#board .house.fresh", "els => els.map(e => [+e.dataset.player, +e.dataset.place])"
    )
    assert fresh == [[player, place]]


def test_new_game_form_starts_a_second_independent_game(page):
    with ServedApp(create_app(GameOptions(map="italia", players=2, vs=("random",), seat=0, seed=3))) as served:
        page.goto(f"{served.url}/?delay=0")
        page.wait_for_function("document.body.dataset.waiting === 'you'")
        (first,) = served.app.state.server.rooms.values()
        first_id = page.evaluate("location.hash.slice(1)")
        first_actions = list(first.session.actions)
        assert first_id == first.id
        page.select_option("#opt-map", "creta")
        page.fill("#opt-players", "3")
        page.fill("#opt-vs", "random heuristic")
        page.fill("#opt-seat", "2")
        page.click("#new-game-button")
        page.wait_for_function(f"location.hash.slice(1) !== '{first_id}' && document.body.dataset.waiting === 'you'")
        second = served.app.state.server.room(page.evaluate("location.hash.slice(1)"))
        assert second.game.map.name == "creta" and second.session.seats == ["random", "heuristic", "human"]
        assert "Creta" in page.inner_text("#game-label")
        step = second.step
        page.locator("#choices button.choice").first.click()
        page.wait_for_function(
            f"Number(document.body.dataset.step) > {step} && document.body.dataset.waiting !== 'agent'"
        )
        assert first.session.actions == first_actions, "the first game did not move"
        check_page_against_game(page, second.game)
