"""Every ``python`` block of README.md runs as written, and ends (as the docs pages' blocks do)."""

from __future__ import annotations

import re
import signal
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.DOTALL)
#: a block that runs longer than this has an endless loop (they take a few seconds)
LIMIT_SECONDS = 120


def _too_long(signum: int, frame: object) -> None:
    raise TimeoutError(f"a README block ran for more than {LIMIT_SECONDS} s")


def test_readme_has_python_blocks() -> None:
    assert len(BLOCKS) >= 2


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_block_runs_and_ends(
    index: int, capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # a block may save a file (the options block saves its model)
    previous = signal.signal(signal.SIGALRM, _too_long)
    signal.alarm(LIMIT_SECONDS)
    try:
        exec(compile(BLOCKS[index], f"README.md block {index}", "exec"), {"__name__": "readme"})
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    out = capsys.readouterr().out
    assert 0 < out.count("\n") < 100, "a README block prints a few lines"


def test_the_readme_is_a_front_door() -> None:
    """At most 150 lines, as PettingZoo's and pgx's are: the rest is linked, and every linked page exists."""
    text = README.read_text()
    assert len(text.splitlines()) <= 150
    for link in re.findall(r"\]\(((?:docs/)?[\w./-]+\.md)(?:#[\w-]+)?\)", text):
        assert (README.parent / link).is_file(), link
