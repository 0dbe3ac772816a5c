"""The compiled setup deals what numpy's generator dealt: every map, player count, option and seed."""

from __future__ import annotations

import numpy as np
import pytest

from concordia_env.engine.maps import MAP_NAMES, load
from concordia_env.engine.rules import pcg64
from concordia_env.engine.rules.setup import new_state, setup_args, start_game
from tests.reference import setup as reference


@pytest.mark.parametrize("map_name", MAP_NAMES)
def test_the_compiled_setup_equals_the_numpy_setup(map_name: str) -> None:
    m = load(map_name)
    for n in m.players:
        for seed in range(40):
            options = {
                "intermediate_scoring": seed % 2 == 1,
                "display_costs": ("standard", "alternative")[seed % 3 == 0],
            }
            got = new_state(m, n, seed, **options)
            assert np.array_equal(got, reference.new_state(m, n, seed, **options)), (map_name, n, seed)
        for start in range(n):
            assert np.array_equal(
                new_state(m, n, 7, start_player=start), reference.new_state(m, n, 7, start_player=start)
            )


def test_large_seeds_and_the_start_player_draw() -> None:
    m = load("imperium")
    for seed in (2**32 - 1, 2**32, 2**63 - 1, 2**100, 123456789012345678901234567890):
        assert np.array_equal(new_state(m, 5, seed), reference.new_state(m, 5, seed)), seed


@pytest.mark.parametrize("map_name", MAP_NAMES)
def test_a_batch_row_starts_its_next_game_as_new_state(map_name: str) -> None:
    """``start_game`` (a batch row's next game, all compiled: int64 seed words included) equals ``new_state``."""
    m = load(map_name)
    for n in m.players:
        for seed in (0, 1, 17, 2**31, 2**32 - 1, 2**32, 2**40 + 3, 2**62, 2**63 - 1):
            for options in ({}, {"intermediate_scoring": True, "display_costs": "alternative", "start_player": n - 1}):
                template, start, plan = setup_args(m, n, **options)
                row = np.full_like(template, 99)  # whatever the row held before
                start_game(row, template, seed, start, plan)
                assert np.array_equal(row, new_state(m, n, seed, **options)), (map_name, n, seed, options)


def test_a_bad_start_player_is_refused() -> None:
    m = load("italia")
    for start in (-1, 2, 99):
        with pytest.raises(ValueError, match="start_player"):
            new_state(m, 2, 0, start_player=start)


def test_permutation_and_interval_draw_as_numpy() -> None:
    for seed in range(200):
        generator, g = np.random.default_rng(seed), pcg64.seeded(seed)
        for n in (1, 2, 3, 5, 12, 17, 40, 70):
            values = np.arange(10, 10 + n, dtype=np.int32)
            out = np.empty(n, dtype=np.int32)
            pcg64.permute_into(g, values, out)
            assert np.array_equal(out, generator.permutation(values))
        assert np.array_equal(g, pcg64.from_generator(generator)), "both generators end in the same state"
