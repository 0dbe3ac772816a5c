"""Fixtures of the web tests: a headless Chromium (Playwright) and a page in it.

The browser tests skip, saying why, only when no Chromium is installed or Playwright is
missing; CI installs both (``.ci/run`` installs Debian's chromium, the ``dev`` extra
Playwright), so there they run.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from concordia_env.views.html.browser import CHROMIUM_ENV, chromium, chromium_path

#: how long a page may take to do what a test waits for (ms); generous for a loaded 2-core CI machine
PAGE_TIMEOUT_MS = 30_000


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    """One headless Chromium for the whole session (starting one costs about a second)."""
    if chromium_path() is None:
        pytest.skip(f"no Chromium on this machine (apt-get install chromium, or set {CHROMIUM_ENV})")
    pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed (pip install playwright)")
    with chromium() as b:
        yield b


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
    context.set_default_timeout(PAGE_TIMEOUT_MS)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    yield page
    context.close()
    if not getattr(page, "console_errors_allowed", False):  # a test that provokes a refusal sets it
        assert not errors, f"the page reported errors: {errors}"
