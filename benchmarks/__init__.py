"""``benchmarks`` in a checkout is :mod:`concordia_env.benchmarks`; its tournament, store, report, replay and
terminal play moved to :mod:`concordia_env.tools` (the old names keep working).

See ``concordia_env/_aliases.py`` and ``docs/architecture.md``.
"""

from concordia_env import _aliases

_aliases.install()


def __getattr__(name: str) -> object:
    return _aliases.attribute(__name__, name)
