"""The programs people run, each with a ``main(argv)``, and the ``concordia`` command that gathers them.

==========================  ==========================================================
``concordia play``          play in the terminal against agents (:mod:`.play`)
``concordia web``           play in the browser, a local web app (:mod:`.web`)
``concordia replay``        replay a stored game, as text or an HTML page (:mod:`.replay`)
``concordia tournament``    agents against each other, stored in SQLite, rated (:mod:`.tournament`)
``concordia train``         the training scripts (:mod:`concordia_env.training`)
``concordia bench``         speed and strength benchmarks (:mod:`concordia_env.benchmarks`)
``concordia demo``          one random game, printed (:mod:`.demo`)
==========================  ==========================================================

:mod:`.session` seats a person among agents and shows a decision as a menu (both the
terminal and the web game use it); :mod:`.store` and :mod:`.report` keep and summarise
tournament games; :mod:`.docgen` writes the generated parts of ``docs/``.
"""
