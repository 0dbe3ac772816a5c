"""The position format (``concordia_env.engine.position``, ``docs/position-format.md``).

* round trips: random moments of random games on all four maps, mid-action states of
  every kind included, and the game-over state;
* the JSON itself: valid, with the keys the format promises;
* the hand-written example of the docs: it loads, reads as written, and plays on;
* every inconsistency the loader refuses, each with the message that says why.
"""

from __future__ import annotations

import copy
import json
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from concordia_env import Game, agents
from concordia_env.engine import actions as A
from concordia_env.engine.cards import K_ARCHITECT, K_DIPLOMAT, K_MERCATOR, K_SENATOR
from concordia_env.engine.position import FORMAT, PositionError, from_dict, from_json, to_dict, to_json
from concordia_env.engine.state import (
    ACTION_KIND,
    BUYS_LEFT,
    PHASE_ARCHITECT_BUILD,
    PHASE_ARCHITECT_MOVE,
    PHASE_BONUS_GOOD,
    PHASE_BUY_CARDS,
    PHASE_COLONIST_SETTLE,
    PHASE_DIPLOMAT,
    PHASE_MERCATOR,
    PHASE_NAMES,
    PHASE_OVERFLOW,
    PHASE_PLAY_CARD,
    PHASE_TRIBUNE_COLONIST,
    PM_PASS_PENDING,
    STEPS_LEFT,
    TRADED_GOODS,
)

ROOT = Path(__file__).resolve().parents[1]
POSITIONS = ROOT / "tests" / "positions"
DOC = ROOT / "docs" / "position-format.md"
TURN_BOUNDARY = POSITIONS / "italia-2p-turn-boundary.json"
MID_ARCHITECT = POSITIONS / "italia-2p-mid-architect.json"

#: the player counts each map allows
PLAYER_COUNTS = {"imperium": (3, 4, 5), "italia": (2, 3, 4), "aegyptus": (2, 3, 4, 5), "creta": (2, 3, 4, 5)}
GAMES = [(name, n) for name, counts in PLAYER_COUNTS.items() for n in counts]
#: share of ordinary decisions that are round-tripped (the rarer decisions always are)
SAMPLE_RATE = 0.05
#: decisions that occur rarely in a game: every one of them is round-tripped
RARE = {PHASE_OVERFLOW, PHASE_BONUS_GOOD, PHASE_TRIBUNE_COLONIST, PHASE_ARCHITECT_BUILD, PHASE_COLONIST_SETTLE}
REQUIRED_KEYS = {
    "format",
    "map",
    "num_players",
    "current_player",
    "praefectus_magnus",
    "concordia_card",
    "cities",
    "bonus_markers",
    "display",
    "stack",
    "players",
}
PLAYER_KEYS = {"money", "goods", "colonists", "hand", "discard"}


def assert_round_trip(game: Game) -> None:
    text = game.to_json()
    back = Game.from_json(text)
    assert back == game, f"round trip changed the state at {game!r}:\n{text}"
    assert back.to_json() == text, "a state has exactly one text"


# =========================================================================== round trips
@pytest.fixture(scope="module")
def random_game_phases() -> Counter[str]:
    """Play one random game per map and player count; round-trip a sample of its states.

    Options vary between the games, so the intermediate scoring fields and the
    alternative display costs are covered too. Returns the decisions seen in round trips.
    """
    seen: Counter[str] = Counter()
    for i, (name, n) in enumerate(GAMES):
        game = Game.new(
            name,
            n,
            seed=100 + i,
            intermediate_scoring=i % 2 == 0,
            display_costs=("standard", "alternative")[i % 3 == 0],
        )
        agent = agents.make("random", seed=i)
        rng = np.random.default_rng(i)
        while not game.is_over():
            if game.phase in RARE or rng.random() < SAMPLE_RATE:
                assert_round_trip(game)
                seen[game.phase_name] += 1
            game.step(agent.act(game))
        assert_round_trip(game)
        seen[game.phase_name] += 1
    return seen


def test_round_trip_random_games(random_game_phases: Counter[str]) -> None:
    """Every decision kind was round-tripped at least once (Gavdos: Creta only)."""
    missing = [name for name in PHASE_NAMES if random_game_phases[name] == 0]
    assert not missing, f"no round trip in: {missing} ({dict(random_game_phases)})"


def _reach(name: str, n: int, seed: int, wanted: Callable[[Game], bool], limit: int = 20000) -> Game:
    """The first state of a seeded random game that ``wanted`` accepts."""
    game = Game.new(name, n, seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(limit):
        if wanted(game):
            return game
        if game.is_over():
            game = Game.new(name, n, seed=int(rng.integers(1 << 30)))
        game.step(int(rng.choice(game.legal_actions())))
    pytest.fail(f"{limit} random decisions from seed {seed} on {name} never reached the wanted state")


def _after_one(game: Game, action_range: str) -> Game | None:
    """The game after the first legal action of ``action_range``, if one is legal (on a clone)."""
    actions = [a for a in game.legal_actions() if a in A.action_range(action_range)]
    if not actions:
        return None
    after = game.clone()
    after.step(int(actions[0]))
    return after


def _has_action(game: Game, action_range: str) -> bool:
    return any(a in A.action_range(action_range) for a in game.legal_actions())


def _reach_mid_action(name: str, n: int, seed: int, phase: int, action_range: str) -> Game:
    """A state in decision ``phase`` right after one ``action_range`` action, still in that decision."""
    found: list[Game] = []

    def wanted(g: Game) -> bool:
        after = _after_one(g, action_range) if g.phase == phase else None
        if after is not None and after.phase == phase:
            found.append(after)
        return bool(found)

    _reach(name, n, seed, wanted)
    return found[0]


@pytest.mark.parametrize("name", sorted(PLAYER_COUNTS))
def test_round_trip_architect_mid_move(name: str) -> None:
    game = _reach_mid_action(name, 3, 1, PHASE_ARCHITECT_MOVE, "MOVE")
    assert to_dict(game)["pending"]["action"] == "Architect"
    assert_round_trip(game)


@pytest.mark.parametrize("name", sorted(PLAYER_COUNTS))
def test_round_trip_senator_after_one_purchase(name: str) -> None:
    game = _reach_mid_action(name, 4, 2, PHASE_BUY_CARDS, "BUY_CARD")
    pending = to_dict(game)["pending"]
    assert len(pending["slots_bought"]) == 1 and pending["buys_left"] == 1
    assert to_dict(game)["display"][pending["slots_bought"][0] - 1] is None
    assert_round_trip(game)


def test_round_trip_mercator_after_one_trade() -> None:
    game = _reach_mid_action("italia", 2, 3, PHASE_MERCATOR, "SELL")
    assert len(to_dict(game)["pending"]["traded"]) == 1
    assert_round_trip(game)


@pytest.mark.parametrize("name", ["creta", "aegyptus"])
def test_round_trip_overflow_of_another_player(name: str) -> None:
    game = _reach(name, 2, 20, lambda g: g.phase == PHASE_OVERFLOW and g.current_player != g.turn_player)
    assert to_dict(game)["pending"]["incoming"][game.current_player]
    assert_round_trip(game)


def test_round_trip_praefectus_magnus_pass_pending() -> None:
    game = _reach("creta", 2, 20, lambda g: g.phase == PHASE_OVERFLOW and bool(g.state[PM_PASS_PENDING]))
    assert to_dict(game)["pending"]["praefectus_magnus_passes"] is True
    assert_round_trip(game)


def test_round_trip_gavdos_bonus_good() -> None:
    game = _reach("creta", 3, 5, lambda g: g.phase == PHASE_BONUS_GOOD)
    assert to_dict(game)["bonus_markers"]["Gaudos"]["good"] is None
    assert_round_trip(game)


# =========================================================================== the JSON text
def test_to_json_is_valid_json_with_the_required_keys() -> None:
    game = _reach("aegyptus", 3, 4, lambda g: g.decision_count >= 40)
    d = json.loads(game.to_json())
    assert set(d) >= REQUIRED_KEYS
    assert d["format"] == FORMAT and d["map"] == "aegyptus" and d["num_players"] == 3
    assert d["nile_marker"] in game.map.nile_route
    assert all(set(p) >= PLAYER_KEYS for p in d["players"])
    assert len(d["display"]) == 7 and set(d["cities"]) == set(game.map.cities)
    assert d == to_dict(game)
    assert json.loads(to_json(game, indent=None)) == d and "\n" not in to_json(game, indent=None)
    assert json.loads(to_json(game, indent=4)) == d


def test_game_methods_and_module_functions_are_one_format() -> None:
    """``Game.to_dict/from_dict/to_json/from_json`` and :mod:`concordia_env.engine.position` give the same results."""
    game = _reach("italia", 2, 8, lambda g: g.decision_count >= 30)
    assert game.to_dict() == to_dict(game) and game.to_json() == to_json(game)
    assert Game.from_dict(game.to_dict()) == game == from_json(game.to_json(indent=None))
    for bad in (None, [1], {"format": FORMAT}, {**game.to_dict(), "num_players": 9}):
        with pytest.raises(PositionError):
            Game.from_dict(bad)
    for bad in (5, "{", b"\xff", "[]"):
        with pytest.raises(PositionError):
            Game.from_json(bad)


def test_to_json_writes_names_not_numbers() -> None:
    game = _reach("imperium", 3, 5, lambda g: g.phase == PHASE_MERCATOR)
    d = to_dict(game)
    assert d["pending"]["decision"] == "Mercator: trade"
    assert d["pending"]["action"] in ("Mercator", "Mercator (bought)")
    for p in d["players"]:
        for colonist in p["colonists"]:
            at = colonist["at"]
            assert at in game.map.places or at in game.map.path_ids
            assert not at.startswith("sea:") or colonist["kind"] == "sea"


def test_discard_is_written_in_card_type_order_with_the_top_last() -> None:
    game = from_json(MID_ARCHITECT.read_text())
    assert to_dict(game)["players"][0]["discard"] == ["Architect", "Senator", "Diplomat"]


# =========================================================================== hand-written
def test_hand_written_position_loads_as_written() -> None:
    game = from_json(TURN_BOUNDARY.read_text())
    d = to_dict(game)
    assert game.current_player == 0 and game.turn_player == 0 and game.phase == PHASE_PLAY_CARD
    assert game.turn_count == 4 and game.praefectus_magnus == 1 and game.concordia_holder is None
    assert d["options"] == {"intermediate_scoring": False, "display_costs": "standard"}
    assert d["cities"]["Cosa"] == {"good": "tool", "houses": [0]}
    assert d["bonus_markers"]["Campania"] == {"good": "cloth", "side": "coins"}
    # the stack was left out: the cards nobody has seen, deck I on top, in card-type order
    assert d["stack"] == [
        "Architect/II",
        "Prefect/II",
        "Mercator/II",
        "Colonist/II",
        "Consul/II",
        "Vintner/II",
        "Weaver/II",
    ]
    assert game.money(0) == 2 and list(game.goods(1)) == [1, 1, 1, 0, 2]
    assert d["players"][1]["colonists"] == [
        {"kind": "land", "at": "land:Casinum-Roma"},
        {"kind": "sea", "at": "sea:Neapolis-Roma"},
    ]
    assert game.hand_kinds(0)[K_DIPLOMAT] == 1
    assert_round_trip(game)


def test_hand_written_position_plays_on_to_the_end() -> None:
    game = from_json(TURN_BOUNDARY.read_text())
    agent = agents.make("random", seed=7)
    while not game.is_over():
        game.step(agent.act(game))
    assert game.concordia_holder is not None
    assert_round_trip(game)


def test_mid_action_example_is_the_hand_written_game_played_on() -> None:
    """The docs' mid-action example: Diplomat, copy the Architect, one move."""
    game = from_json(TURN_BOUNDARY.read_text())
    game.step(A.A_PLAY + K_DIPLOMAT)
    assert game.phase == PHASE_DIPLOMAT
    game.step(A.A_DIPLOMAT + 0)
    game.step(A.move(0, game.map.path_index("land:Cosa-Florentia")))
    assert from_json(MID_ARCHITECT.read_text()) == game
    pending = to_dict(game)["pending"]
    assert pending == {
        "decision": "Architect: move colonists or build",
        "card": "Diplomat",
        "action": "Architect",
        "steps_left": 1,
    }


def _doc_positions() -> list[dict[str, Any]]:
    blocks = re.findall(r"```json\n(.*?)```", DOC.read_text(), flags=re.DOTALL)
    return [json.loads(b) for b in blocks if b.lstrip().startswith("{")]


def test_docs_examples_are_the_test_positions() -> None:
    assert _doc_positions() == [json.loads(TURN_BOUNDARY.read_text()), json.loads(MID_ARCHITECT.read_text())]


def test_hand_written_mid_action_defaults_follow_the_card() -> None:
    """Left out, ``action``, ``steps_left`` and ``buys_left`` are what the played card starts with."""
    d = _base()
    d["players"][0]["hand"].remove("Mercator")
    d["players"][0]["discard"].append("Mercator")
    d["pending"] = {"decision": "Mercator: trade", "card": "Mercator"}
    game = from_dict(d)
    assert game.state[ACTION_KIND] == K_MERCATOR and game.state[TRADED_GOODS] == 0
    assert _has_action(game, "SELL")

    d = _base()  # player 1 has just played the Architect on top of their pile
    d["current_player"] = 1
    d["pending"] = {"decision": "Architect: move colonists or build", "card": "Architect"}
    game = from_dict(d)
    assert game.state[ACTION_KIND] == K_ARCHITECT and game.state[STEPS_LEFT] == 2
    assert _has_action(game, "MOVE")

    d = _base()
    d["current_player"] = 1
    d["players"][1]["hand"].remove("Senator")
    d["players"][1]["discard"].append("Senator")
    d["display"][2] = None
    d["players"][1]["hand"].append("Diplomat/I")
    d["pending"] = {"decision": "buy cards from the display", "card": "Senator", "slots_bought": [3]}
    game = from_dict(d)
    assert game.state[BUYS_LEFT] == 1 and game.state[ACTION_KIND] == K_SENATOR
    assert_round_trip(game)


# =========================================================================== refusals
def _base() -> dict[str, Any]:
    return json.loads(TURN_BOUNDARY.read_text())


def _fresh(name: str, n: int) -> dict[str, Any]:
    return to_dict(Game.new(name, n, seed=0, start_player=0))


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    """A change of one key, written as "players.0.money"."""

    def change(d: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        for key in parents:
            d = d[int(key)] if isinstance(d, list) else d[key]
        if isinstance(d, list):
            d[int(last)] = value
        else:
            d[last] = value

    return change


def _houses_everywhere(d: dict[str, Any]) -> None:
    for i, city in enumerate(c for c in d["cities"] if c != "Roma"):
        if i < 16:
            d["cities"][city]["houses"] = [0]


def _move_card(p: int, card: str, src: str, dst: str) -> Callable[[dict[str, Any]], None]:
    def change(d: dict[str, Any]) -> None:
        d["players"][p][src].remove(card)
        d["players"][p][dst].append(card)

    return change


# (case id, change of the hand-written position, pattern the message must match)
REFUSALS: list[tuple[str, Callable[[dict[str, Any]], None], str]] = [
    ("format", _set("format", "concordia/0"), r"format: must be 'concordia-position/1'"),
    ("missing key", lambda d: d.pop("display"), r"required key 'display' is missing"),
    ("typo key", lambda d: d.update(curent_player=0), r"unknown key 'curent_player'"),
    ("unknown map", _set("map", "atlantis"), r"map: unknown map 'atlantis'"),
    ("player count", _set("num_players", 5), r"num_players: .*Italia.* not 5"),
    ("player list", lambda d: d["players"].pop(), r"players: num_players is 2 but 1 players"),
    ("unknown city", lambda d: d["cities"].update(Atlantis={"good": "wine"}), r"cities.Atlantis: no city 'Atlantis'"),
    ("city missing", lambda d: d["cities"].pop("Cosa"), r"missing: Cosa"),
    ("unknown good", _set("cities.Cosa.good", "gold"), r"cities.Cosa.good: unknown good 'gold'"),
    ("token counts", _set("cities.Aquileia.good", "cloth"), r"the A cities .* but the A tokens are"),
    ("house in capital", lambda d: d["cities"].update(Roma={"good": None, "houses": [0]}), r"capital Roma"),
    ("capital good", lambda d: d["cities"].update(Roma={"good": "wine"}), r"capital Roma has no city token"),
    ("two houses", _set("cities.Cosa.houses", [0, 0]), r"player 0 has two houses in Cosa"),
    ("house owner", _set("cities.Cosa.houses", [2]), r"cities.Cosa.houses: must be at most 1"),
    ("16 houses", _houses_everywhere, r"player 0 has 16 houses; a player has 15"),
    ("unknown province", lambda d: d["bonus_markers"].update(Gallia={"good": "wine"}), r"no province 'Gallia'"),
    ("province missing", lambda d: d["bonus_markers"].pop("Sicilia"), r"missing: Sicilia"),
    ("marker good", _set("bonus_markers.Venetia.good", "wine"), r"bonus_markers.Venetia: .* cloth"),
    ("marker null", _set("bonus_markers.Venetia.good", None), r"but Gavdos"),
    ("marker side", _set("bonus_markers.Venetia.side", "heads"), r"unknown side 'heads'"),
    ("nile elsewhere", lambda d: d.update(nile_marker="Kush"), r"only the Aegyptus map has a Nile marker"),
    ("negative money", _set("players.0.money", -1), r"players\[0\].money: must be at least 0, got -1 \(negative\)"),
    ("negative goods", _set("players.1.goods.food", -2), r"players\[1\].goods.food: .*negative"),
    ("storehouse", _set("players.0.goods.brick", 6), r"players\[0\]: 9 goods and 4 colonists .* 12 slots"),
    (
        "4 land colonists",
        lambda d: d["players"][0]["colonists"].extend([{"kind": "land", "at": "Roma"}] * 3),
        r"3 land colonists at most",
    ),
    ("colonist kind", _set("players.0.colonists.0.kind", "air"), r"unknown colonist kind 'air'"),
    ("unknown path", _set("players.0.colonists.0.at", "land:Cosa-Atlantis"), r"neither a place .* nor 'storehouse'"),
    (
        "path kind",
        _set("players.0.colonists.0.at", "sea:Cosa-Roma"),
        r"a land colonist cannot stand on the sea:Cosa-Roma",
    ),
    ("shared path", _set("players.1.colonists.0.at", "land:Cosa-Roma"), r"only one colonist fits on land:Cosa-Roma"),
    ("city without house", _set("players.0.colonists.0.at", "Florentia"), r"has a house: Florentia"),
    ("unknown card", lambda d: d["players"][0]["hand"].append("Emperor"), r"hand\[6\]: unknown card id 'Emperor'"),
    ("card twice", lambda d: d["players"][1]["hand"].append("Mason/I"), r"Mason/I is a single card, .* display\[0\]"),
    ("removed deck", lambda d: d["display"].__setitem__(6, "Architect/III"), r"Architect/III is in a deck removed"),
    ("starting card sold", lambda d: d["display"].__setitem__(6, "Architect"), r"Architect is a starting card"),
    ("display too long", lambda d: d["display"].append("Prefect/II"), r"the display has 7 slots"),
    ("display gap", lambda d: d["display"].__setitem__(1, None), r"close up to the left"),
    (
        "empty slot",
        lambda d: (d["display"].__setitem__(6, None), d["players"][1]["hand"].append("Prefect/I")),
        r"empty while the stack still holds cards",
    ),
    ("stack missing a card", _set("stack", ["Architect/II"]), r"stack: .*missing: Prefect/II"),
    ("stack card twice", _set("stack", ["Mason/I"]), r"stack\[0\]: Mason/I is a single card"),
    ("starting cards", lambda d: d["players"][0]["hand"].remove("Diplomat"), r"players\[0\]: .*starting cards"),
    ("extra Prefect", lambda d: d["players"][1]["hand"].append("Prefect"), r"players\[1\]: .*found .*3×Prefect"),
    ("Tribune discarded", _move_card(0, "Tribune", "hand", "discard"), r"the Tribune never stays in the discard"),
    ("current player", _set("current_player", 2), r"current_player: must be at most 1, got 2"),
    ("current player type", _set("current_player", "0"), r"current_player: must be an integer"),
    ("turn player", lambda d: d.update(turn_player=1), r"only a full storehouse asks another player"),
    ("praefectus magnus", _set("praefectus_magnus", -1), r"praefectus_magnus: must be at least 0"),
    ("concordia holder", _set("concordia_card", 3), r"concordia_card: must be at most 1"),
    ("final turns", lambda d: d.update(concordia_card=1, final_turns_left=2), r"so 1 turn ends are left, not 2"),
    ("final turns early", lambda d: d.update(final_turns_left=2), r"null while nobody holds the Concordia card"),
    ("unknown decision", lambda d: d.update(pending={"decision": "pass"}), r"unknown decision 'pass'"),
    ("action for decision", lambda d: d.update(pending={"decision": "Mercator: trade"}), r"action of a Mercator"),
    (
        "card not on top",
        lambda d: d.update(pending={"decision": "Prefect: produce or cash bonus", "card": "Prefect"}),
        r"players\[0\].discard: the Prefect played this turn must be on top",
    ),
    ("incoming", lambda d: d.update(pending={"incoming": [{"wine": 1}, {}]}), r"goods wait for a storehouse only"),
    ("traded", lambda d: d.update(pending={"traded": ["wine", "food", "tool"]}), r"at most 2 different goods"),
    ("pending typo", lambda d: d.update(pending={"decison": "play a card"}), r"pending: unknown key 'decison'"),
    ("game over player", lambda d: d.update(pending={"decision": "game over"}), r"current_player: must be null"),
    ("options", lambda d: d.update(options={"display_costs": "cheap"}), r"options.display_costs: must be one of"),
    ("intermediate off", _set("players.0.intermediate_vp", 3), r"intermediate scoring option is off"),
]


@pytest.mark.parametrize(("change", "pattern"), [r[1:] for r in REFUSALS], ids=[r[0] for r in REFUSALS])
def test_inconsistent_position_is_refused(change: Callable[[dict[str, Any]], None], pattern: str) -> None:
    d = _base()
    from_dict(copy.deepcopy(d))  # the unchanged position loads: the change alone is refused
    change(d)
    with pytest.raises(PositionError, match=pattern) as info:
        from_dict(d)
    assert isinstance(info.value, ValueError)


def test_not_json_is_refused() -> None:
    with pytest.raises(ValueError, match="a position is JSON text"):
        Game.from_json("{'format': 1}")
    with pytest.raises(ValueError, match="position: must be a JSON object"):
        Game.from_json("[1, 2]")


def test_aegyptus_sea_paths_are_shared_but_squares_are_not() -> None:
    d = _fresh("aegyptus", 2)
    d["players"][0]["colonists"][1]["at"] = "sea:Alexandria-Memphis"
    d["players"][1]["colonists"][1]["at"] = "sea:Alexandria-Memphis"
    assert_round_trip(from_dict(d))  # any number of sea colonists share an Aegyptus sea path
    d["players"][1]["colonists"][0]["at"] = d["players"][0]["colonists"][0]["at"] = "land:Alexandria-Memphis"
    with pytest.raises(PositionError, match="only one colonist fits on land:Alexandria-Memphis"):
        from_dict(d)

    d = _fresh("aegyptus", 2)
    d["players"][0]["colonists"][0]["at"] = "gold"
    with pytest.raises(PositionError, match="only sea colonists reach the gold square"):
        from_dict(d)
    d["players"][0]["colonists"][0]["at"] = "Memphis"
    d["players"][0]["colonists"][1:] = [{"kind": "sea", "at": "gold"}, {"kind": "sea", "at": "gold"}]
    with pytest.raises(PositionError, match="one colonist per player on the gold square"):
        from_dict(d)
    d["players"][0]["colonists"][2]["at"] = "frankincense"
    with pytest.raises(PositionError, match="can reach the frankincense square"):
        from_dict(d)  # the Red Sea is reached only by settling in an own Red Sea port
    d["cities"]["Berenice"]["houses"] = [0]
    assert_round_trip(from_dict(d))


def test_a_colonist_stands_only_where_the_capital_or_an_own_house_connects() -> None:
    d = _fresh("aegyptus", 2)
    d["players"][1]["colonists"][1]["at"] = "sea:Klysma-Rhaithou"  # Red Sea
    with pytest.raises(PositionError, match="player 1 can reach sea:Klysma-Rhaithou"):
        from_dict(d)
    d["cities"]["Rhaithou"]["houses"] = [1]
    assert_round_trip(from_dict(d))


def test_nile_marker_and_gavdos() -> None:
    d = _fresh("aegyptus", 3)
    assert d["nile_marker"] == "Kush"
    d["nile_marker"] = "Oasis"
    with pytest.raises(PositionError, match="the Nile marker moves along Kush"):
        from_dict(d)
    del d["nile_marker"]
    assert to_dict(from_dict(d))["nile_marker"] == "Kush"

    d = _fresh("creta", 2)
    assert d["bonus_markers"]["Gaudos"] == {"good": None, "side": "goods"}
    d["bonus_markers"]["Gaudos"] = {"good": "brick", "side": "coins"}  # any good once produced there
    assert_round_trip(from_dict(d))
    d["bonus_markers"]["Gaudos"] = {"good": None, "side": "coins"}
    with pytest.raises(PositionError, match="no marker"):
        from_dict(d)
    d["bonus_markers"]["Gaudos"] = {"good": "wine", "side": "goods"}
    with pytest.raises(PositionError, match="coin side up"):
        from_dict(d)


def test_game_over_without_the_concordia_card_is_refused() -> None:
    d = _base()
    d.update(current_player=None, turn_player=0, pending={"decision": "game over"})
    with pytest.raises(PositionError, match="only ends after someone took the Concordia card"):
        from_dict(d)
    d.update(concordia_card=1)
    game = from_dict(d)
    assert game.is_over() and game.winner() in (0, 1)
    assert_round_trip(game)


def test_builds_every_player_count_from_setup() -> None:
    """A freshly set-up game of every map and player count loads back unchanged."""
    for name, n in GAMES:
        game = Game.new(name, n, seed=n)
        assert_round_trip(game)
        d = to_dict(game)
        del d["stack"]  # setup stacks each deck in random order: leaving it out re-sorts it
        restacked = from_dict(d)
        assert Counter(to_dict(restacked)["stack"]) == Counter(to_dict(game)["stack"])


def test_colonists_in_cities_follow_the_settling_rule() -> None:
    """A colonist in a city was settled there: the capital or a city with an own house, with a path of its kind
    (the same check as the Colonist's, ``legal.settling_place_refusal``)."""
    d = _fresh("imperium", 3)
    d["players"][0]["colonists"][0]["at"] = "Novaria"
    with pytest.raises(PositionError, match="only after settling where its player has a house: Novaria"):
        from_dict(d)
    d["cities"]["Novaria"]["houses"] = [0]
    assert from_dict(d).colonist_locations(0)[0] == from_dict(d).map.place_index("Novaria")
    d = _fresh("imperium", 3)
    d["players"][0]["colonists"][1]["at"] = "Novaria"  # the sea colonist, in an inland city
    d["cities"]["Novaria"]["houses"] = [0]
    with pytest.raises(PositionError, match="no sea path leaves Novaria"):
        from_dict(d)
