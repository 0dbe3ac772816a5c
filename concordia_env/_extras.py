"""The optional extras: what each brings, and the one line that says which one is missing.

The one home of that knowledge. The ``concordia`` command checks a subcommand's extras with
:func:`missing_extra` before it starts (``tools/cli.py``); every Python entry point that needs
an extra (``concordia_env.OptionsPolicy``, ``concordia_env.envs.sb3``, the ``policy`` agent
that ``concordia_env.evaluate("policy:m.zip")`` and ``ConcordiaVectorEnv(opponents=...)``
build) imports its modules inside :func:`needs_extra`, so that a missing one ends in one line
naming the extra instead of a bare ``No module named 'torch'``::

    MissingExtraError: the policy agent needs the "train" extra (torch is not installed):
    pip install "concordia-env[train]"

(one line; wrapped here).

:class:`MissingExtraError` is a ``ModuleNotFoundError`` (its ``name`` is the missing module),
so code that catches either keeps working. This module imports nothing of the project, so
every part may use it.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

#: the package's name on PyPI, for the install lines
DISTRIBUTION = "concordia-env"
#: the import names each extra brings that the project needs (pyproject.toml's optional
#: dependencies; tests/test_first_use.py checks that each extra declares them)
EXTRA_MODULES: dict[str, tuple[str, ...]] = {
    "tournament": ("rich", "openskill", "tqdm", "matplotlib"),
    "web": ("starlette", "uvicorn"),
    "train": ("torch", "stable_baselines3", "sb3_contrib", "yaml", "tqdm", "matplotlib", "openskill", "rich"),
    "bench": ("rich", "openskill", "tqdm", "matplotlib", "pygame"),
    "ray": ("ray",),
    "rllib": ("ray",),
    "tianshou": ("tianshou",),
    "openspiel": ("pyspiel",),
}
#: a module -> the extra that brings it (the first extra listing it)
MODULE_EXTRA = {module: extra for extra, modules in reversed(EXTRA_MODULES.items()) for module in modules}


class MissingExtraError(ModuleNotFoundError):
    """A module of an optional extra is not installed; the message names the extra and its install line."""


def install_line(extras: Sequence[str]) -> str:
    """``pip install "concordia-env[a,b]"``."""
    return f'pip install "{DISTRIBUTION}[{",".join(extras)}]"'


def needs_text(extras: Sequence[str], module: str) -> str:
    """What the one line says: ``needs the "EXTRA" extra (MODULE is not installed): pip install ...``."""
    return f'needs the "{",".join(extras)}" extra ({module} is not installed): {install_line(extras)}'


def installed(module: str) -> bool:
    """Whether ``module`` can be imported, without importing it (a broken installation counts as missing)."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def missing_extra(extras: Sequence[str]) -> tuple[str, str] | None:
    """(extra, module) for the first module of ``extras`` that cannot be imported, or None (nothing is imported)."""
    for extra in extras:
        for module in EXTRA_MODULES[extra]:
            if not installed(module):
                return extra, module
    return None


def extra_of(error: ModuleNotFoundError) -> str | None:
    """The extra that brings the module an import could not find, or None for a module no extra brings."""
    return MODULE_EXTRA.get((error.name or "").split(".")[0])


@contextmanager
def needs_extra(what: str) -> Iterator[None]:
    """Imports inside it that fail on a module of an extra raise :class:`MissingExtraError` naming the extra.

    ``what`` names what needs it (``"the policy agent"``). A module that no extra brings is
    a bug, not a missing extra: its error passes as it is, and so does a
    :class:`MissingExtraError` raised further in.
    """
    try:
        yield
    except MissingExtraError:
        raise
    except ModuleNotFoundError as error:
        extra = extra_of(error)
        if extra is None:
            raise
        module = (error.name or "").split(".")[0]
        raise MissingExtraError(f"{what} {needs_text((extra,), module)}", name=module) from None
