"""PPO on the options level in one file, CleanRL style: the config at the top, the loop in plain sight.

``concordia train ppo_options`` trains :class:`~concordia_env.agents.options_net.OptionsNet`
(one shared MLP scores every turn option; the value reads the pooled options and the flat
observation) with PPO against fixed opponents, in ``num_envs`` games stepped together by
``ConcordiaVectorEnv(level="options")`` (the options and the compiled opponents computed on
its ``threads``; the learner's seat rotates across rows and games; autoreset in the same
step). Every ``--field value`` of :class:`Config` overrides its default, e.g.
``concordia train ppo_options --total_steps 200000 --minutes 60 --seed 0``.

The run writes ``<runs_dir>/<name>-<seed>-<timestamp>/``: ``config.json``,
``progress.jsonl`` (one line per update: steps, games, the learner's win rate over the
games finished since the last line, losses, steps/s), ``model.pt`` (the network's
``state_dict`` and its sizes: :func:`load` rebuilds it) every ``save_every`` updates and at
the end, and ``eval.json``: the greedy policy against ``eval_opponent`` over ``eval_games``
games with every seat equally often and a 95% Wilson interval
(:func:`concordia_env.training.run_evaluation.evaluate`, the project's one evaluation).
``minutes`` is a time guard: the run stops after the update that passes it and says so,
in its last line and in ``eval.json`` (``"cut_short"``). The numbers it reaches are in
``docs/training.md`` ("The options level").
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
import torch as th

from concordia_env.agents.options_net import UTILITY_PRIOR, OptionsNet
from concordia_env.envs.vector_env import ConcordiaVectorEnv
from concordia_env.strategy import features_version
from concordia_env.tools.arguments import mistake_text

from .config import check_positive
from .run_evaluation import OptionsAgent, evaluate


@dataclass
class Config:
    """One run; every field is also a command-line option (``--total_steps 100000``)."""

    name: str = "ppo_options"
    runs_dir: str = "runs"
    seed: int = 0
    # the game and the env
    map: str = "italia"
    num_players: int = 2
    opponents: str = "heuristic"  # an agent spec for every other seat (one with a compiled twin)
    reward: str = "vp"  # the final VP margin / 100: a lost game still says by how much ("win": ±1)
    max_options: int = 32  # K: 95% of the decisions whole, the update 2.2x cheaper than the env's default 96
    num_envs: int = 8
    threads: int = 2  # the vector env's threads (torch_threads below is the network's)
    # the run's length: whichever comes first
    total_steps: int = 1_000_000  # learner decisions, all envs together
    minutes: float = 60.0  # the time guard (training only; the evaluation comes after)
    # PPO (CleanRL's defaults, as SB3's)
    num_steps: int = 128  # steps per env per rollout
    learning_rate: float = 3e-4
    anneal_lr: bool = True
    gamma: float = 0.99
    gae_lambda: float = 0.95
    num_minibatches: int = 4
    update_epochs: int = 4
    clip_coef: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    # the network (OptionsNet)
    option_hidden: tuple[int, ...] = (128, 64)
    observation_hidden: tuple[int, ...] = (64,)
    utility_prior: float = UTILITY_PRIOR  # the heuristic's utility in the logits at the start (0: uniform)
    torch_threads: int = 1
    # saving and the final evaluation
    save_every: int = 50  # updates
    eval_games: int = 200
    eval_opponent: str = "heuristic"


POSITIVE = ("num_envs", "threads", "total_steps", "num_steps", "learning_rate", "num_minibatches",
            "update_epochs", "clip_coef", "max_grad_norm", "torch_threads", "save_every", "max_options")  # fmt: skip


def check(config: Config) -> None:
    """Refuse a config PPO cannot run (``ValueError``, one line), before anything is written."""
    check_positive(config, POSITIVE)
    for name in ("gamma", "gae_lambda"):
        if not 0.0 <= getattr(config, name) <= 1.0:
            raise ValueError(f"{name} must be in 0..1, got {getattr(config, name)}")
    if not all(v >= 0 for v in (config.minutes, config.ent_coef, config.vf_coef, config.eval_games)):  # NaN too
        raise ValueError("minutes, ent_coef, vf_coef and eval_games must be >= 0")
    if config.num_minibatches > config.num_steps * config.num_envs:
        raise ValueError(f"num_minibatches ({config.num_minibatches}) exceeds a rollout's {config.num_steps} x "
                         f"{config.num_envs} steps")  # fmt: skip
    if (
        not config.option_hidden
        or not config.observation_hidden
        or min(config.option_hidden + config.observation_hidden) <= 0
    ):
        raise ValueError("option_hidden and observation_hidden must be positive layer sizes")


def make_envs(config: Config) -> ConcordiaVectorEnv:
    """``num_envs`` options-level games against ``opponents``, reset in the step that ends a game."""
    return ConcordiaVectorEnv(
        config.num_envs,
        opponents=config.opponents,
        map=config.map,
        num_players=config.num_players,
        reward=config.reward,
        threads=config.threads,
        level="options",
        max_options=config.max_options,
    )


def tensors(obs: dict[str, np.ndarray]) -> tuple[th.Tensor, th.Tensor, th.Tensor]:
    return th.as_tensor(obs["observation"]), th.as_tensor(obs["options"]), th.as_tensor(obs["action_mask"])


def train(config: Config, envs: ConcordiaVectorEnv | None = None) -> dict[str, Any]:
    """One run; ``envs``: the config's envs if the caller made them already (after checking the config)."""
    if envs is None:
        check(config)
        envs = make_envs(config)  # a map, player count or opponent the env refuses fails here, before any file
    run_dir = Path(config.runs_dir) / f"{config.name}-{config.seed}-{datetime.now():%Y%m%d-%H%M%S}"
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "config.json").write_text(json.dumps(dataclasses.asdict(config), indent=1))
    th.manual_seed(config.seed)
    th.set_num_threads(config.torch_threads)
    obs: Any  # a dict of batched arrays: "observation", "options", "action_mask"
    obs, _ = envs.reset(seed=config.seed)
    n_obs, (k, n_features) = obs["observation"].shape[1], obs["options"].shape[1:]
    sizes = {"observation_size": n_obs, "num_features": n_features}
    sizes.update(option_hidden=list(config.option_hidden), observation_hidden=list(config.observation_hidden))
    sizes.update(utility_prior=config.utility_prior)
    net = OptionsNet(**sizes)
    optimizer = th.optim.Adam(net.parameters(), lr=config.learning_rate, eps=1e-5)

    # rollout storage: (num_steps, num_envs, ...)
    shape = (config.num_steps, config.num_envs)
    b_observation = th.zeros((*shape, n_obs))
    b_options = th.zeros((*shape, k, n_features))
    b_mask = th.zeros((*shape, k))
    actions, logprobs, rewards, dones, values = (th.zeros(shape) for _ in range(5))
    batch_size = config.num_steps * config.num_envs
    minibatch_size = batch_size // config.num_minibatches
    updates = max(1, config.total_steps // batch_size)

    start, steps, games, wins, cut_short = time.perf_counter(), 0, 0, 0, False
    next_done = th.zeros(config.num_envs)
    progress = (run_dir / "progress.jsonl").open("w")
    for update in range(1, updates + 1):
        if config.anneal_lr:
            optimizer.param_groups[0]["lr"] = config.learning_rate * (1.0 - (update - 1.0) / updates)
        # ---- collect a rollout
        won_before, games_before = wins, games
        for t in range(config.num_steps):
            b_observation[t], b_options[t], b_mask[t] = tensors(obs)
            dones[t] = next_done
            with th.no_grad():
                logits, value = net(b_observation[t], b_options[t], b_mask[t])
                dist = th.distributions.Categorical(logits=logits)
                action = dist.sample()
            actions[t], logprobs[t], values[t] = action, dist.log_prob(action), value
            step: tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]] = envs.step(action.numpy())
            obs, reward, terminated, truncated, infos = step
            rewards[t] = th.as_tensor(reward, dtype=th.float32)
            next_done = th.as_tensor(terminated | truncated, dtype=th.float32)
            steps += config.num_envs
            for i in np.flatnonzero(terminated | truncated):
                games += 1
                wins += int(infos["final_info"]["winner"][i] == infos["final_info"]["learner_seat"][i])
        # ---- advantages (GAE); a truncated game is treated as ended
        with th.no_grad():
            next_value = net(*tensors(obs))[1]
        advantages, last = th.zeros(shape), th.zeros(config.num_envs)
        for t in reversed(range(config.num_steps)):
            not_done = 1.0 - (next_done if t == config.num_steps - 1 else dones[t + 1])
            following = next_value if t == config.num_steps - 1 else values[t + 1]
            delta = rewards[t] + config.gamma * following * not_done - values[t]
            advantages[t] = last = delta + config.gamma * config.gae_lambda * not_done * last
        returns = advantages + values
        # ---- optimize the policy and the value
        flat = [x.reshape(batch_size, *x.shape[2:]) for x in (b_observation, b_options, b_mask)]
        f_actions, f_logprobs, f_adv, f_returns = (x.reshape(-1) for x in (actions, logprobs, advantages, returns))
        for _ in range(config.update_epochs):
            for idx in th.randperm(batch_size).split(minibatch_size):
                logits, new_value = net(*(x[idx] for x in flat))
                dist = th.distributions.Categorical(logits=logits)
                ratio = (dist.log_prob(f_actions[idx]) - f_logprobs[idx]).exp()
                adv = (f_adv[idx] - f_adv[idx].mean()) / (f_adv[idx].std() + 1e-8)
                pg_loss = th.max(-adv * ratio, -adv * ratio.clamp(1 - config.clip_coef, 1 + config.clip_coef)).mean()
                v_loss = 0.5 * ((new_value - f_returns[idx]) ** 2).mean()
                entropy = dist.entropy().mean()
                loss = pg_loss - config.ent_coef * entropy + config.vf_coef * v_loss
                optimizer.zero_grad()
                loss.backward()
                th.nn.utils.clip_grad_norm_(net.parameters(), config.max_grad_norm)
                optimizer.step()
        # ---- report, save, stop on time
        elapsed = time.perf_counter() - start
        finished = games - games_before
        line: dict[str, Any] = {"update": update, "steps": steps, "games": games, "seconds": round(elapsed, 1)}
        line.update(win_rate=(wins - won_before) / finished if finished else None, steps_per_s=round(steps / elapsed))
        line.update(pg_loss=pg_loss.item(), v_loss=v_loss.item(), entropy=entropy.item())
        progress.write(json.dumps(line) + "\n")
        progress.flush()
        print(json.dumps(line), flush=True)
        if update % config.save_every == 0:
            save(net, sizes, run_dir / "model.pt")
        if elapsed > 60 * config.minutes and update < updates:
            cut_short = True
            print(f"time guard: stopped after {config.minutes:g} minutes, {steps} of {config.total_steps} steps")
            break
    progress.close()
    envs.close()
    save(net, sizes, run_dir / "model.pt")

    # ---- the final evaluation: the greedy policy, every seat equally often, fresh seeds
    agent = options_agent(net, k, n_features)
    result = evaluate(agent, config.eval_opponent, config.eval_games, map=config.map,
                      num_players=config.num_players, seed=config.seed, index=0)  # fmt: skip
    report = {**result.to_dict(), "timesteps": steps, "train_seconds": round(elapsed, 1), "cut_short": cut_short}
    (run_dir / "eval.json").write_text(json.dumps(report, indent=1))
    print(result.summary() + (" (the time guard cut the run short)" if cut_short else ""))
    return {**report, "run_dir": str(run_dir)}


def options_agent(net: OptionsNet, max_options: int, num_features: int) -> OptionsAgent:
    """The network's greedy choice (the most probable valid option) as an agent."""

    def choose(obs: dict[str, np.ndarray]) -> int:
        with th.no_grad():
            logits, _ = net(*(x.unsqueeze(0) for x in tensors(obs)))
        return int(logits.argmax())

    return OptionsAgent(choose, max_options, features_version(num_features))


def save(net: OptionsNet, sizes: dict[str, Any], path: Path) -> None:
    th.save({"sizes": sizes, "state_dict": net.state_dict()}, path)


def load(path: str | Path) -> OptionsNet:
    """The network a run saved in ``model.pt``."""
    saved = th.load(path, weights_only=True)
    net = OptionsNet(**saved["sizes"])
    net.load_state_dict(saved["state_dict"])
    return net


def boolean(text: str) -> bool:
    """``true``/``false`` (also 1/0, yes/no) on the command line; anything else is refused."""
    if text.lower() in ("1", "true", "yes"):
        return True
    if text.lower() in ("0", "false", "no"):
        return False
    raise argparse.ArgumentTypeError(f"expected true or false, got {text!r}")


def build_parser() -> argparse.ArgumentParser:
    """Every field of :class:`Config` as ``--field value``, with its default in ``--help``."""
    parser = argparse.ArgumentParser(prog="concordia train ppo_options", description=__doc__.split("\n", 1)[0])
    for f in dataclasses.fields(Config):
        default, kind = f.default, type(f.default)
        extra: dict[str, Any] = (
            {"nargs": "+", "type": int} if kind is tuple else {"type": boolean if kind is bool else kind}
        )
        parser.add_argument(f"--{f.name}", default=default, help="default: %(default)s", **extra)
    return parser


def parse(argv: list[str] | None, parser: argparse.ArgumentParser | None = None) -> Config:
    given = vars((parser or build_parser()).parse_args(argv))
    args: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in given.items()}
    return Config(**args)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """The command: a config or env mistake is one line and exit status 2, before any file is written."""
    parser = build_parser()
    config = parse(argv, parser)
    try:
        check(config)
        envs = make_envs(config)
        Path(config.runs_dir).mkdir(parents=True, exist_ok=True)
    except (ValueError, TypeError, OSError) as err:
        parser.error(mistake_text(err))
    return train(config, envs)


if __name__ == "__main__":
    main()
