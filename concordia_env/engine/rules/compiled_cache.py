"""Where compiled code is kept and found: the user's cache, then the compiled code the package ships.

Every function compiled through :mod:`._jit` gets a :class:`CompiledCache` in place of numba's
own per-function disk cache. It looks in two places, in this order:

1. **the user's cache**, written on every compile: numba's own places (``NUMBA_CACHE_DIR``
   when set, else ``__pycache__`` beside the source when that folder is writable, else
   ``~/.cache/numba``), holding code compiled for this machine's CPU;
2. **the package's compiled code** (:data:`SHIPPED_DIR`, ``concordia_env/_compiled/``), read
   only, never written at run time. A platform wheel carries it (the build runs
   :func:`concordia_env.tools.warmup.build_portable`); a checkout has it after ``make test``
   or a wheel build. Its code is compiled for the **generic CPU of this architecture**
   (numba's ``NUMBA_CPU_NAME=generic``: no instruction the oldest x86-64 lacks), so it runs on
   any machine of the architecture; measured at about 0.9 of a native compile's speed
   (docs/engine.md).

On a miss in both the function compiles for this CPU, as before this cache existed, with the
compile notice of :mod:`._jit`, and is kept in the user's cache. When no user cache can be
written (a read-only install and ``HOME``, no ``NUMBA_CACHE_DIR``) it compiles in memory and
says so once: numba's own cache raises ``RuntimeError: cannot cache function ...: no locator
available`` there instead.

Never wrong: an entry is served only when everything it was made from matches. numba keeps
its own version in each index and the Python version in each file name; the index keeps the
content stamp of :func:`._jit.source_stamp` (every package file the function reaches, and the
card and map tables), so an edited rule is never served from an older build; each entry's
key holds the function's bytecode digest and the CPU it was compiled for. The manifest
(:data:`MANIFEST`) says for which numba, Python and architecture the shipped code was built;
when one differs the shipped code is not read at all and the notice says why. Nor is it read by
a process whose numba settings change the machine code without changing numba's keys
(``NUMBA_BOUNDSCHECK``, ``NUMBA_DEBUGINFO``, ``NUMBA_OPT`` other than 3).
"""

from __future__ import annotations

import functools
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numba
from numba.core import caching

_PACKAGE_ROOT = Path(__file__).resolve().parents[2]
#: the package's shipped compiled code (inside the installed package, or the checkout)
SHIPPED_DIR = _PACKAGE_ROOT / "_compiled"
#: what the shipped code was built for, written last by the build
MANIFEST = "manifest.json"
#: the manifest's entry of the stamps the build recorded (``_jit.stamps_record``, read by ``_jit.recorded_stamps``)
STAMPS_ENTRY = "stamps"
#: the CPU the shipped code is compiled for (numba's NUMBA_CPU_NAME, with no extra features)
PORTABLE_CPU = "generic"
#: a folder laid out as the shipped code, where compiles are kept instead of the user's cache (warmup's workers)
COMPILE_INTO_ENV = "CONCORDIA_COMPILE_INTO"
#: "0": do not read the shipped code; a folder: read that one instead (the portable build's stages)
SHIPPED_ENV = "CONCORDIA_SHIPPED_CODE"
#: numba's cache classes this module builds on: not public API, present in every numba the package allows
#: (0.59 to 0.68); a numba without one of them gets numba's own cache from ``_jit`` and no shipped code
NUMBA_CACHE_CLASSES = ("_CacheLocator", "CompileResultCacheImpl", "_Cache", "Cache", "IndexDataCacheFile")
#: whether this numba has every class of :data:`NUMBA_CACHE_CLASSES`
SUPPORTED = all(isinstance(getattr(caching, name, None), type) for name in NUMBA_CACHE_CLASSES)


def _numba_class(name: str) -> type:
    """numba's cache class ``name``, or ``object`` on a numba without it (the class built on it is then unused)."""
    return getattr(caching, name) if SUPPORTED else object


@functools.cache
def process_triple() -> str:
    """The LLVM target triple numba compiles for in this process (the architecture and OS)."""
    import llvmlite.binding as ll

    return str(ll.get_process_triple())


def build_facts() -> dict[str, str]:
    """What compiled code depends on besides the sources: numba, Python and the architecture."""
    return {
        "numba": numba.__version__,
        "python": f"{sys.version_info[0]}.{sys.version_info[1]}{getattr(sys, 'abiflags', '')}",
        "triple": process_triple(),
        "cpu": PORTABLE_CPU,
    }


def changed_codegen_flag() -> str | None:
    """The numba setting of this process that changes the machine code from the build's (None: the defaults)."""
    config = numba.config
    if getattr(config, "BOUNDSCHECK", None):
        return "NUMBA_BOUNDSCHECK"
    if getattr(config, "DEBUGINFO_DEFAULT", 0):
        return "NUMBA_DEBUGINFO"
    if getattr(config, "OPT", 3) != 3:
        return "NUMBA_OPT"
    if getattr(config, "DISABLE_JIT", 0):
        return "NUMBA_DISABLE_JIT"
    return None


@dataclass(frozen=True)
class ShippedCode:
    """Whether this process reads the package's compiled code, and why not when it does not."""

    folder: Path | None
    why_not: str = ""


def _shipped_code(folder: Path = SHIPPED_DIR) -> ShippedCode:
    """The shipped folder when its manifest matches this process, else the reason it is skipped."""
    chosen = os.environ.get(SHIPPED_ENV)
    if not SUPPORTED:
        return ShippedCode(None, f"numba {numba.__version__} lacks the cache classes it is read with")
    if chosen == "0":
        return ShippedCode(None, f"{SHIPPED_ENV}=0")
    flag = changed_codegen_flag()
    if flag is not None:  # numba keys its cache entries without these flags: code built without them must not load
        return ShippedCode(None, f"{flag} is set")
    folder = Path(chosen) if chosen else folder
    try:
        manifest = json.loads((folder / MANIFEST).read_text())
    except FileNotFoundError:
        return ShippedCode(None, "this install ships no compiled code")
    except (OSError, ValueError) as error:
        return ShippedCode(None, f"its compiled code could not be read ({error})")
    facts = build_facts()
    for name, ours in facts.items():
        theirs = manifest.get(name) if isinstance(manifest, dict) else None
        if theirs != ours:
            return ShippedCode(None, f"its compiled code is for {name} {theirs}, this is {ours}")
    return ShippedCode(folder)


#: the shipped code this process reads (decided once, at import: a few hundred bytes of JSON)
SHIPPED = _shipped_code()


def shipped_key_cpu() -> tuple[str, str, str]:
    """numba's codegen description of the shipped code (the ``magic_tuple`` of a generic-CPU build)."""
    return (process_triple(), PORTABLE_CPU, "")


class _NowhereToKeep:
    """The one line of a process whose compiles cannot be kept anywhere (said at its first compile)."""

    def __init__(self) -> None:
        self.said = False

    def say(self, source: str) -> None:
        if self.said or os.environ.get("CONCORDIA_COMPILE_NOTICE") == "0":
            return
        self.said = True
        sys.stderr.write(
            f"concordia-env: nowhere to keep compiled code ({unwritable_places(source)}): compiling in memory, "
            "again in every new process; set NUMBA_CACHE_DIR to a writable folder to keep it\n"
        )
        sys.stderr.flush()


NOWHERE_TO_KEEP = _NowhereToKeep()


def unwritable_places(source: str) -> str:
    """Where numba would have kept the compiled code of ``source``, none of it writable (for the one line)."""
    from numba.misc.appdirs import AppDirs

    beside, home = Path(source).parent / "__pycache__", AppDirs(appname="numba", appauthor=False).user_cache_dir
    cache_dir = getattr(numba.config, "CACHE_DIR", "")
    given = f"NUMBA_CACHE_DIR={cache_dir} cannot be written" if cache_dir else ""
    return "; ".join(filter(None, [given, f"neither {beside} nor {home} can be written", "NUMBA_CACHE_DIR is unset"
                                   if not given else ""]))  # fmt: skip


class FolderLocator(_numba_class("_CacheLocator")):  # type: ignore[misc]  # a base chosen at import
    """A source file's functions in a folder laid out as the shipped code: ``<folder>/<its folder in the package>``."""

    def __init__(self, py_func: Any, relative_dir: Path, folder: Path, stamp: Any) -> None:
        self._lineno = py_func.__code__.co_firstlineno
        self._cache_path = str(folder / relative_dir)
        self._stamp = stamp

    def ensure_cache_path(self) -> None:  # only a folder named by COMPILE_INTO_ENV is written
        os.makedirs(self._cache_path, exist_ok=True)

    def get_cache_path(self) -> str:
        return self._cache_path

    def get_source_stamp(self) -> Any:
        return self._stamp

    def get_disambiguator(self) -> str:
        return str(self._lineno)


def cache_file(folder: Path, filename_base: str, stamp: Any) -> Any:
    """numba's index-and-data file of one function in ``folder`` (``filename_base``: the index's name less .nbi)."""
    return caching.IndexDataCacheFile(cache_path=str(folder), filename_base=filename_base, source_stamp=stamp)


class _Place(_numba_class("CompileResultCacheImpl")):  # type: ignore[misc]
    """One place of a function's compiled code: numba's serialisation of a compile result, with our locator."""

    def __init__(self, py_func: Any, locator: Any) -> None:  # numba's __init__ searches its own locators
        self._lineno = py_func.__code__.co_firstlineno
        self._locator = locator
        modname = Path(py_func.__code__.co_filename).stem
        self._filename_base = self.get_filename_base(f"{modname}.{py_func.__qualname__}", getattr(sys, "abiflags", ""))
        self.file = cache_file(Path(locator.get_cache_path()), self._filename_base, locator.get_source_stamp())

    def load(self, key: tuple, target_context: Any) -> Any:
        """The compile result stored under ``key``, or None."""
        data = self.file.load(key)
        return None if data is None else self.rebuild(target_context, data)


class CompiledCache(_numba_class("_Cache")):  # type: ignore[misc]
    """A function's compiled code: loaded from the user's cache or the shipped code, saved to the user's cache.

    ``user_locators``: numba's locator classes stamped with our content digest (``_jit``), tried in
    order as numba tries its own; the first whose folder can be written is the user's cache.
    With ``CONCORDIA_COMPILE_INTO`` set, compiles go to that folder instead (and load from it first).
    """

    def __init__(self, py_func: Any, user_locators: list[Any], stamp: Any) -> None:
        self._name = repr(py_func)
        self._py_func = py_func
        self._enabled = True
        self._source = py_func.__code__.co_filename
        resolved = Path(self._source).resolve()
        inside = resolved.is_relative_to(_PACKAGE_ROOT)
        #: the function's folder in the shipped code's layout (None for a function outside the package)
        self.relative_dir = resolved.parent.relative_to(_PACKAGE_ROOT) if inside else None
        relative = self.relative_dir or Path()
        self._user: _Place | None = None
        for cls in user_locators:
            locator = cls.from_function(py_func, self._source)
            if locator is not None:
                self._user = _Place(py_func, locator)
                break
        self._shipped: _Place | None = None
        self._into: _Place | None = None
        if inside and SHIPPED.folder is not None:
            self._shipped = _Place(py_func, FolderLocator(py_func, relative, SHIPPED.folder, stamp))
        into = os.environ.get(COMPILE_INTO_ENV)
        if inside and into:
            self._into = _Place(py_func, FolderLocator(py_func, relative, Path(into), stamp))
        #: where a compile is kept: the COMPILE_INTO folder, else the user's cache, else nowhere
        self._keep = self._into or self._user

    @property
    def user_file(self) -> Any:
        """numba's index-and-data file of this function in the user's cache (None: nowhere writable)."""
        return None if self._user is None else self._user.file

    @property
    def relative_index(self) -> Path | None:
        """This function's index file in the shipped code's layout."""
        place = self._shipped or self._into or self._user
        if self.relative_dir is None or place is None:
            return None
        return self.relative_dir / f"{place.filename_base}.nbi"

    @property
    def cache_path(self) -> str | None:
        return self._keep._locator.get_cache_path() if self._keep is not None else None

    def enable(self) -> None:
        self._enabled = True

    def disable(self) -> None:
        self._enabled = False

    def flush(self) -> None:
        if self._keep is not None:
            self._keep.file.flush()

    def _key(self, sig: Any, codegen: Any, cpu: tuple[str, str, str] | None = None) -> tuple:
        """numba's index key (signature, CPU, bytecode digest), with ``cpu`` in place of this process's."""
        key = caching.Cache._index_key(self, sig, codegen)  # numba's key reads only _py_func
        return key if cpu is None else (key[0], cpu, *key[2:])

    def load_overload(self, sig: Any, target_context: Any) -> Any:
        if not self._enabled:
            return None
        target_context.refresh()
        codegen = target_context.codegen()
        for place in (self._into, self._user):
            if place is not None:
                found = place.load(self._key(sig, codegen), target_context)
                if found is not None:
                    return found
        if self._shipped is not None:
            return self._shipped.load(self._key(sig, codegen, shipped_key_cpu()), target_context)
        return None

    def save_overload(self, sig: Any, data: Any) -> None:
        if not self._enabled:
            return
        if self._keep is None:
            NOWHERE_TO_KEEP.say(self._source)
            return
        if not self._keep.check_cachable(data):
            return
        self._keep._locator.ensure_cache_path()
        self._keep.file.save(self._key(sig, data.codegen), self._keep.reduce(data))


def package_dispatchers() -> list[Any]:
    """Every compiled function of the package (importing the modules that define them)."""
    import importlib

    from numba.core.dispatcher import Dispatcher

    found = []
    for path in sorted(_PACKAGE_ROOT.rglob("*.py")):
        parts = path.relative_to(_PACKAGE_ROOT.parent).with_suffix("").parts
        if parts[1] not in ("engine", "strategy", "envs", "agents") or parts[-1] in ("__init__", "__main__"):
            continue
        source = path.read_text()
        if "njit" not in source:
            continue
        module = importlib.import_module(".".join(parts))
        for value in vars(module).values():
            if isinstance(value, Dispatcher) and value.py_func.__module__ == module.__name__:
                found.append(value)
    return found
