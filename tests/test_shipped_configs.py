"""Which training configs ship in the package, and that every config kept in the checkout still loads.

The package ships the configs of the shipped models and the quick and tiny ones
(``--config NAME``); the runs kept under ``docs/reports/<run>/`` keep the config that
reproduces them beside their report, and the other long runs' configs are in
``docs/configs/`` (``--config PATH``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from concordia_env.agents.learned import SHIPPED_MODELS, shipped_model_path
from concordia_env.training.afterstate_learning import AfterstateConfig
from concordia_env.training.config import CONFIG_DIR, TrainConfig, find_config, resolve
from concordia_env.training.expert_iteration import ExpertConfig

ROOT = Path(__file__).resolve().parents[1]
#: at most this many configs ship in the package: the shipped models' and the quick and tiny ones
MAX_SHIPPED_CONFIGS = 12
#: fields that change where and how fast a run goes, not what it learns
MACHINE_FIELDS = {"runs_dir", "progress", "workers", "backend", "address", "torch_threads", "time_limit_minutes"}

SHIPPED = sorted(CONFIG_DIR.glob("*.yaml"))
KEPT_BESIDE_REPORTS = sorted((ROOT / "docs" / "reports").glob("*/config.yaml"))
KEPT_IN_DOCS = sorted((ROOT / "docs" / "configs").glob("*.yaml"))


def _run_name(path: Path) -> str:
    """A config's run name: its file's stem, or its report folder's name for a report's ``config.yaml``."""
    return path.parent.name if path.name == "config.yaml" else path.stem


def _load(path: Path) -> Any:
    """The config of ``path``, read by the class of the command that runs it (by its run name's prefix)."""
    name = _run_name(path)
    if name.startswith("rllib"):
        from concordia_env.training.rllib_ppo import RLlibConfig

        return RLlibConfig.load(path, {})
    if name.startswith("afterstate"):
        return resolve(path, {}, AfterstateConfig)
    return resolve(path, {}, ExpertConfig if name.startswith("expert") else TrainConfig)


def test_the_package_ships_at_most_twelve_configs() -> None:
    assert 0 < len(SHIPPED) <= MAX_SHIPPED_CONFIGS, [p.name for p in SHIPPED]


@pytest.mark.parametrize("players", sorted(SHIPPED_MODELS))
def test_every_shipped_model_was_made_by_a_shipped_config(players: int) -> None:
    """The config a shipped model records matches one in the package on every field that shapes the run."""
    with np.load(shipped_model_path(players)) as arrays:
        recorded = json.loads(str(arrays["metadata"]))["config"]
    shipped = [resolve(path, {}, ExpertConfig).to_dict() for path in SHIPPED if path.stem.startswith("expert_")]
    shaping = sorted(set(recorded) - MACHINE_FIELDS - {"name"})  # a resumed run keeps the name it started with
    matches = [c["name"] for c in shipped if all(c.get(key) == recorded[key] for key in shaping)]
    assert matches, f"no shipped config made {SHIPPED_MODELS[players]} ({recorded['name']})"


@pytest.mark.parametrize("path", SHIPPED + KEPT_BESIDE_REPORTS + KEPT_IN_DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_kept_config_loads_and_names_files_that_exist(path: Path) -> None:
    config = _load(path)
    init_model = getattr(config, "init_model", None)
    assert init_model is None or (ROOT / init_model).is_file(), init_model


def test_config_takes_a_path_as_well_as_a_shipped_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert find_config("expert_quick") == CONFIG_DIR / "expert_quick.yaml"
    monkeypatch.chdir(ROOT)
    assert find_config("docs/configs/imperium4.yaml").is_file()
    assert resolve("docs/reports/afterstate_long/config.yaml", {}, AfterstateConfig).name == "afterstate_long"
    with pytest.raises(FileNotFoundError, match="path of a YAML file"):
        find_config("expert_italia2")  # kept beside its report, not shipped: given by its path
