"""MaskablePPO on the options level: choose among the turn options, Stable-Baselines3 (the README's recipe).

At the options level (``level="options"``) the learner does not pick one of 769 actions: at
each of its decisions it picks one of up to ``--max-options`` turn options, the answers the
project's agents weigh (each legal answer played out to the end of the turn), each described
by the features of the position it leads to. ``concordia_env.OptionsPolicy`` scores every
option with one shared network and starts from the heuristic's preference, so the untrained
policy already plays sensibly. The env is :class:`concordia_env.envs.sb3.SB3VecEnv` with the
opponents inside the batch; the reward is the final VP margin / 100 (``reward="vp"``), which
says by how much a lost game was lost. After training it saves the model (the file says its
level: ``concordia evaluate``, ``tournament``, ``replay --play`` and ``web --vs`` take it) and
plays ``--eval-games`` games against the opponent, seats rotated.

Run it from the checkout (needs the ``train`` extra: ``pip install "concordia-env[train]"``)::

    python training/sb3_options.py                       # 600,000 steps: about half an hour on one core
    python training/sb3_options.py --steps 100000 --seed 1 --out runs/options.zip
    python training/sb3_options.py --steps 1000000 --eval-every 200000   # with a learning curve
    python training/sb3_options.py --utility-prior 0                     # no head start from the heuristic
    concordia evaluate policy:runs/options.zip --vs heuristic

What it reaches at 1 M steps, with and without the prior and at SB3's learning rate, and its
learning curves: docs/training.md ("Measured: the README's recipe at 1 M steps").
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=600_000, help="learner decisions, all games together")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="runs/sb3_options.zip", help="where the model is saved")
    parser.add_argument("--envs", type=int, default=8, help="games stepped together")
    parser.add_argument("--max-options", type=int, default=32, help="options offered per decision (the rest cut)")
    parser.add_argument(
        "--learning-rate",
        type=float,
        default=1e-4,
        help="the README's 1e-4 (SB3's default is 3e-4; both measured in docs/training.md)",
    )
    parser.add_argument("--opponent", default="heuristic", help="the agent spec in the other seat")
    parser.add_argument("--eval-games", type=int, default=200, help="games of the final evaluation")
    parser.add_argument(
        "--utility-prior",
        type=float,
        default=None,
        help="the starting weight of the heuristic's ranking in the policy (OptionsPolicy's default; 0: none)",
    )
    parser.add_argument(
        "--eval-every",
        type=int,
        default=0,
        metavar="STEPS",
        help="a learning curve: every STEPS steps (whole rollouts), the model saved and --curve-games games played",
    )
    parser.add_argument("--curve-games", type=int, default=100, help="games at each point of the curve")
    args = parser.parse_args(argv)
    if min(args.steps, args.envs, args.max_options, args.eval_games, args.curve_games) < 1:
        parser.error("--steps, --envs, --max-options, --eval-games and --curve-games must be at least 1")
    if args.eval_every < 0:
        parser.error(f"--eval-every must be 0 (no curve) or a number of steps, not {args.eval_every}")
    try:
        import torch
        from sb3_contrib import MaskablePPO

        from concordia_env import OptionsPolicy
        from concordia_env.envs.sb3 import SB3VecEnv
    except ImportError as error:
        sys.exit(f"{parser.prog} needs the train extra: pip install 'concordia-env[train]' ({error.name} is missing)")

    import concordia_env

    torch.set_num_threads(1)  # a small network: one thread is faster than two here
    env = SB3VecEnv(
        args.envs,
        level="options",
        max_options=args.max_options,
        opponents=args.opponent,
        map="italia",
        num_players=2,
        reward="vp",
        seed=args.seed,
    )
    n_steps = max(1, min(256, args.steps // args.envs))  # steps per game per rollout (256: the README's)
    batch_size = min(256, n_steps * args.envs)
    prior = {} if args.utility_prior is None else {"utility_prior": args.utility_prior}
    policy_kwargs = {"features_extractor_kwargs": prior}
    model = MaskablePPO(
        OptionsPolicy,
        env,
        n_steps=n_steps,
        batch_size=batch_size,
        learning_rate=args.learning_rate,
        seed=args.seed,
        policy_kwargs=policy_kwargs,
    )
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    rollout = n_steps * args.envs
    chunk = max(1, args.eval_every // rollout) * rollout if args.eval_every else args.steps
    while model.num_timesteps < args.steps:  # in chunks of whole rollouts: the same run as one learn() call
        model.learn(total_timesteps=min(chunk, args.steps - model.num_timesteps), reset_num_timesteps=False)
        if args.eval_every and model.num_timesteps < args.steps:
            model.save(args.out)
            point = concordia_env.evaluate(
                f"policy:{args.out}", opponents=args.opponent, games=args.curve_games, seed=args.seed + 1
            )
            print(f"curve: {model.num_timesteps} steps: {point.results[0].summary(2)}", flush=True)
    model.save(args.out)
    env.close()
    print(f"saved {args.out} after {model.num_timesteps} steps")
    result = concordia_env.evaluate(
        f"policy:{args.out}", opponents=args.opponent, games=args.eval_games, seed=args.seed
    )
    print(result.report())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
