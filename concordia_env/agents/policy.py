"""``policy``: play a trained ``sb3_contrib.MaskablePPO`` model, of either level.

One agent for every trained model, in memory (:meth:`PolicyAgent.from_model`, what
``concordia_env.evaluate(model)`` plays) or saved (``policy:model.zip``, what ``concordia
evaluate``, ``tournament``, ``bench ladder``, ``replay --play``, ``web --vs`` and
``PettingZooAgent`` build):

* **flat** (``MaskablePPO("MlpPolicy", SingleAgentEnv() or SB3VecEnv())``): the model sees
  what :class:`concordia_env.SingleAgentEnv` feeds the learner,
  ``game.observation(game.current_player)`` and the legal mask ``game.legal_mask()``, and
  picks one of ``NUM_ACTIONS`` actions;
* **options** (``MaskablePPO(OptionsPolicy, env)`` on an env with ``level="options"``): the
  agent computes the decision's turn options as the env does
  (:class:`~concordia_env.agents.options_agent.OptionsAgent`: the same determinization,
  order and features, with the model's own ``max_options`` and features version), the
  model picks one and the agent plays its first action. A saved file says its level
  (:mod:`concordia_env.agents.options_policy`, "What a saved model says");
* **a ppo_options run's** ``model.pt`` (``concordia train ppo_options``: the same network
  as an ``OptionsNet``, its sizes, weights and ``max_options``; ``policy:runs/<run>/model.pt``):
  played as the options-level policy of the same weights
  (:func:`~concordia_env.agents.options_policy.policy_from_options_net`).

With ``deterministic=True`` (default) the agent plays the most probable legal action (or
option); otherwise it samples from the masked distribution with its own seeded generator,
so a game is reproducible from ``reset(seed)``. A model of neither kind is refused in one
line that says what it is and what the agent takes.

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
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from concordia_env import NUM_ACTIONS, Game
from concordia_env._extras import needs_extra
from concordia_env.engine.errors import ArgumentTypeError, short_repr

from .base import Agent
from .option_checks import bool_option
from .options_agent import OptionsAgent

#: what the safe loader's unpickler may build: plain containers and torch's activation classes
SAFE_GLOBALS = {
    ("builtins", "dict"),
    ("builtins", "list"),
    ("builtins", "tuple"),
    *(
        ("torch.nn.modules.activation", name)
        for name in ("ReLU", "Tanh", "ELU", "LeakyReLU", "SiLU", "GELU", "Sigmoid", "Softplus", "Mish")
    ),
    # the options level's features extractor (its policy_kwargs may name it)
    ("concordia_env.agents.options_policy", "OptionsExtractor"),
}
#: the levels a model plays (``envs.options_level.LEVELS``)
FLAT, OPTIONS = "flat", "options"
#: what the agent takes, for the refusals' messages
TAKES = (
    "a MaskablePPO (sb3_contrib) model of this game: flat (MlpPolicy on SingleAgentEnv or SB3VecEnv, "
    f"{NUM_ACTIONS} actions) or of the options level (OptionsPolicy on an env with level='options'), "
    "or the model.pt of a concordia train ppo_options run"
)


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
            policy = load_policy(path, device) if not self.trusted else _load_trusted(path, device)
            self._set_policy(policy, str(path))

    @classmethod
    def from_model(cls, model: Any, deterministic: bool = True, seed: int | None = None) -> PolicyAgent:
        """A model in memory as an agent: a ``MaskablePPO`` (its ``.policy`` is used) or the policy itself.

        What ``concordia_env.evaluate(model)`` plays; nothing is read from a file.
        """
        policy = getattr(model, "policy", model)
        if not callable(getattr(policy, "get_distribution", None)):
            raise ArgumentTypeError(f"the policy agent takes {TAKES}; got {short_repr(model)}")
        agent = cls.__new__(cls)
        Agent.__init__(agent, seed)
        agent.path = None
        agent.deterministic = bool_option(deterministic, "deterministic", agent=cls.name)
        agent.trusted = True
        with needs_extra("the policy agent"):
            agent._set_policy(policy, f"a {type(model).__name__} model")
        return agent

    def _set_policy(self, policy: Any, what: str) -> None:
        """Play ``policy`` (``what``: the file or model, for messages), at the level its spaces say."""
        self.level, self.max_options, self.features_version = level_of(policy, what)
        self.policy = policy
        self._options: OptionsAgent | None = None
        if self.level == OPTIONS:
            self._options = OptionsAgent(self._choose_option, self.max_options, self.features_version)
            self._options.rng = self.rng  # one generator: the options' determinizations and the sampling

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        if self._options is not None:
            self._options.rng = self.rng

    def __deepcopy__(self, memo: dict[int, Any]) -> PolicyAgent:
        """A copy with its own generator (and option arrays) that shares the network (no game changes its weights)."""
        clone = copy.copy(self)
        clone.rng = copy.deepcopy(self.rng, memo)
        if self._options is not None:
            clone._options = OptionsAgent(clone._choose_option, self.max_options, self.features_version)
            clone._options.rng = clone.rng
        return clone

    @property
    def spec(self) -> str:
        return "policy (in memory)" if self.path is None else f"policy:{self.path}"

    def act(self, game: Game) -> int:
        if self._options is not None:
            return self._options.act(game)  # the env's options of this decision, the model's pick among them
        return self.act_observation(game.observation(game.current_player), game.legal_mask())

    def act_observation(self, observation: Any, action_mask: np.ndarray) -> int:
        """The action for an observation and its legal mask (no engine game needed).

        At the options level ``observation`` is the options level's dict (``observation``,
        ``options``, ``action_mask``: an env with ``level="options"``) and the answer an
        option's index; a flat observation is refused (the options come from the game:
        :meth:`act`).
        """
        if (self.level == OPTIONS) != isinstance(observation, Mapping):
            raise ValueError(
                f"{self.spec} plays the {self.level} level: give it "
                + (
                    "the options level's observation dict (an env with level='options'), or the game (act(game))"
                    if self.level == OPTIONS
                    else "the flat observation array"
                )
            )
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
        given = (
            {key: np.asarray(value, dtype=np.float32) for key, value in observation.items()}
            if isinstance(observation, Mapping)
            else np.asarray(observation, dtype=np.float32)
        )
        obs, _ = policy.obs_to_tensor(given)
        with torch.no_grad():
            dist = policy.get_distribution(obs, action_masks=mask[None, :])
            probs = dist.distribution.probs[0].cpu().numpy().astype(np.float64)
        probs = np.where(mask, probs, 0.0)
        total = probs.sum()
        return probs / total if total > 0 else mask / mask.sum()

    def _choose_option(self, observation: dict[str, np.ndarray]) -> int:
        """The option the model picks in an options-level observation (its ``choose`` for :class:`OptionsAgent`)."""
        return self.act_observation(observation, observation["action_mask"])


def level_of(policy: Any, what: str) -> tuple[str, int, int]:
    """``(level, max_options, features_version)`` of an SB3 policy (0, 0 at the flat level); else ``ValueError``.

    ``what`` names the model in the message, which says what the policy is and what the agent takes.
    """
    from gymnasium import spaces
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    from concordia_env.engine.observation import OBS_SIZE
    from concordia_env.strategy import features_version

    from .options_policy import options_shape

    observation, action = policy.observation_space, policy.action_space
    shown = f"{what} ({type(policy).__name__}, observations {observation}, actions {action})"
    if not isinstance(policy, MaskableActorCriticPolicy):
        raise ValueError(f"{shown} is not a MaskablePPO policy; the policy agent takes {TAKES}")
    if isinstance(observation, spaces.Dict):
        try:
            size, max_options, width = options_shape(observation, action)
            version = features_version(width)
        except ValueError as err:
            raise ValueError(
                f"{shown} is no options-level model of this game ({err}); the agent takes {TAKES}"
            ) from None
        level = (OPTIONS, max_options, version)
    elif isinstance(action, spaces.Discrete) and int(action.n) == NUM_ACTIONS and observation.shape is not None:
        size, level = int(np.prod(observation.shape)), (FLAT, 0, 0)
    else:
        raise ValueError(f"{shown} is no model of this game; the policy agent takes {TAKES}")
    if size != OBS_SIZE:
        raise ValueError(
            f"{shown} sees observations of {size} values, this game's have {OBS_SIZE} (observation_version=1): "
            f"train it on an env of the current observation version"
        )
    return level


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
    """The ``MaskableActorCriticPolicy`` in ``path`` (flat, or an ``OptionsPolicy``), read without running its code.

    Raises :class:`UnsafeModelError` for a file that needs more than weights, JSON and
    torch's activation classes, and ``ValueError`` (one line naming what the file is) for
    one that is no MaskablePPO model of this game.
    """
    import torch

    try:
        with zipfile.ZipFile(path) as archive:
            names = archive.namelist()
            if "policy.pth" not in names and any(name.endswith("/data.pkl") for name in names):  # torch.save's
                return _options_net_policy(path, device)
            if "policy.pth" not in names:
                raise ValueError(f"{path} is {_zip_kind(path, names)}, not a saved MaskablePPO model (no policy.pth)")
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
    if not isinstance(weights, dict) or not isinstance(kwargs, dict) or not isinstance(data, dict):
        raise ValueError(f"{path} is not a saved MaskablePPO model")
    if any(key.startswith("features_extractor.encoder.") for key in weights):
        policy = _options_policy(path, weights, data, kwargs)
    else:
        policy = _flat_policy(path, weights, data, kwargs)
    try:
        policy.load_state_dict(weights)
    except (TypeError, RuntimeError, ValueError, KeyError) as err:
        raise ValueError(f"{path}: its weights do not fit the policy its file describes: {str(err)[:200]}") from None
    return policy.to(device).eval()


def _flat_policy(path: Path, weights: dict[str, Any], data: dict[str, Any], kwargs: dict[str, Any]) -> Any:
    """A flat ``MaskableActorCriticPolicy`` of the shape the weights have (its weights not yet loaded)."""
    import gymnasium
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    first = weights.get("mlp_extractor.policy_net.0.weight", weights.get("action_net.weight"))
    actions = weights.get("action_net.weight")
    if first is None or actions is None or first.ndim != 2 or actions.shape[0] != NUM_ACTIONS:
        outputs = "no action net" if actions is None else f"{int(actions.shape[0])} actions"
        raise ValueError(
            f"{path} is a saved model of {_policy_class(data)} with {outputs}: not a model this agent plays; "
            f"it takes {TAKES}"
        )
    observation_space = gymnasium.spaces.Box(-np.inf, np.inf, shape=(int(first.shape[1]),), dtype=np.float32)
    action_space: gymnasium.spaces.Discrete = gymnasium.spaces.Discrete(NUM_ACTIONS)
    try:
        return MaskableActorCriticPolicy(observation_space, action_space, lambda _: 0.0, **kwargs)
    except (TypeError, ValueError) as err:
        raise ValueError(f"{path}: its policy_kwargs do not build a policy: {str(err)[:200]}") from None


def _options_policy(path: Path, weights: dict[str, Any], data: dict[str, Any], kwargs: dict[str, Any]) -> Any:
    """An ``OptionsPolicy`` of the level the file says (its weights not yet loaded).

    The level is the weights' ``options_level`` buffer; a file saved before it existed is
    read off the observation space SB3 describes in the file's data, where that is unambiguous.
    """
    import gymnasium

    from concordia_env.envs.options_level import options_space
    from concordia_env.strategy import FEATURE_COUNTS

    from .options_policy import OptionsPolicy, level_from_space_text, saved_level

    space = data.get("observation_space")
    level = saved_level(weights) or level_from_space_text(
        str(space.get("spaces", "")) if isinstance(space, dict) else ""
    )
    if level is None:
        raise ValueError(
            f"{path} is an options-level MaskablePPO model (OptionsPolicy) whose max_options and features version "
            f"neither its weights nor its data say: load it (MaskablePPO.load) and evaluate the model in memory"
        )
    max_options, version, size = level
    if version not in FEATURE_COUNTS:
        raise ValueError(f"{path} is an OptionsPolicy of option rows no features version has: not a model of this game")
    flat = gymnasium.spaces.Box(-np.inf, np.inf, shape=(size,), dtype=np.float32)
    try:
        return OptionsPolicy(
            options_space(flat, max_options, version), gymnasium.spaces.Discrete(max_options), lambda _: 0.0, **kwargs
        )
    except (TypeError, ValueError) as err:
        raise ValueError(f"{path}: its policy_kwargs do not build an OptionsPolicy: {str(err)[:200]}") from None


def _options_net_policy(path: Path, device: str) -> Any:
    """The policy of a ``model.pt`` that ``concordia train ppo_options`` saved: an OptionsNet's sizes and weights.

    Read with ``torch.load(weights_only=True)``; the options the net chooses among
    (``max_options``) are in the file, or, in a file written before it said them, in the
    run's ``config.json`` beside it.
    """
    import torch

    from .options_policy import policy_from_options_net

    try:
        saved = torch.load(path, map_location=device, weights_only=True)
    except pickle.UnpicklingError:  # torch's weights-only reader refused something
        raise UnsafeModelError(
            f"{path} is a torch file that holds more than weights and plain data (a run's checkpoint? "
            f"its model.pt plays as policy:...model.pt)"
        ) from None
    except Exception as err:  # a truncated or damaged archive
        raise ValueError(f"{path} is a torch archive that cannot be read ({type(err).__name__})") from None
    if not (isinstance(saved, dict) and all(isinstance(saved.get(key), dict) for key in ("sizes", "state_dict"))):
        held = ", ".join(map(str, list(saved)[:4])) if isinstance(saved, dict) else type(saved).__name__
        raise ValueError(
            f"{path} is a torch file ({held or 'empty'}), not a model.pt of concordia train ppo_options; "
            f"the policy agent takes {TAKES}"
        )
    max_options = saved.get("max_options", _max_options_beside(path))
    if not isinstance(max_options, int) or isinstance(max_options, bool) or max_options < 1:
        raise ValueError(
            f"{path} is a ppo_options model that does not say its max_options (neither the file nor a config.json "
            f"beside it)"
        )
    try:
        return policy_from_options_net(saved["sizes"], saved["state_dict"], max_options).to(device)
    except ValueError as err:
        raise ValueError(f"{path} is a ppo_options model.pt, but {err}") from None


def _max_options_beside(path: Path) -> Any:
    """``max_options`` of the run's ``config.json`` beside ``path``, or None."""
    try:
        config = json.loads((path.parent / "config.json").read_text())
    except (OSError, ValueError):
        return None
    return config.get("max_options") if isinstance(config, dict) else None


def _zip_kind(path: Path, names: list[str]) -> str:
    """What a zip archive without a policy holds, in a few words (a numpy archive: the learned agent's kind)."""
    if names and all(name.endswith(".npy") for name in names):
        return f"a numpy archive (.npz; a learned-agent model plays as learned:{path})"
    shown = ", ".join(names[:4]) + (", ..." if len(names) > 4 else "")
    return f"a zip archive of {len(names)} file(s) ({shown or 'empty'})"


def _policy_class(data: dict[str, Any]) -> str:
    """The policy class a saved SB3 model names, read off its pickle's text without unpickling it."""
    import base64
    import pickletools

    entry = data.get("policy_class")
    if not isinstance(entry, dict) or not isinstance(entry.get(":serialized:"), str):
        return "an unknown policy"
    try:
        strings = [
            arg for _, arg, _ in pickletools.genops(base64.b64decode(entry[":serialized:"])) if isinstance(arg, str)
        ]
    except Exception:  # a damaged pickle: say so rather than fail on the message
        return "an unreadable policy class"
    return ".".join(strings[-2:]) if len(strings) >= 2 else "an unknown policy"


def _load_trusted(path: Path, device: str) -> Any:
    """``MaskablePPO.load``: runs what the file's pickles say, so only for files you trust.

    A ppo_options ``model.pt`` is no MaskablePPO file: it is read as without ``trusted``.
    """
    from sb3_contrib import MaskablePPO  # heavy: imported only for this agent

    try:
        with zipfile.ZipFile(path) as archive:
            if "policy.pth" not in archive.namelist():
                return load_policy(path, device)
    except zipfile.BadZipFile:
        pass  # MaskablePPO.load says what it is
    return MaskablePPO.load(str(path), device=device).policy


__all__ = ["PolicyAgent", "UnsafeModelError", "load_policy"]
