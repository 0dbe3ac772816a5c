"""The options level's policy: ``concordia_env.OptionsPolicy`` (SB3) and its network.

A small synthetic env of the options level's shape (``Dict(observation, options,
action_mask)``, ``Discrete(K)``) checks the network's properties in milliseconds: permuting
the options permutes the logits, masked options are never chosen, a save/load round trip
plays the same. The real env's end-to-end runs are in ``tests/test_options_training.py``.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
import gymnasium as gym
import torch as th
from gymnasium import spaces
from sb3_contrib import MaskablePPO

import concordia_env
from concordia_env.agents.options_net import MASKED_LOGIT, OptionsNet
from concordia_env.agents.options_policy import OptionsPolicy

K, F, OBS = 6, 5, 4
#: the synthetic rows' "utility" is column 0 (the real features' is UTILITY_INDEX)
PRIOR_ON_COLUMN_0 = {"features_extractor_kwargs": {"utility_column": 0}}
NO_PRIOR = {"features_extractor_kwargs": {"utility_column": 0, "utility_prior": 0.0}}


@pytest.fixture(autouse=True)
def one_torch_thread():
    """One torch thread: these networks are tiny, and more threads on a busy machine are 20x slower."""
    threads = th.get_num_threads()
    th.set_num_threads(1)
    yield
    th.set_num_threads(threads)


class SyntheticOptionsEnv(gym.Env):
    """Between 1 and K options of F features; the reward is 1 for the option with the largest feature 0."""

    def __init__(self, episode_length: int = 8) -> None:
        self.observation_space = spaces.Dict(
            {
                "observation": spaces.Box(-1.0, 1.0, (OBS,), np.float32),
                "options": spaces.Box(-1.0, 1.0, (K, F), np.float32),
                "action_mask": spaces.Box(0, 1, (K,), np.int8),
            }
        )
        self.action_space = spaces.Discrete(K)
        self.episode_length = episode_length

    def _observe(self) -> dict[str, np.ndarray]:
        count = int(self.np_random.integers(1, K + 1))
        options = np.zeros((K, F), np.float32)
        options[:count] = self.np_random.uniform(-1, 1, (count, F))
        self._best = int(np.argmax(options[:count, 0]))
        self._mask = np.zeros(K, np.int8)
        self._mask[:count] = 1
        observation = self.np_random.uniform(-1, 1, OBS).astype(np.float32)
        return {"observation": observation, "options": options, "action_mask": self._mask.copy()}

    def action_masks(self) -> np.ndarray:
        return self._mask.astype(bool)

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        super().reset(seed=seed)
        self._t = 0
        return self._observe(), {}

    def step(self, action: int) -> tuple[dict, float, bool, bool, dict]:
        assert self._mask[action], "a masked option was played"
        reward = float(action == self._best)
        self._t += 1
        return self._observe(), reward, self._t >= self.episode_length, False, {}


def batch(env: SyntheticOptionsEnv, n: int, seed: int = 0) -> dict[str, np.ndarray]:
    env.reset(seed=seed)
    rows = [env._observe() for _ in range(n)]
    return {key: np.stack([r[key] for r in rows]) for key in rows[0]}


def policy_logits(model: MaskablePPO, obs: dict[str, np.ndarray]) -> th.Tensor:
    obs_tensor, _ = model.policy.obs_to_tensor(obs)
    with th.no_grad():
        return model.policy.get_distribution(obs_tensor).distribution.logits


def test_options_policy_is_exported_lazily() -> None:
    assert concordia_env.OptionsPolicy is OptionsPolicy
    assert "OptionsPolicy" in concordia_env.__all__


def test_permuting_the_options_permutes_the_logits() -> None:
    env = SyntheticOptionsEnv()
    model = MaskablePPO(OptionsPolicy, env, policy_kwargs=PRIOR_ON_COLUMN_0, seed=0)
    for p in model.policy.action_net.parameters():  # a visible score (the init is near zero)
        p.data.normal_()
    obs = batch(env, 16)
    obs["action_mask"][:] = 1
    obs["options"] = np.random.default_rng(1).uniform(-1, 1, obs["options"].shape).astype(np.float32)
    perm = np.random.default_rng(2).permutation(K)
    permuted = {**obs, "options": obs["options"][:, perm], "action_mask": obs["action_mask"][:, perm]}
    logits, permuted_logits = policy_logits(model, obs), policy_logits(model, permuted)
    assert th.allclose(permuted_logits, logits[:, perm], atol=1e-5)
    assert not th.allclose(logits[:, 0], logits[:, 1])  # the rows are scored, not all alike
    # the value reads the pooled options: it does not depend on their order either
    values = model.policy.predict_values(model.policy.obs_to_tensor(obs)[0])
    permuted_values = model.policy.predict_values(model.policy.obs_to_tensor(permuted)[0])
    assert th.allclose(values, permuted_values, atol=1e-5)


def test_masked_options_are_never_chosen() -> None:
    env = SyntheticOptionsEnv()
    model = MaskablePPO(OptionsPolicy, env, policy_kwargs=PRIOR_ON_COLUMN_0, seed=0)
    obs = batch(env, 200)
    # make the invalid rows the most attractive ones: they must still never be chosen
    obs["options"][obs["action_mask"] == 0] = 1.0
    logits = policy_logits(model, obs)
    assert (logits[th.as_tensor(obs["action_mask"] == 0)] < MASKED_LOGIT / 2).all()
    for deterministic in (False, True):
        actions, _ = model.predict(obs, deterministic=deterministic)  # no action_masks= given
        assert obs["action_mask"][np.arange(len(actions)), actions].all()


def test_the_untrained_policy_prefers_the_options_of_highest_utility() -> None:
    env = SyntheticOptionsEnv()
    model = MaskablePPO(OptionsPolicy, env, policy_kwargs=PRIOR_ON_COLUMN_0, seed=0)
    obs = batch(env, 200)
    actions, _ = model.predict(obs, deterministic=True)
    utility = np.where(obs["action_mask"] == 1, obs["options"][..., 0], -np.inf)
    assert np.array_equal(actions, utility.argmax(1))
    with pytest.raises(ValueError, match="utility_column 7 is not a column of 5 features"):
        MaskablePPO(OptionsPolicy, env, policy_kwargs={"features_extractor_kwargs": {"utility_column": 7}})


def test_a_row_without_options_gives_finite_values() -> None:
    net = OptionsNet(OBS, F, utility_column=0)
    logits, values = net(th.zeros(2, OBS), th.zeros(2, K, F), th.zeros(2, K))
    assert th.isfinite(values).all() and th.isfinite(th.softmax(logits, -1)).all()


def test_save_and_load_play_the_same(tmp_path) -> None:
    env = SyntheticOptionsEnv()
    model = MaskablePPO(
        OptionsPolicy, env, policy_kwargs=PRIOR_ON_COLUMN_0, n_steps=32, batch_size=16, n_epochs=1, seed=0
    )
    model.learn(32)
    model.save(tmp_path / "options.zip")
    loaded = MaskablePPO.load(tmp_path / "options.zip")
    assert isinstance(loaded.policy, OptionsPolicy)
    obs = batch(env, 32, seed=3)
    assert th.allclose(policy_logits(model, obs), policy_logits(loaded, obs))
    assert np.array_equal(model.predict(obs, deterministic=True)[0], loaded.predict(obs, deterministic=True)[0])


def test_maskable_ppo_learns_the_synthetic_options() -> None:
    """The row with the largest feature 0 is learnt from a uniform start in a few thousand steps (random: ~40%)."""
    env = SyntheticOptionsEnv()
    model = MaskablePPO(
        OptionsPolicy, env, policy_kwargs=NO_PRIOR, n_steps=256, batch_size=64, n_epochs=5, learning_rate=3e-3, seed=0
    )
    assert model.policy.features_extractor.encoder.utility_weight.item() == 0.0
    model.learn(2048)
    obs = batch(env, 400, seed=5)
    actions, _ = model.predict(obs, deterministic=True)
    best = obs["options"][..., 0].copy()
    best[obs["action_mask"] == 0] = -np.inf
    assert np.mean(actions == best.argmax(1)) > 0.8


@pytest.mark.parametrize(
    ("space", "message"),
    [
        (spaces.Box(0, 1, (4,)), "Dict observation space"),
        (
            spaces.Dict({"observation": spaces.Box(0, 1, (4,)), "action_mask": spaces.Box(0, 1, (K,))}),
            "Dict observation space",
        ),
    ],
)
def test_other_spaces_are_refused_in_one_line(space: spaces.Space, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        OptionsPolicy(space, spaces.Discrete(K), lambda _: 3e-4)


def test_an_action_space_of_another_size_is_refused() -> None:
    env = SyntheticOptionsEnv()
    with pytest.raises(ValueError, match=r"Discrete\(6\)"):
        OptionsPolicy(env.observation_space, spaces.Discrete(K + 1), lambda _: 3e-4)
