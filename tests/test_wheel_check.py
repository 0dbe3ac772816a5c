"""The wheel check of CI (``.ci/wheel_check.py``) runs the README blocks that need the core alone.

The check itself builds and installs the wheel (minutes, in ``make test``); here, in seconds:
which README blocks it runs in the fresh venv, and how it reads imports and requirements.
"""

from __future__ import annotations

import runpy
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHECK = runpy.run_path(str(ROOT / ".ci" / "wheel_check.py"))


def test_the_core_requirements_are_import_names() -> None:
    names = CHECK["import_names"](["numpy>=1.26", "numba>=0.59", "gymnasium>=1.0", "pettingzoo>=1.24"])
    assert names == {"numpy", "numba", "gymnasium", "pettingzoo"}


def test_imports_are_read_from_the_code() -> None:
    code = "import numpy as np\nfrom concordia_env.agents import make\nfrom . import x\nimport os.path\n"
    assert CHECK["top_level_imports"](code) == {"numpy", "concordia_env", "os"}


def test_the_readme_has_examples_for_the_bare_wheel() -> None:
    """The engine and PettingZoo examples need only the core, so the fresh venv runs them."""
    allowed = CHECK["import_names"](["numpy", "numba", "gymnasium", "pettingzoo"]) | {"concordia_env"}
    import sys

    allowed |= set(sys.stdlib_module_names)
    blocks = CHECK["readme_blocks"]()
    core = [b for b in blocks if CHECK["top_level_imports"](b) <= allowed]
    assert len(core) >= 2
    assert any("Game.new" in b for b in core) and any("concordia_env.env(" in b for b in core)
