"""The sequential test's error rates, checked by simulation: pure numpy Bernoulli draws, no games.

Each case simulates 4,000 matches with a known win share at H0's bound, at H1's, and between,
looked at in batches of 2 games as ``concordia evaluate --sprt`` does with one worker. The
false-accept rates must stay within ``alpha`` and ``beta`` up to simulation noise (3 standard
errors of a rate of 0.05 over 4,000 matches: 0.010), and the mean number of games at either
bound well below the fixed-size test's for the same error rates (about half: Wald's saving).
The measured numbers are written in docs/benchmarks.md ("Sequential tests").
"""

from __future__ import annotations

import math

import pytest

from concordia_env.tools.report import elo_difference, win_rate_of_elo
from concordia_env.tools.sprt import Sprt, SprtResult, batch_size, simulate

MATCHES = 4000
#: three standard errors of a false-accept rate of 0.05 over MATCHES matches
NOISE = 3 * math.sqrt(0.05 * 0.95 / MATCHES)


@pytest.mark.parametrize(
    ("given", "players"),
    [("elo0=0 elo1=50", 2), ("p0=0.5 p1=0.6", 2), ("elo0=0 elo1=100", 4), ("elo0=-20 elo1=30 alpha=0.1 beta=0.02", 3)],
)
def test_the_false_accept_rates_are_within_alpha_and_beta_and_the_test_stops_early(given: str, players: int) -> None:
    test = Sprt.parse(given, players)
    at_h0 = simulate(test, test.p0, matches=MATCHES, max_games=20 * test.fixed_games(), seed=1)
    at_h1 = simulate(test, test.p1, matches=MATCHES, max_games=20 * test.fixed_games(), seed=2)
    between = simulate(test, (test.p0 + test.p1) / 2, matches=MATCHES, max_games=20 * test.fixed_games(), seed=3)
    assert at_h0["accepted_h1"] <= test.alpha + NOISE, at_h0
    assert at_h1["accepted_h0"] <= test.beta + NOISE, at_h1
    assert at_h0["undecided"] == at_h1["undecided"] == between["undecided"] == 0.0  # the cap is far away
    assert 0.2 < between["accepted_h1"] < 0.8  # in the indifference zone either answer comes
    fixed = test.fixed_games()
    assert at_h0["mean_games"] < 0.7 * fixed and at_h1["mean_games"] < 0.7 * fixed, (at_h0, at_h1, fixed)
    assert between["mean_games"] < 1.2 * fixed  # the slowest place for a sequential test


def test_far_from_the_bounds_the_test_is_right_and_quick() -> None:
    test = Sprt.parse("elo0=0 elo1=50")
    weaker = simulate(test, 0.4, matches=1000, seed=4)
    stronger = simulate(test, 0.7, matches=1000, seed=5)
    assert weaker["accepted_h0"] > 0.999 and stronger["accepted_h1"] > 0.999
    assert weaker["mean_games"] < 0.25 * test.fixed_games() and stronger["mean_games"] < 0.25 * test.fixed_games()


def test_a_cap_ends_a_test_undecided() -> None:
    test = Sprt.parse("elo0=0 elo1=5")
    capped = simulate(test, win_rate_of_elo(2.5), matches=200, max_games=100, seed=6)
    assert capped["undecided"] > 0.9 and capped["mean_games"] <= 100


def test_the_log_likelihood_ratio_and_its_bounds() -> None:
    test = Sprt(p0=0.5, p1=0.6, alpha=0.05, beta=0.1)
    assert test.lower == pytest.approx(math.log(0.1 / 0.95)) and test.upper == pytest.approx(math.log(0.9 / 0.05))
    assert test.llr(7, 10) == pytest.approx(7 * math.log(1.2) + 3 * math.log(0.8))
    assert test.decide(0, 0) is None and test.decide(60, 80) == "H1" and test.decide(20, 80) == "H0"
    result = SprtResult.of(test, 60, 80, 1000)
    assert result.decision == "H1" and "H1 accepted" in result.summary() and "after 80 games" in result.summary()
    assert "no decision (the cap of 1000 games reached)" in SprtResult.of(test, 5, 10, 1000).summary()


def test_bounds_in_elo_are_win_shares_at_the_table_s_size() -> None:
    two = Sprt.parse("elo0=0 elo1=50")
    assert two.p0 == 0.5 and two.p1 == pytest.approx(1 / (1 + 10 ** (-50 / 400)))
    four = Sprt.parse({"elo0": 0, "elo1": 100}, num_players=4)
    assert four.p0 == pytest.approx(0.25) and elo_difference(four.p1, 4) == pytest.approx(100)
    assert Sprt.parse("p0=0.5,p1=0.55,alpha=0.1").alpha == 0.1 and Sprt.parse(two) is two


@pytest.mark.parametrize(
    ("given", "says"),
    [
        ("elo0=50 elo1=0", "elo0 must be below elo1"),
        ("elo0=10 elo1=10", "elo0 must be below elo1"),
        ("p0=0.6 p1=0.5", "lower bound must be below the upper one"),
        ("p0=0 p1=0.5", "p0 must be a number between 0 and 1"),
        ("p0=0.5 p1=1", "p1 must be a number between 0 and 1"),
        ("elo0=0 elo1=50 alpha=0", "alpha must be a number between 0 and 1"),
        ("elo0=0 elo1=50 beta=1.5", "beta must be a number between 0 and 1"),
        ("elo0=0 elo1=50 alpha=0.6 beta=0.5", "alpha + beta must be below 1"),
        ("elo0=0", "one pair"),
        ("elo0=0 elo1=5 p0=0.5 p1=0.6", "one pair"),
        ("alpha=0.05", "one pair"),
        ("elo0=zero elo1=5", "elo0 must be a number"),
        ("elo0=0 elo1=inf", "elo1 must be a finite number"),
        ("elo0=0 elo2=5", "unknown key 'elo2'"),
        ("elo0 0", "write KEY=VALUE"),
    ],
)
def test_bad_bounds_are_one_line(given: str, says: str) -> None:
    with pytest.raises(ValueError, match=None) as error:
        Sprt.parse(given)
    assert says in str(error.value) and "\n" not in str(error.value)


def test_a_batch_keeps_every_worker_busy_and_the_seats_balanced() -> None:
    assert batch_size(1, 2) == 2 and batch_size(2, 2) == 4 and batch_size(3, 4) == 8 and batch_size(1, 4) == 4
    assert all(batch_size(w, n) % n == 0 and batch_size(w, n) >= w for w in range(1, 17) for n in range(2, 6))
