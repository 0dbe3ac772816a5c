"""The engine: the rules of Concordia over one int32 state array, and the ``Game`` that holds one.

* the static tables: :mod:`.cards` (cards, goods, gods), :mod:`.maps` (the four boards, ``data/``),
  :mod:`.layout`, :mod:`.state` (every offset of the state array named), :mod:`.actions` (the
  one ``Discrete(769)`` action space);
* :mod:`.rules`: the rules as compiled functions of the state (legal masks, effects, scoring,
  setup, and the public rule queries of :mod:`.rules.facts`);
* :class:`.game.Game`: the facade every caller uses (checked actions, rule queries, clones);
* positions as JSON (:mod:`.position`, :mod:`.position_codec`), checks of raw state arrays
  (:mod:`.state_check`), actions and refusals in words (:mod:`.describe`), the observation
  vector (:mod:`.observation`) and the public exceptions (:mod:`.errors`).

Nothing here imports the environments, the agents or the tools (``tests/test_layering.py``).
"""
