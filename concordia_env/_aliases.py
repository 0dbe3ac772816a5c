"""The module names from before the package re-cut: deprecated aliases of the new ones.

Until the engine, environments, views, agents and tools became subpackages, their modules
were flat (``concordia_env.game``, ``concordia_env.rules.facts``, ``concordia_env.render``)
and the agents, training scripts and benchmarks were top-level packages of a checkout
(``agents``, ``training``, ``benchmarks``). Code, notebooks and command lines written
against those names keep working: importing an old name gives the very module object of
the new one (never a second copy, so classes and registries stay one), and
``python -m agents.web`` runs ``concordia_env.tools.web``. The wheel ships only
``concordia_env``; the top-level names live only in a checkout (folders ``agents/``,
``training/``, ``benchmarks/``), so an installed wheel never claims ``agents`` (the import
name of another, widely used package).

Later, module files inside the subpackages were renamed so that each name says what the file
holds and no file name is used twice in the package (:data:`RENAMED_FILES`:
``concordia_env.strategy.afterstate`` is ``concordia_env.strategy.afterstate_scorer``,
``concordia_env.envs.vector`` is ``concordia_env.envs.vector_game``, ...). Their old names are
aliases the same way, and old names chain (``concordia_env.vector`` and
``training.evaluate`` give the module of today's name).

Every old name is deprecated: importing one (or reaching it as an attribute of
``concordia_env``) gives a ``DeprecationWarning`` that names the new import, as PettingZoo's
deprecated modules do. Nothing in the project, its tests, docs or generated reports uses an
old name; new code uses the new names (docs/architecture.md).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import warnings
from types import ModuleType

#: module files renamed inside their subpackage: old dotted name -> new (under ``concordia_env``)
RENAMED_FILES: dict[str, str] = {
    "agents.afterstate": "agents.learned_model",
    "strategy.afterstate": "strategy.afterstate_scorer",
    "agents.options": "agents.option_checks",
    "strategy.options": "strategy.turn_enumeration",
    "engine.rules.engine": "engine.rules.entry_points",
    "envs.vector": "envs.vector_game",
    "views.html.board": "views.html.board_svg",
    "views.render.board": "views.render.board_picture",
    "engine.rules.common": "engine.rules.state_helpers",
    "envs.common": "envs.env_checks",
    "training.evaluate": "training.run_evaluation",
    "strategy.hidden": "strategy.determinization",
    "views.html.replay": "views.html.replay_page",
    "training.report": "training.run_report",
    "training.rllib": "training.rllib_ppo",
    "training.afterstate": "training.afterstate_learning",
    # the options level's SB3 policy and network moved down to the agent that plays them (issue 51);
    # files saved before name the old module in their pickles
    "training.options_policy": "agents.options_policy",
    "training.options_net": "agents.options_net",
}

#: old module name -> new module name (a package entry covers its submodules too)
ALIASES: dict[str, str] = {
    **{
        f"concordia_env.{name}": f"concordia_env.engine.{name}"
        for name in (
            "actions",
            "cards",
            "data",
            "describe",
            "errors",
            "game",
            "layout",
            "maps",
            "observation",
            "position",
            "position_codec",
            "rules",
            "state",
            "state_check",
        )
    },
    **{
        f"concordia_env.{name}": f"concordia_env.envs.{name}"
        for name in ("gym_env", "opponents", "pettingzoo_env", "rewards")
    },
    "concordia_env.vector": "concordia_env.envs.vector_game",
    "concordia_env.env_common": "concordia_env.envs.env_checks",
    "concordia_env.openspiel": "concordia_env.integrations.openspiel",
    "concordia_env.render": "concordia_env.views.render",
    "concordia_env.web": "concordia_env.views.html",
    "concordia_env.demo": "concordia_env.tools.demo",
    "concordia_env.docgen": "concordia_env.tools.docgen",
    "agents": "concordia_env.agents",
    "agents.play": "concordia_env.tools.session",
    "agents.web": "concordia_env.tools.web",
    "training": "concordia_env.training",
    "benchmarks": "concordia_env.benchmarks",
    **{
        f"benchmarks.{name}": f"concordia_env.tools.{name}"
        for name in ("play", "replay", "report", "store", "tournament")
    },
    # the fuzzing campaigns are test code now, beside the tests (a checkout only)
    "benchmarks.fuzz": "tests.fuzz.campaigns",
    # module files renamed inside their subpackage, so that each file name says what is inside
    # and is used once in the package
    **{f"concordia_env.{old}": f"concordia_env.{new}" for old, new in RENAMED_FILES.items()},
}


#: the top-level old names, which exist only in a checkout, as folders whose ``__init__`` defers to this module
CHECKOUT_SHELLS = ("agents", "training", "benchmarks")


def _one_step(old: str) -> str | None:
    """``old`` with its longest old prefix replaced once (None: no prefix of it is an old name)."""
    parts = old.split(".")
    for k in range(len(parts), 0, -1):
        head = ".".join(parts[:k])
        if head in ALIASES:
            return ".".join([ALIASES[head], *parts[k:]])
    return None


def new_name(old: str) -> str | None:
    """The current name of a module known by an old one (None: not an old name).

    Old names chain: ``concordia_env.rules.engine`` was moved to ``concordia_env.engine.rules.engine``,
    whose file was renamed ``entry_points.py`` since; the answer is the name of today.
    """
    name = _one_step(old)
    for _ in range(len(ALIASES)):  # each step replaces an old prefix; a cycle would be a bug in ALIASES
        if name is None:
            return None
        following = _one_step(name)
        if following is None or following == name:
            return name
        name = following
    raise RuntimeError(f"the old module names of {old!r} form a cycle")


def _caller_stacklevel() -> int:
    """The ``stacklevel`` that points a warning at the code that imported the old name.

    Frames of this module and of the checkout's shell packages are skipped, so Python's
    default filters (which show a ``DeprecationWarning`` raised by ``__main__``) see the user's
    line; ``warnings`` itself skips the import machinery's frames and they are not counted.
    """
    frame = sys._getframe(1)  # warn_deprecated's own frame: stacklevel 1 there
    level = 1
    while frame is not None and (
        frame.f_code.co_filename.startswith("<frozen importlib")
        or frame.f_code.co_filename == __file__
        or frame.f_code.co_filename == importlib.__file__  # import_module, called by attribute()
        or frame.f_globals.get("__name__") in CHECKOUT_SHELLS
    ):
        if not frame.f_code.co_filename.startswith("<frozen importlib"):
            level += 1
        frame = frame.f_back  # type: ignore[assignment]
    return level


def warn_deprecated(old: str, new: str) -> None:
    """The one warning for an old module name: a ``DeprecationWarning`` that names the new import."""
    warnings.warn(
        f"{old!r} is a deprecated module name and will be removed: import {new!r} instead",
        DeprecationWarning,
        stacklevel=_caller_stacklevel(),
    )


class _AliasLoader(importlib.abc.Loader):
    """Loads an old name as the module of its new name (one module object under both names)."""

    def __init__(self, target: str) -> None:
        self.target = target
        self.real_spec: importlib.machinery.ModuleSpec | None = None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        warn_deprecated(spec.name, self.target)
        module = importlib.import_module(self.target)
        self.real_spec = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run: the module of the new name has run already.

        The import system has just set the module's ``__spec__`` to the old name's spec; the
        module keeps its own (its name, its loader), whatever name it was imported by.
        """
        module.__spec__ = self.real_spec

    def get_code(self, fullname: str):  # what ``python -m old.name`` runs
        spec = importlib.util.find_spec(self.target)
        loader = spec.loader if spec is not None else None
        return loader.get_code(self.target) if isinstance(loader, importlib.abc.InspectLoader) else None

    def is_package(self, fullname: str) -> bool:
        spec = importlib.util.find_spec(self.target)
        return spec is not None and spec.submodule_search_locations is not None


class _AliasFinder(importlib.abc.MetaPathFinder):
    """Finds old module names first (before the path finder could load a second copy of a file)."""

    def find_spec(self, fullname: str, path: object = None, target: object = None):
        if fullname in CHECKOUT_SHELLS:  # the folder's own __init__ answers for the package itself
            return None
        new = new_name(fullname)
        if new is None or new == fullname:
            return None
        real = importlib.util.find_spec(new)
        if real is None:
            return None
        spec = importlib.machinery.ModuleSpec(fullname, _AliasLoader(new), origin=real.origin)
        spec.submodule_search_locations = real.submodule_search_locations
        return spec


def import_shell(name: str) -> None:
    """Called by a checkout's shell package (``agents/__init__.py`` ...) as it is imported: warn, then alias."""
    warn_deprecated(name, ALIASES[name])
    install()


def install() -> None:
    """Put the alias finder first on ``sys.meta_path`` (once)."""
    if not any(isinstance(finder, _AliasFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _AliasFinder())


def attribute(old_package: str, name: str) -> object:
    """``old_package.name`` for an old package name: a submodule's alias, else the new package's attribute.

    The checkout's shells (``agents/__init__.py`` ...) and ``concordia_env`` itself answer
    attribute lookups with this, so ``from agents import web`` finds ``concordia_env.tools.web``
    and ``agents.make`` is ``concordia_env.agents.make``.
    """
    full = f"{old_package}.{name}"
    if full in ALIASES:  # a submodule that moved out of the package
        return importlib.import_module(full)
    target = new_name(old_package)
    if target is not None:
        package = importlib.import_module(target)
        if hasattr(package, name):
            return getattr(package, name)
    try:
        return importlib.import_module(full)
    except ModuleNotFoundError as err:
        if err.name != full:
            raise
        raise AttributeError(f"module {old_package!r} has no attribute {name!r}") from None
