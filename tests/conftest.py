"""Shared test settings."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

# agents built by the tests raise on an illegal plan instead of playing the first legal
# action (concordia_env.agents.base); set here so that tournament worker processes inherit it too
os.environ["CONCORDIA_STRICT_AGENTS"] = "1"

# compiled rule functions are loaded from numba's on-disk cache after the first run;
# the first test to touch them pays the compile time, so hypothesis must not time it
settings.register_profile("ci", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests marked ``slow`` first: spread over the workers from the start (``pytest -n 2 --dist worksteal``),
    the suite does not end waiting for one long test that started last."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
