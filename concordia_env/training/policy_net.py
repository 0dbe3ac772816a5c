"""The policy network: separate MLPs for the policy and the value over the flat observation.

Architecture
------------
The observation (:mod:`concordia_env.engine.observation`, ``OBS_SIZE`` floats) is already a flat,
scaled vector: one-hots and counts divided by a natural maximum, the observer's own player
block first and the other seats rotated after it. So the network needs no feature
engineering of its own and is SB3's ``MaskableActorCriticPolicy`` with:

* input: the observation as is (``FlattenExtractor``: identity on a 1-D Box);
* policy head: ``net_arch`` hidden layers (e.g. 256-256) with ``activation``, then a
  linear layer to ``NUM_ACTIONS`` logits;
* value head: a separate MLP of the same sizes, then one linear output;
* masking: illegal actions' logits are set to ``-inf`` before the softmax
  (``MaskableCategorical``), so neither sampling nor the argmax can pick an illegal move.

Playing (snapshots in the environment processes, the evaluation) does not go through
SB3's ``predict``: :func:`action_logits` runs the actor alone and the mask is applied in
numpy (:func:`masked_argmax`, :func:`masked_sample`), which gives the same moves at a
fraction of the cost of a masked torch distribution. Snapshots go one step further and
run the actor as numpy matrix products (:class:`NumpyActor`, saved as ``.npz``): one
decision costs tens of microseconds instead of about a millisecond.

Separate policy and value MLPs (no shared trunk) are SB3's default for PPO and avoid the
value loss pulling the policy's features around. Sizes and activation come from the
config (``net_arch``, ``activation``, ``ortho_init``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import torch
from stable_baselines3.common.torch_layers import FlattenExtractor
from torch import nn

from concordia_env import NUM_ACTIONS
from concordia_env.engine.observation import OBS_SIZE

from .config import TrainConfig

ACTIVATION_MODULES: dict[str, type[nn.Module]] = {"relu": nn.ReLU, "tanh": nn.Tanh, "elu": nn.ELU}


def policy_kwargs(config: TrainConfig) -> dict[str, Any]:
    """``policy_kwargs`` for ``MaskablePPO("MlpPolicy", ...)`` from the config."""
    sizes = [int(n) for n in config.net_arch]
    return {
        "net_arch": {"pi": sizes, "vf": list(sizes)},
        "activation_fn": ACTIVATION_MODULES[config.activation],
        "ortho_init": config.ortho_init,
    }


def count_parameters(module: nn.Module) -> int:
    return sum(p.numel() for p in module.parameters())


def describe_architecture(config: TrainConfig, policy: nn.Module | None = None) -> str:
    """The architecture in one Markdown paragraph (for the report)."""
    sizes = " → ".join(str(int(n)) for n in config.net_arch)
    params = f" ({count_parameters(policy):,} parameters)" if policy is not None else ""
    return (
        f"MaskableActorCriticPolicy{params}: observation ({OBS_SIZE} floats) → policy MLP {sizes} "
        f"({config.activation}) → {NUM_ACTIONS} logits, illegal actions masked to -inf; "
        f"value MLP {sizes} ({config.activation}) → 1. No shared trunk; "
        f"orthogonal init: {config.ortho_init}."
    )


def disable_distribution_checks() -> None:
    """Skip torch.distributions' argument validation: it costs more than the network per decision.

    The masked distributions SB3 builds are valid by construction (finite logits, masked
    entries at a large negative value), so the checks only cost time.
    """
    torch.distributions.Distribution.set_default_validate_args(False)


#: numpy versions of the activations a NumpyActor can run
NUMPY_ACTIVATIONS: dict[str, Any] = {
    "relu": lambda x: np.maximum(x, 0.0),
    "tanh": np.tanh,
    "elu": lambda x: np.where(x > 0, x, np.expm1(np.minimum(x, 0.0))),
}
_MODULE_NAMES = {nn.ReLU: "relu", nn.Tanh: "tanh", nn.ELU: "elu"}


class NumpyActor:
    """The policy's actor (observation -> action logits) as numpy arrays.

    Opponent snapshots play hundreds of thousands of single decisions inside the
    environment processes; a few numpy matrix products cost a fraction of a torch module
    call there, and a snapshot saved this way (``.npz``) holds only the actor's weights.
    """

    def __init__(self, weights: list[np.ndarray], biases: list[np.ndarray], activation: str) -> None:
        if activation not in NUMPY_ACTIVATIONS:
            raise ValueError(f"no numpy activation {activation!r}; known: {sorted(NUMPY_ACTIVATIONS)}")
        self.weights = [np.ascontiguousarray(w, dtype=np.float32) for w in weights]
        self.biases = [np.asarray(b, dtype=np.float32) for b in biases]
        self.activation = activation
        self._act = NUMPY_ACTIVATIONS[activation]

    @classmethod
    def from_policy(cls, policy: Any) -> NumpyActor:
        """Copy the actor of an SB3 MlpPolicy (Linear/activation layers, then ``action_net``)."""
        if not isinstance(policy.pi_features_extractor, FlattenExtractor):
            raise TypeError("NumpyActor needs the flat observation as the actor's input (FlattenExtractor)")
        layers = [*policy.mlp_extractor.policy_net, policy.action_net]
        linears = [m for m in layers if isinstance(m, nn.Linear)]
        others = [m for m in layers if not isinstance(m, nn.Linear)]
        unknown = [m for m in others if type(m) not in _MODULE_NAMES]
        activations = {_MODULE_NAMES[type(m)] for m in others if type(m) in _MODULE_NAMES}
        if unknown or len(activations) > 1:
            raise TypeError(f"NumpyActor supports one activation out of {sorted(NUMPY_ACTIVATIONS)}; got {layers}")
        activation = activations.pop() if activations else "relu"
        weights = [m.weight.detach().cpu().numpy().T for m in linears]
        biases = [m.bias.detach().cpu().numpy() for m in linears]
        return cls(weights, biases, activation)

    def logits(self, observations: np.ndarray) -> np.ndarray:
        h = np.asarray(observations, dtype=np.float32)
        last = len(self.weights) - 1
        for k, (w, b) in enumerate(zip(self.weights, self.biases, strict=True)):
            h = h @ w + b
            if k < last:
                h = self._act(h)
        return h

    def save(self, path: str | Path) -> None:
        arrays: dict[str, Any] = {f"w{k}": w for k, w in enumerate(self.weights)}
        arrays |= {f"b{k}": b for k, b in enumerate(self.biases)}
        with open(path, "wb") as f:  # an open file: np.savez would append ".npz" to a temporary name
            np.savez(f, activation=np.array(self.activation), **arrays)

    @classmethod
    def load(cls, path: str | Path) -> NumpyActor:
        with np.load(path) as data:
            n = sum(1 for key in data.files if key.startswith("w"))
            return cls([data[f"w{k}"] for k in range(n)], [data[f"b{k}"] for k in range(n)], str(data["activation"]))


def action_logits(policy: Any, observations: np.ndarray) -> np.ndarray:
    """The actor's logits for a batch of observations (an SB3 actor-critic policy or a NumpyActor)."""
    if isinstance(policy, NumpyActor):
        return policy.logits(observations)
    with torch.no_grad():
        obs = torch.as_tensor(observations, dtype=torch.float32, device=policy.device)
        features = policy.extract_features(obs)
        if isinstance(features, tuple):  # separate actor / critic feature extractors
            features = features[0]
        logits = policy.action_net(policy.mlp_extractor.forward_actor(features))
    return logits.cpu().numpy()


def masked_argmax(logits: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """The most probable legal action of each row."""
    return np.where(masks, logits, -np.inf).argmax(axis=-1)


def masked_sample(logits: np.ndarray, masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One action per row from the masked softmax (Gumbel-max: argmax of logits + Gumbel noise)."""
    return masked_argmax(logits + rng.gumbel(size=logits.shape), masks)
