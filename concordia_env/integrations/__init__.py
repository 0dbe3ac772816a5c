"""Bridges to other frameworks: :mod:`.openspiel` registers Concordia as the OpenSpiel game ``python_concordia``."""
