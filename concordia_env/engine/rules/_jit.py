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
here are therefore stamped with a digest of what they depend on: their own file and every
file of the package it imports, transitively (its *import closure*, read from the import
statements). An edit there recompiles them once; an edit elsewhere (a docstring in
``views/render/``, an agent, a tool) recompiles nothing.
"""

from __future__ import annotations

import ast
import functools
import hashlib
from pathlib import Path

import numba

#: attribute set on the Python functions compiled here, so our cache locators pick only them
_MARK = "__concordia_compiled__"
#: the folder that holds the package ``concordia_env``
_ROOT = Path(__file__).resolve().parents[3]
_PACKAGE = "concordia_env"


def source_digest(files: list[Path] | tuple[Path, ...]) -> str:
    """SHA-256 over ``files`` (their paths relative to the package's folder, and their contents)."""
    digest = hashlib.sha256()
    for path in sorted(files):
        digest.update(_relative(path).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _relative(path: Path) -> str:
    try:
        return path.relative_to(_ROOT).as_posix()
    except ValueError:  # a file outside the package (its own name is enough)
        return path.name


def _module_file(name: str) -> Path | None:
    """The source file of a module of the package (a ``.py`` file or a package's ``__init__``), if any."""
    if name != _PACKAGE and not name.startswith(_PACKAGE + "."):
        return None
    base = _ROOT.joinpath(*name.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(_ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@functools.cache
def imported_files(py_file: Path) -> frozenset[Path]:
    """The package's files that ``py_file`` imports directly (a ``from p import m`` of a submodule counts)."""
    tree = ast.parse(py_file.read_text(encoding="utf-8"))
    try:
        here = _module_name(py_file)
        package = here if py_file.name == "__init__.py" else here.rpartition(".")[0]
    except ValueError:  # outside the package: only absolute imports of it count
        package = ""
    found: set[Path] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                if not package:
                    continue
                parent = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1])
                source = f"{parent}.{node.module}" if node.module else parent
            else:
                source = node.module or ""
            modules = [source, *(f"{source}.{alias.name}" for alias in node.names)]
        else:
            continue
        found.update(f for f in map(_module_file, modules) if f is not None)
    return frozenset(found)


@functools.cache
def dependency_files(py_file: str) -> tuple[Path, ...]:
    """``py_file`` and every file of the package it imports, transitively (sorted)."""
    start = Path(py_file).resolve()
    seen, todo = {start}, [start]
    while todo:
        for dep in imported_files(todo.pop()):
            if dep not in seen:
                seen.add(dep)
                todo.append(dep)
    return tuple(sorted(seen))


@functools.cache
def source_stamp(py_file: str) -> tuple[str, str]:
    """The digest of the defining file's import closure, plus that file's own digest."""
    return source_digest(dependency_files(py_file)), hashlib.sha256(Path(py_file).read_bytes()).hexdigest()


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
