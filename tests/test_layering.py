"""The package graph is a DAG: data → rules → Game/envs → agents → benchmarks / training.

Imports are read from the source (every ``import``, also the ones inside functions), so a
lazy import that dodges a cycle is seen too. Rules:

* ``concordia_env`` imports none of ``agents``, ``benchmarks``, ``training``;
* ``agents`` imports neither ``benchmarks`` nor ``training``; ``benchmarks`` not ``training``;
* ``concordia_env/rules`` imports only the static tables (cards, maps, state, actions,
  layout), never ``Game`` or an environment;
* nothing outside ``concordia_env/rules`` imports a private module of it (``rules._jit``):
  ``njit`` is public as ``concordia_env.rules.njit``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("concordia_env", "agents", "benchmarks", "training")
#: what each package may import (besides itself and third-party modules)
ALLOWED = {
    "concordia_env": set(),
    "agents": {"concordia_env"},
    "benchmarks": {"concordia_env", "agents"},
    "training": {"concordia_env", "agents", "benchmarks"},
}
#: the static tables the rules are compiled against
RULES_MAY_IMPORT = {"cards", "maps", "state", "actions", "layout", "data", "rules"}
#: edges that break the rules above and belong to another helper of issue 11 (item 5); each
#: must still exist, so the entry is removed together with the edge
KNOWN_EXCEPTIONS = {("concordia_env/gym_env.py", "agents")}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def imports_of(path: Path) -> set[str]:
    """Absolute names of every module imported anywhere in the file (relative imports resolved)."""
    tree = ast.parse(path.read_text())
    package = module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            out.add(module)
            out.update(f"{module}.{alias.name}" for alias in node.names)
    return out


def sources(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


@pytest.mark.parametrize("package", PACKAGES)
def test_packages_import_only_lower_layers(package: str) -> None:
    found = set()
    for path in sources(package):
        rel = path.relative_to(ROOT).as_posix()
        for name in imports_of(path):
            top = name.split(".")[0]
            if top in PACKAGES and top != package and top not in ALLOWED[package]:
                found.add((rel, top))
    assert found - KNOWN_EXCEPTIONS == set(), "imports against the layering"
    stale = {e for e in KNOWN_EXCEPTIONS if e[0].startswith(package + "/")} - found
    assert not stale, f"fixed, so remove from KNOWN_EXCEPTIONS: {stale}"


def test_rules_import_only_the_static_tables() -> None:
    for path in sources("concordia_env/rules"):
        for name in imports_of(path):
            parts = name.split(".")
            if parts[0] == "concordia_env" and len(parts) > 1:
                assert parts[1] in RULES_MAY_IMPORT, f"{path.name} imports {name}"


def test_no_private_rules_module_is_imported_from_outside() -> None:
    for package in PACKAGES:
        for path in sources(package):
            if path.is_relative_to(ROOT / "concordia_env" / "rules"):
                continue
            for name in imports_of(path):
                parts = name.split(".")
                if parts[:2] == ["concordia_env", "rules"] and len(parts) > 2:
                    assert not parts[2].startswith("_"), f"{path.relative_to(ROOT)} imports {name}"
