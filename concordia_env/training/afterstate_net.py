"""The learned agent's network in torch: ``a·u + b + MLP(x)``, trained by the loop, exported for play.

Both training methods of the ``learned`` agent (:mod:`.afterstate_learning`,
:mod:`.expert_iteration`) fit this network in the one loop (:mod:`.loop`); it is the torch
twin of the numpy :class:`~concordia_env.agents.learned_model.AfterstateModel` the agent plays
with (:meth:`AfterstateNet.export`, :meth:`AfterstateNet.load_model`).
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import torch
from torch import nn

from concordia_env.agents.learned_model import NUM_FEATURES, UTILITY_INDEX, AfterstateModel
from concordia_env.strategy import features_version


class AfterstateNet(nn.Module):
    """``a·u + b + MLP(x)``, trained here and exported to :class:`AfterstateModel` for play.

    The rows it is given hold the newest version's features (what the buffers store); the
    MLP reads the first ``num_features`` of them, its version's.
    """

    def __init__(self, hidden: list[int], num_features: int = NUM_FEATURES) -> None:
        super().__init__()
        self.num_features = num_features
        sizes = [num_features, *[int(h) for h in hidden]]
        layers: list[nn.Module] = []
        for i, o in itertools.pairwise(sizes):
            layers += [nn.Linear(i, o), nn.ReLU()]
        head = nn.Linear(sizes[-1], 1)
        self.mlp = nn.Sequential(*layers, head)
        nn.init.zeros_(head.weight)  # untrained: the heuristic's ranking
        nn.init.zeros_(head.bias)
        self.a = nn.Parameter(torch.tensor(1.0))
        self.b = nn.Parameter(torch.tensor(0.0))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.a * x[:, UTILITY_INDEX] + self.b + self.mlp(x[:, : self.num_features]).squeeze(-1)

    def load_model(self, model: AfterstateModel) -> None:
        """Take the weights of a saved model (a warm start); its layer sizes must be this net's.

        A model of an older feature version is widened first (zero weights on the new
        features: it starts out scoring as it did).
        """
        if model.num_features < self.num_features:
            model = model.widened(features_version(self.num_features))
        linears = [m for m in self.mlp if isinstance(m, nn.Linear)]
        shapes = [tuple(m.weight.shape[::-1]) for m in linears]
        given = [tuple(w.shape) for w in model.weights]
        if shapes != given:
            raise ValueError(f"the model's layers {given} do not match this config's {shapes} (see 'hidden')")
        with torch.no_grad():
            for m, w, b in zip(linears, model.weights, model.biases, strict=True):
                m.weight.copy_(torch.from_numpy(np.ascontiguousarray(w.T)))
                m.bias.copy_(torch.from_numpy(b))
            self.a.fill_(model.a)
            self.b.fill_(model.b)

    def export(self, metadata: dict[str, Any]) -> AfterstateModel:
        """The numpy model of these weights, with ``metadata`` (what ``model.npz`` holds)."""
        linears = [m for m in self.mlp if isinstance(m, nn.Linear)]
        return AfterstateModel(
            [m.weight.detach().numpy().T for m in linears],
            [m.bias.detach().numpy() for m in linears],
            float(self.a.detach()),
            float(self.b.detach()),
            metadata,
        )
