"""The generated layout documents match the code."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from concordia_env.tools.docgen import DOCS, GENERATED

#: the pages whose ``python`` blocks run as written, each block on its own (as a reader copies one):
#: page -> (at least this many blocks, printing at least this many lines in all)
RUNNABLE_PAGES = {"environments.md": (6, 5), "engine.md": (1, 2), "agents.md": (1, 1)}


def python_blocks(text: str) -> list[str]:
    """The bodies of the fenced ``python`` blocks of a Markdown text."""
    return [part.split("```", 1)[0] for part in text.split("```python\n")[1:]]


def needs_ray(block: str) -> bool:
    """Blocks that start Ray run in ``tests/test_rllib.py``, which also checks that no Ray process is left."""
    return re.search(r"^(import ray|from ray)\b", block, flags=re.MULTILINE) is not None


@pytest.mark.parametrize("page", sorted(RUNNABLE_PAGES))
def test_docs_python_blocks_run(page: str, capsys: pytest.CaptureFixture[str]) -> None:
    least_blocks, least_lines = RUNNABLE_PAGES[page]
    blocks = python_blocks((DOCS / page).read_text())
    assert len(blocks) >= least_blocks
    for index, block in enumerate(blocks):
        if needs_ray(block):
            continue
        exec(compile(block, f"docs/{page} block {index}", "exec"), {"__name__": "docs"})
    assert capsys.readouterr().out.count("\n") >= least_lines, "the examples print what they show"


@pytest.mark.parametrize("name", sorted(GENERATED))
def test_generated_docs_are_current(name: str) -> None:
    assert (DOCS / name).read_text() == GENERATED[name](), (
        f"run `python -m concordia_env.tools.docgen` to refresh {name}"
    )


def test_rule_citations_point_to_sections_of_the_rules_page() -> None:
    """Every "docs/rules.md §n" in the code and the docs names a section that exists."""
    sections, current = set(), ""
    for line in (DOCS / "rules.md").read_text().splitlines():
        heading = re.match(r"#{2,3} (\d+(?:\.\d+)?)\.? ", line)
        item = re.match(r"(\d+)\. ", line)  # the numbered steps of a section (setup: §2.1 ... §2.6)
        if heading:
            current = heading.group(1)
            sections.add(current)
        elif item and current and "." not in current:
            sections.add(f"{current}.{item.group(1)}")
    assert {"1", "2.3", "4", "4.2", "7", "9.1", "9.2"} <= sections
    root = DOCS.parent
    files = [*root.glob("concordia_env/**/*.py"), *root.glob("agents/*.py"), *root.glob("tests/**/*.py")]
    cited = 0
    for path in [*files, *DOCS.glob("*.md")]:
        for section in re.findall(r"docs/rules\.md §(\d+(?:\.\d+)?)", Path(path).read_text()):
            assert section in sections, f"{path} cites docs/rules.md §{section}, which does not exist"
            cited += 1
    assert cited > 20


def test_no_citation_points_to_a_rules_file_outside_the_repository() -> None:
    """Citations name sections of docs/rules.md, not "RULES §n" of the reference kept elsewhere."""
    root = DOCS.parent
    files = [*root.glob("concordia_env/**/*.py"), *root.glob("agents/*.py"), *root.glob("benchmarks/*.py")]
    stale = [str(path.relative_to(root)) for path in files if re.search(r"\bRULES §", path.read_text())]
    assert stale == []


def test_rules_notes_point_to_the_rules_page() -> None:
    notes = (DOCS / "rules-notes.md").read_text()
    assert "[rules.md](rules.md)" in notes
    assert "shared/reference" not in notes


def test_tests_say_what_they_check_without_tracker_numbers() -> None:
    """A reader of the tests cannot see the tracker: a tracker number says nothing, the behaviour does."""
    root = DOCS.parent
    cited = [
        f"{path.relative_to(root)}:{n}"
        for path in sorted((root / "tests").rglob("*.py"))
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if re.search(r"\bissues? ?#?\d+|\bD\d{1,2}\b", line, flags=re.IGNORECASE)
    ]
    assert cited == []


def test_the_architecture_picture_is_drawn_from_the_layering_rule() -> None:
    """docs/images/architecture.svg is what docs/images/architecture.py draws from test_layering.ALLOWED."""
    import runpy

    script = runpy.run_path(str(DOCS / "images" / "architecture.py"))
    assert (DOCS / "images" / "architecture.svg").read_text() == script["svg"](), (
        "run `python docs/images/architecture.py` to redraw it"
    )
    page = (DOCS / "architecture.md").read_text()
    assert "images/architecture.svg" in page
    from tests.test_layering import ALLOWED

    for part, below in ALLOWED.items():  # the text form of the graph on the page says the same
        line = f"| `{part}` | " + (", ".join(f"`{b}`" for b in sorted(below)) or "nothing of the package") + " |"
        assert line in page, line
