"""``agents`` in a checkout is :mod:`concordia_env.agents` (the agents moved there; the old name keeps working).

The wheel ships only ``concordia_env``, so an installed project never claims the name
``agents``; see ``concordia_env/_aliases.py`` and ``docs/architecture.md``.
"""

from concordia_env import _aliases

_aliases.install()


def __getattr__(name: str) -> object:
    return _aliases.attribute(__name__, name)
