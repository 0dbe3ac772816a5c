"""MaskablePPO on the flat level: one of the 769 actions at every decision, Stable-Baselines3.

The plainest way to train on Concordia: ``sb3_contrib``'s ``MaskablePPO`` with an MLP on
:class:`concordia_env.envs.sb3.SB3VecEnv`, which steps ``--envs`` games of 2-player Italia
in one batch with the opponents playing inside it in compiled code (15.8x a
``SubprocVecEnv``). The learner sees the 2,510-float observation from its seat and the
mask of its legal actions (``env_method("action_masks")``, answered from the batch), and is
rewarded +1 / -1 at the end of a won / lost game. After training it saves the model and
plays ``--eval-games`` games against the opponent, seats rotated, through
``concordia_env.evaluate`` (win rate with a 95% interval).

Run it from the checkout (needs the ``train`` extra: ``pip install "concordia-env[train]"``)::

    python training/sb3_flat.py                        # 10 M steps: about 2 hours on 2 cores
    python training/sb3_flat.py --steps 200000 --seed 1 --out runs/flat.zip
    concordia evaluate policy:runs/flat.zip --vs heuristic   # the saved model, again

What it reaches (2-player Italia against ``heuristic``, 200 games, 2026-12-05, README): 120
minutes of this recipe on 2 cores won 10.0% (6.6% - 14.9%). The flat level learns the
economy (it beats ``random`` within minutes) but rarely a whole plan: the options level
(``training/sb3_options.py``, ``training/ppo_single_file.py``) wins most games in an hour.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=10_000_000, help="learner steps, all games together")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="runs/sb3_flat.zip", help="where the model is saved")
    parser.add_argument("--envs", type=int, default=64, help="games stepped together")
    parser.add_argument("--opponent", default="heuristic", help="the agent spec in the other seat")
    parser.add_argument("--eval-games", type=int, default=200, help="games of the final evaluation")
    args = parser.parse_args(argv)
    if min(args.steps, args.envs, args.eval_games) < 1:
        parser.error("--steps, --envs and --eval-games must be at least 1")
    try:
        import torch
        from sb3_contrib import MaskablePPO

        from concordia_env.envs.sb3 import SB3VecEnv
    except ImportError as error:
        sys.exit(f"{parser.prog} needs the train extra: pip install 'concordia-env[train]' ({error.name} is missing)")

    import concordia_env

    torch.set_num_threads(1)  # a small network: more threads cost more than they give
    env = SB3VecEnv(args.envs, opponents=args.opponent, map="italia", num_players=2, reward="win", seed=args.seed)
    n_steps = max(1, min(16, args.steps // args.envs))  # steps per game per rollout (16: the README's)
    batch_size = min(256, n_steps * args.envs)
    model = MaskablePPO("MlpPolicy", env, n_steps=n_steps, batch_size=batch_size, n_epochs=1, seed=args.seed, verbose=1)
    model.learn(total_timesteps=args.steps)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    model.save(args.out)
    env.close()
    print(f"saved {args.out}")
    result = concordia_env.evaluate(model, opponents=args.opponent, games=args.eval_games, seed=args.seed)
    print(result.report())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
