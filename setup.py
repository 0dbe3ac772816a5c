"""The build: the package, and in a platform wheel its compiled code (pyproject.toml holds everything else).

``pip wheel .`` and ``python -m build --wheel`` compile every part of the package for the generic
CPU of this architecture (``concordia warmup --portable``, a few minutes on 2 cores) into
``concordia_env/_compiled`` and ship it, so that an install from the wheel has nothing to compile
(:mod:`concordia_env.engine.rules.compiled_cache` says when it is used: the same numba, Python and
architecture). The wheel is then tagged for this Python and platform (``cp311-cp311-linux_x86_64``).

The compiled code is built in the source tree (``concordia_env/_compiled``, ignored by git) and
rebuilt only when the package's sources, numba, Python or the architecture changed since: a
checkout's tests read it too. ``CONCORDIA_PURE_WHEEL=1`` builds the pure-Python wheel
(``py3-none-any``) without it, which compiles on first use as a source install does.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
PACKAGE = ROOT / "concordia_env"
COMPILED = PACKAGE / "_compiled"
PURE = os.environ.get("CONCORDIA_PURE_WHEEL", "0") not in ("", "0")


#: what the compiled code is made from: the compiled parts and their callers, and what the build runs
COMPILED_FROM = ("engine", "strategy", "envs", "agents", "tools/compile_coverage.py", "tools/warmup.py")


def sources_digest() -> str:
    """SHA-256 over the files the compiled code is made from: it is rebuilt when one changes.

    Each compiled function is stamped by the files it depends on and is never served stale
    (``compiled_cache``); this digest only spares a rebuild when nothing it covers changed.
    """
    digest = hashlib.sha256()
    for name in COMPILED_FROM:
        path = PACKAGE / name
        for file in sorted(path.rglob("*.py")) if path.is_dir() else [path]:
            if "__pycache__" not in file.parts:
                digest.update(file.relative_to(ROOT).as_posix().encode())
                digest.update(file.read_bytes())
    for data in sorted((PACKAGE / "engine" / "data").rglob("*.json")):
        digest.update(data.relative_to(ROOT).as_posix().encode())
        digest.update(data.read_bytes())
    return digest.hexdigest()


def build_compiled_code() -> Path:
    """``concordia_env/_compiled`` for these sources (kept when its manifest says it was built from them)."""
    digest = sources_digest()
    manifest = COMPILED / "manifest.json"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    facts = subprocess.run(
        [sys.executable, "-c", "import json; from concordia_env.engine.rules import compiled_cache as c; "
         "print(json.dumps(c.build_facts()))"],
        cwd=ROOT, env=env, check=True, capture_output=True, text=True,
    )  # fmt: skip
    wanted = {**json.loads(facts.stdout), "sources": digest}
    if manifest.is_file():
        built = json.loads(manifest.read_text())
        if all(built.get(name) == value for name, value in wanted.items()):
            return COMPILED
    subprocess.run([sys.executable, "-m", "concordia_env.tools.warmup", "--portable", str(COMPILED)],
                   cwd=ROOT, env=env, check=True)  # fmt: skip
    built = json.loads(manifest.read_text())
    manifest.write_text(json.dumps({**built, "sources": digest}, indent=1) + "\n")
    return COMPILED


class BuildWithCompiledCode(build_py):
    """``build_py``, then the compiled code into the build (not for an editable install or a pure wheel)."""

    def run(self) -> None:
        super().run()
        if PURE or getattr(self, "editable_mode", False):
            return
        target = Path(self.build_lib) / "concordia_env" / "_compiled"
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(build_compiled_code(), target)


class CompiledCodeDistribution(Distribution):
    """A distribution whose wheel is tagged for this Python and platform (installed as platform code) when it
    carries compiled code, as one with extension modules is."""

    def has_ext_modules(self) -> bool:
        return not PURE


setup(distclass=CompiledCodeDistribution, cmdclass={"build_py": BuildWithCompiledCode})
