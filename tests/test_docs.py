"""The generated layout documents match the code."""

from __future__ import annotations

import pytest

from concordia_env.docgen import DOCS, GENERATED


@pytest.mark.parametrize("name", sorted(GENERATED))
def test_generated_docs_are_current(name: str) -> None:
    assert (DOCS / name).read_text() == GENERATED[name](), f"run `python -m concordia_env.docgen` to refresh {name}"
