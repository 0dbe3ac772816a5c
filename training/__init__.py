"""``training`` in a checkout: the deprecated old name of :mod:`concordia_env.training`.

Its one job: command lines written before the move (``python -m training.afterstate``) keep
working in a checkout, with a ``DeprecationWarning`` that names the new import; use
``concordia train ...``. See ``concordia_env/_aliases.py``.
"""

from concordia_env import _aliases

_aliases.import_shell(__name__)


def __getattr__(name: str) -> object:
    return _aliases.attribute(__name__, name)
