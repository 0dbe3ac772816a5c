"""The package's compiled code (``concordia_env/_compiled``): used when it matches, never when it does not.

Each test copies the package into a temporary folder and builds there, in seconds, the
shipped code of one small compiled function (``state_helpers.count_bits``) exactly as the
wheel build builds all of them (generic CPU, into the ``_compiled`` folder, with the
manifest), then runs that function in a fresh process with an empty user cache and counts
numba's compiles. What the wheel build ships in full is checked by ``.ci/wheel_check.py``
(step 7: a fresh venv with an empty HOME compiles nothing).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import concordia_env
import tests.reference.observation  # noqa: F401  (compiled functions of the checkout's own: stamped, never recorded)
from concordia_env.engine.rules import _jit, compiled_cache
from concordia_env.engine.rules.compiled_cache import (
    COMPILE_INTO_ENV,
    MANIFEST,
    PORTABLE_CPU,
    SHIPPED_ENV,
    STAMPS_ENTRY,
)
from tests.compile_counting import COUNT_COMPILES

PACKAGE_DIR = Path(concordia_env.__file__).parent
#: calls count_bits in a process that counts numba's compiles (printed last on stderr: "numba compiles: N")
COUNT_BITS = COUNT_COMPILES + "from concordia_env.engine.rules.state_helpers import count_bits\nprint(count_bits(7))\n"


def _env(root: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "CONCORDIA_"))}
    return {**env, "PYTHONPATH": str(root), **extra}


def _run(root: Path, code: str, **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code], cwd=root, env=_env(root, **extra), capture_output=True, text=True
    )


def _outcome(done: subprocess.CompletedProcess[str]) -> str:
    """``compiles=N bits=B``: how many functions a COUNT_BITS process compiled, and what count_bits answered."""
    count = re.search(r"numba compiles: (\d+)", done.stderr)
    assert count is not None, done.stderr
    return f"compiles={count.group(1)} bits={done.stdout.strip()}"


def _install_with_shipped_code(tmp_path: Path, **cpu: str) -> Path:
    """A copy of the package whose ``_compiled`` folder holds count_bits compiled for the CPU ``cpu`` names."""
    root = tmp_path / "install"
    shutil.copytree(PACKAGE_DIR, root / "concordia_env", ignore=shutil.ignore_patterns("__pycache__", "_compiled"))
    compiled = root / "concordia_env" / "_compiled"
    build = _run(
        root,
        COUNT_BITS,
        **{COMPILE_INTO_ENV: str(compiled), SHIPPED_ENV: "0", "NUMBA_CACHE_DIR": str(tmp_path / "build-cache")},
        **cpu,
    )
    assert build.returncode == 0 and "numba compiles:" in build.stderr, build.stderr
    record = {**compiled_cache.build_facts(), STAMPS_ENTRY: _jit.stamps_record()}  # as the build writes it
    (compiled / MANIFEST).write_text(json.dumps(record))
    return root


@pytest.fixture
def shipped(tmp_path: Path) -> Path:
    """A copy of the package whose ``_compiled`` folder holds count_bits compiled for the generic CPU."""
    return _install_with_shipped_code(tmp_path, NUMBA_CPU_NAME=PORTABLE_CPU, NUMBA_CPU_FEATURES="")


def _count_bits(root: Path, user_cache: Path) -> tuple[str, str]:
    done = _run(root, COUNT_BITS, NUMBA_CACHE_DIR=str(user_cache))
    assert done.returncode == 0, done.stderr
    return _outcome(done), done.stderr


def test_the_shipped_code_is_used_without_compiling(shipped: Path, tmp_path: Path) -> None:
    out, err = _count_bits(shipped, tmp_path / "user")
    assert out == "compiles=0 bits=3" and "compiling" not in err


def test_an_edited_rule_source_is_never_served_from_the_shipped_code(shipped: Path, tmp_path: Path) -> None:
    source = shipped / "concordia_env" / "engine" / "rules" / "state_helpers.py"
    text = source.read_text()
    assert "        n += 1\n" in text
    source.write_text(text.replace("        n += 1\n", "        n += 2\n", 1))  # the rule now counts double
    out, err = _count_bits(shipped, tmp_path / "user")
    assert out.endswith("bits=6") and not out.startswith("compiles=0"), out
    assert "compiling the rules with numba" in err


#: prints how many stamps the process read from the build's record, and whether each is the one computed anew
RECORDED_STAMPS = (
    "import hashlib\n"
    "from concordia_env.engine.rules import _jit\n"
    "recorded = _jit.recorded_stamps()\n"
    "root = _jit._PACKAGE_DIR.parent\n"
    "own = {n: hashlib.sha256((root / n).read_bytes()).hexdigest() for n in recorded}\n"
    "fresh = {n: (_jit.dependency_digest(root / n), own[n]) for n in recorded}\n"
    "print(len(recorded), recorded == fresh)\n"
)


def test_the_recorded_stamps_are_read_while_their_sources_hold_and_dropped_after_an_edit(shipped: Path) -> None:
    """A process reads each file's stamp from the build's record instead of parsing imports: the very same stamps;
    an edit of one of the sources they were computed from drops the whole record."""
    record = json.loads((shipped / "concordia_env" / "_compiled" / MANIFEST).read_text())[STAMPS_ENTRY]
    assert all(name.startswith("concordia_env/") for name in [*record["files"], *record["sources"]])
    count, same = _run(shipped, RECORDED_STAMPS).stdout.split()
    assert int(count) >= 20 and same == "True"
    source = shipped / "concordia_env" / "strategy" / "evaluation.py"
    source.write_text(source.read_text() + "\n# an edit\n")
    assert _run(shipped, RECORDED_STAMPS).stdout.split() == ["0", "True"]


def test_an_edit_elsewhere_in_the_package_keeps_the_shipped_code(shipped: Path, tmp_path: Path) -> None:
    renderer = shipped / "concordia_env" / "views" / "render" / "board_map.py"
    renderer.write_text(renderer.read_text() + "\n# an edit the rules do not depend on\n")
    assert _count_bits(shipped, tmp_path / "user")[0] == "compiles=0 bits=3"


@pytest.mark.parametrize(
    ("fact", "foreign"), [("numba", "0.0.1"), ("python", "2.7"), ("triple", "aarch64-unknown-linux-gnu")]
)
def test_another_numba_python_or_architecture_compiles_with_the_notice(
    shipped: Path, tmp_path: Path, fact: str, foreign: str
) -> None:
    manifest = shipped / "concordia_env" / "_compiled" / MANIFEST
    manifest.write_text(json.dumps({**json.loads(manifest.read_text()), fact: foreign}))
    out, err = _count_bits(shipped, tmp_path / "user")
    assert out.endswith("bits=3") and not out.startswith("compiles=0"), out
    assert err.count("compiling the rules with numba") == 1
    assert f"its compiled code is for {fact} {foreign}" in err, err


def test_a_process_with_bounds_checks_never_loads_the_shipped_code(shipped: Path, tmp_path: Path) -> None:
    """numba keys its entries without NUMBA_BOUNDSCHECK: code built without checks must not serve a checking run."""
    done = _run(shipped, COUNT_BITS, NUMBA_CACHE_DIR=str(tmp_path / "user"), NUMBA_BOUNDSCHECK="1")
    assert done.returncode == 0 and _outcome(done).endswith("bits=3"), done.stderr
    assert not _outcome(done).startswith("compiles=0") and "NUMBA_BOUNDSCHECK is set" in done.stderr


def test_a_numba_without_the_cache_classes_gets_numbas_own_cache(shipped: Path, tmp_path: Path) -> None:
    """The cache builds on numba classes that are not public API: a numba without one still imports and plays."""
    removed = "import sys\nimport numba.core.caching as caching\ndel caching._CacheLocator\n"
    report = (
        "from concordia_env.engine.rules import _jit, compiled_cache\n"
        "print(compiled_cache.SUPPORTED, _jit.PACKAGE_STAMPS, compiled_cache.SHIPPED.why_not, file=sys.stderr)\n"
    )
    code = COUNT_COMPILES + removed + report + COUNT_BITS[len(COUNT_COMPILES) :]
    for attempt in ("compiles", "loads from numba's cache"):
        done = _run(shipped, code, NUMBA_CACHE_DIR=str(tmp_path / "user"))
        assert done.returncode == 0 and _outcome(done).endswith("bits=3"), (attempt, done.stderr)
        assert "False False numba" in done.stderr and "lacks the cache classes" in done.stderr
    assert _outcome(done) == "compiles=0 bits=3"  # numba's own disk cache kept the first compile
    assert list((tmp_path / "user").rglob("*.nbi"))


def test_code_compiled_for_another_cpu_is_not_served_from_the_shipped_folder(tmp_path: Path) -> None:
    """The shipped entries are read under the generic CPU's key: code built for a named CPU never matches."""
    root = _install_with_shipped_code(tmp_path, NUMBA_CPU_NAME="skylake-avx512")
    out, _ = _count_bits(root, tmp_path / "user")
    assert out.endswith("bits=3") and not out.startswith("compiles=0"), out


def test_every_compiled_function_of_the_package_uses_the_package_cache() -> None:
    dispatchers = compiled_cache.package_dispatchers()
    assert len(dispatchers) > 300
    assert _jit.PACKAGE_STAMPS
    assert all(isinstance(d._cache, compiled_cache.CompiledCache) for d in dispatchers)
