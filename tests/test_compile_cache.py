"""The compiled rules' disk cache is invalidated by an edit of anything the compiled code depends on.

numba alone compares only the defining file's modification time, so a caller in an
unchanged file would keep an edited callee's old code (see ``concordia_env/engine/rules/_jit.py``).
Each compiled function is stamped with a digest of the files it reaches through imports and
of the package data, so an edit elsewhere (a renderer, an environment) recompiles nothing.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import concordia_env
from concordia_env.engine.rules import _jit, entry_points, scoring
from concordia_env.strategy import evaluation, planner

PACKAGE_DIR = Path(concordia_env.__file__).parent


def test_our_locators_are_installed() -> None:
    assert _jit.PACKAGE_STAMPS, "numba's cache internals changed: rule functions fall back to per-file stamps"


@pytest.mark.parametrize("dispatcher", [entry_points.step, scoring.score_parts, evaluation.values, planner.decide])
def test_compiled_functions_carry_the_package_stamp(dispatcher) -> None:
    cache_file = dispatcher._cache.user_file
    py_file = dispatcher.py_func.__code__.co_filename
    assert cache_file._source_stamp == _jit.source_stamp(py_file)
    assert cache_file._source_stamp[0] == _jit.dependency_digest(py_file)


def test_the_rules_depend_on_the_rules_and_tables_only() -> None:
    root = PACKAGE_DIR.parent
    deps = {
        p.relative_to(PACKAGE_DIR).as_posix()
        for p in _jit.dependency_files(PACKAGE_DIR / "engine/rules/entry_points.py", root)
    }
    assert {
        "engine/rules/entry_points.py",
        "engine/rules/scoring.py",
        "engine/rules/effects.py",
        "engine/cards.py",
        "engine/maps.py",
        "engine/state.py",
    } <= deps
    assert not deps & {
        "engine/game.py",
        "engine/observation.py",
        "views/render/board_picture.py",
        "envs/pettingzoo_env.py",
        "__init__.py",
    }


def test_an_edit_of_a_dependency_changes_the_digest_and_an_edit_elsewhere_does_not(tmp_path: Path) -> None:
    copy = tmp_path / "concordia_env"
    shutil.copytree(PACKAGE_DIR, copy, ignore=shutil.ignore_patterns("__pycache__"))
    engine_file = copy / "engine" / "rules" / "entry_points.py"

    def digest() -> str:
        return _jit.dependency_digest(engine_file, tmp_path, copy / "engine" / "data")

    before = digest()
    assert before == _jit.dependency_digest(PACKAGE_DIR / "engine" / "rules" / "entry_points.py")
    for unrelated in (copy / "views" / "render" / "board_picture.py", copy / "engine" / "game.py"):
        unrelated.write_text(unrelated.read_text() + "\n# edited\n")
    assert digest() == before
    scoring_file = copy / "engine" / "rules" / "scoring.py"
    scoring_file.write_text(scoring_file.read_text() + "\n# edited\n")
    after_scoring = digest()
    assert after_scoring != before
    cards_data = copy / "engine" / "data" / "cards.json"
    cards_data.write_text(cards_data.read_text() + "\n")
    assert digest() != after_scoring


def test_functions_compiled_elsewhere_keep_numba_s_own_locators() -> None:
    """Our stamped locators serve the package's functions only, and numba's own list is left as it was."""
    from numba.core import caching

    def plain(x):
        return x + 1

    impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl
    assert not [cls for cls in impl._locator_classes if issubclass(cls, _jit._PackageStampMixin)]
    assert _jit.LOCATORS and all(issubclass(cls, _jit._PackageStampMixin) for cls in _jit.LOCATORS)
    assert all(cls.from_function(plain, __file__) is None for cls in _jit.LOCATORS)


def test_the_dependency_walk_never_leaves_the_package(tmp_path: Path) -> None:
    """Installed from a wheel, the package's parent is ``site-packages``: the walk must not follow numpy or numba there.

    The copy lies beside stand-ins for numpy and numba whose sources do not even parse, so a
    walk that opened one of them would raise; every file reached must lie in the package.
    """
    site = tmp_path / "site-packages"
    copy = site / "concordia_env"
    shutil.copytree(PACKAGE_DIR, copy, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("numpy", "numba", "math", "concordia"):
        (site / name).mkdir()
        (site / name / "__init__.py").write_text("this is not python (\n")
    compiled = [p for p in copy.rglob("*.py") if "njit" in p.read_text() and "_jit" in p.read_text()]
    assert len(compiled) >= 10
    for py_file in compiled:
        deps = _jit.dependency_files(py_file, site)
        assert deps and all(dep.is_relative_to(copy) for dep in deps), py_file
        assert _jit.dependency_digest(py_file, site, copy / "engine" / "data")


def test_each_file_is_parsed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    _jit.imported_files.cache_clear()
    parsed: list[str] = []
    real_parse = _jit.ast.parse

    def counting_parse(source, *args, **kwargs):
        parsed.append(source)
        return real_parse(source, *args, **kwargs)

    monkeypatch.setattr(_jit.ast, "parse", counting_parse)
    root = PACKAGE_DIR.parent
    first = _jit.dependency_files(PACKAGE_DIR / "engine/rules/entry_points.py", root)
    count = len(parsed)
    assert count == len(first)
    _jit.dependency_files(PACKAGE_DIR / "engine/rules/legal.py", root)
    _jit.dependency_files(PACKAGE_DIR / "engine/rules/entry_points.py", root)
    assert len(parsed) - count <= 1  # legal.py's own imports are all reached from entry_points.py already
