"""The options level's network: one shared MLP scores every turn option; the value reads them pooled.

At the options level (``level="options"``) an observation is a dict: ``"observation"`` (the
flat observation, ``(OBS_SIZE,)``), ``"options"`` (one afterstate feature row per turn
option, ``(K, F)``, zeros past the count) and ``"action_mask"`` (``(K,)``, 1 for a real
option); the action is the index of an option. This module is the one home of the network
that plays it, in plain torch; three front ends wrap it:
:class:`~concordia_env.agents.options_policy.OptionsPolicy` (Stable-Baselines3,
``MaskablePPO(OptionsPolicy, env)``), :class:`~concordia_env.training.options_rllib.OptionsRLModule`
(RLlib) and the single-file script :mod:`concordia_env.training.ppo_options`.

Network
-------
* **Option encoder** (:class:`OptionsEncoder`), the same weights for every row: the row
  ``x_k`` and its difference to the mean of the valid rows ``x_k - mean(x)``, times
  :data:`DIFFERENCE_SCALE`, go through an MLP to an embedding ``h_k``. The options of one
  decision share most of their features (the same position, one turn later), so the
  difference is what tells them apart; scaled, it is as large as the features themselves.
* **Observation encoder** (optional, ``use_observation``): an MLP over the flat observation,
  ``e``, appended to every ``h_k``.
* **Actor**: an MLP over ``[h_k, e]``, the same for every row, to one logit per option;
  invalid rows get :data:`MASKED_LOGIT` (a softmax over the valid rows is the policy).
  Permuting the options permutes the logits: nothing depends on the order of the rows.
* **Critic**: an MLP over the pooled options ``[masked mean of h, masked max of h, e]``.
* **Prior**: a learnt weight times each option's ``utility`` feature (the heuristic's own
  measure, the chooser's estimated final margin over the opponents' mean, ÷30 VP) is added
  to its logit, starting at :data:`UTILITY_PRIOR` (four logits per VP of estimated margin).
  The untrained policy therefore prefers the options the heuristic prefers (the utilities of
  one decision's options spread by a median of 7 VP), the score MLP starts near zero
  (SB3's 0.01 gain) and
  learns where that ranking is wrong: the ``learned`` agent's ``score = a·u + b + MLP(x)``
  with ``a = 1`` at the start. ``utility_prior=0`` starts from a uniform policy instead.

Feature scaling: the afterstate features (``concordia_env.strategy.afterstate_scorer``, version 2)
are already scaled by the observation's layout (counts and shares in [0, 1]; money, turns
and VP totals by fixed divisors) and the value estimates by ``VALUE_SCALE`` /
``MARGIN_SCALE``: over 6,000 options of 2-player Italia games every feature lay in
[-0.81, 1.75], with a standard deviation of 0.10 across decisions but 0.02 among the
options of one decision. So the encoder takes the rows as they are, multiplies the
differences by :data:`DIFFERENCE_SCALE` (which brings them to the features' own scale), and
clips every input to ``[-INPUT_CLIP, INPUT_CLIP]`` so that no rare position saturates it. Rows of
zeros (past the count) are ignored by the mean, the max and the softmax; an observation
with no valid row (the last observation of a finished game) gives a uniform policy over
all rows and a finite value.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from functools import partial

import torch as th
from torch import nn

from concordia_env.strategy import UTILITY_INDEX

#: the logit of an invalid row (the value sb3-contrib's masked distribution uses)
MASKED_LOGIT = -1e8
#: factor on ``x_k - mean(x)``: the options of one decision differ by a few hundredths in most features
DIFFERENCE_SCALE = 10.0
#: every encoder input is clipped to this magnitude
INPUT_CLIP = 10.0
#: the starting weight of the heuristic's utility (÷30 VP) in the logits: four logits per VP of estimated margin.
#: Sharp enough that the sampled policy plays about as well as the greedy one: a PPO rollout
#: then explores around the heuristic's ranking instead of far below it (docs/training.md).
UTILITY_PRIOR = 120.0


def mlp(sizes: Sequence[int], activation: type[nn.Module] = nn.Tanh) -> nn.Sequential:
    """Linear layers of the given sizes, each followed by ``activation`` (acts on the last dimension)."""
    layers: list[nn.Module] = []
    for n_in, n_out in itertools.pairwise(sizes):
        layers += [nn.Linear(n_in, n_out), activation()]
    return nn.Sequential(*layers)


class OptionsEncoder(nn.Module):
    """Per-option embeddings ``[h_k, e]`` (B, K, D), the pooled summary ``[mean h, max h, e]`` (B, P), the prior.

    The prior is ``utility_weight · x_k[utility_column]`` (B, K), added to the logits; the
    weight is learnt, starting at ``utility_prior`` (0: no prior at the start).
    """

    def __init__(
        self,
        observation_size: int,
        num_features: int,
        option_hidden: Sequence[int] = (128, 64),
        observation_hidden: Sequence[int] = (64,),
        use_observation: bool = True,
        utility_prior: float = UTILITY_PRIOR,
        utility_column: int = UTILITY_INDEX,
        activation: type[nn.Module] = nn.Tanh,
    ) -> None:
        super().__init__()
        if not option_hidden:
            raise ValueError("option_hidden needs at least one layer")
        if not 0 <= utility_column < num_features:
            raise ValueError(f"utility_column {utility_column} is not a column of {num_features} features")
        self.utility_column = utility_column
        self.utility_weight = nn.Parameter(th.tensor(float(utility_prior)))
        self.use_observation, self.num_features = use_observation, num_features
        self.option_net = mlp([2 * num_features, *option_hidden], activation)
        option_dim = self.option_hidden = option_hidden[-1]
        if use_observation:
            if not observation_hidden:
                raise ValueError("observation_hidden needs at least one layer when use_observation is True")
            self.observation_net = mlp([observation_size, *observation_hidden], activation)
            observation_dim = observation_hidden[-1]
        else:
            observation_dim = 0
        #: width of a row of :meth:`forward`'s per-option output and of its pooled output
        self.option_dim = option_dim + observation_dim
        self.pooled_dim = 2 * option_dim + observation_dim

    def forward(
        self, observation: th.Tensor, options: th.Tensor, mask: th.Tensor
    ) -> tuple[th.Tensor, th.Tensor, th.Tensor, th.Tensor]:
        """``(per_option (B, K, D), pooled (B, P), valid (B, K) bool, prior (B, K))`` of a batch."""
        valid = mask > 0.5
        prior = self.utility_weight * options[..., self.utility_column]
        # only the valid rows are encoded (a decision has a median of 6 options of K = 96)
        row_batch = valid.nonzero()[:, 0]  # the batch index of every valid row
        x = options[valid]  # (N, F)
        count = valid.sum(dim=1).clamp(min=1).unsqueeze(-1).to(x.dtype)  # (B, 1)
        mean_row = x.new_zeros((options.shape[0], x.shape[1])).index_add_(0, row_batch, x) / count
        rows = th.cat([x, DIFFERENCE_SCALE * (x - mean_row[row_batch])], dim=-1)
        h = x.new_zeros((*options.shape[:2], self.option_hidden))  # (B, K, H), zeros in invalid rows
        h[valid] = self.option_net(rows.clamp(-INPUT_CLIP, INPUT_CLIP))
        mean_h = h.sum(dim=1) / count
        max_h = h.masked_fill(~valid.unsqueeze(-1), -1e9).amax(dim=1)
        max_h = th.where(valid.any(dim=1, keepdim=True), max_h, th.zeros_like(max_h))
        if not self.use_observation:
            return h, th.cat([mean_h, max_h], dim=-1), valid, prior
        e = self.observation_net(observation.clamp(-INPUT_CLIP, INPUT_CLIP))  # (B, E)
        per_option = th.cat([h, e.unsqueeze(1).expand(-1, h.shape[1], -1)], dim=-1)
        return per_option, th.cat([mean_h, max_h, e], dim=-1), valid, prior


class OptionsHeads(nn.Module):
    """The actor's per-option MLP (B, K, D) -> (B, K, L_pi) and the critic's MLP (B, P) -> (B, L_vf).

    Shaped like SB3's ``MlpExtractor`` (``forward_actor``, ``forward_critic``,
    ``latent_dim_pi``, ``latent_dim_vf``) so that :class:`OptionsPolicy` uses it in its place.
    """

    def __init__(
        self,
        option_dim: int,
        pooled_dim: int,
        pi: Sequence[int] = (64,),
        vf: Sequence[int] = (64, 64),
        activation: type[nn.Module] = nn.Tanh,
    ) -> None:
        super().__init__()
        self.policy_net = mlp([option_dim, *pi], activation)
        self.value_net = mlp([pooled_dim, *vf], activation)
        self.latent_dim_pi = pi[-1] if pi else option_dim
        self.latent_dim_vf = vf[-1] if vf else pooled_dim

    def forward_actor(self, per_option: th.Tensor) -> th.Tensor:
        return self.policy_net(per_option)

    def forward_critic(self, pooled: th.Tensor) -> th.Tensor:
        return self.value_net(pooled)


def option_scores(score: Callable[[th.Tensor], th.Tensor], per_option: th.Tensor, valid: th.Tensor) -> th.Tensor:
    """``score`` (rows (N, D) -> (N, 1)) of the valid rows of ``per_option`` (B, K, D), zeros elsewhere: (B, K).

    A decision has a median of 6 options of K, so scoring only the valid rows saves most of
    the actor's work, forward and backward.
    """
    scores = per_option.new_zeros(valid.shape)
    scores[valid] = score(per_option[valid]).squeeze(-1)
    return scores


def masked_logits(scores: th.Tensor, valid: th.Tensor) -> th.Tensor:
    """``scores`` (B, K) with :data:`MASKED_LOGIT` in the invalid rows."""
    return scores.masked_fill(~valid, MASKED_LOGIT)


class OptionsNet(nn.Module):
    """Encoder, heads, a per-option score and a value, as one module: ``forward`` gives ``(logits, value)``.

    What the RLlib module and the single-file script train; :class:`OptionsPolicy` holds the
    same parts under SB3's names. Initialisation follows SB3's: orthogonal, gain √2 in the
    hidden layers, 0.01 for the score (the first policy is near uniform over the valid
    options) and 1 for the value.
    """

    def __init__(
        self,
        observation_size: int,
        num_features: int,
        option_hidden: Sequence[int] = (128, 64),
        observation_hidden: Sequence[int] = (64,),
        pi: Sequence[int] = (64,),
        vf: Sequence[int] = (64, 64),
        use_observation: bool = True,
        utility_prior: float = UTILITY_PRIOR,
        utility_column: int = UTILITY_INDEX,
    ) -> None:
        super().__init__()
        self.encoder = OptionsEncoder(
            observation_size,
            num_features,
            option_hidden,
            observation_hidden,
            use_observation,
            utility_prior,
            utility_column,
        )
        self.heads = OptionsHeads(self.encoder.option_dim, self.encoder.pooled_dim, pi, vf)
        self.score = nn.Linear(self.heads.latent_dim_pi, 1)
        self.value = nn.Linear(self.heads.latent_dim_vf, 1)
        for module, gain in ((self.encoder, 2**0.5), (self.heads, 2**0.5), (self.score, 0.01), (self.value, 1.0)):
            module.apply(partial(orthogonal_init, gain=gain))

    def forward(self, observation: th.Tensor, options: th.Tensor, mask: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        """Masked logits (B, K) and values (B,) of a batch."""
        per_option, pooled, valid, prior = self.encoder(observation, options, mask)
        scores = option_scores(lambda rows: self.score(self.heads.forward_actor(rows)), per_option, valid) + prior
        value = self.value(self.heads.forward_critic(pooled)).squeeze(-1)
        return masked_logits(scores, valid), value


def orthogonal_init(module: nn.Module, gain: float) -> None:
    """SB3's initialisation of a linear layer: orthogonal weights with ``gain``, zero bias."""
    if isinstance(module, nn.Linear):
        nn.init.orthogonal_(module.weight, gain=gain)
        nn.init.zeros_(module.bias)
