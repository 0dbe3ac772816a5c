"""Exceptions of the public API."""

from __future__ import annotations


class IllegalActionError(ValueError):
    """An action the rules do not allow in this position.

    ``action`` is the refused index, ``reason`` says why in words. The game state is
    exactly as it was before the call.
    """

    def __init__(self, action: int, reason: str, description: str | None = None) -> None:
        self.action = action
        self.reason = reason
        what = f"action {action}" + (f" ({description})" if description else "")
        super().__init__(f"illegal {what}: {reason}")
