"""``policy``: play a trained ``sb3_contrib.MaskablePPO`` model.

The model sees what the Gymnasium wrapper :class:`concordia_env.SingleAgentEnv` feeds the
learner: ``game.observation(game.current_player)`` and the legal mask ``game.legal_mask()``.
With ``deterministic=True`` (default) the agent plays the most probable legal action;
otherwise it samples from the masked distribution with its own seeded generator, so a
game is reproducible from ``reset(seed)``.

torch and sb3-contrib (the ``train`` extra) are imported when the agent is built, not when
``agents`` is imported: the other agents do not need them. Without them, building the agent
(``agents.from_spec("policy:m.zip")``, and so ``concordia_env.evaluate("policy:m.zip")`` or
``ConcordiaVectorEnv(opponents="policy:m.zip")``) raises ``MissingExtraError``, a
``ModuleNotFoundError`` whose one line names the extra.

Loading is safe by default
--------------------------
A ``.zip`` saved by Stable-Baselines3 holds pickled Python objects, and
``MaskablePPO.load`` unpickles them: a crafted file runs any code it likes. So the agent
does not call it. It reads the network's weights with ``torch.load(weights_only=True)``,
reads the architecture (``policy_kwargs``) from the file's JSON, where a pickled entry is
read by an unpickler that knows only plain containers and torch's activation classes, and
builds a ``MaskableActorCriticPolicy`` for the project's spaces (the observation size is
read off the weights). A file that needs anything else (a custom policy class or
activation) is refused with a :class:`UnsafeModelError` naming what it holds. ``trusted=True``
loads it with ``MaskablePPO.load`` instead: only for a file you made yourself. The web app
never takes a path from a request (:mod:`concordia_env.tools.web`).
"""

from __future__ import annotations

import copy
import io
import json
import pickle
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from concordia_env import NUM_ACTIONS, Game
from concordia_env._extras import needs_extra
from concordia_env.engine.errors import ArgumentTypeError, short_repr

from .base import Agent
from .option_checks import bool_option

#: what the safe loader's unpickler may build: plain containers and torch's activation classes
SAFE_GLOBALS = {
    ("builtins", "dict"),
    ("builtins", "list"),
    ("builtins", "tuple"),
    *(
        ("torch.nn.modules.activation", name)
        for name in ("ReLU", "Tanh", "ELU", "LeakyReLU", "SiLU", "GELU", "Sigmoid", "Softplus", "Mish")
    ),
}


class UnsafeModelError(ValueError):
    """A model file that cannot be read without running code from it (pass ``trusted=True`` for your own files)."""


class PolicyAgent(Agent):
    """A MaskablePPO policy loaded from ``path`` (a ``.zip`` saved by ``model.save``); see the module docstring."""

    name = "policy"

    @classmethod
    def files_read(cls, options: dict[str, Any], num_players: int) -> list[Path]:
        """The saved policy (``path``, or ``path`` with ``.zip`` as the constructor finds it)."""
        path = options.get("path")
        if not isinstance(path, (str, Path)):
            return []
        path = Path(path)
        return [path.with_suffix(".zip") if not path.is_file() and path.with_suffix(".zip").is_file() else path]

    def __init__(
        self,
        seed: int | None = None,
        path: str | Path | None = None,
        deterministic: bool = True,
        device: str = "cpu",
        trusted: bool = False,
    ) -> None:
        super().__init__(seed)
        if path is None:
            raise ValueError("the policy agent needs path= to a MaskablePPO .zip (agents.make('policy', path=...))")
        if not isinstance(path, (str, Path)):
            raise ArgumentTypeError(f"policy option 'path' must be a file path, got {short_repr(path)}")
        if not isinstance(device, str):
            raise ArgumentTypeError(f"policy option 'device' must be a string such as 'cpu', got {short_repr(device)}")
        path = Path(path)
        if not path.is_file() and path.with_suffix(".zip").is_file():
            path = path.with_suffix(".zip")
        if not path.is_file():  # a directory, a FIFO or nothing at all: only a regular file is opened
            raise FileNotFoundError(f"no saved model at {path}")
        self.path: Path | None = path
        self.deterministic = bool_option(deterministic, "deterministic", agent=self.name)
        self.trusted = bool_option(trusted, "trusted", agent=self.name)
        with needs_extra("the policy agent"):  # without torch and sb3-contrib: one line naming the extra
            self.policy: Any = load_policy(path, device) if not self.trusted else _load_trusted(path, device)

    @classmethod
    def from_model(cls, model: Any, deterministic: bool = True, seed: int | None = None) -> PolicyAgent:
        """A model in memory as an agent: a ``MaskablePPO`` (its ``.policy`` is used) or the policy itself.

        What ``concordia_env.evaluate(model)`` plays; nothing is read from a file.
        """
        policy = getattr(model, "policy", model)
        if not callable(getattr(policy, "get_distribution", None)):
            raise ArgumentTypeError(
                f"a policy model is a MaskablePPO or its MaskableActorCriticPolicy, got {short_repr(model)}"
            )
        agent = cls.__new__(cls)
        Agent.__init__(agent, seed)
        agent.path = None
        agent.deterministic = bool_option(deterministic, "deterministic", agent=cls.name)
        agent.trusted = True
        agent.policy = policy
        return agent

    def __deepcopy__(self, memo: dict[int, Any]) -> PolicyAgent:
        """A copy with its own generator that shares the network (no game changes its weights)."""
        clone = copy.copy(self)
        clone.rng = copy.deepcopy(self.rng, memo)
        return clone

    @property
    def spec(self) -> str:
        return "policy (in memory)" if self.path is None else f"policy:{self.path}"

    def act(self, game: Game) -> int:
        return self.act_observation(game.observation(game.current_player), game.legal_mask())

    def act_observation(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The action for an observation and its legal mask (no engine game needed)."""
        probs = self.action_probabilities(observation, action_mask)
        if self.deterministic:
            return int(np.argmax(probs))
        return int(self.rng.choice(len(probs), p=probs))

    def action_probabilities(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """The policy's distribution over actions, zero outside the mask."""
        import torch

        mask = np.asarray(action_mask, dtype=bool)
        if not mask.any():
            raise ValueError("no legal action in the mask (is the game over?)")
        policy = self.policy
        obs, _ = policy.obs_to_tensor(np.asarray(observation, dtype=np.float32))
        with torch.no_grad():
            dist = policy.get_distribution(obs, action_masks=mask[None, :])
            probs = dist.distribution.probs[0].cpu().numpy().astype(np.float64)
        probs = np.where(mask, probs, 0.0)
        total = probs.sum()
        return probs / total if total > 0 else mask / mask.sum()


# ---------------------------------------------------------------------- loading
class _SafeUnpickler(pickle.Unpickler):
    """An unpickler that builds only :data:`SAFE_GLOBALS`: anything else is refused, never imported."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) not in SAFE_GLOBALS:
            raise UnsafeModelError(f"it holds a pickled {module}.{name}")
        return super().find_class(module, name)


def _plain_entry(data: dict[str, Any], key: str) -> Any:
    """An entry of SB3's ``data`` JSON: plain JSON as it is, a pickled one through :class:`_SafeUnpickler`."""
    import base64

    value = data.get(key)
    if isinstance(value, dict) and ":serialized:" in value:
        try:
            raw = base64.b64decode(value[":serialized:"].encode())
            return _SafeUnpickler(io.BytesIO(raw)).load()
        except UnsafeModelError as err:
            raise UnsafeModelError(f"{key}: {err}") from None
        except Exception as err:  # a truncated or foreign pickle: refused, whatever it is
            raise UnsafeModelError(f"{key} is not a pickle this loader reads ({type(err).__name__})") from None
    return value


def load_policy(path: Path, device: str = "cpu") -> Any:
    """The ``MaskableActorCriticPolicy`` saved in ``path``, read without running code from the file.

    Raises :class:`UnsafeModelError` for a file that needs more than weights, JSON and
    torch's activation classes, and ``ValueError`` for one that is no MaskablePPO model of
    this game.
    """
    import gymnasium
    import torch
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    try:
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
            if "policy.pth" not in names:
                raise ValueError(f"{path} is not a saved MaskablePPO model (no policy.pth)")
            data = json.loads(archive.read("data").decode()) if "data" in names else {}
            with archive.open("policy.pth") as f:
                weights = torch.load(io.BytesIO(f.read()), map_location=device, weights_only=True)
    except (zipfile.BadZipFile, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ValueError(f"{path} is not a saved MaskablePPO model: {err}") from None
    except pickle.UnpicklingError as err:  # torch's weights-only reader refused something
        raise UnsafeModelError(f"{path}: its weights hold more than tensors ({err})") from None
    try:
        kwargs = _plain_entry(data, "policy_kwargs") or {}
    except UnsafeModelError as err:
        raise UnsafeModelError(
            f"{path} cannot be read without running code from it: {err} (trusted=True loads your own files)"
        ) from None
    if not isinstance(weights, dict) or not isinstance(kwargs, dict):
        raise ValueError(f"{path} is not a saved MaskablePPO model")
    first = weights.get("mlp_extractor.policy_net.0.weight", weights.get("action_net.weight"))
    actions = weights.get("action_net.weight")
    if first is None or actions is None or first.ndim != 2 or actions.shape[0] != NUM_ACTIONS:
        raise ValueError(f"{path} is not a MaskablePPO model of this game ({NUM_ACTIONS} actions)")
    observation_space = gymnasium.spaces.Box(-np.inf, np.inf, shape=(int(first.shape[1]),), dtype=np.float32)
    action_space: gymnasium.spaces.Discrete = gymnasium.spaces.Discrete(NUM_ACTIONS)
    try:
        policy = MaskableActorCriticPolicy(observation_space, action_space, lambda _: 0.0, **kwargs)
        policy.load_state_dict(weights)
    except (TypeError, RuntimeError, ValueError, KeyError) as err:
        raise ValueError(f"{path}: its weights do not fit the policy its file describes: {str(err)[:200]}") from None
    return policy.to(device).eval()


def _load_trusted(path: Path, device: str) -> Any:
    """``MaskablePPO.load``: runs what the file's pickles say, so only for files you trust."""
    from sb3_contrib import MaskablePPO  # heavy: imported only for this agent

    return MaskablePPO.load(str(path), device=device).policy


__all__ = ["PolicyAgent", "UnsafeModelError", "load_policy"]
