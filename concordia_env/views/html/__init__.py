"""Watch games in the browser: self-contained HTML replays.

* :func:`write_replay` ``(actions, seed, map, players, path)``: the HTML replay of a game
  begun with ``Game.new``; :func:`record_replay` starts from any :class:`~concordia_env.Game`
  (a loaded position, say) and returns a :class:`Replay` to write or embed.
* The page (``assets/``: ``replay.html``, ``replay.css``, ``board.js``, ``replay.js``) is
  inlined into every file, so a replay opens from disk with no network.
* :mod:`concordia_env.views.html.browser` drives a headless Chromium (Playwright) for tests and
  screenshots.

Replays of stored games: ``concordia replay results.db 17 --html game.html``; a
game against the agents in the browser: ``concordia web``. Only numpy is needed to
write a replay.
"""

from __future__ import annotations

from .frames import FrameLayout, decode_frames, encode_frames, frame, frame_layout
from .replay_page import REPLAY_VERSION, Replay, asset, record_replay, write_replay

__all__ = [
    "REPLAY_VERSION",
    "FrameLayout",
    "Replay",
    "asset",
    "decode_frames",
    "encode_frames",
    "frame",
    "frame_layout",
    "record_replay",
    "write_replay",
]
