"""The environments around the engine: PettingZoo (AEC and parallel), Gymnasium, and batches.

* :mod:`.pettingzoo_env`: ``env()`` / ``raw_env`` / ``parallel_env()``;
* :mod:`.gym_env`: ``SingleAgentEnv`` (``gymnasium.make("Concordia-v1")``), the learner against
  opponents inside ``step()``;
* :mod:`.vector_game`: ``VectorGame``, many games on one 2-D state array, on several threads
  (:mod:`.threads`), with compiled opponents inside if asked;
* :mod:`.vector_env`: ``ConcordiaVectorEnv`` (``gymnasium.make_vec("ConcordiaVector-v1")``),
  the Gymnasium vector env on it, and :mod:`.sb3` its Stable-Baselines3 ``VecEnv``;
* :mod:`.rewards` (the one reward module every env shares), :mod:`.opponents` (how an env
  builds an opponent from a spec string, through the ``concordia_env.agents`` entry points),
  :mod:`.env_checks` (what the envs share: the checks of their arguments, reset options and
  actions, the rendering, the legal-action space).

``from concordia_env import env, parallel_env, SingleAgentEnv, VectorGame, ConcordiaVectorEnv`` is the
short way in.
"""
