"""PPO in one file on the options level, CleanRL style: the settings at the top, the loop in plain sight.

The learner picks one of up to ``MAX_OPTIONS`` turn options at each of its decisions in
``--envs`` games of 2-player Italia stepped together by ``ConcordiaVectorEnv(level="options")``
(the options and the compiled opponents computed in the batch; the learner's seat rotates;
a finished game's row starts the next game in the same step). The network is
``OptionsNet`` (the network of ``concordia_env.OptionsPolicy``): one MLP scores every option
from its features and starts from the heuristic's preference; the value reads the pooled
options and the observation. The reward is the final VP margin / 100. The loop is CleanRL's
``ppo.py``: collect ``NUM_STEPS`` steps per game, GAE, ``UPDATE_EPOCHS`` epochs of clipped
minibatch updates. At the end it saves the network's weights and plays ``--eval-games``
games greedily against the opponent in the same kind of env, counting the learner's wins.

Run it from the checkout (needs the ``train`` extra: ``pip install "concordia-env[train]"``)::

    python training/ppo_single_file.py                     # 1 M steps: about 1.5 hours on 2 cores
    python training/ppo_single_file.py --steps 200000 --seed 1 --out runs/ppo.pt

What it reaches: this is the algorithm, network and settings of ``concordia train
ppo_options`` (``concordia_env/training/ppo_options.py``, which adds run folders, checkpoints
and the project's evaluation), which won 81.0% (75.0% - 85.8%) of 200 games against
``heuristic`` after 60 minutes on 2 cores (README); its untrained network, the heuristic's
preference alone, wins about half.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

# ---- settings (CleanRL's PPO defaults, as SB3's)
MAX_OPTIONS = 32  # options offered per decision: 95% of the decisions whole
NUM_STEPS = 128  # steps per game per rollout
LEARNING_RATE = 3e-4
GAMMA, GAE_LAMBDA = 0.99, 0.95
NUM_MINIBATCHES, UPDATE_EPOCHS = 4, 4
CLIP_COEF, ENT_COEF, VF_COEF, MAX_GRAD_NORM = 0.2, 0.01, 0.5, 0.5


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=1_000_000, help="learner decisions, all games together")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="runs/ppo_single_file.pt", help="where the network's weights are saved")
    parser.add_argument("--envs", type=int, default=8, help="games stepped together")
    parser.add_argument("--num-steps", type=int, default=NUM_STEPS, help="steps per game per rollout")
    parser.add_argument("--opponent", default="heuristic", help="the agent spec in the other seat")
    parser.add_argument("--eval-games", type=int, default=200, help="greedy games of the final evaluation")
    args = parser.parse_args(argv)
    if min(args.steps, args.envs, args.num_steps, args.eval_games) < 1:
        parser.error("--steps, --envs, --num-steps and --eval-games must be at least 1")
    try:
        import torch as th

        from concordia_env.agents.options_net import OptionsNet
    except ImportError as error:
        sys.exit(f"{parser.prog} needs the train extra: pip install 'concordia-env[train]' ({error.name} is missing)")
    from concordia_env import ConcordiaVectorEnv

    def make_envs(seed: int) -> ConcordiaVectorEnv:
        return ConcordiaVectorEnv(
            args.envs, opponents=args.opponent, map="italia", num_players=2, reward="vp", threads=2,
            level="options", max_options=MAX_OPTIONS, seed=seed,
        )  # fmt: skip

    def tensors(obs: dict[str, np.ndarray]) -> tuple[th.Tensor, th.Tensor, th.Tensor]:
        return th.as_tensor(obs["observation"]), th.as_tensor(obs["options"]), th.as_tensor(obs["action_mask"])

    th.manual_seed(args.seed)
    th.set_num_threads(1)
    envs = make_envs(args.seed)
    obs, _ = envs.reset(seed=args.seed)
    n_obs, (k, n_features) = obs["observation"].shape[1], obs["options"].shape[1:]
    net = OptionsNet(observation_size=n_obs, num_features=n_features)
    optimizer = th.optim.Adam(net.parameters(), lr=LEARNING_RATE, eps=1e-5)

    # ---- rollout storage: (num_steps, envs, ...)
    shape = (args.num_steps, args.envs)
    b_obs, b_options, b_mask = th.zeros((*shape, n_obs)), th.zeros((*shape, k, n_features)), th.zeros((*shape, k))
    actions, logprobs, rewards, dones, values = (th.zeros(shape) for _ in range(5))
    batch_size = args.num_steps * args.envs
    minibatch_size = max(1, batch_size // NUM_MINIBATCHES)
    updates = max(1, args.steps // batch_size)
    next_done = th.zeros(args.envs)
    start, games, wins = time.perf_counter(), 0, 0
    for update in range(1, updates + 1):
        optimizer.param_groups[0]["lr"] = LEARNING_RATE * (1.0 - (update - 1.0) / updates)  # annealed
        # ---- collect a rollout
        for t in range(args.num_steps):
            b_obs[t], b_options[t], b_mask[t] = tensors(obs)
            dones[t] = next_done
            with th.no_grad():
                logits, value = net(b_obs[t], b_options[t], b_mask[t])
                dist = th.distributions.Categorical(logits=logits)
                action = dist.sample()
            actions[t], logprobs[t], values[t] = action, dist.log_prob(action), value
            obs, reward, terminated, truncated, infos = envs.step(action.numpy())
            rewards[t] = th.as_tensor(reward, dtype=th.float32)
            next_done = th.as_tensor(terminated | truncated, dtype=th.float32)
            for i in np.flatnonzero(terminated | truncated):
                games += 1
                wins += int(infos["final_info"]["winner"][i] == infos["final_info"]["learner_seat"][i])
        # ---- advantages (GAE); a truncated game counts as ended
        with th.no_grad():
            next_value = net(*tensors(obs))[1]
        advantages, last = th.zeros(shape), th.zeros(args.envs)
        for t in reversed(range(args.num_steps)):
            not_done = 1.0 - (next_done if t == args.num_steps - 1 else dones[t + 1])
            following = next_value if t == args.num_steps - 1 else values[t + 1]
            delta = rewards[t] + GAMMA * following * not_done - values[t]
            advantages[t] = last = delta + GAMMA * GAE_LAMBDA * not_done * last
        returns = advantages + values
        # ---- optimize the policy and the value on minibatches of the rollout
        flat = [x.reshape(batch_size, *x.shape[2:]) for x in (b_obs, b_options, b_mask)]
        f_actions, f_logprobs, f_adv, f_returns = (x.reshape(-1) for x in (actions, logprobs, advantages, returns))
        for _ in range(UPDATE_EPOCHS):
            for idx in th.randperm(batch_size).split(minibatch_size):
                logits, new_value = net(*(x[idx] for x in flat))
                dist = th.distributions.Categorical(logits=logits)
                ratio = (dist.log_prob(f_actions[idx]) - f_logprobs[idx]).exp()
                adv = (f_adv[idx] - f_adv[idx].mean()) / (f_adv[idx].std() + 1e-8)
                pg_loss = th.max(-adv * ratio, -adv * ratio.clamp(1 - CLIP_COEF, 1 + CLIP_COEF)).mean()
                v_loss = 0.5 * ((new_value - f_returns[idx]) ** 2).mean()
                loss = pg_loss - ENT_COEF * dist.entropy().mean() + VF_COEF * v_loss
                optimizer.zero_grad()
                loss.backward()
                th.nn.utils.clip_grad_norm_(net.parameters(), MAX_GRAD_NORM)
                optimizer.step()
        steps = update * batch_size
        elapsed = time.perf_counter() - start
        print(f"update {update}/{updates}: {steps} steps, {games} games, {wins} won, {steps / elapsed:.0f} steps/s")
    envs.close()
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    th.save(net.state_dict(), args.out)
    print(f"saved {args.out}")

    # ---- the final evaluation: the most probable option, fresh games, the learner's seat rotating
    envs = make_envs(args.seed + 1)
    obs, _ = envs.reset(seed=args.seed + 1)
    played = won = 0
    while played < args.eval_games:
        with th.no_grad():
            action = net(*tensors(obs))[0].argmax(dim=1)
        obs, _, terminated, truncated, infos = envs.step(action.numpy())
        for i in np.flatnonzero(terminated | truncated)[: args.eval_games - played]:
            played += 1
            won += int(infos["final_info"]["winner"][i] == infos["final_info"]["learner_seat"][i])
    envs.close()
    print(f"greedy policy vs {args.opponent}: won {won}/{played} = {won / played:.1%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
