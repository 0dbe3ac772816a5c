"""The compiled rules' disk cache is invalidated by an edit of what the compiled code depends on, and only by that.

numba alone compares only the defining file's modification time, so a caller in an
unchanged file would keep an edited callee's old code; stamping with the whole package's
digest recompiled every rule after a docstring edit in ``views/render/``. The stamp is the
defining file's import closure within the package (``concordia_env/engine/rules/_jit.py``).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import concordia_env
from concordia_env.agents import _fast_rollout
from concordia_env.engine.rules import _jit, engine, scoring

PACKAGE_DIR = Path(concordia_env.__file__).parent


def test_our_locators_are_installed() -> None:
    assert _jit.PACKAGE_STAMPS, "numba's cache internals changed: rule functions fall back to per-file stamps"


@pytest.mark.parametrize("dispatcher", [engine.step, scoring.score_parts, _fast_rollout.best_province])
def test_compiled_functions_carry_the_stamp_of_what_they_depend_on(dispatcher) -> None:
    cache_file = dispatcher._cache._cache_file
    py_file = dispatcher.py_func.__code__.co_filename
    assert cache_file._source_stamp == _jit.source_stamp(py_file)
    assert cache_file._source_stamp[0] == _jit.source_digest(_jit.dependency_files(py_file))


def test_the_stamp_covers_the_import_closure_and_nothing_else() -> None:
    files = {f.relative_to(PACKAGE_DIR).as_posix() for f in _jit.dependency_files(engine.__file__)}
    # what engine.step inlines: the rules and the tables they read
    for needed in ("engine/rules/engine.py", "engine/rules/scoring.py", "engine/rules/effects.py", "engine/state.py"):
        assert needed in files
    # what it does not: views, agents, tools, the Game facade
    assert not any(f.startswith(("views/", "agents/", "tools/", "envs/")) for f in files), files
    assert "engine/game.py" not in files and "engine/describe.py" not in files


def test_an_edit_in_a_dependency_changes_the_stamp_and_one_elsewhere_does_not(tmp_path: Path) -> None:
    deps = _jit.dependency_files(engine.__file__)
    before = _jit.source_digest(deps)
    copies = []
    for path in deps:
        copy = tmp_path / path.relative_to(PACKAGE_DIR)
        copy.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, copy)
        copies.append(copy)
    assert _jit.source_digest(copies) == _jit.source_digest(copies)
    scoring_copy = tmp_path / "engine" / "rules" / "scoring.py"
    unedited = _jit.source_digest(copies)
    scoring_copy.write_text(scoring_copy.read_text() + "\n# edited\n")
    assert _jit.source_digest(copies) != unedited
    render_text = PACKAGE_DIR / "views" / "render" / "text.py"
    assert render_text not in deps and _jit.source_digest(deps) == before


def test_functions_compiled_elsewhere_keep_numba_s_own_locators() -> None:
    from numba.core import caching

    def plain(x):
        return x + 1

    impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl
    ours = [cls for cls in impl._locator_classes if issubclass(cls, _jit._PackageStampMixin)]
    assert ours
    assert all(cls.from_function(plain, __file__) is None for cls in ours)
