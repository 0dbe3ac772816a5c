"""Exceptions of the public API.

Every exception here pickles with its message and attributes (``pickle.loads(pickle.dumps(err))``
gives an equal error), so it crosses process boundaries intact: Gymnasium's async vector
envs and Ray workers re-raise it in the parent with its real message. (An exception whose
``__init__`` takes more than the message does not pickle by default: Python rebuilds it as
``cls(*err.args)``.) Gymnasium's ``AsyncVectorEnv`` re-raises a worker's error as
``type(err)(err)``; :class:`IllegalActionError` accepts that copy form too.
"""

from __future__ import annotations

from typing import Any

import gymnasium


class IllegalActionError(ValueError):
    """An action the rules do not allow in this position.

    ``action`` is the refused index (``-1`` when the value was not an integer at all),
    ``reason`` says why in words, ``description`` names the action in this position when it
    has a name. The game state is exactly as it was before the call.
    """

    def __init__(self, action: int | IllegalActionError, reason: str | None = None, description: str | None = None):
        if isinstance(action, IllegalActionError) and reason is None:
            # the copy form type(err)(err), in which Gymnasium's AsyncVectorEnv re-raises a worker's error
            self.__dict__.update(action.__dict__)
            action, reason, description = action.action, action.reason, action.description
        if reason is None:
            raise TypeError("IllegalActionError(action, reason, description=None) needs a reason")
        self.action = action
        self.reason = reason
        self.description = description
        what = f"action {action}" + (f" ({description})" if description else "")
        super().__init__(f"illegal {what}: {reason}")

    def __reduce__(self) -> tuple[Any, ...]:
        # rebuilt from its three arguments, then any attribute set later (VectorGame's ``row``)
        return (type(self), (self.action, self.reason, self.description), self.__dict__)


class ResetNeededError(RuntimeError, gymnasium.error.ResetNeeded):
    """``step()`` was called on an environment that has no episode running: call ``reset()`` first.

    Raised before the first ``reset()`` and (by the single-agent env) after an episode has
    ended; the environment is left exactly as it was. It is both a ``RuntimeError`` and
    Gymnasium's ``ResetNeeded``.
    """
