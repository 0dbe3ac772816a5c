"""Multi-agent PPO with RLlib (Ray): ``player_0`` learns against the heuristic, with action masking.

RLlib's new API stack drives the PettingZoo game through
``concordia_env.integrations.rllib.env`` (the env with RLlib's keys: ``observations``,
``action_mask``, and the ``state`` a fixed policy replays the game from). The learner is
RLlib's stock ``ActionMaskingTorchRLModule`` (an MLP whose illegal actions' logits are
masked out); the other seat is ``fixed_policy_spec("heuristic")``, a policy that never
learns and plays the project's agent. Each iteration samples ``--batch`` env steps, runs
PPO on them and prints one line; at the end the algorithm is saved as an RLlib checkpoint
in ``--out`` (``Algorithm.from_checkpoint`` restores it).

Run it from the checkout (needs the ``rllib`` extra: ``pip install "concordia-env[rllib]"``)::

    python training/rllib_multiagent.py                    # 200 iterations of 4,000 steps
    python training/rllib_multiagent.py --iterations 20 --seed 1 --out runs/rllib

What it reaches: RLlib samples about 750 env steps per CPU second per sampling process here
(2-player Italia, a 256x256 network; docs/environments.md, "RLlib on Ray"): the default
800,000 steps are about 20 minutes of sampling on one core, plus the updates. A win rate
against the heuristic was not measured for this script. ``concordia train rllib`` is the
project's own RLlib trainer (opponent pools, self-play, resume, the options level), whose
options-level self-play beat ``random`` in every one of 200 games after 2 minutes (docs/training.md).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--iterations", type=int, default=200, help="PPO iterations (sample, then learn)")
    parser.add_argument("--batch", type=int, default=4000, help="env steps sampled per iteration")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="runs/rllib_multiagent", help="the checkpoint folder")
    parser.add_argument("--hidden", type=int, nargs="+", default=[256, 256], help="the learner's layer sizes")
    parser.add_argument("--max-cycles", type=int, default=2000, help="decisions before a game is cut")
    args = parser.parse_args(argv)
    if min(args.iterations, args.batch, args.max_cycles, *args.hidden) < 1:
        parser.error("--iterations, --batch, --max-cycles and --hidden must be at least 1")
    try:
        import ray
        from ray.rllib.algorithms.ppo import PPOConfig
        from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
        from ray.rllib.core.rl_module.rl_module import RLModuleSpec
        from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule
        from ray.tune.registry import register_env

        from concordia_env.integrations import rllib
    except ImportError as error:
        sys.exit(f"{parser.prog} needs the rllib extra: pip install 'concordia-env[rllib]' ({error.name} is missing)")

    register_env("concordia", rllib.env)
    modules = {
        "learner": RLModuleSpec(module_class=ActionMaskingTorchRLModule, model_config={"fcnet_hiddens": args.hidden}),
        "heuristic": rllib.fixed_policy_spec("heuristic", map="italia"),
    }
    env_config = {"map": "italia", "num_players": 2, "with_state": True, "max_cycles": args.max_cycles}
    config = (
        PPOConfig()
        .environment("concordia", env_config=env_config)
        .env_runners(num_env_runners=0)  # sample in this process; more runners: more processes
        .multi_agent(
            policies=set(modules),
            policy_mapping_fn=lambda agent, episode, **kw: "learner" if agent == "player_0" else "heuristic",
            policies_to_train=["learner"],
        )
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=modules))
        .training(train_batch_size_per_learner=args.batch, minibatch_size=min(500, args.batch), num_epochs=1)
        .debugging(seed=args.seed)
    )
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    try:
        algo = config.build_algo()
        for iteration in range(1, args.iterations + 1):
            result = algo.train()
            runners = result["env_runners"]
            steps = int(runners["num_env_steps_sampled_lifetime"])
            returns = runners.get("agent_episode_returns_mean", {}).get("player_0")
            shown = f", player_0's mean return {returns:+.2f}" if returns is not None else ""
            print(f"iteration {iteration}/{args.iterations}: {steps} env steps{shown}", flush=True)
        out = Path(args.out).resolve()
        algo.save_to_path(str(out))
        print(f"saved {out}")
        algo.stop()
    finally:
        ray.shutdown()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
