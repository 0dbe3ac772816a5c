"""``OptionsPolicy``: the Stable-Baselines3 policy of the options level (``MaskablePPO(OptionsPolicy, env)``).

::

    from sb3_contrib import MaskablePPO
    from concordia_env import OptionsPolicy, SingleAgentEnv

    env = SingleAgentEnv(level="options", map="italia", num_players=2, opponents="heuristic")
    model = MaskablePPO(OptionsPolicy, env, seed=0)
    model.learn(200_000)
    model.save("options_ppo.zip")          # MaskablePPO.load("options_ppo.zip") plays it again
    concordia_env.evaluate("policy:options_ppo.zip")  # or evaluate(model): played as the env shows it

The network is :mod:`concordia_env.agents.options_net`'s (its docstring says what each part
does and how the features are scaled), cut into SB3's parts so that SB3 builds, saves and
loads it as any of its own policies:

* the **features extractor** (:class:`OptionsExtractor`) is the option and observation
  encoder: per-option embeddings, the pooled summary and the valid rows;
* the **mlp_extractor** is :class:`~concordia_env.agents.options_net.OptionsHeads`: the
  actor's MLP applied to every row alike, the critic's MLP on the pooled summary;
* the **action_net** is ``Linear(latent, 1)`` applied to every row (one logit per option,
  the same weights for all: permuting the options permutes the logits), and the
  **value_net** SB3's ``Linear(latent, 1)``.

Invalid rows are masked inside the policy from the observation's ``"action_mask"``, so
``model.predict(obs)`` never picks one even without ``action_masks=``; sb3-contrib's masks
(``env.action_masks()``) are applied on top as usual. Options (``policy_kwargs``):
``net_arch=dict(pi=[64], vf=[64, 64])`` (the heads; a list gives both the same),
``activation_fn`` (``nn.Tanh``), ``ortho_init``, and ``features_extractor_kwargs`` for the
encoder: ``option_hidden=[128, 64]``, ``observation_hidden=[64]``, ``use_observation=True``
(False: the options alone), ``utility_prior=120.0`` (the starting weight of the heuristic's
utility in the logits; 0: a uniform start) and ``utility_column`` (where the utility sits
in a row, ``strategy.afterstate_scorer.UTILITY_INDEX``). The features extractor is always shared by actor and critic.

What a saved model says
-----------------------
The policy carries its level in its weights: the buffer ``options_level`` (:data:`LEVEL_BUFFER`)
holds ``(max_options, features_version, observation size)`` (:func:`saved_level`), so
``model.save`` writes it into the ``.zip``'s ``policy.pth`` beside the weights, and
``policy:model.zip`` (:class:`concordia_env.agents.policy.PolicyAgent`, the one agent of
every trained model, flat or options) knows what it plays without unpickling the file. A
file saved before the buffer existed loads as well (``MaskablePPO.load`` and the agent
read its level from its observation space, :func:`level_from_space_text`).

The agent plays the model on the options the env shows (:class:`~concordia_env.agents.options_agent.OptionsAgent`:
the same determinization, order and the model's own ``max_options``), so
``concordia_env.evaluate(model)``, ``concordia evaluate policy:model.zip`` and every other entry point
measure it as the env trained it.

Needs the ``train`` extra (torch, Stable-Baselines3, sb3-contrib).
"""

from __future__ import annotations

import inspect
import re
from functools import partial
from typing import Any

import numpy as np
from gymnasium import spaces

from concordia_env._extras import needs_extra

with needs_extra("OptionsPolicy"):  # without the train extra: one line naming it
    import torch as th
    from sb3_contrib.common.maskable.distributions import MaskableDistribution
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
    from stable_baselines3.common.type_aliases import PyTorchObs, Schedule
    from torch import nn

from concordia_env.strategy import FEATURE_COUNTS, UTILITY_INDEX, features_version

from .options_agent import OptionsAgent
from .options_net import UTILITY_PRIOR, OptionsEncoder, OptionsHeads, OptionsNet, masked_logits, option_scores

#: what the features extractor gives: per-option rows (B, K, D), the pooled summary (B, P), the valid rows (B, K)
#: and the utility prior's logits (B, K)
Features = tuple[th.Tensor, th.Tensor, th.Tensor, th.Tensor]
#: the keys of an options-level observation
OBSERVATION, OPTIONS, ACTION_MASK = "observation", "options", "action_mask"
#: the buffer in a saved OptionsPolicy's weights that says its level: (max_options, features_version, observation size);
#: features_version 0 for option rows of a width no version has (a policy built for other spaces)
LEVEL_BUFFER = "options_level"


def options_shape(observation_space: spaces.Space, action_space: spaces.Space | None = None) -> tuple[int, int, int]:
    """``(observation size, K, F)`` of the options level's spaces; ``ValueError`` for other spaces."""
    keys = {OBSERVATION, OPTIONS, ACTION_MASK}
    if not isinstance(observation_space, spaces.Dict) or set(observation_space.spaces) != keys:
        raise ValueError(
            f"the options level's policy takes a Dict observation space with keys {sorted(keys)}; "
            f"got {observation_space!r} (make the env with level='options')"
        )
    observation, options, mask = (
        tuple(observation_space[key].shape or ()) for key in (OBSERVATION, OPTIONS, ACTION_MASK)
    )
    if len(observation) != 1 or len(options) != 2 or mask != options[:1]:
        raise ValueError(
            f"expected observation (N,), options (K, F) and action_mask (K,); got {observation}, {options}, {mask}"
        )
    if action_space is not None and (
        not isinstance(action_space, spaces.Discrete) or int(action_space.n) != options[0]
    ):
        raise ValueError(
            f"the action space must be Discrete({options[0]}), one action per option; got {action_space!r}"
        )
    return observation[0], options[0], options[1]


class OptionsExtractor(BaseFeaturesExtractor):
    """SB3's features extractor of :class:`OptionsPolicy`: ``(per_option, pooled, valid)`` of a batch.

    ``features_dim`` is the width of a per-option row; the pooled summary's width is
    ``pooled_dim``.
    """

    def __init__(
        self,
        observation_space: spaces.Dict,
        option_hidden: list[int] | tuple[int, ...] = (128, 64),
        observation_hidden: list[int] | tuple[int, ...] = (64,),
        use_observation: bool = True,
        utility_prior: float = UTILITY_PRIOR,
        utility_column: int = UTILITY_INDEX,
    ) -> None:
        observation_size, _, num_features = options_shape(observation_space)
        encoder = OptionsEncoder(
            observation_size,
            num_features,
            option_hidden,
            observation_hidden,
            use_observation,
            utility_prior,
            utility_column,
        )
        super().__init__(observation_space, features_dim=encoder.option_dim)
        self.encoder = encoder
        self.pooled_dim = encoder.pooled_dim

    def forward(self, observations: dict[str, th.Tensor]) -> Features:
        return self.encoder(observations[OBSERVATION], observations[OPTIONS], observations[ACTION_MASK])


class OptionsPolicy(MaskableActorCriticPolicy):
    """One shared network scores every option; a masked softmax over the valid rows; the value on the pooled rows."""

    features_extractor: OptionsExtractor
    mlp_extractor: OptionsHeads  # type: ignore[assignment]

    def __init__(
        self,
        observation_space: spaces.Space,
        action_space: spaces.Space,
        lr_schedule: Schedule,
        net_arch: list[int] | dict[str, list[int]] | None = None,
        activation_fn: type[nn.Module] = nn.Tanh,
        ortho_init: bool = True,
        features_extractor_class: type[BaseFeaturesExtractor] = OptionsExtractor,
        features_extractor_kwargs: dict[str, Any] | None = None,
        share_features_extractor: bool = True,
        normalize_images: bool = True,
        optimizer_class: type[th.optim.Optimizer] = th.optim.Adam,
        optimizer_kwargs: dict[str, Any] | None = None,
    ) -> None:
        observation_size, max_options, num_features = options_shape(observation_space, action_space)
        if not issubclass(features_extractor_class, OptionsExtractor):
            raise ValueError(
                f"features_extractor_class must be OptionsExtractor or a subclass; got {features_extractor_class!r}"
            )
        if not share_features_extractor:
            raise ValueError("OptionsPolicy shares its features extractor between actor and critic")
        super().__init__(
            observation_space,
            action_space,
            lr_schedule,
            net_arch=dict(pi=[64], vf=[64, 64]) if net_arch is None else net_arch,
            activation_fn=activation_fn,
            ortho_init=ortho_init,
            features_extractor_class=features_extractor_class,
            features_extractor_kwargs=features_extractor_kwargs,
            share_features_extractor=True,
            normalize_images=normalize_images,
            optimizer_class=optimizer_class,
            optimizer_kwargs=optimizer_kwargs,
        )
        version = next((v for v, width in FEATURE_COUNTS.items() if width == num_features), 0)  # 0: no game's features
        level = (max_options, version, observation_size)
        self.register_buffer(LEVEL_BUFFER, th.tensor(level, dtype=th.int64))  # saved with the weights

    def load_state_dict(self, state_dict: Any, strict: bool = True, assign: bool = False) -> Any:
        """torch's ``load_state_dict``; weights saved before :data:`LEVEL_BUFFER` existed get this policy's level.

        (Its spaces, which ``MaskablePPO.load`` rebuilds from the file, say the same.)
        """
        if LEVEL_BUFFER not in state_dict:
            state_dict = {**state_dict, LEVEL_BUFFER: getattr(self, LEVEL_BUFFER)}
        return super().load_state_dict(state_dict, strict=strict, assign=assign)

    def _build_mlp_extractor(self) -> None:
        arch = self.net_arch if isinstance(self.net_arch, dict) else {"pi": self.net_arch, "vf": self.net_arch}
        self.mlp_extractor = OptionsHeads(
            self.features_extractor.features_dim,
            self.features_extractor.pooled_dim,
            pi=list(arch.get("pi", [])),
            vf=list(arch.get("vf", [])),
            activation=self.activation_fn,
        )

    def _build(self, lr_schedule: Schedule) -> None:
        """SB3's ``_build`` with one change: the action net scores each row (``Linear(latent, 1)``)."""
        self._build_mlp_extractor()
        self.action_net = nn.Linear(self.mlp_extractor.latent_dim_pi, 1)
        self.value_net = nn.Linear(self.mlp_extractor.latent_dim_vf, 1)
        if self.ortho_init:
            gains = {
                self.features_extractor: np.sqrt(2),
                self.mlp_extractor: np.sqrt(2),
                self.action_net: 0.01,
                self.value_net: 1,
            }
            for module, gain in gains.items():
                module.apply(partial(self.init_weights, gain=gain))
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)  # type: ignore[call-arg]

    # ------------------------------------------------------------------ the two heads
    def _distribution(self, features: Features, action_masks: Any) -> MaskableDistribution:
        per_option, _, valid, prior = features
        scores = option_scores(lambda rows: self.action_net(self.mlp_extractor.forward_actor(rows)), per_option, valid)
        scores = scores + prior
        distribution = self.action_dist.proba_distribution(action_logits=masked_logits(scores, valid))
        if action_masks is not None:
            distribution.apply_masking(action_masks)
        return distribution

    def _values(self, features: Features) -> th.Tensor:
        return self.value_net(self.mlp_extractor.forward_critic(features[1]))

    # ------------------------------------------------------------------ SB3's entry points
    def forward(
        self, obs: th.Tensor, deterministic: bool = False, action_masks: np.ndarray | None = None
    ) -> tuple[th.Tensor, th.Tensor, th.Tensor]:
        features = self.extract_features(obs)
        distribution = self._distribution(features, action_masks)  # type: ignore[arg-type]
        actions = distribution.get_actions(deterministic=deterministic)
        return actions.reshape(-1), self._values(features), distribution.log_prob(actions)  # type: ignore[arg-type]

    def evaluate_actions(
        self, obs: th.Tensor, actions: th.Tensor, action_masks: th.Tensor | None = None
    ) -> tuple[th.Tensor, th.Tensor, th.Tensor | None]:
        features = self.extract_features(obs)
        distribution = self._distribution(features, action_masks)  # type: ignore[arg-type]
        return self._values(features), distribution.log_prob(actions), distribution.entropy()  # type: ignore[arg-type]

    def get_distribution(self, obs: PyTorchObs, action_masks: np.ndarray | None = None) -> MaskableDistribution:
        return self._distribution(self.extract_features(obs), action_masks)  # type: ignore[arg-type]

    def predict_values(self, obs: PyTorchObs) -> th.Tensor:
        return self._values(self.extract_features(obs))  # type: ignore[arg-type]


def saved_level(weights: dict[str, Any]) -> tuple[int, int, int] | None:
    """``(max_options, features_version, observation size)`` of saved OptionsPolicy weights; None without a level."""
    level = weights.get(LEVEL_BUFFER)
    if level is None:
        return None
    max_options, version, observation_size = (int(v) for v in level.reshape(-1).tolist())
    return max_options, version, observation_size


def level_from_space_text(text: str) -> tuple[int, int, int] | None:
    """``(max_options, features_version, observation size)`` read off an older file's observation space, or None.

    SB3 writes, beside a space's pickle, its ``repr``: ``"{'action_mask': Box(0, 1, (32,), int8),
    'observation': Box(..., (2510,), float32), 'options': Box(-inf, inf, (32, 522), float32)}"``.
    None unless the three shapes agree and the width is a features version's.
    """
    shapes = {
        key: re.search(rf"'{key}': Box\(.*?, \(([\d, ]+)\), \w+\)", text) for key in (OBSERVATION, OPTIONS, ACTION_MASK)
    }
    if not all(shapes.values()):
        return None
    observation, options, mask = (
        tuple(int(v) for v in found.group(1).split(",") if v.strip()) for found in shapes.values() if found
    )
    if len(observation) != 1 or len(options) != 2 or mask != options[:1] or options[1] not in FEATURE_COUNTS.values():
        return None
    return options[0], features_version(options[1]), observation[0]


def policy_from_options_net(sizes: dict[str, Any], state_dict: dict[str, Any], max_options: int) -> OptionsPolicy:
    """The :class:`OptionsPolicy` that computes what an :class:`OptionsNet` computes, for ``max_options`` options.

    ``concordia train ppo_options`` trains an :class:`~concordia_env.agents.options_net.OptionsNet`
    and saves its constructor's arguments (``sizes``) beside its weights (``state_dict``): the
    same encoder, heads, score and value that this policy holds under SB3's names. The net is
    rebuilt and its modules' weights copied into a policy of the same sizes, so
    ``policy:run/model.pt`` plays through :class:`~concordia_env.agents.policy.PolicyAgent`
    exactly as a saved ``MaskablePPO`` does. ``ValueError`` if the sizes or weights do not fit.
    """
    from concordia_env.envs.options_level import options_space

    try:
        arguments = inspect.signature(OptionsNet).bind(**sizes)
        arguments.apply_defaults()
        net = OptionsNet(**arguments.arguments)
        net.load_state_dict(state_dict)
    except (TypeError, ValueError, RuntimeError, KeyError) as err:
        reason = " ".join(str(err).split())[:200]  # torch's message spans lines
        raise ValueError(f"its sizes and weights do not build the network: {reason}") from None
    size = dict(arguments.arguments)
    net_arch = {"pi": list(size.pop("pi")), "vf": list(size.pop("vf"))}
    observation_size, num_features = size.pop("observation_size"), size.pop("num_features")
    flat = spaces.Box(-np.inf, np.inf, shape=(observation_size,), dtype=np.float32)
    level_space = options_space(flat, max_options, features_version(num_features))
    policy = OptionsPolicy(
        level_space, spaces.Discrete(max_options), lambda _: 0.0, net_arch=net_arch, features_extractor_kwargs=size
    )
    policy.features_extractor.encoder.load_state_dict(net.encoder.state_dict())
    policy.mlp_extractor.load_state_dict(net.heads.state_dict())
    policy.action_net.load_state_dict(net.score.state_dict())
    policy.value_net.load_state_dict(net.value.state_dict())
    return policy.eval()


def options_agent(model: Any) -> OptionsAgent:
    """The bare greedy player of an :class:`OptionsPolicy` (or of a ``MaskablePPO`` holding one).

    :class:`concordia_env.agents.policy.PolicyAgent` (``PolicyAgent.from_model(model)``,
    ``policy:model.zip``) is the agent every entry point builds; this one is what a training
    script needs without it: the same options (:class:`OptionsAgent`) and the model's
    deterministic ``predict``.
    """
    policy = getattr(model, "policy", model)
    _, max_options, num_features = options_shape(policy.observation_space)

    def choose(observation: dict[str, np.ndarray]) -> int:
        return int(policy.predict(observation, deterministic=True)[0])

    return OptionsAgent(choose, max_options, features_version(num_features))
