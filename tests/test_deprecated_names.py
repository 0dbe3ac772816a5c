"""Module names from before the package re-cut still import, each with a ``DeprecationWarning`` naming the new import.

The project itself, its tests, docs and generated reports use the new names only.
"""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from concordia_env import _aliases

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    ("old", "new"),
    [("concordia_env.game", "concordia_env.engine.game"), ("concordia_env.render", "concordia_env.views.render")],
)
def test_an_old_module_name_warns_and_is_the_new_module(old: str, new: str) -> None:
    sys.modules.pop(old, None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        module = importlib.import_module(old)
    assert module is importlib.import_module(new)
    messages = [str(w.message) for w in caught if issubclass(w.category, DeprecationWarning)]
    assert any(old in m and f"import {new!r}" in m for m in messages), messages


def test_an_old_attribute_of_the_package_warns() -> None:
    import concordia_env

    sys.modules.pop("concordia_env.render", None)
    vars(concordia_env).pop("render", None)  # bound by an earlier import of the old name
    with pytest.warns(DeprecationWarning, match="concordia_env.views.render"):
        assert concordia_env.render is importlib.import_module("concordia_env.views.render")


@pytest.mark.parametrize(
    ("statement", "new"),
    [
        ("import agents", "concordia_env.agents"),
        ("from training import afterstate", "concordia_env.training"),
        ("import concordia_env.rules.facts", "concordia_env.engine.rules.facts"),
    ],
)
def test_the_warning_is_shown_at_the_user_s_line(statement: str, new: str) -> None:
    """Python shows a DeprecationWarning by default when it points at ``__main__``: the user's own line."""
    done = subprocess.run([sys.executable, "-c", statement], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "DeprecationWarning" in done.stderr and new in done.stderr, done.stderr
    assert "<string>:1" in done.stderr, done.stderr


def test_new_names_import_without_a_warning() -> None:
    code = "import concordia_env.engine.game, concordia_env.agents"
    done = subprocess.run(
        [sys.executable, "-W", "error::DeprecationWarning", "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr


def _old_name_pattern() -> re.Pattern[str]:
    olds = sorted({old for old in _aliases.ALIASES if old.startswith("concordia_env.")}, key=len, reverse=True)
    dotted = "|".join(re.escape(o) for o in olds)
    return re.compile(rf"(?:\b(?:{dotted})\b|^\s*(?:import|from) (?:agents|training|benchmarks)\b)", re.M)


def test_nothing_in_the_project_uses_an_old_name() -> None:
    pattern = _old_name_pattern()
    allowed = {
        ROOT / "concordia_env" / "_aliases.py",
        ROOT / "concordia_env" / "__init__.py",
        Path(__file__),
        ROOT / "CHANGELOG.md",
        *(ROOT / shell / "__init__.py" for shell in _aliases.CHECKOUT_SHELLS),
    }
    files = [
        *ROOT.joinpath("concordia_env").rglob("*.py"),
        *ROOT.joinpath("tests").rglob("*.py"),
        *ROOT.joinpath("docs").rglob("*.md"),
        ROOT / "README.md",
    ]
    offenders = []
    for path in files:
        if path in allowed:
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if pattern.search(line):
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not offenders, "\n".join(offenders)
