"""The compiled rules' disk cache is invalidated by an edit anywhere in the package.

numba alone compares only the defining file's modification time, so a caller in an
unchanged file would keep an edited callee's old code (see ``concordia_env/rules/_jit.py``).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import concordia_env
from agents import _fast_rollout
from concordia_env.rules import _jit, engine, scoring

PACKAGE_DIR = Path(concordia_env.__file__).parent


def test_our_locators_are_installed() -> None:
    assert _jit.PACKAGE_STAMPS, "numba's cache internals changed: rule functions fall back to per-file stamps"


@pytest.mark.parametrize("dispatcher", [engine.step, scoring.score_parts, _fast_rollout.best_province])
def test_compiled_functions_carry_the_package_stamp(dispatcher) -> None:
    cache_file = dispatcher._cache._cache_file
    py_file = dispatcher.py_func.__code__.co_filename
    assert cache_file._source_stamp == _jit.source_stamp(py_file)
    assert cache_file._source_stamp[0] == _jit.source_digest(PACKAGE_DIR)


def test_an_edit_in_any_package_file_changes_the_digest(tmp_path: Path) -> None:
    copy = tmp_path / "concordia_env"
    shutil.copytree(PACKAGE_DIR, copy, ignore=shutil.ignore_patterns("__pycache__"))
    before = _jit.source_digest(copy)
    assert before == _jit.source_digest(PACKAGE_DIR)
    scoring_file = copy / "rules" / "scoring.py"
    scoring_file.write_text(scoring_file.read_text() + "\n# edited\n")
    assert _jit.source_digest(copy) != before


def test_functions_compiled_elsewhere_keep_numba_s_own_locators() -> None:
    from numba.core import caching

    def plain(x):
        return x + 1

    impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl
    ours = [cls for cls in impl._locator_classes if issubclass(cls, _jit._PackageStampMixin)]
    assert ours
    assert all(cls.from_function(plain, __file__) is None for cls in ours)
