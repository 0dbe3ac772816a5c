"""A child process that takes Ctrl-C as a terminal sends it, for the tests that interrupt a real run."""

from __future__ import annotations

import signal
import subprocess
from typing import Any


def _take_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def interruptible(command: list[str], **options: Any) -> subprocess.Popen[str]:
    """``subprocess.Popen(command, **options)`` with SIGINT's default action in the child.

    A test run started in the background of a shell without job control (``cmd &`` in a
    script) ignores SIGINT, and its children inherit that: Python then installs no
    ``KeyboardInterrupt`` handler and a SIGINT sent to the child does nothing. The child gets
    the default back before it starts, so Python installs its handler as under a terminal.
    """
    return subprocess.Popen(command, preexec_fn=_take_sigint, **options)
