"""Training configuration: one flat dataclass, loaded from YAML, every field overridable on the command line.

A flat set of names keeps the command line short (``--total_timesteps 20000 --n_envs 2``)
and makes the resolved ``config.yaml`` written into every run directory a complete,
copy-pasteable record of what was run. Field help texts live next to the fields (the
``help`` metadata) and are what ``concordia train selfplay --help`` prints.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

#: opponent kinds the pool can hand out (besides "snapshot", any agent spec works, e.g. "mcts:50")
SNAPSHOT = "snapshot"
#: activation functions the policy network may use (names of torch.nn modules)
ACTIVATIONS = ("relu", "tanh", "elu")


def check_positive(config: Any, names: Sequence[str]) -> None:
    """Every config's check of its sizes and rates: ``ValueError`` naming the first of ``names`` not > 0."""
    for name in names:
        if not getattr(config, name) > 0:
            raise ValueError(f"{name} must be positive, got {getattr(config, name)}")


def check_time_limit(config: Any) -> None:
    """``time_limit_minutes`` is a guard: none (``null``) or a finite number of minutes > 0."""
    limit = config.time_limit_minutes
    if limit is not None and not (math.isfinite(limit) and limit > 0):
        raise ValueError(f"time_limit_minutes must be a number of minutes > 0, or null for none; got {limit}")


def _f(default: Any, help: str) -> Any:
    """A dataclass field with an immutable default and a help text (lists and dicts use ``field``)."""
    return field(default=default, metadata={"help": help})


class ConfigBase:
    """What every training config shares: YAML io, unknown-key checks, ``replace``.

    Subclasses are dataclasses whose fields carry a ``help`` text (:func:`_f`); the
    command-line helpers below take the config class, so every training script gets the
    same ``--key value`` overrides from its own fields.
    """

    def validate(self) -> None:
        """Refuse values that would only fail later (subclasses add their checks)."""

    def __post_init__(self) -> None:
        self.validate()

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)  # type: ignore[call-overload]

    def to_yaml(self) -> str:
        return yaml.safe_dump(self.to_dict(), sort_keys=False)

    def save(self, path: Path) -> None:
        """The config in ``path``: indented JSON for a ``.json`` file (as ``ppo_options`` keeps it), else YAML."""
        path = Path(path)
        path.write_text(json.dumps(self.to_dict(), indent=1) if path.suffix == ".json" else self.to_yaml())

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> Any:
        known = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
        unknown = sorted(set(values) - known)
        if unknown:
            raise ValueError(f"unknown config keys {unknown}; known keys: {sorted(known)}")
        return cls(**values)

    @classmethod
    def load(cls, path: str | Path) -> Any:
        return cls.from_dict(read_config(path))

    def replace(self, **changes: Any) -> Any:
        return dataclasses.replace(self, **changes)  # type: ignore[type-var]


@dataclass
class TrainConfig(ConfigBase):
    """Everything a self-play run needs; see each field's help text."""

    # ---------------------------------------------------------------- run
    name: str = _f("selfplay", "run name; the run directory is <runs_dir>/<name>-<timestamp>")
    runs_dir: str = _f("runs", "where run directories are created")
    seed: int = _f(0, "seed of the network initialisation, the environments and the evaluation games")
    device: str = _f("cpu", "torch device for the learner")
    torch_threads: int = _f(1, "torch threads in the learner process (the env processes use 1 each)")
    progress: bool = _f(True, "show a progress bar (timesteps, games, win rate vs heuristic, time left)")

    # ---------------------------------------------------------------- game and environment
    map: str = _f("italia", "map: imperium, italia, aegyptus or creta")
    num_players: int = _f(2, "players per game; the learner plays one seat, the pool fills the others")
    reward: str = _f("win", "the environment's reward option (win, rank, vp, score_delta)")
    reward_scale: float = _f(1.0, "the environment's reward is multiplied by this (score_delta pays raw VP)")
    margin_shaping: float = _f(
        0.0, "adds this x the change of (own VP - opponents' mean VP) at every step; 0: off (see selfplay docstring)"
    )
    env_options: dict = field(
        default_factory=dict,
        metadata={"help": "further keyword options for SingleAgentEnv / Game.new (e.g. intermediate_scoring)"},
    )

    # ---------------------------------------------------------------- length
    total_timesteps: int = _f(100_000, "learner decisions to train for (all environments together)")
    time_limit_minutes: float | None = _f(
        None, "wall-clock budget of the training loop, all sessions together; stops at the next update (null: none)"
    )
    n_envs: int = _f(2, "parallel environments (SubprocVecEnv; DummyVecEnv when 1), or the rows of the vector env")
    vector_env: bool = _f(
        False,
        "train through ConcordiaVectorEnv (n_envs rows, compiled opponents inside the batch) instead of "
        "SingleAgentEnv processes; opponent_shares then names one compiled agent (random, heuristic, learned)",
    )
    env_threads: int = _f(2, "threads of the vector env's batch (vector_env: true)")

    # ---------------------------------------------------------------- PPO
    learning_rate: float = _f(3e-4, "Adam learning rate")
    lr_schedule: str = _f("constant", "constant, or linear (decays to 0 at total_timesteps)")
    n_steps: int = _f(1024, "decisions per environment per update")
    batch_size: int = _f(256, "minibatch size")
    n_epochs: int = _f(4, "passes over each rollout")
    gamma: float = _f(0.999, "discount factor (a game is a few hundred decisions long)")
    gae_lambda: float = _f(0.95, "GAE lambda")
    clip_range: float = _f(0.2, "PPO clip range")
    ent_coef: float = _f(0.01, "entropy bonus coefficient")
    vf_coef: float = _f(0.5, "value loss coefficient")
    max_grad_norm: float = _f(0.5, "gradient clipping norm")
    target_kl: float | None = _f(None, "stop an update's epochs early above this KL (null: never)")

    # ---------------------------------------------------------------- network
    net_arch: list = field(
        default_factory=lambda: [256, 256], metadata={"help": "hidden layer sizes of the policy and of the value MLP"}
    )
    activation: str = _f("relu", "activation: " + ", ".join(ACTIVATIONS))
    ortho_init: bool = _f(True, "orthogonal initialisation (SB3 default)")

    # ---------------------------------------------------------------- opponent pool
    opponent_shares: dict = field(
        default_factory=lambda: {SNAPSHOT: 0.7, "random": 0.15, "heuristic": 0.15},
        metadata={
            "help": "share of episodes against each opponent kind: 'snapshot' (a frozen past learner) or an agent spec"
        },
    )
    snapshot_every: int = _f(20_000, "timesteps between frozen snapshots of the learner")
    max_snapshots: int = _f(10, "snapshots kept in the pool (the oldest leaves first)")
    snapshot_deterministic: bool = _f(False, "snapshots play their argmax move (true) or sample (false)")

    # ---------------------------------------------------------------- evaluation and checkpoints
    eval_every: int = _f(50_000, "timesteps between evaluations")
    eval_at_start: bool = _f(True, "also evaluate the untrained policy (a baseline point on the curve)")
    eval_max_turns: int = _f(
        1000, "evaluation games still running after this many turns are scored as they stand (counted as truncated)"
    )
    eval_games: int = _f(40, "games per opponent in each periodic evaluation")
    final_eval_games: int = _f(200, "games per opponent in the final evaluation")
    final_eval_games_per_opponent: dict = field(
        default_factory=dict,
        metadata={"help": "final evaluation games for particular opponents, e.g. {heuristic: 60} (slow agents)"},
    )
    eval_opponents: list = field(
        default_factory=lambda: ["random", "heuristic"],
        metadata={"help": "agent specs the policy is evaluated against"},
    )
    checkpoint_every: int = _f(20_000, "timesteps between checkpoints (model, optimizer, pool, history, RNG)")

    # ---------------------------------------------------------------- checks
    def validate(self) -> None:
        """Refuse values that would only fail later, deep inside a run."""
        positive: tuple[str, ...] = ("total_timesteps", "n_envs", "n_steps", "batch_size", "n_epochs", "snapshot_every")
        positive += ("max_snapshots", "eval_every", "final_eval_games", "checkpoint_every", "num_players")
        positive += ("eval_max_turns", "reward_scale")
        check_positive(self, positive)
        check_time_limit(self)
        if self.margin_shaping < 0:
            raise ValueError(f"margin_shaping must be >= 0, got {self.margin_shaping}")
        if self.eval_games < 0:
            raise ValueError(f"eval_games must be >= 0, got {self.eval_games}")
        if self.activation not in ACTIVATIONS:
            raise ValueError(f"activation must be one of {ACTIVATIONS}, got {self.activation!r}")
        if self.lr_schedule not in ("constant", "linear"):
            raise ValueError(f"lr_schedule must be constant or linear, got {self.lr_schedule!r}")
        if not self.net_arch or any(int(n) <= 0 for n in self.net_arch):
            raise ValueError(f"net_arch must be a non-empty list of positive sizes, got {self.net_arch}")
        shares = self.opponent_shares
        if not shares or any(v < 0 for v in shares.values()) or not math.isfinite(sum(shares.values())):
            raise ValueError(f"opponent_shares must be non-negative weights, got {shares}")
        if sum(shares.values()) <= 0:
            raise ValueError(f"opponent_shares must not all be zero, got {shares}")
        if self.env_threads <= 0:
            raise ValueError(f"env_threads must be positive, got {self.env_threads}")
        if self.vector_env:
            self.vector_opponent()  # refuses shares the vector env cannot play

    def vector_opponent(self) -> str:
        """The one opponent of ``vector_env`` training: the agent of ``opponent_shares`` with a positive share.

        The batch plays the same compiled opponent in every row (no snapshots: a past
        network does not run inside compiled code).
        """
        named = [spec for spec, share in self.opponent_shares.items() if share > 0]
        if len(named) != 1 or named[0] == SNAPSHOT:
            raise ValueError(
                "with vector_env: true, opponent_shares names one compiled agent (random, heuristic, learned), "
                f"got {self.opponent_shares}"
            )
        return named[0]

    def final_games(self, opponent: str) -> int:
        """Games against ``opponent`` in the final evaluation."""
        return int(self.final_eval_games_per_opponent.get(opponent, self.final_eval_games))

    # ---------------------------------------------------------------- derived
    @property
    def rollout_size(self) -> int:
        """Timesteps collected per PPO update (all environments together)."""
        return self.n_steps * self.n_envs


class DeprecatedOption(argparse.Action):
    """An old spelling of an option: it still works, with one line on stderr that names the new one."""

    def __init__(self, *args: Any, new: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.new = new

    def __call__(
        self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any, option: str | None = None
    ) -> None:
        print(f"{parser.prog}: {option} is deprecated; use {self.new}", file=sys.stderr)
        setattr(namespace, self.dest, values)


def add_players_option(parser: Any, **options: Any) -> None:
    """``--players N`` (the config's ``num_players``), as ``concordia evaluate`` spells it; ``--num_players`` warns.

    ``parser``: a parser or an argument group; ``options``: ``type``, ``default``, ``help``...
    of the option, the same for both spellings.
    """
    parser.add_argument("--players", dest="num_players", **options)
    hidden = {**options, "help": argparse.SUPPRESS}
    parser.add_argument("--num_players", dest="num_players", action=DeprecatedOption, new="--players", **hidden)


def add_override_arguments(parser: argparse.ArgumentParser, cls: type[ConfigBase] = TrainConfig) -> None:
    """One ``--<field>`` option per config field; values are parsed as YAML (``--net_arch "[64, 64]"``).

    The field ``num_players`` is ``--players`` (:func:`add_players_option`).
    """
    group = parser.add_argument_group("config overrides (each replaces the config file's value)")
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        default = _default(f)
        options: dict[str, Any] = {
            "type": _parse_value,
            "default": argparse.SUPPRESS,  # absent options stay absent, so "--key null" can override to None
            "metavar": type(default).__name__.upper() if default is not None else "VALUE",
            "help": f"{f.metadata['help']} (default: {default})".replace("%", "%%"),  # argparse formats with %
        }
        if f.name == "num_players":
            add_players_option(group, **options)
        else:
            group.add_argument(f"--{f.name}", **options)


def _default(f: dataclasses.Field) -> Any:
    """A field's default value (from its factory for lists and dicts)."""
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    return f.default


def _parse_value(text: str) -> Any:
    """A command-line value as YAML: numbers, booleans, null, lists and dicts all work; else the string."""
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError:
        return text


def overrides_from_args(args: argparse.Namespace, cls: type[ConfigBase] = TrainConfig) -> dict[str, Any]:
    """The config fields given on the command line."""
    given = vars(args)
    return {name: given[name] for name in field_names(cls) if name in given}


#: the configs shipped with the package (``--config NAME`` finds ``NAME.yaml`` here): those of the shipped
#: models and the quick and tiny ones; the configs of other runs stay beside their reports in the checkout
CONFIG_DIR = Path(__file__).resolve().parent / "configs"


def find_config(name: str | Path) -> Path:
    """A config file by path, or by the name of a shipped config (``afterstate_quick``)."""
    path = Path(name)
    if path.is_file():
        return path
    for candidate in (CONFIG_DIR / path.name, CONFIG_DIR / f"{path.name}.yaml"):
        if path.parent == Path(".") and candidate.is_file():
            return candidate
    known = ", ".join(sorted(p.stem for p in CONFIG_DIR.glob("*.yaml")))
    raise FileNotFoundError(
        f"no config file {name}; give the path of a YAML file (the configs of the runs in docs/reports/ "
        f"are beside their reports), or one of the shipped configs: {known}"
    )


def read_config(name: str | Path | None) -> dict[str, Any]:
    """The key: value mapping of a config file (:func:`find_config`); ``{}`` for None (the defaults)."""
    if name is None:
        return {}
    path = find_config(name)
    try:
        values = yaml.safe_load(path.read_text()) or {}
    except (yaml.YAMLError, UnicodeDecodeError) as err:
        raise ValueError(f"{path} is not a YAML config file: {str(err).splitlines()[0]}") from None
    if not isinstance(values, dict):
        raise ValueError(f"{path}: a config file is a YAML mapping of key: value")
    return values


def resolve(
    config_path: str | Path | None, overrides: dict[str, Any] | None = None, cls: type[ConfigBase] = TrainConfig
) -> Any:
    """The config file's values (or the defaults) with the overrides applied, type-checked."""
    values = read_config(config_path) if config_path else {}
    values.update(overrides or {})
    return cls.from_dict(_coerce(values, cls))


def resume_overrides(
    config_path: str | Path, overrides: dict[str, Any], resumable: Sequence[str], cls: type[ConfigBase] = TrainConfig
) -> dict[str, Any]:
    """The overrides a resume applies: ``ValueError`` for a key outside ``resumable`` that changes its value.

    A fixed key given again with the value the run was started with (``--runs_dir`` repeated in
    a resume command) changes nothing and is accepted; compared after type coercion, so ``1e5``
    matches ``100000``, and as a path for texts, so ``runs/`` matches ``runs``.
    """
    saved = _coerce(read_config(config_path), cls)
    given = _coerce(overrides, cls)
    changed = sorted(k for k in given if k not in resumable and (k not in saved or not _same(given[k], saved[k])))
    if changed:
        raise ValueError(f"{', '.join(changed)} cannot change when resuming; changeable: {', '.join(resumable)}")
    return {k: v for k, v in overrides.items() if k in resumable}


def _same(given: Any, saved: Any) -> bool:
    """Equal values; two texts also when they name the same path (``runs/`` is ``runs``)."""
    if isinstance(given, str) and isinstance(saved, str):
        return Path(given) == Path(saved)
    return bool(given == saved)


def _coerce(values: dict[str, Any], cls: type[ConfigBase] = TrainConfig) -> dict[str, Any]:
    """Convert YAML scalars to the field's type (``1e5`` -> 100000 for an int field) and refuse nonsense."""
    # the annotations are strings (``from __future__ import annotations``): "int | None", "list"...
    types = {f.name: str(f.type) for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    out = dict(values)
    for name, value in values.items():
        kind = types.get(name)
        if kind is None or value is None:
            continue
        out[name] = _coerce_one(name, kind, value)
    return out


def _number(value: Any) -> float | None:
    """``value`` as a float if it is a number (or the text of one, ``"1e5"``), else None; booleans are not numbers."""
    if isinstance(value, bool):
        return None
    try:
        return float(value)
    except (TypeError, ValueError, OverflowError):
        return None


def _coerce_one(name: str, kind: str, value: Any) -> Any:
    base = kind.split("|")[0].strip()
    if base == "int":
        number = _number(value)
        if number is None or not number.is_integer():
            raise ValueError(f"{name} must be an integer, got {value!r}")
        return int(number)
    if base == "float":
        number = _number(value)
        if number is None:
            raise ValueError(f"{name} must be a number, got {value!r}")
        return number
    if base == "bool":
        if not isinstance(value, bool):
            raise ValueError(f"{name} must be true or false, got {value!r}")
        return value
    if base == "str":
        return str(value)
    if base in ("list", "dict") and not isinstance(value, list if base == "list" else dict):
        raise ValueError(f"{name} must be a {base}, got {value!r}")
    return value


def field_names(cls: type[ConfigBase] = TrainConfig) -> Sequence[str]:
    return [f.name for f in dataclasses.fields(cls)]  # type: ignore[arg-type]
