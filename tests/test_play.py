"""The terminal game: grouped choices and the session (``concordia_env.tools.session``), input handling and a whole
game played from piped input (``concordia_env.tools.play``)."""

from __future__ import annotations

import io
import re
import subprocess
import sys
from pathlib import Path

import pytest

from concordia_env import Game, agents
from concordia_env.engine import actions as A
from concordia_env.engine.cards import GOODS
from concordia_env.engine.describe import goods_text, money_text
from concordia_env.engine.state import PHASE_PREFECT
from concordia_env.tools.play import play
from concordia_env.tools.session import (
    SHOW_ALL_LIMIT,
    QuitError,
    ask_human,
    group_choices,
    menu_text,
    new_session,
    numbered,
    unplayable_cards,
)
from concordia_env.tools.store import Store

ROOT = Path(__file__).resolve().parent.parent
#: enough "take the first choice" answers for any 2-player game
ANSWERS = 4000


def _positions(map_name: str, players: int, seed: int, limit: int = 400) -> list[Game]:
    """Positions along a random game, for checking the menus in every kind of decision."""
    game, agent = Game.new(map_name, players, seed), agents.make("random", seed=seed)
    out = []
    while not game.is_over() and len(out) < limit:
        out.append(game.clone())
        game.step(agent.act(game))
    return out


def test_every_legal_action_is_one_choice_with_its_own_text():
    for game in _positions("imperium", 4, seed=3):
        groups = group_choices(game)
        order = numbered(groups)
        legal = {int(a) for a in game.legal_actions()}
        assert set(order) == legal and len(order) == len(legal)
        assert all(g.actions and len(g.actions) == len(g.texts) for g in groups)
        assert all(len(set(g.texts)) == len(g.texts) for g in groups)


def test_long_lists_are_folded_into_groups_that_can_be_listed():
    game = next(g for g in _positions("imperium", 4, seed=5, limit=3000) if len(numbered(group_choices(g))) > 40)
    groups = group_choices(game)
    folded = menu_text(groups)
    assert "[a]" in folded and len(folded.splitlines()) < len(numbered(groups))
    everything = menu_text(groups, "*")
    assert f"{len(numbered(groups))}." in everything and "[a]" not in everything
    listed_a = menu_text(groups, "a")
    assert all(f"{n}." in listed_a for n in range(1, len(groups[0].actions) + 1))


def test_short_lists_are_shown_whole():
    game = Game.new("italia", 2, 0)
    groups = group_choices(game)
    assert len(numbered(groups)) <= SHOW_ALL_LIMIT
    text = menu_text(groups)
    assert "[a]" not in text and "1. play the" in text


def _prefect_choices(map_name: str, players: int, seed: int) -> list[tuple[Game, int, str]]:
    """(position, action, menu text) of every Prefect choice along a random game."""
    out = []
    for game in _positions(map_name, players, seed, limit=3000):
        if game.phase == PHASE_PREFECT:
            out += [(game, a, t) for g in group_choices(game) for a, t in zip(g.actions, g.texts, strict=True)]
    return out


@pytest.mark.parametrize(("map_name", "players"), [("imperium", 4), ("creta", 3), ("aegyptus", 3)])
def test_the_prefect_menu_says_what_each_choice_brings(map_name: str, players: int) -> None:
    """What the menu promises is what the player gets: the goods of a production, the cash bonus in sestertii."""
    checked = {"produce": 0, "cash": 0, "choice": 0}
    for game, action, text in _prefect_choices(map_name, players, seed=2):
        p, after = game.current_player, game.clone()
        after.step(action)
        if action == A.A_CASH:
            assert text.endswith(f"take the cash bonus: {money_text(after.money(p) - game.money(p))}")
            checked["cash"] += 1
            continue
        assert "you receive" in text
        province = action - A.A_PRODUCE
        if game.bonus_markers()[province][0] < 0:  # Gavdos: the player names the bonus good next
            assert after.phase_name == "Prefect: choose the Gavdos bonus good" and "of the good you choose" in text
            checked["choice"] += 1
            continue
        if after.phase_name.startswith("storehouse"):
            continue  # someone chooses what to keep: the goods are not all stored yet
        gained = after.goods(p) - game.goods(p)
        if f"your storehouse has room for {game.free_slots(p)})" in text:  # more than fits: kept by the rules
            assert gained.sum() == game.free_slots(p)
        else:
            assert f"you receive {goods_text(gained)}" in text, (text, gained)
        for q in range(game.num_players):
            got = after.goods(q) - game.goods(q)
            if q != p and got.any() and got.sum() < game.free_slots(q):  # all of it stored
                assert f"P{q} {goods_text(got)}" in text
        checked["produce"] += 1
    assert checked["produce"] > 5 and checked["cash"] > 0
    assert checked["choice"] > 0 or map_name != "creta", "Creta's Gavdos was offered"


def test_sestertii_are_counted_in_good_latin() -> None:
    assert (money_text(0), money_text(1), money_text(2)) == ("0 sestertii", "1 sestertius", "2 sestertii")
    texts = [t for game in _positions("italia", 2, seed=4, limit=600) for g in group_choices(game) for t in g.texts]
    assert any("sestertius" in t for t in texts), "a 1-sestertius price was shown (a brick city's first house)"
    assert not any(re.search(r"\b1 sestertii", t) for t in texts)
    assert all(good in GOODS for good in ("brick", "food"))


def test_a_card_that_cannot_be_played_is_named_with_its_reason() -> None:
    game = Game.new("italia", 2, 0)  # every hand holds a Diplomat, and no discard pile shows a card yet
    assert unplayable_cards(game) == ["Diplomat: no opponent's discard pile shows a card a Diplomat may copy"]
    out = io.StringIO()
    ask_human(game, lambda _prompt: "1", out, color=False)
    assert "cannot be played now: Diplomat: no opponent's discard pile shows a card" in out.getvalue()
    assert all(g.title != "Diplomat" for g in group_choices(game))


def test_bad_input_is_asked_again_and_a_number_takes_that_choice():
    game = Game.new("italia", 2, 0)
    answers = iter(["", "x", "0", "999", "a", "!", "?", "2"])
    out = io.StringIO()
    action = ask_human(game, lambda _prompt: next(answers), out, color=False)
    assert action == numbered(group_choices(game))[1]
    assert out.getvalue().count("is not a choice") == 4


def test_quitting_or_running_out_of_input_stops_the_game():
    session = new_session("italia", 2, ["random"], human_seat=0, seed=1)
    with pytest.raises(QuitError, match="quit"):
        play(session, lambda _prompt: "q", io.StringIO())

    def no_more(_prompt: str) -> str:
        raise EOFError

    with pytest.raises(QuitError, match="input ended"):
        play(new_session("italia", 2, ["random"], human_seat=1, seed=1), no_more, io.StringIO())


def test_seats_are_filled_from_one_or_several_opponent_specs():
    assert new_session("imperium", 4, ["random"], human_seat=2, seed=0).seats == ["random", "random", "human", "random"]
    assert new_session("italia", 3, ["random", "random"], human_seat=0, seed=0).seats == ["human", "random", "random"]
    with pytest.raises(ValueError, match="one per opponent"):
        new_session("italia", 3, ["random"] * 3, human_seat=0, seed=0)
    with pytest.raises(ValueError, match="--seat"):
        new_session("italia", 2, ["random"], human_seat=2, seed=0)


def test_a_whole_game_from_piped_input_is_saved_and_replays(tmp_path):
    db = tmp_path / "play.db"
    cmd = [sys.executable, "-m", "concordia_env.tools.play", "--map", "italia", "--players", "2", "--vs", "random"]
    cmd += ["--seat", "1", "--seed", "11", "--save", str(db), "--no-color"]
    done = subprocess.run(cmd, cwd=ROOT, input="1\n" * ANSWERS, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr
    out = done.stdout
    assert "=== game over ===" in out and "places: P" in out
    assert "P0 (random): " in out and "you: " in out
    with Store(db) as store:
        (record,) = store.games(store.tournaments()[0].tournament_id)
    assert record.seats == ["random", "human"] and record.seed == 11
    assert f"saved as game {record.game_id}" in out

    from concordia_env.tools.replay import main as replay_main

    assert replay_main([str(db), str(record.game_id), "--no-color"]) == 0


def test_the_prompt_names_the_numbers_and_the_letters_of_its_menu():
    game = next(g for g in _positions("imperium", 4, seed=5, limit=3000) if len(numbered(group_choices(g))) > 40)
    groups = group_choices(game)
    prompts: list[str] = []
    ask_human(game, lambda prompt: prompts.append(prompt) or "1", io.StringIO(), color=False)
    folded = re.findall(r"\[([a-z])\] ", menu_text(groups))  # the groups the menu shows as [x] headings
    assert folded
    assert f"1-{len(numbered(groups))}: take it" in prompts[0]
    assert f"{'/'.join(folded)}: list that group" in prompts[0] and "q: quit" in prompts[0]
    assert "letter:" not in prompts[0]
    small = Game.new("italia", 2, 0)  # a short menu folds nothing: no letters to offer
    ask_human(small, lambda prompt: prompts.append(prompt) or "1", io.StringIO(), color=False)
    assert "list that group" not in prompts[-1] and f"1-{len(numbered(group_choices(small)))}:" in prompts[-1]


@pytest.mark.parametrize(("answers", "status"), [("q\n", 0), ("", 1)])
def test_quitting_with_q_exits_0_and_input_that_ends_first_exits_1(answers: str, status: int):
    cmd = [sys.executable, "-m", "concordia_env.tools.cli", "play", "--map", "italia", "--players", "2"]
    cmd += ["--vs", "random", "--seat", "0", "--seed", "3", "--no-color"]
    done = subprocess.run(cmd, cwd=ROOT, input=answers, capture_output=True, text=True, timeout=300)
    assert done.returncode == status, done.stdout[-2000:] + done.stderr
    assert "the unfinished game is not saved" in done.stdout


# ---------------------------------------------------------------------- --save: checked first, never lost
def _not_a_results_file(tmp_path: Path) -> tuple[Path, bytes]:
    path = tmp_path / "notes.db"
    path.write_bytes(b"my notes, not a database " * 100)
    return path, path.read_bytes()


@pytest.mark.parametrize("kind", ["a directory", "not a database", "under a file"])
def test_an_unusable_save_file_is_refused_before_the_first_move(tmp_path: Path, kind: str) -> None:
    notes, content = _not_a_results_file(tmp_path)
    target = {"a directory": tmp_path, "not a database": notes, "under a file": notes / "play.db"}[kind]
    cmd = [sys.executable, "-m", "concordia_env.tools.play", "--map", "italia", "--players", "2", "--vs", "random"]
    cmd += ["--seed", "11", "--save", str(target), "--no-color"]
    done = subprocess.run(cmd, cwd=ROOT, input="1\n" * ANSWERS, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2, done.stdout[-2000:] + done.stderr
    assert "=== turn" not in done.stdout and "Traceback" not in done.stderr
    error = done.stderr.strip().splitlines()[-1]
    assert error.startswith("concordia play: error: ") and str(target) in error, error
    assert "--db" not in error and "--reset" not in error
    assert ("give --save another file" if kind != "under a file" else "check that") in error
    assert notes.read_bytes() == content and sorted(p.name for p in tmp_path.iterdir()) == ["notes.db"]


def _play_in_process(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture, db: Path) -> tuple[int, str]:
    """``concordia play --save db`` with piped answers; ``db`` is replaced by a foreign file once the game is over."""
    import concordia_env.tools.play as play_module

    original = play_module.play

    def play_then_break_the_file(*args, **kwargs):
        original(*args, **kwargs)
        db.unlink()
        db.write_bytes(b"replaced during the game " * 100)

    monkeypatch.setattr(play_module, "play", play_then_break_the_file)
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n" * ANSWERS))
    argv = ["--map", "italia", "--players", "2", "--vs", "random", "--seed", "11", "--save", str(db), "--no-color"]
    status = play_module.main(argv)
    return status, capsys.readouterr().out


def test_a_game_whose_save_fails_at_the_end_is_kept_in_another_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    monkeypatch.chdir(tmp_path)
    status, out = _play_in_process(monkeypatch, capsys, tmp_path / "play.db")
    assert status == 1 and "=== game over ===" in out
    assert f"could not save the game in {tmp_path / 'play.db'}" in out
    match = re.search(r"the game is kept in (\S+) instead: concordia replay (\S+) (\d+)", out)
    assert match and Path(match.group(1)).parent == tmp_path
    with Store(match.group(1)) as store:
        record = store.game(int(match.group(3)))
    assert record.seats == ["human", "random"] and record.seed == 11 and record.num_actions > 100

    from concordia_env.tools.replay import main as replay_main

    assert replay_main([match.group(1), match.group(3), "--no-color"]) == 0


def test_a_game_no_file_can_take_is_printed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    import tempfile

    nowhere = tmp_path / "a file"
    nowhere.write_text("")
    monkeypatch.setattr(Path, "cwd", classmethod(lambda cls: nowhere / "cwd"))
    monkeypatch.setattr(tempfile, "gettempdir", lambda: str(nowhere / "tmp"))
    status, out = _play_in_process(monkeypatch, capsys, tmp_path / "play.db")
    assert status == 1
    printed = out.split("no file could be written; the game, to keep by hand:\n")[1]
    import json

    kept = json.loads(printed.splitlines()[0])
    assert kept["seed"] == 11 and kept["seats"] == ["human", "random"] and len(kept["actions"]) > 100
