"""``HumanViewer``: the board picture in a matplotlib window (``render_mode="human"``).

Training scripts run on machines without a display; there the viewer must not take the
run down. When no interactive matplotlib backend is available it warns once and then
does nothing.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from concordia_env.engine.game import Game

from .board_picture import DEFAULT_WIDTH, INSTALL_HINT, render_rgb

#: seconds the window's event loop runs after each frame, so it repaints
DEFAULT_PAUSE = 0.001
WINDOW_TITLE = "Concordia"
_warned = False


def _warn_once(message: str) -> None:
    global _warned
    if not _warned:
        warnings.warn(message, RuntimeWarning, stacklevel=4)  # the caller of HumanViewer.render
        _warned = True


def interactive_backend() -> str | None:
    """The name of pyplot's backend if it can open windows, else None (headless machine, Agg)."""
    try:
        # importing pyplot resolves its backend, falling back to Agg where no display is reachable
        import matplotlib
        import matplotlib.pyplot
    except ImportError as e:
        raise ImportError(f"{INSTALL_HINT} ({e})") from e
    backend = matplotlib.get_backend()
    return backend if backend.lower() not in _non_interactive_backends() else None


def _non_interactive_backends() -> set[str]:
    try:
        from matplotlib.backends import BackendFilter, backend_registry

        names = backend_registry.list_builtin(BackendFilter.NON_INTERACTIVE)
    except ImportError:  # matplotlib < 3.9
        from matplotlib import rcsetup

        names = rcsetup.non_interactive_bk  # type: ignore[attr-defined]  # gone from matplotlib >= 3.9's stubs
    return {name.lower() for name in names}


class HumanViewer:
    """Shows the board picture in one window and updates it on every :meth:`render` call.

    Without a display (or with a non-interactive backend) it warns once and does nothing,
    so an environment created with ``render_mode="human"`` still runs headless.
    """

    def __init__(self, width: int = DEFAULT_WIDTH, pause: float = DEFAULT_PAUSE) -> None:
        self.width = width
        self.pause = pause
        self._available: bool | None = None  # decided at the first frame
        self._fig: Any = None
        self._image: Any = None

    @property
    def available(self) -> bool:
        """True when frames go to a window (checked once, at the first call)."""
        if self._available is None:
            self._available = interactive_backend() is not None
            if not self._available:
                _warn_once("no interactive matplotlib backend (no display?): render_mode='human' shows nothing")
        return self._available

    def render(self, game: Game) -> None:
        """Draw ``game`` into the window (opening it, or reopening it if it was closed)."""
        if not self.available:
            return
        frame = render_rgb(game, self.width)
        try:
            self._show(frame)
        except Exception as e:  # a backend that cannot reach its display fails only here
            self._available = False
            _warn_once(f"cannot open a window ({type(e).__name__}: {e}): render_mode='human' shows nothing")

    __call__ = render

    def _show(self, frame: np.ndarray) -> None:
        import matplotlib.pyplot as plt

        if self._fig is None or not plt.fignum_exists(self._fig.number):
            self._open(frame)
        elif self._image.get_array().shape != frame.shape:
            self._image.remove()
            self._image = self._fig.axes[0].imshow(frame, interpolation="antialiased")
        else:
            self._image.set_data(frame)
        self._fig.canvas.draw_idle()
        plt.pause(self.pause)

    def _open(self, frame: np.ndarray) -> None:
        import matplotlib.pyplot as plt

        height, width = frame.shape[:2]
        dpi = 100
        self._fig = plt.figure(WINDOW_TITLE, figsize=(width / dpi, height / dpi), dpi=dpi)
        ax = self._fig.add_axes((0.0, 0.0, 1.0, 1.0))
        ax.set_axis_off()
        self._image = ax.imshow(frame, interpolation="antialiased")
        plt.show(block=False)

    def close(self) -> None:
        """Close the window (safe to call when none is open)."""
        if self._fig is not None:
            import matplotlib.pyplot as plt

            plt.close(self._fig)
        self._fig = self._image = None
