"""A tiny helper for declaring flat integer layouts with named offsets.

The game state and the static map tables are flat int32 arrays; every field is declared
once, in order, with its length, and the declaration gives back its offset. This keeps
the layout readable (one line per field) and makes every offset a plain module-level
integer, which numba compiles in as a constant.
"""

from __future__ import annotations


class Layout:
    """Allocates consecutive offsets in a flat array and remembers the fields for docs."""

    def __init__(self) -> None:
        self.size = 0
        self.fields: list[tuple[str, int, int, str]] = []

    def field(self, name: str, length: int = 1, doc: str = "") -> int:
        """Reserve ``length`` entries for ``name`` and return the first offset."""
        offset = self.size
        self.size += length
        self.fields.append((name, offset, length, doc))
        return offset

    def table(self) -> str:
        """A Markdown table of the layout (used by the docs and ``describe_layout``)."""
        rows = ["| field | offset | length | meaning |", "| --- | ---: | ---: | --- |"]
        rows += [f"| `{n}` | {o} | {ln} | {d} |" for n, o, ln, d in self.fields]
        return "\n".join(rows)
