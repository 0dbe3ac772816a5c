"""The generated layout documents match the code."""

from __future__ import annotations

import pytest

from concordia_env.docgen import DOCS, GENERATED

#: the pages whose ``python`` blocks run as written, each block on its own (as a reader copies one)
RUNNABLE_PAGES = ["environments.md"]


def python_blocks(text: str) -> list[str]:
    """The bodies of the fenced ``python`` blocks of a Markdown text."""
    return [part.split("```", 1)[0] for part in text.split("```python\n")[1:]]


@pytest.mark.parametrize("page", RUNNABLE_PAGES)
def test_docs_python_blocks_run(page: str, capsys: pytest.CaptureFixture[str]) -> None:
    blocks = python_blocks((DOCS / page).read_text())
    assert len(blocks) >= 6
    for index, block in enumerate(blocks):
        exec(compile(block, f"docs/{page} block {index}", "exec"), {"__name__": "docs"})
    assert capsys.readouterr().out.count("\n") >= 5, "the examples print what they show"


@pytest.mark.parametrize("name", sorted(GENERATED))
def test_generated_docs_are_current(name: str) -> None:
    assert (DOCS / name).read_text() == GENERATED[name](), f"run `python -m concordia_env.docgen` to refresh {name}"
