"""The Python heuristic and evaluation the compiled strategy core replaced, kept as its slow readable reference.

``evaluation.py`` and ``heuristic.py`` are the former ``agents/_evaluation.py`` and
``agents/heuristic.py`` as they were (only their imports changed). The tests of
``tests/strategy`` check that :mod:`concordia_env.strategy` gives the same values and takes
the same decisions; ``strength.py`` plays the two against each other through the tournament.
``observation.py`` is the compiled observation as it was before it read each player's houses
and cards once; ``tests/test_observation_speed_equivalence.py`` checks that both write the
same bits. Nothing outside the tests imports them.
"""
