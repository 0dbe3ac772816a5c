"""Bridges to other frameworks, each an optional extra.

* :mod:`.openspiel` registers Concordia as the OpenSpiel game ``python_concordia`` (``.[openspiel]``);
* :mod:`.rllib` gives RLlib the env with the observation keys its action masking reads, and
  fixed policies to play against (``.[rllib]``).
"""
