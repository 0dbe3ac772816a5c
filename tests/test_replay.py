"""``concordia_env.tools.replay``: a stored game replays to its stored result, step by step."""

from __future__ import annotations

import io
import sqlite3
import sys

import pytest

from concordia_env import Game
from concordia_env.tools import replay as replay_module
from concordia_env.tools.replay import main
from concordia_env.tools.store import Store
from concordia_env.tools.tournament import TournamentConfig, run_tournament


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    """A results file with two small imperium games; returns (path, records)."""
    db = tmp_path_factory.mktemp("replay") / "games.db"
    config = TournamentConfig(agents=("random",), map="imperium", players=3, games=2, seed=7)
    return db, run_tournament(config, db=db).records


def test_replay_reproduces_the_stored_scores(stored, capsys):
    db, records = stored
    record = records[1]
    assert main([str(db), str(record.game_id), "--no-color"]) == 0
    out = capsys.readouterr().out
    assert f"replayed scores equal the stored ones: {record.scores}" in out
    assert out.count("=== turn ") >= 10
    assert f"[{record.num_actions}] P" in out
    assert "total" in out and f"winner P{record.winner}" in out


def test_a_changed_result_is_reported(stored, tmp_path, capsys):
    db, records = stored
    copy = tmp_path / "tampered.db"
    with sqlite3.connect(db) as src, sqlite3.connect(copy) as dst:
        src.backup(dst)
    with sqlite3.connect(copy) as conn:
        wrong = [s + 1 for s in records[0].scores]
        conn.execute("UPDATE games SET scores_json = ? WHERE id = ?", (str(wrong), records[0].game_id))
    assert main([str(copy), str(records[0].game_id), "--no-color"]) == replay_module.EXIT_MISMATCH
    assert "MISMATCH" in capsys.readouterr().out


def test_until_stops_early_without_judging(stored):
    _, records = stored
    out = io.StringIO()
    result = replay_module.replay(records[0], out, until=25)
    assert result.actions_applied == 25 and result.scores_match is None
    assert not result.game.is_over()
    assert "stopped after action 25 of" in out.getvalue()


def test_step_mode_stops_when_asked(stored, monkeypatch, capsys):
    db, records = stored
    monkeypatch.setattr("sys.stdin", io.StringIO("\n\nq\n"))
    assert main([str(db), str(records[0].game_id), "--step", "--no-color"]) == 0
    out = capsys.readouterr().out
    assert out.count("=== turn ") == 3
    assert "replayed scores" not in out


def test_listing_names_the_tournament_and_its_games(stored, capsys):
    db, records = stored
    assert main([str(db)]) == 0
    out = capsys.readouterr().out
    assert records[0].tournament_id in out and "2 games" in out


def test_png_dir_gets_one_picture_per_turn_or_a_clear_note(stored, tmp_path):
    _, records = stored
    out = io.StringIO()
    replay_module.replay(records[0], out, until=3, png_dir=tmp_path)
    pngs = sorted(tmp_path.glob("*.png"))
    try:
        from concordia_env.views.render import save_png  # noqa: F401
    except ImportError:
        assert not pngs and "board pictures need concordia_env.views.render.save_png" in out.getvalue()
    else:
        turns = out.getvalue().count("=== turn ")
        assert [p.name for p in pngs] == ["after_action_0003.png"] + [f"turn_{t:04d}.png" for t in range(turns)]


def test_board_text_falls_back_to_a_summary_without_the_renderer(monkeypatch):
    # a None entry in sys.modules makes the import fail, as if the renderer were not there
    monkeypatch.setitem(sys.modules, "concordia_env.views.render", None)
    text = replay_module.board_text(Game.new("italia", 2, 0))
    assert text.startswith("(text board unavailable") and "P1:" in text


def test_a_play_store_game_is_listed(tmp_path, capsys):
    db = tmp_path / "empty.db"
    with Store(db) as store:
        store.register_tournament("play-x", {"kind": "play", "map": "italia", "players": 2, "seats": ["human", "a"]})
    assert main([str(db)]) == 0
    assert "play-x  italia 2p  human a  0 games, no games" in capsys.readouterr().out
