"""Every ``python`` block of README.md runs as written and ends (as the docs pages' blocks do), compiling nothing."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.compile_counting import assert_nothing_compiled, run_counted, warm_up

README = Path(__file__).resolve().parent.parent / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.DOTALL)
#: a block that runs longer than this has an endless loop (they take a few seconds)
LIMIT_SECONDS = 120


def test_readme_has_python_blocks() -> None:
    assert len(BLOCKS) >= 2


@pytest.fixture(scope="module")
def warmed_up() -> None:
    warm_up()


@pytest.mark.slow
@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_block_runs_and_ends_compiling_nothing(index: int, tmp_path: Path, warmed_up: None) -> None:
    """Each block as a new user runs it: a fresh process, after ``concordia warmup``; numba compiles nothing.

    The folder is a fresh one: a block may save a file (the options block saves its model).
    """
    done = run_counted(BLOCKS[index], tmp_path, timeout=LIMIT_SECONDS)
    assert_nothing_compiled(done)
    assert 0 < done.stdout.count("\n") < 100, "a README block prints a few lines"


def test_the_readme_is_a_front_door() -> None:
    """At most 150 lines, as PettingZoo's and pgx's are: the rest is linked, and every linked page exists."""
    text = README.read_text()
    assert len(text.splitlines()) <= 150
    for link in re.findall(r"\]\(((?:docs/)?[\w./-]+\.md)(?:#[\w-]+)?\)", text):
        assert (README.parent / link).is_file(), link
