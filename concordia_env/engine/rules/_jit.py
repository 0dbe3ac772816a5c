"""The one place that decides how rule functions are compiled.

Rule functions are plain Python over numpy arrays, compiled with numba's ``njit`` on their
first call, or loaded: from the user's disk cache, or from the compiled code a platform wheel
ships (:mod:`.compiled_cache` says where each is kept and when each is used; importing
compiles nothing). Setting the environment variable ``NUMBA_DISABLE_JIT=1`` runs the very
same functions as Python, which is how to step through them in a debugger or measure coverage.

Why a cache stamp of our own (numba's locator classes, stamped, are tried in numba's order by
our cache; numba's own list is left alone): numba decides whether a cached function is still valid from
the modification time of *the file that defines it* only. A compiled function inlines the
functions it calls, so after an edit of ``engine/rules/scoring.py`` the cached ``entry_points.step`` in
the unchanged ``rules/entry_points.py`` would silently keep the old scoring (seen during
development; ``git pull`` into an editable install does the same). Functions compiled
here are therefore stamped with a digest of what their code depends on: the defining file,
every module of the package it imports, directly or through others (followed through the
import statements of the source, never outside the package: not into numpy or numba, whether
the package lies in a checkout or in ``site-packages``), and the package's data
files (card and map tables are compiled in as constants). An edit of ``engine/rules/scoring.py``
recompiles every function that reaches it; an edit of a renderer, an environment or a
docstring elsewhere recompiles nothing.

A compile says so. The first time a process really compiles a function of a part (a cache
miss: a fresh install, or code that changed), one line goes to stderr, e.g.
``concordia-env: compiling the rules with numba (first run only, about 30-60 s; cached on
disk afterwards)...``; loading from the cache prints nothing. ``concordia warmup`` compiles
every part ahead of time (:mod:`concordia_env.tools.warmup`). The line comes from a listener
on numba's ``"numba:compile"`` event, which numba raises only when it compiles, never
for a cache hit. When the package's compiled code was skipped, the line says why (another
numba, Python or architecture). ``CONCORDIA_COMPILE_NOTICE=0`` turns the line off.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any

import numba
from numba.core import caching
from numba.core import event as numba_event

from .compiled_cache import (
    MANIFEST,
    SHIPPED,
    SHIPPED_DIR,
    STAMPS_ENTRY,
    SUPPORTED,
    CompiledCache,
    package_dispatchers,
)

#: attribute set on the Python functions compiled here, so our cache locators pick only them
_MARK = "__concordia_compiled__"
_PACKAGE_DIR = Path(__file__).resolve().parents[2]
#: the card and map tables: compiled into the rules as constants
_DATA_DIR = _PACKAGE_DIR / "engine" / "data"


def _module_file(root: Path, name: str) -> Path | None:
    """The source of the dotted module ``name`` under ``root`` (a module or a package's ``__init__``)."""
    base = root.joinpath(*name.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


@functools.cache
def imported_files(py_file: Path, root: Path) -> frozenset[Path]:
    """The files of ``py_file``'s own package that it imports (every import statement, relative ones resolved).

    ``root`` is the folder that holds the package, and the package is the top folder of
    ``py_file`` under it. Only names inside that package are looked up: ``import numpy`` is
    never resolved, whatever else lies beside the package (in an installed wheel ``root`` is
    ``site-packages``, where following numpy and numba would parse hundreds of their files).
    ``from package import name`` counts the submodule ``package/name.py`` when there is one,
    else the package's ``__init__``. Each file is parsed at most once per process.
    """
    tree = ast.parse(py_file.read_text())
    parts = py_file.relative_to(root).with_suffix("").parts
    top, package = parts[0], parts[:-1]
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = list(package[: len(package) - node.level + 1]) if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            names.extend(f"{module}.{alias.name}" if module else alias.name for alias in node.names)
            names.append(module)
    found = set()
    for name in names:
        if name.split(".")[0] != top:
            continue
        path = _module_file(root, name)
        if path is not None:
            found.add(path)
    return frozenset(found)


def dependency_files(py_file: Path, root: Path) -> list[Path]:
    """``py_file`` and every file of its package it reaches through imports, sorted."""
    seen = {py_file}
    todo = [py_file]
    while todo:
        for path in imported_files(todo.pop(), root):
            if path not in seen:
                seen.add(path)
                todo.append(path)
    return sorted(seen)


def dependency_digest(py_file: str | Path, root: Path | None = None, data_dir: Path = _DATA_DIR) -> str:
    """SHA-256 over the sources ``py_file`` depends on (``dependency_files``) and the package data.

    ``root`` is the folder that holds the package (the checkout, or ``site-packages`` for an
    installed wheel); the walk stays inside the package either way.
    """
    path = Path(py_file).resolve()
    root = _PACKAGE_DIR.parent if root is None else root.resolve()
    if not path.is_relative_to(root):
        root = path.parent
    return _files_digest(dependency_files(path, root), root, data_dir)


def _files_digest(paths: list[Path], root: Path, data_dir: Path = _DATA_DIR) -> str:
    """SHA-256 over ``paths`` (each named relative to ``root``) and the package data, in the order given."""
    digest = hashlib.sha256()
    for path in paths:
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(path.read_bytes())
    for data in sorted(data_dir.rglob("*.json")):
        digest.update(data.relative_to(data_dir).as_posix().encode())
        digest.update(data.read_bytes())
    return digest.hexdigest()


#: every stamp this process computed or read, by file (what the build records)
_STAMPS: dict[str, tuple[str, str]] = {}


def _package_relative(py_file: str | Path) -> str | None:
    """``py_file`` relative to the folder that holds the package (posix), or None for a file outside the package.

    Only the package's own files are recorded and read back: a test or a script of the
    checkout that compiles its own functions lies beside the package, not in a wheel.
    """
    path = Path(py_file).resolve()
    return path.relative_to(_PACKAGE_DIR.parent).as_posix() if path.is_relative_to(_PACKAGE_DIR) else None


def stamps_record() -> dict[str, Any]:
    """The stamps of every module with compiled functions, and a digest of every source they were computed from.

    The build writes it into the compiled code's manifest (``compiled_cache.STAMPS_ENTRY``): a
    later process reads a file's stamp there instead of parsing the package's imports again
    (:func:`recorded_stamps`), as long as none of those sources changed. Imports every module
    with compiled functions first (``compiled_cache.package_dispatchers``), so that each is stamped.
    """
    package_dispatchers()
    root = _PACKAGE_DIR.parent
    files = {name: _STAMPS[name] for name in sorted(_STAMPS)}
    sources = sorted(set().union(*(dependency_files(root / name, root) for name in files)))
    return {
        "files": {name: list(stamp) for name, stamp in files.items()},
        "sources": [path.relative_to(root).as_posix() for path in sources],
        "digest": _files_digest(sources, root),
    }


@functools.cache
def recorded_stamps(folder: Path = SHIPPED_DIR) -> dict[str, tuple[str, str]]:
    """The stamps the build recorded in ``folder``'s manifest, when none of their sources changed since; else none.

    Parsing the imports of the package's sources for the stamps was a large part of the
    start of every process that loads compiled code (docs/benchmarks.md, "The test suite and
    CI"); reading the sources' bytes once for the recorded digest is far cheaper. A stamp is
    a function of those sources alone, so
    while their digest is the recorded one the recorded stamps are the ones
    :func:`dependency_digest` would compute; any edit of one of them (or a file gone) and every
    stamp is computed again, as without a record.
    """
    root = _PACKAGE_DIR.parent
    try:
        recorded = json.loads((folder / MANIFEST).read_text()).get(STAMPS_ENTRY)
        sources = [root / name for name in recorded["sources"]]
        if _files_digest(sources, root) != recorded["digest"]:
            return {}
        return {str(name): (str(dep), str(own)) for name, (dep, own) in recorded["files"].items()}
    except (OSError, ValueError, TypeError, KeyError, AttributeError):  # no record, an unreadable one, a file gone
        return {}


@functools.cache
def source_stamp(py_file: str) -> tuple[str, str]:
    """The digest of what the file's compiled code depends on, plus the file's own digest.

    Read from the build's record (:func:`recorded_stamps`) when it still holds, else computed.
    """
    name = _package_relative(py_file)
    stamp = recorded_stamps().get(name) if name is not None else None
    if stamp is None:
        stamp = dependency_digest(py_file), hashlib.sha256(Path(py_file).read_bytes()).hexdigest()
    if name is not None:
        _STAMPS[name] = stamp
    return stamp


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


def _stamped_locators() -> list[type]:
    """numba's user-cache locators (same places, same order as numba's own), stamped by our content digest.

    numba's locator classes are not public API; when their shape differs (another numba
    version) this returns an empty list and the functions compiled here keep numba's own
    per-file stamps and disk cache.
    """
    found = [getattr(caching, name, None) for name in ("UserProvidedCacheLocator", "InTreeCacheLocator")]
    found.append(getattr(caching, "UserWideCacheLocator", None))
    bases = [base for base in found if isinstance(base, type)]
    if len(bases) < len(found) or not SUPPORTED:
        return []
    return [type(f"Concordia{base.__name__}", (_PackageStampMixin, base), {}) for base in bases]


#: our stamped locators (empty when numba's cache internals are not the expected ones)
LOCATORS = _stamped_locators()
#: False when this numba's cache internals are not the expected ones (numba's own cache and per-file stamps then)
PACKAGE_STAMPS = bool(LOCATORS)


#: what the compile notice calls each part of the package that has compiled code
COMPILED_PARTS = {
    "engine": "the rules",
    "strategy": "the strategy core (the agents' compiled play)",
    "envs": "the batched environments",
}


class CompileNotice(numba_event.Listener):
    """Writes one line to stderr when a part's first real compile starts in this process (see the module docstring)."""

    def __init__(self) -> None:
        self.shown: set[str] = set()

    def on_start(self, event: Any) -> None:
        data = event.data if isinstance(event.data, dict) else {}
        func = getattr(data.get("dispatcher"), "py_func", None)
        if not getattr(func, _MARK, False) or os.environ.get("CONCORDIA_COMPILE_NOTICE") == "0":
            return
        parts = str(getattr(func, "__module__", "")).split(".")
        part = parts[1] if len(parts) > 1 and parts[1] in COMPILED_PARTS else "engine"
        if part in self.shown:
            return
        self.shown.add(part)
        why = f"; {SHIPPED.why_not}" if SHIPPED.why_not else ""
        sys.stderr.write(
            f"concordia-env: compiling {COMPILED_PARTS[part]} with numba (first run only, about 30-60 s; "
            f"cached on disk afterwards; `concordia warmup` compiles everything ahead{why})...\n"
        )
        sys.stderr.flush()

    def on_end(self, event: Any) -> None:
        pass


#: the one listener of this process
COMPILE_NOTICE = CompileNotice()
numba_event.register("numba:compile", COMPILE_NOTICE)


def _compiled(func, **options):
    """``numba.njit(**options)(func)`` with our cache (:mod:`.compiled_cache`); numba's where its internals differ.

    Compiled code releases the GIL (``nogil``) unless ``options`` say otherwise.
    """
    setattr(func, _MARK, True)
    options.setdefault("nogil", True)
    if not PACKAGE_STAMPS:
        return numba.njit(cache=True, **options)(func)
    dispatcher = numba.njit(**options)(func)
    dispatcher._cache = CompiledCache(func, LOCATORS, source_stamp(func.__code__.co_filename))
    return dispatcher


def njit(func):
    """Compile a rule function (nopython mode, cached, no exceptions inside)."""
    return _compiled(func)


def njit_holding_gil(func):
    """Compile an entry point that keeps the GIL while it runs: no other Python thread runs meanwhile.

    Only ``Game``'s per-decision calls use it (:mod:`concordia_env.engine.serial`): a call
    that holds the GIL is atomic for every other Python thread, so it needs no lock. Called
    from other compiled code it is the same function as any rule (the GIL is taken or
    released only where Python calls in).
    """
    return _compiled(func, nogil=False)


def njit_parallel(func):
    """Compile a batch function whose ``numba.prange`` loop runs its rows on several cores.

    Only the batch twins of :mod:`concordia_env.envs.threads` use it: each calls, per row,
    the very function its serial twin calls, so the rules keep one compiled home.
    """
    return _compiled(func, parallel=True)


def njit_inline(func):
    """Compile a function that numba copies into each of its callers (``inline="always"``).

    Why: every call between compiled functions updates the reference counts of the arrays it
    passes (atomic operations), on the way in and out; a function with one caller that runs in
    the planner's innermost loop is cheaper as part of its caller, where numba removes those
    updates (the Architect's rule and its house values: about a quarter of an Architect
    decision's turn options was reference counting). Only for functions with one or two
    callers: each caller compiles a copy.
    """
    return _compiled(func, inline="always")


def njit_borrowing(func):
    """Compile a rule function that only borrows arrays: reads (or writes into) the arrays it is given,
    never creates or keeps one.

    Why: numba counts references to the arrays a function holds. The refusal checks of
    ``legal.py`` run once per action of a range inside the mask loops, and have many exits
    (one per rule); numba then leaves reference-count updates (atomic operations) on every
    exit, which keeps LLVM from inlining them and made the legal masks fifteen times
    slower. Without reference counting (numba's ``_nrt=False``) they compile to plain
    comparisons and inline into the loops. Such a function must not allocate (numba refuses
    to compile one that does): a fixed-size scratch array comes from ``_scratch.stack_zeros``,
    on its stack. The engine's step (``apply_action``, ``advance``, the legal masks), the
    strategy's evaluation and the planner's play-out and rules of thumb are compiled this way:
    the turn options call them at every step of every option, and their reference counting
    was about a quarter of the options' time (docs/benchmarks.md).
    """
    return _compiled(func, _nrt=False)
