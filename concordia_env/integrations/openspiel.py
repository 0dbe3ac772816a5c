"""Concordia as an OpenSpiel game: ``pyspiel.load_game("python_concordia")``.

Importing this module registers the game ``"python_concordia"`` with OpenSpiel (the
``openspiel`` extra: ``pip install "concordia-env[openspiel]"``), so OpenSpiel's algorithms
(MCTS, evaluation, tabular and RL tools) and its conformance tests
(``pyspiel.random_sim_test``) run on the engine. The rules are the engine's: every player
decision is one engine action, in the same ``Discrete(NUM_ACTIONS)`` space.

Chance and information
----------------------
The only secret of Concordia is the order of the face-down card stack: hands are built from
public purchases and plays, and which cards remain in each deck is public. Two models were
possible: hide the order and sample it (``SAMPLED_STOCHASTIC``), or draw every card when it
comes up (``EXPLICIT_STOCHASTIC``). The bridge takes the second, because it removes the
secret altogether: **the state holds no stack order at all**, so ``clone()``,
serialisation and every observation are the same whatever order a physical stack would
have, and no search can learn which card comes next. The game is therefore one of
*perfect information with chance* (``GameType.information = PERFECT_INFORMATION``,
``chance_mode = EXPLICIT_STOCHASTIC``), like backgammon.

Chance nodes (``current_player() == pyspiel.PlayerId.CHANCE``):

| chance node | outcome (action id) | probability |
| --- | --- | --- |
| setup: each lettered city, in map order | its city token's good | tokens of that good left ÷ tokens left, per letter |
| setup: the start player | the player | 1 / players |
| setup: the display, seven times | the card drawn (card type) | 1 / cards left in the current deck |
| after a purchase: each emptied slot | the card drawn (card type) | 1 / cards left in the current deck |

"The current deck" is the lowest-numbered deck with cards left: the stack is the shuffled
decks I, II, ... with deck I on top (docs/rules.md §2.4), so the next card is equally likely to be
any card still in that deck. Every sale card is a distinct card type, so each outcome has
the same probability. Between draws the engine's ``STACK`` array holds the cards left in a
canonical order (by deck, then card type) that carries no information; a position loaded
with a real stack order (``new_initial_state(game)``) drops that order the same way.

Because everything is public, the information state is the position itself: the
information-state tensor is the project's observation (:mod:`concordia_env.engine.observation`,
from the player's seat) and the information-state string is the position as compact JSON
(the bridge's document, below). The position is a sufficient statistic for play in a
perfect-information game; the full action history is OpenSpiel's ``state.history()``.

Parameters
----------
| parameter | default | meaning |
| --- | --- | --- |
| ``map`` | ``"italia"`` | ``imperium``, ``italia``, ``aegyptus``, ``creta`` |
| ``players`` | 2 | 2–5, as the map allows (the envs' ``num_players``; see :mod:`concordia_env.engine.defaults`) |
| ``intermediate_scoring`` | ``False`` | the intermediate scoring variant (docs/rules.md §8) |
| ``display_costs`` | ``"standard"`` | ``"standard"`` or ``"alternative"`` display slot costs |
| ``max_game_length`` | 3000 | turn cap in player decisions (OpenSpiel's ``max_game_length``) |
| ``utility`` | ``"win"`` | ``"win"`` or ``"vp_share"`` |
| ``observation_version`` | current (1) | the observation layout (``concordia_env.engine.observation`` versions) |

``max_game_length`` caps a game at that many player decisions (chance outcomes do not
count; a draw already under way is finished first). A game that reaches the cap ends and is
**scored as the position stands** (``Game.ranking()``: VP as if the game ended now, ties
broken by docs/rules.md §7). Uniformly random play takes 170–1,750 decisions (99th percentile about
1,070 over 4,200 random games on every map and player count), so the default cap is for
runaway play, not for normal games.

Returns
-------
Rewards are terminal (``RewardModel.TERMINAL``); ``returns()`` is 0 for everyone until the
game is over.

| ``utility`` | value for player p | type | range |
| --- | --- | --- | --- |
| ``"win"`` | +1 for the winner (tie-break included), −1/(n−1) for each other player | zero-sum | [−1, 1] |
| ``"vp_share"`` | p's VP ÷ all players' VP (1/n each if nobody scored) | constant-sum 1 | [0, 1] |

Raw VP is not offered as a utility because OpenSpiel needs a finite ``max_utility`` and
Vesta counts money, which has no upper bound; the VP share ranks the players exactly as VP
do and is proportional to VP within a game. ``state.scores()`` gives the VP themselves.

Serialisation
-------------
``state.to_json()`` / ``state.to_dict()`` (OpenSpiel's struct API) give the bridge's
document: the game parameters, then either the setup drawn so far or the position in the
project's position format (``docs/position-format.md``), with the display slots still to
be drawn written as ``null`` and listed in ``undrawn_slots`` and the stack in its canonical
order. ``game.new_initial_state(document)`` reads it back (a dict or JSON text), as well as
a plain position (dict, JSON text or a :class:`~concordia_env.Game`).
``pyspiel.serialize_game_and_state`` / ``deserialize_game_and_state`` carry the same
document (OpenSpiel pickles a Python state's attributes; the bridge's state pickles as its
JSON document).

Bad input
---------
``state.apply_action(a)`` checks ``a`` before OpenSpiel's C++ side sees it: a value that is
not an integer index in ``0..NUM_ACTIONS-1`` (a float, ``None``, a string, ``-1``, an
integer beyond int64), an illegal player action and an impossible chance outcome all raise
:class:`~concordia_env.IllegalActionError` (a ``ValueError``) with the state and its history
unchanged; so does any action on a terminal state (``ValueError``). ``action_to_string``
with an action outside the space, or a chance outcome outside its kind's range, raises
``ValueError``. ``load()`` and ``new_initial_state()`` raise ``ValueError`` for any bad
parameter or document (JSON nested too deeply, numbers OpenSpiel's ``int`` cannot hold), and
every message is short, whatever the size of the input. Only ``pyspiel``'s own entry points
(``pyspiel.load_game`` with a value its C++ parameter types cannot hold, a damaged string to
``deserialize_game_and_state``) raise OpenSpiel's errors before the bridge is reached.

``game.deserialize_state(text)`` refuses a state of another ``python_concordia`` game (another
map, player count, utility or any other parameter) with ``ValueError`` naming the
parameters that differ, as ``new_initial_state`` does: OpenSpiel would otherwise give the
game a state whose ``returns()`` and observations are for other seats. Trust: OpenSpiel
serialises a Python state as a pickle of its attributes (``__dict__=`` in the text), and
``deserialize_state`` / ``pyspiel.deserialize_game_and_state`` unpickle it before the bridge
sees anything, so a crafted string can run code: deserialize only strings you made. To
exchange positions with others, use the JSON document (``state.to_json()``,
``game.new_initial_state(text)``), which is read as data.

Versions
--------
| version | change |
| --- | --- |
| 1 | first release: explicit chance for setup and display refills, ``win`` / ``vp_share`` utilities |
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

try:
    import pyspiel
    from open_spiel.python.algorithms import mcts
except ImportError as e:  # pragma: no cover - depends on the installed extras
    raise ImportError(
        "concordia_env.integrations.openspiel needs OpenSpiel: "
        "pip install 'concordia-env[openspiel]' (open_spiel>=2.0.2)"
    ) from e

from concordia_env.engine import defaults, maps, position
from concordia_env.engine.actions import NUM_ACTIONS
from concordia_env.engine.cards import (
    CARD_DECK,
    CARD_ID,
    CITY_TOKENS,
    DISPLAY_SLOTS,
    DISPLAY_VARIANTS,
    GOODS,
    NUM_CARD_TYPES,
    NUM_SALE_CARDS,
)
from concordia_env.engine.errors import IllegalActionError, short_repr
from concordia_env.engine.game import Game, action_index
from concordia_env.engine.maps import Map
from concordia_env.engine.observation import OBS_SIZES, OBSERVATION_VERSION, check_observation_version, fill_observation
from concordia_env.engine.rules.setup import check_setup, empty_state, most_valuable_goods, new_state
from concordia_env.engine.state import (
    CITY_GOOD,
    CURRENT_PLAYER,
    DISPLAY,
    MAX_PLAYERS,
    OPT_INTERMEDIATE,
    STACK,
    STACK_SIZE,
)
from concordia_env.views.render import render_text

GAME_NAME = "python_concordia"
#: version of the bridge's state document (``state.to_json()``)
DOCUMENT_FORMAT = "concordia-openspiel/1"
UTILITIES: tuple[str, ...] = ("win", "vp_share")
#: the game parameters and their defaults (OpenSpiel infers each parameter's type from its default)
DEFAULT_PARAMETERS: dict[str, Any] = {
    "map": defaults.MAP,
    "players": defaults.NUM_PLAYERS,  # OpenSpiel's name for a game's player count
    "intermediate_scoring": False,
    "display_costs": "standard",
    "max_game_length": 3000,
    "utility": "win",
    "observation_version": OBSERVATION_VERSION,
}
MIN_PLAYERS = 2
#: the longest ``max_game_length`` (OpenSpiel keeps it in a C++ ``int``)
MAX_GAME_LENGTH_LIMIT = 2**31 - 1
CHANCE = int(pyspiel.PlayerId.CHANCE)
TERMINAL = int(pyspiel.PlayerId.TERMINAL)


def _game_type(utility: str) -> pyspiel.GameType:
    return pyspiel.GameType(
        short_name=GAME_NAME,
        long_name="Python Concordia (concordia-env)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        # the stack order is never part of the state: each card is drawn at a chance node
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.PERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM if utility == "win" else pyspiel.GameType.Utility.CONSTANT_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=MAX_PLAYERS,
        min_num_players=MIN_PLAYERS,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=DEFAULT_PARAMETERS,
    )


# =========================================================================== parameters
@dataclass(frozen=True)
class Config:
    """The checked parameters of one ``python_concordia`` game."""

    map: Map
    num_players: int
    intermediate_scoring: bool
    display_costs: str
    max_game_length: int
    utility: str
    observation_version: int

    @classmethod
    def from_params(cls, params: dict[str, Any]) -> Config:
        """Check the parameters (missing ones take their defaults); bad values raise ``ValueError``."""
        unknown = sorted(set(params) - set(DEFAULT_PARAMETERS))
        if unknown:
            raise ValueError(f"unknown parameter(s) {short_repr(unknown)}; known: {', '.join(DEFAULT_PARAMETERS)}")
        p = {**DEFAULT_PARAMETERS, **params}
        for name, default in DEFAULT_PARAMETERS.items():
            if type(p[name]) is not type(default):
                raise ValueError(f"parameter {name} is a {type(default).__name__}, got {short_repr(p[name])}")
        m = maps.load(p["map"])  # unknown maps raise ValueError
        check_setup(m, p["players"])
        if p["display_costs"] not in DISPLAY_VARIANTS:
            shown = short_repr(p["display_costs"])
            raise ValueError(f"display_costs must be one of {', '.join(DISPLAY_VARIANTS)}, got {shown}")
        if p["max_game_length"] < 1:
            raise ValueError(f"max_game_length must be at least 1, got {short_repr(p['max_game_length'])}")
        if p["max_game_length"] > MAX_GAME_LENGTH_LIMIT:  # OpenSpiel's GameInfo holds it in a C++ int
            shown = short_repr(p["max_game_length"])
            raise ValueError(f"max_game_length must be at most {MAX_GAME_LENGTH_LIMIT}, got {shown}")
        if p["utility"] not in UTILITIES:
            raise ValueError(f"utility must be one of {', '.join(UTILITIES)}, got {short_repr(p['utility'])}")
        check_observation_version(p["observation_version"])
        return cls(
            m,
            p["players"],
            p["intermediate_scoring"],
            p["display_costs"],
            p["max_game_length"],
            p["utility"],
            p["observation_version"],
        )

    def params(self) -> dict[str, Any]:
        return {
            "map": self.map.name,
            "players": self.num_players,
            "intermediate_scoring": self.intermediate_scoring,
            "display_costs": self.display_costs,
            "max_game_length": self.max_game_length,
            "utility": self.utility,
            "observation_version": self.observation_version,
        }

    @cached_property
    def lettered_cities(self) -> tuple[str, ...]:
        """The cities that get a city token, in the order their tokens are drawn (map order)."""
        return tuple(c for c in self.map.cities if self.map.letters.get(c))

    @cached_property
    def sale_cards(self) -> tuple[int, ...]:
        """Card types of the decks in use (decks I..players)."""
        return tuple(t for t in range(NUM_CARD_TYPES) if 1 <= CARD_DECK[t] <= self.num_players)

    @cached_property
    def setup_view(self) -> np.ndarray:
        """The board before any city token is drawn, as a state array to observe (never written to)."""
        s = empty_state(self.map, self.num_players, self.intermediate_scoring, self.display_costs)
        s[CURRENT_PLAYER] = -1
        return s

    def max_chance_nodes(self) -> int:
        """City tokens, the start player, and every card for sale drawn once."""
        return len(self.lettered_cities) + 1 + len(self.sale_cards)

    def check_position(self, game: Game) -> None:
        """A position must be of this game's map, player count and options."""
        wanted = (self.map.name, self.num_players, self.intermediate_scoring, self.display_costs)
        got = (
            game.map.name,
            game.num_players,
            bool(game.state[OPT_INTERMEDIATE]),
            DISPLAY_VARIANTS[game.display_costs_variant],
        )
        if got != wanted:
            raise ValueError(
                f"the position is (map, players, intermediate_scoring, display_costs) = {got}, "
                f"but this game is {wanted}"
            )


# =========================================================================== the stack, without its order
def _canonical_stack(cards: Sequence[int] | np.ndarray) -> list[int]:
    """``cards`` as a stack in canonical order, bottom first: lower decks on top, by card type within a deck.

    The order carries no information (every card is drawn at a chance node), and it keeps
    the array a valid engine state: the top card is one of the current deck.
    """
    top_first = sorted((int(CARD_DECK[t]), int(t)) for t in cards)
    return [t for _, t in reversed(top_first)]


def _write_stack(s: np.ndarray, cards: Sequence[int] | np.ndarray) -> None:
    """Store ``cards`` as the stack of the raw state ``s`` (a setup being built), in canonical order."""
    stack = _canonical_stack(cards)
    s[STACK : STACK + NUM_SALE_CARDS] = -1
    s[STACK : STACK + len(stack)] = stack
    s[STACK_SIZE] = len(stack)


def _stack_cards(s: np.ndarray) -> list[int]:
    return [int(t) for t in s[STACK : STACK + int(s[STACK_SIZE])]]


def _current_deck_cards(s: np.ndarray) -> list[int]:
    """The cards the next draw comes from: those of the lowest-numbered deck left, ascending."""
    cards = _stack_cards(s)
    if not cards:
        return []
    deck = min(int(CARD_DECK[t]) for t in cards)
    return sorted(t for t in cards if CARD_DECK[t] == deck)


# =========================================================================== the bridge's state
class Board:
    """Everything a ``python_concordia`` state holds; OpenSpiel copies and pickles this one object.

    * ``game``: the engine position, ``None`` while the setup draws city tokens and the
      start player;
    * ``tokens``: goods drawn so far for ``config.lettered_cities`` (the setup);
    * ``undrawn``: display slots waiting for a card, in the order they are filled.

    ``copy.deepcopy`` copies the state array only (the map is shared), and pickling goes
    through the JSON document, so ``clone()`` is cheap and ``serialize()`` carries the
    position format.
    """

    __slots__ = ("_doc", "_text", "config", "game", "tokens", "undrawn")

    def __init__(
        self, config: Config, game: Game | None, tokens: tuple[int, ...] = (), undrawn: tuple[int, ...] = ()
    ) -> None:
        self.config = config
        self.game = game
        self.tokens = tokens
        self.undrawn = undrawn
        self._text: str | None = None
        self._doc: str | None = None

    # ------------------------------------------------------------------ copying, pickling
    def __deepcopy__(self, memo: dict) -> Board:
        other = Board(self.config, self.game.clone() if self.game is not None else None, self.tokens, self.undrawn)
        other._text, other._doc = self._text, self._doc
        return other

    def __reduce__(self) -> tuple:
        return (_board_from_json, (self.document_text(),))

    def _changed(self) -> None:
        self._text = self._doc = None

    # ------------------------------------------------------------------ who moves
    @property
    def dealt(self) -> Game:
        """The engine game, which exists once the setup's tokens are drawn (players decide only then)."""
        if self.game is None:
            raise ValueError("the setup is still being drawn at chance nodes: there is no engine game yet")
        return self.game

    @property
    def drawing_tokens(self) -> bool:
        return self.game is None and len(self.tokens) < len(self.config.lettered_cities)

    @property
    def is_chance(self) -> bool:
        return self.game is None or bool(self.undrawn)

    @property
    def is_terminal(self) -> bool:
        g = self.game
        if g is None or self.undrawn:
            return False
        return g.is_over() or g.decision_count >= self.config.max_game_length

    def current_player(self) -> int:
        if self.is_chance:
            return CHANCE
        if self.is_terminal:
            return TERMINAL
        return self.dealt.current_player

    # ------------------------------------------------------------------ chance
    def chance_outcomes(self) -> list[tuple[int, float]]:
        """(outcome, probability) pairs of the pending chance event, ascending by outcome."""
        if self.drawing_tokens:
            left = self._tokens_left()
            return [(g, left.count(g) / len(left)) for g in sorted(set(left))]
        if self.game is None:
            n = self.config.num_players
            return [(p, 1.0 / n) for p in range(n)]
        if self.undrawn:
            cards = _current_deck_cards(self.game.state)
            return [(t, 1.0 / len(cards)) for t in cards]
        return []

    def _tokens_left(self) -> list[int]:
        """The tokens of the next city's letter not drawn yet (docs/rules.md §2.2: one per city of the letter)."""
        cities, letters = self.config.lettered_cities, self.config.map.letters
        k = len(self.tokens)
        letter = letters[cities[k]]
        left = list(CITY_TOKENS[letter])
        for city, good in zip(cities[:k], self.tokens, strict=True):
            if letters[city] == letter:
                left.remove(good)
        return left

    def apply_chance(self, outcome: int) -> None:
        """Take a chance outcome; any other value raises ``IllegalActionError`` (a ``ValueError``), nothing changed."""
        if outcome not in dict(self.chance_outcomes()):
            raise IllegalActionError(outcome, "not a possible chance outcome here; see chance_outcomes()")
        if self.drawing_tokens:
            self.tokens = (*self.tokens, outcome)
        elif self.game is None:
            self._start(outcome)
        else:
            self._draw(outcome)
        self._changed()

    def _start(self, start_player: int) -> None:
        """Set up the game with the drawn tokens and start player; the display is drawn next.

        ``new_state`` lays out everything the rules fix (money by turn order, colonists,
        hands, the Praefectus Magnus); its own random draws (tokens, stack) are replaced by
        the chance outcomes.
        """
        c, m = self.config, self.config.map
        s = new_state(m, c.num_players, 0, c.intermediate_scoring, c.display_costs, start_player)
        for city, good in zip(c.lettered_cities, self.tokens, strict=True):
            s[CITY_GOOD + m.place_index(city)] = good
        most_valuable_goods(m, s)
        s[DISPLAY : DISPLAY + DISPLAY_SLOTS] = -1
        _write_stack(s, c.sale_cards)
        self.game = Game(s, m)
        self.undrawn = tuple(range(DISPLAY_SLOTS))

    def _draw(self, card: int) -> None:
        game = self.dealt
        cards = _stack_cards(game.state)
        cards.remove(card)
        display = game.display()
        display[self.undrawn[0]] = card
        game.lay_out_cards(display, _canonical_stack(cards))
        self.undrawn = self.undrawn[1:]

    # ------------------------------------------------------------------ player actions
    def legal_actions(self) -> list[int]:
        if self.is_chance or self.is_terminal:
            return []
        return self.dealt.legal_actions().tolist()

    def apply_player_action(self, action: int) -> None:
        """One engine step; cards the engine drew to refill the display go back to be drawn by chance."""
        if self.is_chance or self.is_terminal:
            raise ValueError("no player decides here: " + ("a chance node" if self.is_chance else "the game is over"))
        s = self.dealt.state
        before = int(s[STACK_SIZE])
        self.dealt.step(action)  # IllegalActionError (the state unchanged) for an illegal action
        drawn = before - int(s[STACK_SIZE])
        if drawn:
            self._undraw(drawn)
        self._changed()

    def _undraw(self, count: int) -> None:
        """Put the last ``count`` cards of the display back into the stack, to be drawn at chance nodes.

        The engine refills the display left to right after closing the gaps, so the cards
        it drew are the last ``count`` filled slots.
        """
        game = self.dealt
        display = game.display()
        filled = [slot for slot in range(DISPLAY_SLOTS) if display[slot] >= 0]
        slots = tuple(filled[-count:])
        cards = _stack_cards(game.state) + [int(display[slot]) for slot in slots]
        display[list(slots)] = -1
        game.lay_out_cards(display, _canonical_stack(cards))
        self.undrawn = slots

    # ------------------------------------------------------------------ outcome
    def scores(self) -> np.ndarray:
        """VP per player as the position stands (0 for everyone before the setup is complete)."""
        if self.game is None:
            return np.zeros(self.config.num_players, dtype=np.int64)
        return self.game.scores()

    def returns(self) -> list[float]:
        """The utilities once the game is over (a finished game or the turn cap), else 0 for everyone."""
        return self.standing() if self.is_terminal else [0.0] * self.config.num_players

    def standing(self) -> list[float]:
        """The utilities as if the game ended at this position (what the turn cap pays).

        During the setup nobody stands ahead: 0 each for ``"win"``, 1/n for ``"vp_share"``.
        """
        n = self.config.num_players
        if self.game is None:
            return [0.0] * n if self.config.utility == "win" else [1.0 / n] * n
        if self.config.utility == "win":
            out = [-1.0 / (n - 1)] * n
            out[self.game.ranking()[0]] = 1.0
            return out
        scores = self.scores().astype(np.float64)
        total = scores.sum()
        return (scores / total).tolist() if total > 0 else [1.0 / n] * n

    # ------------------------------------------------------------------ views
    def setup_state(self) -> np.ndarray:
        """During the setup, a state array to observe: an empty board with the city tokens drawn so far."""
        c = self.config
        if not self.tokens:
            return c.setup_view  # OpenSpiel observes a new initial state to learn the tensor sizes, often
        s = c.setup_view.copy()
        for city, good in zip(c.lettered_cities, self.tokens, strict=False):
            s[CITY_GOOD + c.map.place_index(city)] = good
        return s

    def observe(self, player: int, out: np.ndarray) -> None:
        """Fill ``out`` (the observer's tensor, ``OBS_SIZES[observation_version]``) with ``player``'s observation."""
        if self.game is not None:
            self.game.observation(int(player), self.config.observation_version, out=out)
        else:
            fill_observation(self.setup_state(), self.config.map.tables, int(player), out)

    def text(self) -> str:
        """The position as the project's text board, with the chance event under way (cached)."""
        if self._text is None:
            self._text = self._make_text()
        return self._text

    def _make_text(self) -> str:
        c = self.config
        if self.game is None:
            drawn = ", ".join(f"{city} {GOODS[g]}" for city, g in zip(c.lettered_cities, self.tokens, strict=False))
            head = f"CONCORDIA · {c.map.title} · {c.num_players} players · setup\n"
            what = (
                f"Chance: city token of {c.lettered_cities[len(self.tokens)]}"
                if self.drawing_tokens
                else "Chance: the start player"
            )
            return f"{head}{what}\nCity tokens drawn: {drawn or '-'}\n"
        text = render_text(self.game)
        if self.undrawn:
            left = len(_current_deck_cards(self.game.state))
            text += (
                f"\nChance: draw a card for display slot {self.undrawn[0] + 1} "
                f"({len(self.undrawn)} to draw; {left} cards left in the current deck)\n"
            )
        elif self.is_terminal and not self.game.is_over():
            text += f"\nTurn cap of {c.max_game_length} decisions reached: scored as the position stands\n"
        return text

    def action_text(self, player: int, action: int) -> str:
        if player == CHANCE:
            kinds = (
                len(GOODS) if self.drawing_tokens else self.config.num_players if self.game is None else NUM_CARD_TYPES
            )
            if not 0 <= action < kinds:
                raise ValueError(f"chance outcome {action} is outside 0..{kinds - 1}")
            if self.drawing_tokens:
                return f"city token of {self.config.lettered_cities[len(self.tokens)]}: {GOODS[action]}"
            if self.game is None:
                return f"start player: player {action}"
            if self.undrawn:
                return f"draw {CARD_ID[action]} into display slot {self.undrawn[0] + 1}"
            return f"chance outcome {action}"
        if self.game is None:
            return f"action {action}"
        return self.game.describe_action(action)

    # ------------------------------------------------------------------ the JSON document
    def document(self) -> dict[str, Any]:
        """The bridge's state as JSON-ready objects (see the module docstring, Serialisation)."""
        doc: dict[str, Any] = {"format": DOCUMENT_FORMAT, "game": self.config.params()}
        if self.game is None:
            drawn = zip(self.config.lettered_cities, self.tokens, strict=False)
            doc["setup"] = {"city_tokens": {city: GOODS[g] for city, g in drawn}}
        else:
            doc["position"] = position.to_dict(self.game)
            doc["undrawn_slots"] = list(self.undrawn)
        return doc

    def document_text(self) -> str:
        """The document as one line of JSON (cached; the information-state string)."""
        if self._doc is None:
            self._doc = json.dumps(self.document(), ensure_ascii=False, separators=(",", ":"))
        return self._doc

    @classmethod
    def from_document(cls, doc: dict[str, Any], config: Config | None = None) -> Board:
        """Read a document (or a plain position dict); ``config``: the game it must belong to."""
        if not isinstance(doc, dict):
            raise ValueError(f"a state document is a JSON object, got {type(doc).__name__}")
        if doc.get("format") == position.FORMAT:
            if config is None:
                raise ValueError("a plain position needs the game it belongs to")
            return cls.from_game(position.from_dict(doc), config)
        if doc.get("format") != DOCUMENT_FORMAT:
            shown = short_repr(doc.get("format"))
            raise ValueError(f"format must be {DOCUMENT_FORMAT!r} or {position.FORMAT!r}, got {shown}")
        params = doc.get("game", {})
        if not isinstance(params, dict):
            raise ValueError(f"'game' holds the game parameters as an object, got {short_repr(params)}")
        own = Config.from_params(params)
        if config is not None and own != config:
            raise ValueError(f"the document is of the game {own.params()}, not {config.params()}")
        config = own
        if "setup" in doc:
            return cls._from_setup(doc["setup"], config)
        if "position" not in doc:
            raise ValueError("a state document has either 'setup' or 'position'")
        return cls._from_position(doc["position"], doc.get("undrawn_slots", []), config)

    @classmethod
    def _from_setup(cls, setup: Any, config: Config) -> Board:
        tokens = setup.get("city_tokens") if isinstance(setup, dict) else None
        if not isinstance(tokens, dict):
            raise ValueError("setup.city_tokens must be an object {city: good}")
        cities = config.lettered_cities[: len(tokens)]
        if set(tokens) != set(cities):  # JSON objects have no order: the map gives it
            first = ", ".join(cities)
            raise ValueError(f"setup.city_tokens are drawn in map order: the first {len(tokens)} are {first}")
        board = cls(config, None)
        for city in cities:
            good = tokens[city]
            if good not in GOODS:
                raise ValueError(f"setup.city_tokens.{city}: unknown good {short_repr(good)}")
            try:
                board.apply_chance(GOODS.index(good))
            except ValueError:
                raise ValueError(f"setup.city_tokens.{city}: no {good} token is left for its letter") from None
        return board

    @classmethod
    def _from_position(cls, d: Any, undrawn: Any, config: Config) -> Board:
        """Load a position whose ``undrawn_slots`` are null: fill them from the stack's top, load, draw back."""
        if not isinstance(d, dict):
            raise ValueError("'position' must be a position object (docs/position-format.md)")
        if not isinstance(undrawn, list) or not all(type(x) is int for x in undrawn):
            raise ValueError(f"undrawn_slots must be a list of display slot indices, got {short_repr(undrawn)}")
        slots = tuple(undrawn)
        if slots and slots != tuple(range(slots[0], slots[0] + len(slots))):
            raise ValueError(f"undrawn_slots are consecutive slots filled left to right, got {short_repr(list(slots))}")
        if slots and not (slots[0] >= 0 and slots[-1] < DISPLAY_SLOTS):
            raise ValueError(f"undrawn_slots are display slots 0..{DISPLAY_SLOTS - 1}, got {short_repr(list(slots))}")
        if slots:
            display, stack = d.get("display"), d.get("stack")
            if not isinstance(display, list) or len(display) != DISPLAY_SLOTS:
                raise ValueError(f"position.display must list the {DISPLAY_SLOTS} slots")
            if not isinstance(stack, list) or len(stack) < len(slots):
                raise ValueError("a position with undrawn slots lists its 'stack' (at least one card per slot)")
            if any(display[slot] is not None for slot in slots):
                raise ValueError("the undrawn display slots must be null")
            display = list(display)
            for k, slot in enumerate(slots):
                display[slot] = stack[k]
            d = {**d, "display": display, "stack": stack[len(slots) :]}
        game = position.from_dict(d)
        config.check_position(game)
        board = cls(config, game)
        game.lay_out_cards(game.display(), _canonical_stack(_stack_cards(game.state)))
        if slots:
            board._undraw(len(slots))
            if board.undrawn != slots:  # pragma: no cover - the display check of from_dict guarantees it
                raise ValueError(f"undrawn_slots {list(slots)} are not the last filled slots")
        return board

    @classmethod
    def from_game(cls, game: Game, config: Config) -> Board:
        """A board at an engine position (copied); the stack's order is dropped."""
        if not isinstance(game, Game):
            raise ValueError(f"expected a concordia_env.Game, got {type(game).__name__}")
        config.check_position(game)
        game = game.clone()
        game.lay_out_cards(game.display(), _canonical_stack(_stack_cards(game.state)))
        return cls(config, game)


def _check_board_of(board: Any, config: Config) -> None:
    """``ValueError`` unless ``board`` is a :class:`Board` of the game with this ``config``."""
    if not isinstance(board, Board):
        raise ValueError(f"a python_concordia state holds a Board, got {short_repr(board)}")
    if board.config != config:
        own, wanted = board.config.params(), config.params()
        differ = ", ".join(f"{k} {own[k]!r} (the game has {wanted[k]!r})" for k in wanted if own[k] != wanted[k])
        raise ValueError(f"the state is of another python_concordia game: {differ}")


def _board_from_json(text: str) -> Board:
    """Unpickling a board (``pyspiel.deserialize_game_and_state``) reads its JSON document."""
    return Board.from_document(json.loads(text))


# =========================================================================== OpenSpiel classes
class ConcordiaGame(pyspiel.Game):
    """The ``python_concordia`` game; parameters and models in the module docstring."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        config = Config.from_params(dict(params or {}))
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS,
            # chance outcomes are goods (tokens), players (start) or card types (draws)
            max_chance_outcomes=NUM_CARD_TYPES,
            num_players=config.num_players,
            min_utility=-1.0 if config.utility == "win" else 0.0,
            max_utility=1.0,
            utility_sum=0.0 if config.utility == "win" else 1.0,
            max_game_length=config.max_game_length,
        )
        super().__init__(_game_type(config.utility), info, config.params())
        self.config = config

    def new_initial_state(self, state: Any = None) -> ConcordiaState:
        """The start of a game (its setup is chance), or the state ``state`` describes.

        ``state`` may be a :class:`~concordia_env.Game` or a position (dict or JSON text,
        ``docs/position-format.md``): the state at that position, its stack order dropped;
        or a bridge document (``state.to_json()`` / ``to_dict()``). Anything else, or a
        position of another map, player count or options, raises ``ValueError``.
        """
        if state is None:
            return ConcordiaState(self, Board(self.config, None))
        if isinstance(state, Game):
            return ConcordiaState(self, Board.from_game(state, self.config))
        if isinstance(state, pyspiel.StateStruct):
            state = state.to_dict()
        if isinstance(state, str):
            try:
                state = json.loads(state)
            except RecursionError:
                raise ValueError("a state is given as JSON text: nested too deeply to read") from None
            except ValueError as e:  # not JSON, or an integer of more digits than Python reads
                raise ValueError(f"a state is given as JSON text: {str(e)[:200]}") from None
        return ConcordiaState(self, Board.from_document(state, self.config))

    def max_chance_nodes_in_history(self) -> int:
        return self.config.max_chance_nodes()

    def make_py_observer(self, iig_obs_type: Any = None, params: dict | None = None) -> Observer:
        """The observer OpenSpiel asks for: everything is public, so every kind shows the position."""
        if isinstance(iig_obs_type, dict):  # OpenSpiel's C++ side passes the parameters alone without a type
            iig_obs_type, params = None, iig_obs_type
        if params:
            raise ValueError(f"python_concordia observers take no parameters, got {params}")
        if iig_obs_type is not None and not iig_obs_type.public_info:
            return Observer("nothing", 0)  # no private information exists
        perfect_recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        size = OBS_SIZES[self.config.observation_version]
        return Observer("information state" if perfect_recall else "observation", size)


class ConcordiaState(pyspiel.State):
    """One position of ``python_concordia``; all of it lives in :attr:`board` (a :class:`Board`)."""

    def __init__(self, game: ConcordiaGame, board: Board | None = None) -> None:
        super().__init__(game)
        self.board = board if board is not None else Board(game.config, None)

    def __setattr__(self, name: str, value: Any) -> None:
        """Every ``board`` set on a state is one of its game: ``game.deserialize_state(text)`` sets it from the text.

        OpenSpiel rebuilds a Python state as a new initial state of the game it is asked
        on, then sets the attributes the text carries; a board of another map, player
        count, utility or other parameter would answer for seats the game does not have.
        """
        if name == "board":
            _check_board_of(value, self.get_game().config)
        super().__setattr__(name, value)

    # ------------------------------------------------------------------ OpenSpiel API
    def current_player(self) -> int:
        return self.board.current_player()

    def _legal_actions(self, player: int) -> list[int]:
        return self.board.legal_actions() if player == self.board.current_player() else []

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return self.board.chance_outcomes()

    def apply_action(self, action: Any) -> None:
        """Play ``action`` (a player's action or a chance outcome); the state is unchanged on refusal.

        Any value that is not an integer index in the action space (a float, ``None``, a
        string, ``-1``, an integer beyond int64) raises :class:`IllegalActionError` here,
        before OpenSpiel's C++ side would raise its own ``TypeError`` or ``SpielError``;
        an in-range action that is not legal raises it from the engine or the chance node.
        (Python callers come through here; C++ algorithms pass only actions they took from
        ``legal_actions()``.)
        """
        super().apply_action(action_index(action))

    def _apply_action(self, action: int) -> None:
        if self.board.is_chance:
            self.board.apply_chance(int(action))
        else:
            self.board.apply_player_action(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        return self.board.action_text(int(player), int(action))

    def is_terminal(self) -> bool:
        return self.board.is_terminal

    def returns(self) -> list[float]:
        return self.board.returns()

    def rewards(self) -> list[float]:
        # terminal rewards only: the last step pays the whole return
        return self.board.returns()

    def __str__(self) -> str:
        return self.board.text()

    def _to_struct(self) -> dict[str, Any]:
        """OpenSpiel's ``to_json()`` / ``to_dict()``: the bridge document (position format inside)."""
        return self.board.document()

    # ------------------------------------------------------------------ extras
    def position(self) -> Game:
        """A copy of the engine position (for the project's agents); not available during the setup."""
        if self.board.game is None:
            raise ValueError("the setup is not complete: no position yet")
        return self.board.game.clone()

    def scores(self) -> np.ndarray:
        """VP per player as the position stands."""
        return self.board.scores()


class Observer:
    """OpenSpiel's Python observer protocol (``tensor``, ``dict``, ``set_from``, ``string_from``).

    * ``"observation"``: the project's observation tensor from the player's seat, and the
      text board as the string;
    * ``"information state"``: the same tensor, and the position as compact JSON as the
      string (exact: two states have the same string exactly when they are the same
      position);
    * ``"nothing"``: no tensor and empty strings (Concordia has no private information).
    """

    KINDS = ("observation", "information state", "nothing")

    def __init__(self, kind: str, size: int) -> None:
        """``size``: the observation's length, ``OBS_SIZES[version]`` (it picks the version)."""
        if kind not in self.KINDS:
            raise ValueError(f"observer kind must be one of {self.KINDS}, got {kind!r}")
        self.kind = kind
        if kind == "nothing":
            self.tensor = None
            self.dict: dict[str, np.ndarray] = {}
        else:
            self.tensor = np.zeros(size, dtype=np.float32)
            self.dict = {"observation": self.tensor}

    def set_from(self, state: ConcordiaState, player: int) -> None:
        if self.tensor is not None:
            state.board.observe(player, self.tensor)

    def string_from(self, state: ConcordiaState, player: int) -> str:
        if self.kind == "observation":
            return state.board.text()
        if self.kind == "information state":
            return state.board.document_text()
        return ""


class StandingEvaluator(mcts.Evaluator):
    """An evaluator for OpenSpiel's MCTS: a leaf is worth the utility it would pay if the game ended there.

    No rollout: the VP standing of the position (``Board.standing``), computed by the
    compiled scoring in microseconds, where a random rollout to the end of a Concordia game
    takes hundreds of decisions. The prior is uniform over the legal actions (chance
    nodes: their outcome probabilities), like OpenSpiel's ``RandomRolloutEvaluator``.
    """

    def evaluate(self, state: ConcordiaState) -> np.ndarray:
        return np.array(state.board.standing())

    def prior(self, state: ConcordiaState) -> list[tuple[int, float]]:
        if state.is_chance_node():
            return state.chance_outcomes()
        legal = state.legal_actions(state.current_player())
        return [(a, 1.0 / len(legal)) for a in legal]


class AgentBot(pyspiel.Bot):
    """A concordia-env agent (``act(game) -> int``, ``reset(seed)``) as an OpenSpiel bot.

    The agent sees ``state.position()``, a copy of the engine position whose stack is in
    the canonical order (no secret to find there). ``restart_at`` reseeds the agent from
    the bot's own generator, so a series of games is reproducible from ``seed``.
    """

    def __init__(self, agent: Any, seed: int | None = None) -> None:
        pyspiel.Bot.__init__(self)
        self.agent = agent
        self._rng = np.random.default_rng(seed)

    def restart_at(self, state: ConcordiaState) -> None:
        self.agent.reset(int(self._rng.integers(2**31)))

    def inform_action(self, state: ConcordiaState, player_id: int, action: int) -> None:
        pass  # the agent reads the whole position at its next decision

    def step(self, state: ConcordiaState) -> int:
        if state.is_chance_node() or state.is_terminal():
            raise ValueError("AgentBot.step needs a player decision")
        return int(self.agent.act(state.position()))


def load(map: str = defaults.MAP, players: int = defaults.NUM_PLAYERS, **params: Any) -> ConcordiaGame:
    """``pyspiel.load_game("python_concordia", {...})`` with keyword arguments.

    The parameters are checked first (``ValueError`` naming the bad one), so a value that
    OpenSpiel's C++ side cannot hold (an integer beyond its ``int``, a numpy scalar) is
    refused with that message rather than a ``RuntimeError`` from the conversion.
    """
    return pyspiel.load_game(GAME_NAME, Config.from_params({"map": map, "players": players, **params}).params())


if GAME_NAME not in pyspiel.registered_names():
    pyspiel.register_game(_game_type(DEFAULT_PARAMETERS["utility"]), ConcordiaGame)

__all__ = [
    "DEFAULT_PARAMETERS",
    "GAME_NAME",
    "UTILITIES",
    "AgentBot",
    "Board",
    "ConcordiaGame",
    "ConcordiaState",
    "Config",
    "Observer",
    "StandingEvaluator",
    "load",
]
