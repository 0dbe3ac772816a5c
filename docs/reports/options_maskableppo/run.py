"""MaskablePPO + OptionsPolicy against the heuristic, 2-player Italia: train for a time, then evaluate.

    python docs/reports/options_maskableppo/run.py MINUTES SEED OUT_DIR

Trains ``MaskablePPO(OptionsPolicy, env, batch_size=256, seed=SEED)`` (SB3's other defaults)
on ``SingleAgentEnv(level="options", opponents="heuristic", seat="random", reward="vp")`` (the
final VP margin / 100: a lost game still says by how much) until MINUTES
of wall-clock time have passed (checked after every rollout), writing ``curve.jsonl`` (per
rollout: steps, minutes, the training win rate and mean margin over the last 100 games) and a checkpoint
every ``MINUTES / 4``. Then the final model plays 200 games against the heuristic with the
seats rotated (``concordia_env.training.evaluate.evaluate``, 95% Wilson interval) into
``eval.json``, the untrained policy (``checkpoint_0``: the utility prior alone) the same 200
games into ``eval_untrained.json``, and each checkpoint 50 games for the curve
(``curve_eval.json``).
"""

import json
import sys
import time
from pathlib import Path

import numpy as np
import torch as th
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.monitor import Monitor

from concordia_env import OptionsPolicy, SingleAgentEnv
from concordia_env.training.evaluate import evaluate
from concordia_env.training.options_policy import options_agent

minutes, seed, out = float(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3])
out.mkdir(parents=True, exist_ok=True)
th.set_num_threads(1)
env = SingleAgentEnv(level="options", opponents="heuristic", map="italia", num_players=2, seat="random", reward="vp")
env = Monitor(env, info_keywords=("winner", "learner_seat"))
model = MaskablePPO(OptionsPolicy, env, batch_size=256, seed=seed)


class TimeGuard(BaseCallback):
    def __init__(self) -> None:
        super().__init__()
        self.start = time.perf_counter()
        self.next_checkpoint = 1
        self.curve = (out / "curve.jsonl").open("w")
        self.time_up = False

    def _on_step(self) -> bool:
        return not self.time_up  # False stops learn() at the first step after the rollout that passed the time

    def _on_rollout_end(self) -> None:
        elapsed = (time.perf_counter() - self.start) / 60
        episodes = list(self.model.ep_info_buffer)
        line = {"steps": self.num_timesteps, "minutes": round(elapsed, 2), "games": len(env.get_episode_rewards())}
        if episodes:
            line["train_win_rate_last100"] = round(
                float(np.mean([e["winner"] == e["learner_seat"] for e in episodes])), 3
            )
            line["train_margin_vp_last100"] = round(100 * float(np.mean([e["r"] for e in episodes])), 1)
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
