"""Module names from before the package re-cut still import, each with a ``DeprecationWarning`` naming the new import.

The project itself, its tests, docs and generated reports use the new names only.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import pickle
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from concordia_env import _aliases

ROOT = Path(__file__).resolve().parents[1]
#: the module files renamed inside their subpackage, as (old, new) dotted names
RENAMED = sorted((f"concordia_env.{old}", f"concordia_env.{new}") for old, new in _aliases.RENAMED_FILES.items())
#: old names that reach today's module through more than one alias
CHAINED = [
    ("concordia_env.vector", "concordia_env.envs.vector_game"),
    ("concordia_env.env_common", "concordia_env.envs.env_checks"),
    ("concordia_env.rules.engine", "concordia_env.engine.rules.entry_points"),
    ("concordia_env.rules.common", "concordia_env.engine.rules.state_helpers"),
    ("concordia_env.render.board", "concordia_env.views.render.board_picture"),
    ("concordia_env.web.board", "concordia_env.views.html.board_svg"),
    ("concordia_env.web.replay", "concordia_env.views.html.replay_page"),
    ("agents.afterstate", "concordia_env.agents.learned_model"),
    ("agents.options", "concordia_env.agents.option_checks"),
    ("training.evaluate", "concordia_env.training.run_evaluation"),
    ("training.report", "concordia_env.training.run_report"),
    ("training.rllib", "concordia_env.training.rllib_ppo"),
]


def _import_or_skip(name: str) -> object:
    """Import ``name``; skip when a third-party module it needs (an extra) is not installed."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as err:
        if err.name and not err.name.startswith("concordia_env"):
            pytest.skip(f"{name} needs {err.name}")
        raise


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("concordia_env.game", "concordia_env.engine.game"),
        ("concordia_env.render", "concordia_env.views.render"),
        *RENAMED,
        *CHAINED,
    ],
)
def test_an_old_module_name_warns_and_is_the_new_module(old: str, new: str) -> None:
    _import_or_skip(new)
    sys.modules.pop(old, None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        module = importlib.import_module(old)
    assert module is importlib.import_module(new)
    assert module.__spec__.name == new  # the module keeps its own spec, whatever name imported it
    messages = [str(w.message) for w in caught if issubclass(w.category, DeprecationWarning)]
    assert any(old in m and f"import {new!r}" in m for m in messages), messages


def test_old_names_resolve_to_todays_modules() -> None:
    """Every alias ends at a module that exists today, through however many old names."""
    for old in _aliases.ALIASES:
        new = _aliases.new_name(old)
        assert new is not None and _aliases.new_name(new) is None, (old, new)
        if new.startswith("concordia_env."):
            assert importlib.util.find_spec(new) is not None, (old, new)
    assert _aliases.new_name("concordia_env.rules.engine") == "concordia_env.engine.rules.entry_points"
    assert _aliases.new_name("concordia_env.envs.vector_env") is None  # a name that merely begins like an old one


def test_a_pickle_that_names_an_old_module_loads() -> None:
    """Objects pickled by reference under an old module name (checkpoints, saved configs) still load."""
    from concordia_env.envs.vector_game import VectorGame

    with pytest.warns(DeprecationWarning, match="concordia_env.envs.vector_game"):
        sys.modules.pop("concordia_env.envs.vector", None)
        assert pickle.loads(b"cconcordia_env.envs.vector\nVectorGame\n.") is VectorGame


def test_every_module_file_name_is_used_once() -> None:
    """A file name alone says which module it is: no two modules of the package share one."""
    names: dict[str, list[str]] = {}
    for path in ROOT.joinpath("concordia_env").rglob("*.py"):
        if path.name not in {"__init__.py", "__main__.py"}:
            names.setdefault(path.name, []).append(str(path.relative_to(ROOT)))
    assert not {name: paths for name, paths in names.items() if len(paths) > 1}


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
        ("import concordia_env.strategy.afterstate", "concordia_env.strategy.afterstate_scorer"),
        ("from concordia_env.envs import vector", "concordia_env.envs.vector_game"),
        ("from training import evaluate", "concordia_env.training.run_evaluation"),
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
    """Old dotted names, the paths of renamed files, and imports of the checkout's shells."""
    olds = sorted({old for old in _aliases.ALIASES if old.startswith("concordia_env.")}, key=len, reverse=True)
    dotted = "|".join(re.escape(o) for o in olds)
    paths = "|".join(re.escape(old.replace(".", "/") + ".py") for old in _aliases.RENAMED_FILES)
    shells = r"^\s*(?:import|from) (?:agents|training|benchmarks)\b"
    return re.compile(rf"(?:\b(?:{dotted})\b|(?<![\w/])(?:concordia_env/)?(?:{paths})\b|{shells})", re.M)


def _imported_names(path: Path) -> set[str]:
    """Absolute names of every module (or name) imported in a file of the checkout, relative imports resolved."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    package = parts[:-1]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            out.add(module)
            out.update(f"{module}.{alias.name}" for alias in node.names)
    return out


def test_no_import_uses_an_old_name() -> None:
    """Relative imports too (``from .afterstate import ...`` inside ``strategy``), which the text scan cannot see."""
    allowed = {ROOT / "concordia_env" / "_aliases.py", Path(__file__)}
    files = [*ROOT.joinpath("concordia_env").rglob("*.py"), *ROOT.joinpath("tests").rglob("*.py")]
    offenders = sorted(
        f"{path.relative_to(ROOT)}: {name}"
        for path in files
        if path not in allowed
        for name in _imported_names(path)
        if name.startswith("concordia_env.") and _aliases.new_name(name) is not None
    )
    assert not offenders, "\n".join(offenders)


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
        *ROOT.joinpath("docs").rglob("*.py"),
        *(path for ext in ("yaml", "js", "html", "css") for path in ROOT.joinpath("concordia_env").rglob(f"*.{ext}")),
        *ROOT.joinpath(".ci").iterdir(),
        ROOT / "README.md",
        ROOT / "Makefile",
        ROOT / "pyproject.toml",
    ]
    offenders = []
    for path in files:
        if path in allowed:
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if pattern.search(line):
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not offenders, "\n".join(offenders)
