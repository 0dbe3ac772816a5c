"""The SPRT table of docs/benchmarks.md ("Evaluating a strategy"): a sequential test's error rates and games.

For each pair of bounds, simulates ``--matches`` sequential tests on Bernoulli games won with
the share ``p0``, halfway between the bounds, and ``p1``, looked at every 2 games as
``concordia evaluate --sprt`` does with one worker, and prints how often each ended in H1
(or H0) and the mean number of games, beside the fixed-size one-sided test with the same
error rates (``concordia_env.tools.sprt``: ``Sprt.parse``, ``Sprt.fixed_games``, ``simulate``).
Pure numpy: no game is played.

Run it from the checkout::

    python benchmarks/sprt_error_rates.py                   # 20,000 matches a cell, as the table
    python benchmarks/sprt_error_rates.py --matches 2000

What it reaches (seed 11, 20,000 matches): at either bound about half the games of the
fixed-size test (51-55%) with false-accept rates under the stated 5%; between the bounds
87-92% of them.
"""

from __future__ import annotations

import argparse

from concordia_env.tools.sprt import Sprt, simulate

#: the table's rows: (bounds, players)
ROWS = (("elo0=0 elo1=50", 2), ("elo0=0 elo1=100", 2), ("p0=0.5 p1=0.6", 2), ("elo0=0 elo1=100", 4))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=20_000, help="simulated tests per cell (the size of the run)")
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args(argv)
    if args.matches < 1:
        parser.error(f"--matches must be at least 1, got {args.matches}")
    print("| bounds | fixed-size test | true share p0: H1 accepted, mean games "
          "| between: H1 accepted, mean games | p1: H0 accepted, mean games |")  # fmt: skip
    print("| --- | --- | --- | --- | --- |")
    for bounds, players in ROWS:
        test = Sprt.parse(bounds, players)
        fixed = test.fixed_games()
        cells = []
        for share, accepted in (
            (test.p0, "accepted_h1"),
            ((test.p0 + test.p1) / 2, "accepted_h1"),
            (test.p1, "accepted_h0"),
        ):
            run = simulate(test, share, matches=args.matches, max_games=20 * fixed, seed=args.seed)
            cells.append(f"{run[accepted]:.1%}, {run['mean_games']:.0f}")
        label = f"`{bounds}` ({players}p: {test.p0:.1%} vs {test.p1:.1%})"
        print(f"| {label} | {fixed} games | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
