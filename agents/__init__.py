"""``agents`` in a checkout: the deprecated old name of :mod:`concordia_env.agents`.

Its one job: command lines and notebooks written before the agents moved into the package
(``import agents``, ``python -m agents.web``) keep working in a checkout, with a
``DeprecationWarning`` that names the new import. The wheel ships only ``concordia_env``, so
an installed project never claims the name ``agents``; see ``concordia_env/_aliases.py``.
"""

from concordia_env import _aliases

_aliases.import_shell(__name__)


def __getattr__(name: str) -> object:
    return _aliases.attribute(__name__, name)
