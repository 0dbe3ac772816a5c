"""HTML replays without a browser: the stored frames say what ``Game`` says, the file is small and self-contained.

The frames are compared with ``Game``'s own accessors (not with the snapshot the writer
reads), at every decision of a random game on each map.
"""

from __future__ import annotations

import json
import re
import sqlite3
from html import unescape
from pathlib import Path

import numpy as np
import pytest

from concordia_env import Game, IllegalActionError
from concordia_env.engine.maps import MAP_NAMES
from concordia_env.tools.replay import main as replay_main
from concordia_env.tools.tournament import TournamentConfig, run_tournament
from concordia_env.views.html import decode_frames, encode_frames, record_replay, write_replay
from concordia_env.views.html.frames import FrameLayout

#: the issue's bound for a 4-player Imperium game
MAX_REPLAY_BYTES = 2 * 1024 * 1024
PLAYERS = {"imperium": 4, "italia": 3, "aegyptus": 5, "creta": 2}


def random_actions(map_name: str, players: int, seed: int, limit: int | None = None) -> list[int]:
    rng = np.random.default_rng(seed)
    game = Game.new(map_name, players, seed)
    actions: list[int] = []
    while not game.is_over() and (limit is None or len(actions) < limit):
        action = int(rng.choice(game.legal_actions()))
        game.step(action)
        actions.append(action)
    return actions


def page_data(html: str) -> dict:
    match = re.search(r'<script type="application/json" id="replay-data">(.*?)</script>', html, re.S)
    assert match, "the page carries its data in a JSON script element"
    return json.loads(match.group(1))


def check_frame(frame: np.ndarray, layout: FrameLayout, game: Game) -> None:
    """One stored frame against ``Game``'s accessors."""

    def get(name: str, player: int | None = None) -> list[int]:
        return frame[layout.slot(name, player)].tolist()

    assert get("turn") == [game.turn_count]
    assert get("decision") == [game.decision_count]
    assert get("current_player") == [game.current_player]
    assert get("phase") == [game.phase]
    assert get("game_over") == [int(game.is_over())]
    assert get("display") == game.display().tolist()
    assert get("city_goods") == game.city_goods().tolist()
    houses = game.houses()
    for p in range(game.num_players):
        assert get("money", p) == [game.money(p)]
        assert get("goods", p) == game.goods(p).tolist()
        assert get("hand", p) == game.hand(p).tolist()
        breakdown = game.score_breakdown(p)
        assert get("score", p) == [breakdown[k] for k in layout.score_keys]
        built = [place for place, bits in enumerate(get("houses")) if bits >> p & 1]
        assert built == np.flatnonzero(houses[p]).tolist()
    for slot, card in enumerate(game.display()):
        if card >= 0:
            fixed, any_units = game.display_price(slot)
            stored = get("display_price")[slot * 6 : slot * 6 + 6]
            assert stored == [*fixed.tolist(), any_units]
    markers = game.bonus_markers()
    assert get("marker_good") == [g for g, _ in markers]
    assert get("marker_coin") == [int(c) for _, c in markers]


@pytest.mark.parametrize("map_name", MAP_NAMES)
def test_every_frame_shows_what_the_game_says(map_name):
    players = PLAYERS[map_name]
    actions = random_actions(map_name, players, seed=11)
    replay = record_replay(Game.new(map_name, players, 11), actions, seed=11)
    data = replay.data
    layout = FrameLayout(
        globals={k: tuple(v) for k, v in data["layout"]["globals"].items()},
        player={k: tuple(v) for k, v in data["layout"]["player"].items()},
        player_base=data["layout"]["player_base"],
        player_size=data["layout"]["player_size"],
        num_players=players,
        score_keys=tuple(data["layout"]["score_keys"]),
    )
    frames = decode_frames(data["frames"])
    assert len(frames) == len(actions) + 1 == len(data["moves"]) + 1
    game = Game.new(map_name, players, 11)
    for k, action in enumerate(actions):
        check_frame(frames[k], layout, game)
        action_stored, text = data["moves"][k]
        assert action_stored == action
        assert data["strings"][text] == game.describe_action(action)
        game.step(action)
    check_frame(frames[-1], layout, game)
    result = data["result"]
    assert result["finished"] and result["scores"] == game.final_scores().tolist()
    assert result["winner"] == game.winner() and result["ranking"] == game.ranking()


def test_frames_round_trip_through_their_deltas():
    rng = np.random.default_rng(0)
    frames = [rng.integers(-1, 50, size=40) for _ in range(3)]
    frames.append(frames[-1].copy())  # an unchanged frame is an empty delta
    encoded = encode_frames(frames)
    assert encoded["deltas"][-1] == []
    assert all(np.array_equal(a, b) for a, b in zip(decode_frames(encoded), frames, strict=True))
    with pytest.raises(ValueError):
        encode_frames([])


def test_longest_four_player_imperium_game_stays_under_2_mb(tmp_path):
    """Random games are the longest (about 700 decisions for 4 players); the largest of three is measured."""
    sizes = {}
    for seed in range(3):
        actions = random_actions("imperium", 4, seed)
        path = write_replay(actions, seed, "imperium", 4, tmp_path / f"imperium-{seed}.html", seats=["random"] * 4)
        sizes[len(actions)] = path.stat().st_size
    decisions = max(sizes)
    print(f"4-player Imperium replays: {sizes} (decisions: bytes)")
    assert decisions > 400, "a random 4-player game is long: the bound is tested on a long one"
    assert max(sizes.values()) < MAX_REPLAY_BYTES


def test_page_is_self_contained_and_shows_the_summary(tmp_path):
    actions = random_actions("italia", 2, 5)
    path = write_replay(actions, 5, "italia", 2, tmp_path / "game.html", seats=["heuristic", "mcts:50"])
    html = path.read_text(encoding="utf-8")
    # nothing is fetched: no external scripts, styles, images or fonts; the only URL is the SVG namespace
    urls = set(re.findall(r"https?://[^\s\"'<>)]+", html))
    assert urls <= {"http://www.w3.org/2000/svg"}, urls
    assert not re.search(r"<(script|link|img)[^>]+(src|href)=\"(?!data:)", html)
    header = re.search(r'<header id="summary"[^>]*>(.*?)</header>', html, re.S).group(1)
    summary = unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", header)))
    game = Game.new("italia", 2, 5)
    for a in actions:
        game.step(a)
    winner = game.winner()
    assert "Italia" in summary and "heuristic" in summary and "mcts:50" in summary
    assert f"P{winner} ({['heuristic', 'mcts:50'][winner]}) wins" in summary
    for p, score in enumerate(game.final_scores()):
        assert f'data-testid="final-score-{p}">{score}<' in html


def test_unfinished_games_are_said_to_be(tmp_path):
    actions = random_actions("creta", 3, 2, limit=40)
    html = write_replay(actions, 2, "creta", 3, tmp_path / "part.html").read_text(encoding="utf-8")
    data = page_data(html)
    assert not data["result"]["finished"] and data["result"]["winner"] is None
    assert data["result"]["decisions"] == 40
    assert 'data-testid="unfinished"' in html


def test_seat_names_cannot_break_out_of_the_page(tmp_path):
    evil = '</script><script>document.title="pwned"</script><b onmouseover="x">'
    html = write_replay(random_actions("italia", 2, 1, limit=5), 1, "italia", 2, tmp_path / "x.html", seats=[evil, "b"])
    html = Path(html).read_text(encoding="utf-8")
    assert evil not in html
    assert page_data(html)["seats"][0] == evil  # the data keeps the name, escaped


@pytest.mark.parametrize(
    ("actions", "kwargs", "error"),
    [
        ([0, 1, 2], {}, IllegalActionError),
        ([], {"map": "atlantis"}, ValueError),
        ([], {"players": 7}, ValueError),
        ([], {"seats": ["only one"]}, ValueError),
        (["play"], {}, IllegalActionError),
    ],
)
def test_bad_input_is_refused_and_writes_nothing(tmp_path, actions, kwargs, error):
    path = tmp_path / "never.html"
    args = {"seed": 0, "map": "italia", "players": 2, **kwargs}
    with pytest.raises(error):
        write_replay(actions, args.pop("seed"), args.pop("map"), args.pop("players"), path, **args)
    assert not path.exists()


def test_an_illegal_action_names_its_decision():
    actions = random_actions("italia", 2, 3, limit=10)
    with pytest.raises(IllegalActionError, match="at decision 10"):
        record_replay(Game.new("italia", 2, 3), [*actions, 10_000])
    game = Game.new("italia", 2, 3)
    record_replay(game, actions)
    assert game == Game.new("italia", 2, 3), "the start position is left unchanged"


def test_actions_after_the_end_are_refused():
    actions = random_actions("italia", 2, 4)
    with pytest.raises(IllegalActionError, match="after the end"):
        record_replay(Game.new("italia", 2, 4), [*actions, actions[-1]])


# ---------------------------------------------------------------------- concordia_env.tools.replay --html / --play
@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    db = tmp_path_factory.mktemp("html") / "games.db"
    config = TournamentConfig(agents=("random", "heuristic"), map="imperium", players=3, games=1, seed=3)
    return db, run_tournament(config, db=db).records[0]


def test_stored_game_becomes_an_html_replay_with_its_scores(stored, tmp_path, capsys):
    db, record = stored
    out = tmp_path / "stored.html"
    assert replay_main([str(db), str(record.game_id), "--html", str(out)]) == 0
    data = page_data(out.read_text(encoding="utf-8"))
    assert data["result"]["scores"] == record.scores and data["seats"] == record.seats
    assert [a for a, _ in data["moves"]] == record.actions
    assert "wrote" in capsys.readouterr().out


def test_html_replay_of_a_changed_result_is_a_mismatch(stored, tmp_path, capsys):
    db, record = stored
    copy = tmp_path / "tampered.db"
    with sqlite3.connect(db) as src, sqlite3.connect(copy) as dst:
        src.backup(dst)
    with sqlite3.connect(copy) as conn:
        conn.execute("UPDATE games SET scores_json = ? WHERE id = ?", (str([0] * 3), record.game_id))
    assert replay_main([str(copy), str(record.game_id), "--html", str(tmp_path / "t.html")]) == 1
    assert "MISMATCH" in capsys.readouterr().out


def test_play_writes_a_new_game_between_agents(tmp_path, capsys):
    out = tmp_path / "new.html"
    assert replay_main(["--play", "heuristic", "random", "--map", "italia", "--seed", "4", "--html", str(out)]) == 0
    data = page_data(out.read_text(encoding="utf-8"))
    assert data["seats"] == ["heuristic", "random"] and data["result"]["finished"] and data["seed"] == 4
    with pytest.raises(SystemExit):
        replay_main(["--play", "heuristic", "random"])  # no --html
    with pytest.raises(SystemExit):
        replay_main(["--play", "heuristic", "nobody", "--map", "italia", "--html", str(tmp_path / "x.html")])
    assert not (tmp_path / "x.html").exists()


# ---------------------------------------------------------------------- training evaluation games
def test_evaluation_games_can_be_kept_as_replays(tmp_path):
    from concordia_env.engine.observation import OBS_SIZE
    from concordia_env.training.policy_net import NumpyActor
    from concordia_env.training.run_evaluation import evaluate

    rng = np.random.default_rng(0)
    actor = NumpyActor([rng.normal(size=(OBS_SIZE, 769)).astype(np.float32)], [np.zeros(769, np.float32)], "relu")
    result = evaluate(
        actor, "random", 3, map="italia", num_players=2, seed=1, index=0, max_turns=30, replay_dir=tmp_path / "r"
    )
    files = sorted((tmp_path / "r").iterdir())
    assert [f.name for f in files] == ["vs-random-game000.html", "vs-random-game001.html"]  # one per learner seat
    wins = 0
    for seat, path in enumerate(files):
        data = page_data(path.read_text(encoding="utf-8"))
        assert data["seats"][seat] == "policy (learner)" and data["seats"][1 - seat] == "random"
        wins += data["result"]["ranking"][0] == seat
    assert result.games == 3 and wins <= result.wins
