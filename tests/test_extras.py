"""The ``train`` extra alone runs ``make run``: what the training path imports lazily is declared in it.

``make run`` installs only the core and ``.[train]`` (the Makefile), so a package that the
afterstate run reaches only through its evaluations (a tournament, rated and printed by
``tools.report``) must be in that extra, or a fresh machine fails minutes into the run.
"""

from __future__ import annotations

import re
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[1]
#: distributions the training loop imports (module imported: distribution declared)
TRAINING_NEEDS = {
    "torch": "torch",
    "yaml": "pyyaml",
    "tqdm": "tqdm",
    "matplotlib": "matplotlib",
    "openskill": "openskill",
    "rich": "rich",
}
#: lazy imports of other extras, reached only when asked for (``--backend ray``: the ``ray`` extra)
OTHER_EXTRAS = {"ray"}


def declared(extra: str) -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    requirements = project["dependencies"] + project["optional-dependencies"][extra]
    return {re.split(r"[<>=!~\[; ]", r, maxsplit=1)[0].lower() for r in requirements}


def test_the_train_extra_declares_what_the_training_path_imports() -> None:
    missing = {dist for dist in TRAINING_NEEDS.values() if dist not in declared("train")}
    assert not missing, f"make run installs .[train] only; add {sorted(missing)} to it"


def test_the_training_path_imports_only_those_lazily() -> None:
    """Every lazy third-party import of tools.report and tools.tournament is one the table above knows."""
    modules = set()
    for name in ("tools/report.py", "tools/tournament.py"):
        text = (ROOT / "concordia_env" / name).read_text()
        modules |= set(re.findall(r"^\s+(?:from|import) (\w+)", text, flags=re.MULTILINE))
    third_party = {m for m in modules if m not in {"concordia_env", "numpy", "__future__"} and not _stdlib(m)}
    assert third_party <= set(TRAINING_NEEDS) | OTHER_EXTRAS, sorted(third_party - set(TRAINING_NEEDS) - OTHER_EXTRAS)


def _stdlib(module: str) -> bool:
    import sys

    return module in sys.stdlib_module_names
