"""The one place that decides how rule functions are compiled.

Rule functions are plain Python over numpy arrays, compiled with numba's ``njit`` on their
first call (cached on disk, so only the first call in a fresh checkout pays the compile time;
importing compiles nothing). Setting the
environment variable ``NUMBA_DISABLE_JIT=1`` runs the very same functions as Python, which
is how to step through them in a debugger or measure coverage.

Why a cache stamp of our own: numba decides whether a cached function is still valid from
the modification time of *the file that defines it* only. A compiled function inlines the
functions it calls, so after an edit of ``rules/scoring.py`` the cached ``engine.step`` in
the unchanged ``rules/engine.py`` would silently keep the old scoring (seen during
development; ``git pull`` into an editable install does the same). Functions compiled
here are therefore stamped with a digest of the whole ``concordia_env`` source tree plus
their own file: any edit of the package recompiles every rule function once.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

import numba

#: attribute set on the Python functions compiled here, so our cache locators pick only them
_MARK = "__concordia_compiled__"
_PACKAGE_DIR = Path(__file__).resolve().parents[1]


def source_digest(directory: Path) -> str:
    """SHA-256 over every Python source under ``directory`` (relative paths and contents)."""
    digest = hashlib.sha256()
    for path in sorted(directory.rglob("*.py")):
        digest.update(path.relative_to(directory).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


@functools.cache
def _package_digest() -> str:
    return source_digest(_PACKAGE_DIR)


@functools.cache
def source_stamp(py_file: str) -> tuple[str, str]:
    """The package digest plus the defining file's own digest (it may live outside the package)."""
    return _package_digest(), hashlib.sha256(Path(py_file).read_bytes()).hexdigest()


class _PackageStampMixin:
    """A numba cache locator that serves only our functions and stamps them by content."""

    _py_file: str

    @classmethod
    def from_function(cls, py_func, py_file):
        if not getattr(py_func, _MARK, False):
            return None
        return super().from_function(py_func, py_file)

    def get_source_stamp(self):
        return source_stamp(self._py_file)


def _install_locators() -> bool:
    """Put our locators first in numba's list (same places, same order as numba's own).

    numba's locator list is not public API; when its shape differs (another numba version)
    the default per-file stamps stay in force and this returns False.
    """
    try:
        from numba.core import caching
    except ImportError:  # pragma: no cover - numba always has it
        return False
    impl = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl", None)
    bases = [getattr(caching, name, None) for name in ("UserProvidedCacheLocator", "InTreeCacheLocator")]
    bases.append(getattr(caching, "UserWideCacheLocator", None))
    if impl is None or not isinstance(getattr(impl, "_locator_classes", None), list) or None in bases:
        return False
    if any(issubclass(cls, _PackageStampMixin) for cls in impl._locator_classes):
        return True
    ours = [type(f"Concordia{base.__name__}", (_PackageStampMixin, base), {}) for base in bases]
    impl._locator_classes[:0] = ours
    return True


#: False when this numba's cache internals are not the expected ones (per-file stamps then)
PACKAGE_STAMPS = _install_locators()


def njit(func):
    """Compile a rule function (nopython mode, cached, no exceptions inside)."""
    setattr(func, _MARK, True)
    return numba.njit(cache=True, nogil=True)(func)
