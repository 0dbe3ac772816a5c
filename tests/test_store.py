"""The SQLite results store: round trip, unique game keys, atomic writes, schema check."""

from __future__ import annotations

import sqlite3

import pytest

from concordia_env.tools.store import SCHEMA_VERSION, GameRecord, Store


def _record(index: int = 0, tournament: str = "t-test") -> GameRecord:
    return GameRecord(
        tournament_id=tournament,
        game_index=index,
        seed=1234 + index,
        map="italia",
        players=2,
        options={"intermediate_scoring": False, "display_costs": "standard"},
        seats=["random", "heuristic"],
        actions=[3, 14, 159, 2],
        scores=[80, 95],
        winner=1,
        ranking=[1, 0],
        breakdowns=[{"Vesta": 40, "total": 80}, {"Vesta": 45, "total": 95}],
        think_seconds=[0.5, 1.25],
        decisions=[2, 2],
        duration=2.0,
    )


def test_a_game_reads_back_equal(tmp_path):
    with Store(tmp_path / "r.db") as store:
        store.register_tournament("t-test", {"agents": ["random", "heuristic"]})
        game_id = store.add_game(_record())
    with Store(tmp_path / "r.db") as store:
        back = store.game(game_id)
        assert back == _record() and back.game_id == game_id
        assert back.think_seconds == [0.5, 1.25] and back.duration == 2.0
        assert store.tournament_config("t-test") == {"agents": ["random", "heuristic"]}
        assert back.ranks() == [2, 1]


def test_a_game_index_is_stored_once(tmp_path):
    with Store(tmp_path / "r.db") as store:
        store.register_tournament("t-test", {})
        first = store.add_game(_record(0))
        again = store.add_game(_record(0))
        store.add_game(_record(1))
        assert first == again
        assert store.count("t-test") == 2 and store.finished_indices("t-test") == {0, 1}
        assert [r.game_index for r in store.games("t-test")] == [0, 1]
        assert [r.game_index for r in store.games("t-test", limit_index=1)] == [0]


def test_registering_a_known_tournament_keeps_its_config(tmp_path):
    with Store(tmp_path / "r.db") as store:
        store.register_tournament("t-a", {"seed": 0})
        store.register_tournament("t-a", {"seed": 99})
        store.register_tournament("t-b", {"seed": 1})
        store.add_game(_record(0, "t-a"))
        infos = store.tournaments()
    assert [(t.tournament_id, t.config, t.games) for t in infos] == [("t-a", {"seed": 0}, 1), ("t-b", {"seed": 1}, 0)]
    assert infos[0].first_game_id == infos[0].last_game_id


def test_a_failed_write_leaves_nothing_behind(tmp_path):
    with Store(tmp_path / "r.db") as store:
        # no tournament row: the foreign key refuses the game and the transaction rolls back
        with pytest.raises(sqlite3.IntegrityError):
            store.add_game(_record())
        assert store.count() == 0
        store.register_tournament("t-test", {})
        store.add_game(_record())
        assert store.count() == 1


def test_an_unknown_game_id_is_a_clear_error(tmp_path):
    with Store(tmp_path / "r.db") as store, pytest.raises(KeyError, match="no game with id 7"):
        store.game(7)


def test_a_file_of_another_schema_is_refused(tmp_path):
    path = tmp_path / "old.db"
    Store(path).close()
    with sqlite3.connect(path) as conn:
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(RuntimeError, match="schema"):
        Store(path)


def test_outcome_leaves_out_timings_only():
    a, b = _record(), _record()
    b.think_seconds, b.duration = [9.0, 9.0], 18.0
    assert a.outcome() == b.outcome()
    b.actions = [*b.actions, 5]
    assert a.outcome() != b.outcome()


def test_results_can_be_read_without_their_action_lists(tmp_path):
    with Store(tmp_path / "r.db") as store:
        store.register_tournament("t-test", {})
        store.add_game(_record())
        (slim,) = store.games("t-test", with_actions=False)
    assert slim.actions == [] and slim.num_actions == 4
    assert slim.scores == _record().scores and slim.breakdowns == _record().breakdowns
