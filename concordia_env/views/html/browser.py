"""A headless Chromium for the browser tests and for screenshots of replays.

Playwright for Python drives the *system* Chromium (Debian's ``chromium`` package,
``/usr/bin/chromium``): Playwright's own browser download is not used, so nothing is
fetched at run time. ``CONCORDIA_CHROMIUM`` names another executable.

The flags keep Chromium off the network and out of the user's profile: a machine with a
closed network refuses its background connections by the dozen otherwise. Playwright
starts each browser with a fresh temporary profile (``--user-data-dir``) of its own.

Playwright is imported only when a browser is started (``pip install playwright``; it is
in the ``dev`` extra), so importing this module costs nothing.

A picture of a replay at decision 200 (how ``docs/images/replay-*.png`` are made)::

    python -m concordia_env.views.html.browser game.html replay.png --step 200
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from os import PathLike
from pathlib import Path
from typing import Any

#: environment variable naming the Chromium executable to use
CHROMIUM_ENV = "CONCORDIA_CHROMIUM"
#: where Debian's package puts it
DEFAULT_CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS: tuple[str, ...] = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)


def chromium_path() -> str | None:
    """The Chromium executable to drive, or None when there is none on this machine."""
    configured = os.environ.get(CHROMIUM_ENV)
    if configured:
        return configured if Path(configured).exists() else None
    if Path(DEFAULT_CHROMIUM).exists():
        return DEFAULT_CHROMIUM
    return shutil.which("chromium") or shutil.which("chromium-browser")


@contextmanager
def chromium() -> Iterator[Any]:
    """A running headless Chromium as a Playwright ``Browser`` (each launch has a fresh temporary profile)."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as exc:
        raise ImportError(f"driving Chromium needs Playwright for Python: pip install playwright ({exc})") from exc
    path = chromium_path()
    if path is None:
        raise FileNotFoundError(
            f"no Chromium found: install Debian's chromium package or set {CHROMIUM_ENV} to an executable"
        )
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=path, headless=True, args=list(CHROMIUM_ARGS))
        try:
            yield browser
        finally:
            browser.close()


def screenshot_replay(
    html: str | PathLike[str],
    png: str | PathLike[str],
    step: int | None = None,
    width: int = 1500,
    height: int = 1000,
    full_page: bool = False,
) -> Path:
    """A PNG of a replay page at decision ``step`` (the last when None) in a ``width`` x ``height`` window.

    The window shows the summary, the board and the panel; ``full_page`` adds the chart and
    the list of decisions below them.
    """
    html, png = Path(html).resolve(), Path(png)
    with chromium() as browser:
        page = browser.new_page(viewport={"width": width, "height": height})
        page.goto(html.as_uri())
        page.wait_for_function("window.concordiaReplay !== undefined")
        page.evaluate("(k) => window.concordiaReplay.go(k === null ? window.concordiaReplay.steps : k)", step)
        page.screenshot(path=str(png), full_page=full_page)
    return png


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m concordia_env.views.html.browser",
        description="A PNG of an HTML replay, taken in headless Chromium.",
    )
    parser.add_argument("html", help="a replay written by concordia_env.views.html")
    parser.add_argument("png", help="the picture to write")
    parser.add_argument("--step", type=int, default=None, help="the decision to show (default: the last)")
    parser.add_argument("--width", type=int, default=1500)
    parser.add_argument("--height", type=int, default=1000)
    parser.add_argument("--full-page", action="store_true", help="the whole page, chart and decisions included")
    args = parser.parse_args(argv)
    if not Path(args.html).is_file():
        parser.error(f"no file {args.html}")
    screenshot_replay(args.html, args.png, args.step, args.width, args.height, args.full_page)
    print(f"wrote {args.png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
