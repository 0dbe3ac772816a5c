"""``training`` in a checkout is :mod:`concordia_env.training` (moved there; the old name keeps working).

``python -m training.afterstate`` runs ``concordia_env.training.afterstate``; see
``concordia_env/_aliases.py`` and ``docs/architecture.md``.
"""

from concordia_env import _aliases

_aliases.install()


def __getattr__(name: str) -> object:
    return _aliases.attribute(__name__, name)
