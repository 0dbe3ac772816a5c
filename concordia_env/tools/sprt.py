"""The sequential probability ratio test that stops an evaluation as soon as its answer is known.

::

    concordia evaluate learned --vs mcts:150 --sprt elo0=0 elo1=50 --games 2000 --workers 2

Wald's SPRT, as cutechess-cli's ``-sprt elo0=.. elo1=.. alpha=.. beta=..`` and fishtest run it,
on one Bernoulli outcome per game: did the evaluated agent win (first place by the rules'
tie-break; a game stopped at the turn cap counts as it stands). H0 says its win share is
``p0``, H1 that it is ``p1 > p0``. After ``n`` games with ``w`` wins the log-likelihood ratio is

    LLR = w log(p1 / p0) + (n - w) log((1 - p1) / (1 - p0))

and the test accepts H1 once ``LLR >= log((1 - beta) / alpha)``, H0 once ``LLR <= log(beta /
(1 - alpha))``; in between it plays on. ``alpha`` bounds the chance of accepting H1 when the
win share is ``p0`` (or less), ``beta`` of accepting H0 when it is ``p1`` (or more); between the
two either answer may come, which is what the indifference zone means. ``--games`` caps the
test: a test that reaches it undecided says so (inconclusive), with its LLR.

**Bounds in win share or in Elo.** ``p0=0.5 p1=0.6`` gives the win shares; ``elo0=0 elo1=50``
gives Elo differences, turned into win shares by :func:`~concordia_env.tools.report.win_rate_of_elo`
at the table's size (at two players cutechess's logistic; at ``n`` players the win share
against the equal share ``1/n``, Luce's choice model: ``p = 10^(D/400) / (10^(D/400) + n - 1)``).
So the test works at every table size: ``elo0=0`` is the equal share there.

**Batches.** The evaluation plays the games in batches that keep every worker busy (a
multiple of the table size, for seat balance) and decides on the games ``0..n-1`` after each
batch, never on the games that happened to finish first (fast wins would otherwise decide
early). Looking only after whole batches overshoots the bounds a little, which makes the
errors smaller than ``alpha`` and ``beta``, not larger.

**Checked, not assumed.** :func:`simulate` plays many matches of Bernoulli draws with a known
win share; ``tests/test_sprt.py`` finds the false-accept rates within ``alpha`` and ``beta`` at
``p0`` and ``p1`` and the mean number of games below the fixed-size test's
(:meth:`Sprt.fixed_games`). The numbers are in ``docs/benchmarks.md``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any, Literal

import numpy as np

from concordia_env.tools.report import elo_difference, win_rate_of_elo

#: the error rates unless told, as in cutechess-cli and fishtest
DEFAULT_ALPHA = 0.05
DEFAULT_BETA = 0.05
#: the keys a test is written with: ``elo0=0 elo1=50`` or ``p0=0.5 p1=0.6``, and ``alpha``, ``beta``
KEYS = ("elo0", "elo1", "p0", "p1", "alpha", "beta")

Decision = Literal["H0", "H1"]


@dataclass(frozen=True)
class Sprt:
    """A test's hypotheses and error rates: H0 win share ``p0``, H1 ``p1 > p0``; see the module docstring.

    ``elo0`` and ``elo1`` are the bounds as given in Elo (None when given as win shares).
    Build it with :meth:`parse` (what the command line and ``evaluate(sprt=...)`` take).
    """

    p0: float
    p1: float
    alpha: float = DEFAULT_ALPHA
    beta: float = DEFAULT_BETA
    elo0: float | None = None
    elo1: float | None = None

    def __post_init__(self) -> None:
        for name in ("alpha", "beta", "p0", "p1"):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and 0 < value < 1):
                raise ValueError(f"sprt: {name} must be a number between 0 and 1 (exclusive), got {value!r}")
        if self.alpha + self.beta >= 1:
            raise ValueError(f"sprt: alpha + beta must be below 1, got {self.alpha} + {self.beta}")
        if not self.p0 < self.p1:
            given = f"elo0={self.elo0:g} elo1={self.elo1:g}" if self.elo0 is not None and self.elo1 is not None else ""
            bounds = given or f"p0={self.p0:g} p1={self.p1:g}"
            raise ValueError(f"sprt: the lower bound must be below the upper one, got {bounds}")

    @classmethod
    def parse(cls, given: str | Mapping[str, Any] | Sprt, num_players: int = 2) -> Sprt:
        """A test from ``"elo0=0 elo1=50 alpha=0.05 beta=0.05"`` (spaces or commas), a mapping of those keys, or a test.

        Exactly one pair of bounds: ``elo0``/``elo1`` (Elo at a table of ``num_players``) or
        ``p0``/``p1`` (win shares). Anything else is a ``ValueError`` in one line.
        """
        if isinstance(given, Sprt):
            return given
        if isinstance(given, str):
            items: dict[str, Any] = {}
            for token in given.replace(",", " ").split():
                key, sep, value = token.partition("=")
                if not sep:
                    raise ValueError(f"sprt: write KEY=VALUE ({', '.join(KEYS)}), got {token!r}")
                items[key.strip()] = value.strip()
        elif isinstance(given, Mapping):
            items = dict(given)
        else:
            raise TypeError(f"sprt is a string such as 'elo0=0 elo1=50', a mapping or an Sprt, got {given!r}")
        unknown = sorted(set(items) - set(KEYS))
        if unknown:
            raise ValueError(f"sprt: unknown key {unknown[0]!r}; the keys are {', '.join(KEYS)}")
        numbers = {key: _number(key, value) for key, value in items.items()}
        elo = "elo0" in numbers or "elo1" in numbers
        share = "p0" in numbers or "p1" in numbers
        if (
            elo == share
            or (elo and not {"elo0", "elo1"} <= set(numbers))
            or (share and not {"p0", "p1"} <= set(numbers))
        ):
            raise ValueError("sprt: give the bounds as elo0=.. elo1=.. (Elo) or as p0=.. p1=.. (win shares), one pair")
        rates = {"alpha": numbers.get("alpha", DEFAULT_ALPHA), "beta": numbers.get("beta", DEFAULT_BETA)}
        if share:
            return cls(p0=numbers["p0"], p1=numbers["p1"], **rates)
        elo0, elo1 = numbers["elo0"], numbers["elo1"]
        if not elo0 < elo1:
            raise ValueError(f"sprt: elo0 must be below elo1, got elo0={elo0:g} elo1={elo1:g}")
        p0, p1 = win_rate_of_elo(elo0, num_players), win_rate_of_elo(elo1, num_players)
        return cls(p0=p0, p1=p1, elo0=elo0, elo1=elo1, **rates)

    @property
    def lower(self) -> float:
        """The LLR at or below which H0 is accepted: ``log(beta / (1 - alpha))``."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """The LLR at or above which H1 is accepted: ``log((1 - beta) / alpha)``."""
        return math.log((1 - self.beta) / self.alpha)

    def llr(self, wins: int, games: int) -> float:
        """The log-likelihood ratio of H1 against H0 after ``wins`` wins in ``games`` games."""
        return wins * math.log(self.p1 / self.p0) + (games - wins) * math.log((1 - self.p1) / (1 - self.p0))

    def decide(self, wins: int, games: int) -> Decision | None:
        """``"H1"`` or ``"H0"`` once the LLR crosses a bound, else None (play on)."""
        llr = self.llr(wins, games)
        if llr >= self.upper:
            return "H1"
        if llr <= self.lower:
            return "H0"
        return None

    def fixed_games(self) -> int:
        """The games of the fixed-size test with the same error rates: one-sided, H0 ``p0`` against H1 ``p1``.

        ``n = ((z_(1-alpha) sqrt(p0 q0) + z_(1-beta) sqrt(p1 q1)) / (p1 - p0))^2``, the normal
        approximation of the binomial test: what the SPRT's mean number of games is compared with.
        """
        z = NormalDist().inv_cdf
        spread = z(1 - self.alpha) * math.sqrt(self.p0 * (1 - self.p0)) + z(1 - self.beta) * math.sqrt(
            self.p1 * (1 - self.p1)
        )
        return math.ceil((spread / (self.p1 - self.p0)) ** 2)

    def describe(self, num_players: int = 2) -> str:
        """The hypotheses in words: ``elo0=0 elo1=50 (win share 50.0% vs 57.1%), alpha 0.05, beta 0.05``."""
        if self.elo0 is not None and self.elo1 is not None:
            bounds = f"elo0={self.elo0:g} elo1={self.elo1:g} (win share {self.p0:.1%} vs {self.p1:.1%})"
        else:
            elo0, elo1 = elo_difference(self.p0, num_players), elo_difference(self.p1, num_players)
            bounds = f"p0={self.p0:g} p1={self.p1:g} (Elo {elo0:+.0f} vs {elo1:+.0f})"
        return f"{bounds}, alpha {self.alpha:g}, beta {self.beta:g}"


def _number(key: str, value: Any) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"sprt: {key} must be a number, got {value!r}") from None
    if not math.isfinite(number):
        raise ValueError(f"sprt: {key} must be a finite number, got {value!r}")
    return number


@dataclass
class SprtResult:
    """Where a test stands after ``games`` games with ``wins`` wins: its LLR, bounds and decision."""

    test: Sprt
    games: int
    wins: int
    llr: float
    lower: float
    upper: float
    #: "H1", "H0", or None: undecided (the cap reached, or the run interrupted)
    decision: Decision | None
    max_games: int

    @classmethod
    def of(cls, test: Sprt, wins: int, games: int, max_games: int) -> SprtResult:
        return cls(
            test, games, wins, test.llr(wins, games), test.lower, test.upper, test.decide(wins, games), max_games
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "p0": self.test.p0,
            "p1": self.test.p1,
            "elo0": self.test.elo0,
            "elo1": self.test.elo1,
            "alpha": self.test.alpha,
            "beta": self.test.beta,
            "games": self.games,
            "wins": self.wins,
            "llr": self.llr,
            "lower": self.lower,
            "upper": self.upper,
            "decision": self.decision,
            "max_games": self.max_games,
        }

    def status(self) -> str:
        """For a progress line: ``LLR +1.23 [-2.94, +2.94]``."""
        return f"LLR {self.llr:+.2f} [{self.lower:+.2f}, {self.upper:+.2f}]"

    def summary(self, num_players: int = 2, interrupted: bool = False) -> str:
        """The test's answer in words."""
        head = f"SPRT {self.test.describe(num_players)}: "
        where = f"LLR {self.llr:+.2f}, bounds {self.lower:+.2f} and {self.upper:+.2f}, after {self.games} games"
        if self.decision == "H1":
            return head + f"H1 accepted (win share {self.test.p1:.1%} or more rather than {self.test.p0:.1%}): {where}"
        if self.decision == "H0":
            return head + f"H0 accepted (win share {self.test.p0:.1%} or less rather than {self.test.p1:.1%}): {where}"
        why = "interrupted" if interrupted else f"the cap of {self.max_games} games reached"
        return head + f"no decision ({why}): {where}"


def batch_size(workers: int, num_players: int) -> int:
    """Games per batch: two per worker (each stays busy while the batch's last games finish), rounded up to a
    multiple of the table size (every seat equally often)."""
    games = max(2 * workers, num_players)
    return -(-games // num_players) * num_players


def simulate(
    test: Sprt, win_rate: float, *, matches: int = 2000, max_games: int = 5000, batch: int = 2, seed: int = 0
) -> dict[str, float]:
    """``matches`` tests on games won with probability ``win_rate``, as :func:`evaluate` runs them: pure numpy.

    Each match draws its wins, looks after every ``batch`` games, and stops at the first
    crossing or at ``max_games``. Returns the fractions that accepted H1, H0 or neither,
    and the mean number of games played.
    """
    rng = np.random.default_rng(seed)
    looks = np.arange(batch, max_games + 1, batch)
    step_win, step_loss = math.log(test.p1 / test.p0), math.log((1 - test.p1) / (1 - test.p0))
    accepted_h1 = accepted_h0 = 0
    games_played = 0
    chunk = max(1, 2_000_000 // max_games)  # matches drawn at once: about 2 million draws in memory
    for start in range(0, matches, chunk):
        size = min(chunk, matches - start)
        wins = np.cumsum(rng.random((size, max_games)) < win_rate, axis=1, dtype=np.int32)[:, looks - 1]
        llr = wins * step_win + (looks - wins) * step_loss
        crossed = (llr >= test.upper) | (llr <= test.lower)
        decided = crossed.any(axis=1)
        first = np.where(decided, crossed.argmax(axis=1), len(looks) - 1)
        final = llr[np.arange(size), first]
        accepted_h1 += int(np.sum(decided & (final >= test.upper)))
        accepted_h0 += int(np.sum(decided & (final <= test.lower)))
        games_played += int(looks[first].sum())
    return {
        "accepted_h1": accepted_h1 / matches,
        "accepted_h0": accepted_h0 / matches,
        "undecided": 1 - (accepted_h1 + accepted_h0) / matches,
        "mean_games": games_played / matches,
    }
