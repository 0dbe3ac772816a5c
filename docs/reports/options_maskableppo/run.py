"""MaskablePPO + OptionsPolicy against the heuristic, 2-player Italia: train for a time, then evaluate.

    python docs/reports/options_maskableppo/run.py MINUTES SEED OUT_DIR [--learning-rate 3e-4]
        [--max-options 32] [--num-envs 8]

Trains ``MaskablePPO(OptionsPolicy, env, n_steps=2048 // num_envs, batch_size=256,
learning_rate=..., seed=SEED)`` (SB3's other defaults) on ``SB3VecEnv(num_envs,
level="options", max_options=..., opponents="heuristic", map="italia", num_players=2,
reward="vp")`` (the learner's seat rotates over the rows; reward: the final VP margin / 100,
so a lost game still says by how much) until MINUTES of wall-clock time have passed (checked
after every rollout), writing ``curve.jsonl`` (per rollout: steps, minutes, the training win
rate and mean margin over the last 100 games) and a checkpoint every ``MINUTES / 4``. Then the
final model plays 200 games against the heuristic with the seats rotated
(``concordia_env.training.run_evaluation.evaluate``, 95% Wilson interval) into ``eval.json``, the
untrained policy (``checkpoint_0``: the utility prior alone) the same 200 games into
``eval_untrained.json``, and each checkpoint 50 games for the curve (``curve_eval.json``).
"""

import argparse
import json
import time
from collections import deque
from pathlib import Path

import numpy as np
import torch as th
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback

from concordia_env import OptionsPolicy
from concordia_env.agents.options_policy import options_agent
from concordia_env.envs.sb3 import SB3VecEnv
from concordia_env.training.run_evaluation import evaluate

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("minutes", type=float)
parser.add_argument("seed", type=int)
parser.add_argument("out", type=Path)
parser.add_argument("--learning-rate", type=float, default=3e-4)
parser.add_argument("--max-options", type=int, default=32)
parser.add_argument("--num-envs", type=int, default=8)
args = parser.parse_args()
minutes, seed, out = args.minutes, args.seed, args.out
out.mkdir(parents=True, exist_ok=True)
(out / "args.json").write_text(json.dumps({k: str(v) for k, v in vars(args).items()}, indent=1))
th.set_num_threads(1)
env = SB3VecEnv(
    args.num_envs,
    level="options",
    max_options=args.max_options,
    opponents="heuristic",
    map="italia",
    num_players=2,
    reward="vp",
    seed=seed,
)
model = MaskablePPO(
    OptionsPolicy,
    env,
    n_steps=2048 // args.num_envs,
    batch_size=256,
    learning_rate=args.learning_rate,
    seed=seed,
)


class TimeGuard(BaseCallback):
    """Writes the curve after every rollout, checkpoints every MINUTES / 4, stops after MINUTES."""

    def __init__(self) -> None:
        super().__init__()
        self.start = time.perf_counter()
        self.next_checkpoint = 1
        self.curve = (out / "curve.jsonl").open("w")
        self.time_up = False
        self.games = 0
        self.last100: deque[tuple[bool, float]] = deque(maxlen=100)

    def _on_step(self) -> bool:
        for info in self.locals["infos"]:
            final = info.get("final_info")
            if final is not None:
                seat = int(final["learner_seat"])
                scores = np.asarray(final["final_scores"], dtype=float)
                margin = scores[seat] - np.delete(scores, seat).mean()
                self.last100.append((int(final["winner"]) == seat, margin))
                self.games += 1
        return not self.time_up  # False stops learn() at the first step after the rollout that passed the time

    def _on_rollout_end(self) -> None:
        elapsed = (time.perf_counter() - self.start) / 60
        line = {"steps": self.num_timesteps, "minutes": round(elapsed, 2), "games": self.games}
        if self.last100:
            wins, margins = zip(*self.last100, strict=True)
            line["train_win_rate_last100"] = round(float(np.mean(wins)), 3)
            line["train_margin_vp_last100"] = round(float(np.mean(margins)), 1)
        self.curve.write(json.dumps(line) + "\n")
        self.curve.flush()
        if elapsed >= self.next_checkpoint * minutes / 4:
            self.model.save(out / f"checkpoint_{self.num_timesteps}.zip")
            self.next_checkpoint += 1
        self.time_up = elapsed >= minutes  # this rollout is still trained on


model.save(out / "checkpoint_0.zip")  # the untrained policy: the utility prior alone
guard = TimeGuard()
start = time.perf_counter()
model.learn(10**9, callback=guard)
train_minutes = (time.perf_counter() - start) / 60
model.save(out / "model.zip")
result = evaluate(options_agent(model), "heuristic", 200, map="italia", num_players=2, seed=seed, index=0)
report = {**result.to_dict(), "timesteps": model.num_timesteps, "train_minutes": round(train_minutes, 1)}
(out / "eval.json").write_text(json.dumps(report, indent=1))
print(result.summary(), f"after {model.num_timesteps} steps, {train_minutes:.1f} minutes", flush=True)
untrained = evaluate(
    options_agent(MaskablePPO.load(out / "checkpoint_0.zip")),
    "heuristic",
    200,
    map="italia",
    num_players=2,
    seed=seed,
    index=0,
)
(out / "eval_untrained.json").write_text(json.dumps(untrained.to_dict(), indent=1))
print("untrained (the prior alone):", untrained.summary(), flush=True)
curve = []
for path in sorted(out.glob("checkpoint_*.zip"), key=lambda p: int(p.stem.split("_")[1])):
    agent = options_agent(MaskablePPO.load(path))
    r = evaluate(agent, "heuristic", 50, map="italia", num_players=2, seed=seed, index=1)
    curve.append({"steps": int(path.stem.split("_")[1]), **r.to_dict()})
    print(path.name, r.summary(), flush=True)
(out / "curve_eval.json").write_text(json.dumps(curve, indent=1))
