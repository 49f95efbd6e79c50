"""Headless Chromium for the report's browser tests, driven by Playwright's Python API.

The browser is the system's (Debian's `chromium`, or $GPUSIM_CHROMIUM): `playwright install` (a
download) is never needed. The flags keep Chromium from reaching for the network, which hangs it on a
closed machine; each session gets a fresh user-data-dir."""
from __future__ import annotations

import contextlib
import os
import shutil
import tempfile

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def chromium_path() -> str | None:
    """The Chromium executable to drive, or None when none is installed."""
    for cand in (os.environ.get("GPUSIM_CHROMIUM"), "/usr/bin/chromium", shutil.which("chromium"),
                 shutil.which("chromium-browser"), shutil.which("google-chrome")):
        if cand and os.path.exists(cand):
            return cand
    return None


@contextlib.contextmanager
def chromium(width: int = 1400, height: int = 1000):
    """A fresh headless Chromium (a Playwright browser context); open pages with new_page(ctx)."""
    from playwright.sync_api import sync_playwright
    with tempfile.TemporaryDirectory(prefix="gpusim-chromium-") as profile, sync_playwright() as pw:
        ctx = pw.chromium.launch_persistent_context(profile, executable_path=chromium_path(), headless=True,
                                                    args=FLAGS, viewport={"width": width, "height": height})
        try:
            yield ctx
        finally:
            ctx.close()


def new_page(ctx):
    """A page whose console errors and uncaught exceptions collect in page.errors (strings)."""
    page = ctx.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors
    return page


def wait_for_charts(page, least: int, timeout_s: float = 30.0) -> int:
    """Wait until `least` charts have drawn a canvas (bokeh draws inside shadow roots, which
    Playwright's locators enter and document.querySelectorAll does not); returns how many did."""
    import time
    end = time.monotonic() + timeout_s
    charts = page.locator("[data-chart]")
    while True:
        drawn = sum(1 for i in range(charts.count()) if charts.nth(i).locator("canvas").count())
        if drawn >= least or time.monotonic() > end:
            return drawn
        page.wait_for_timeout(100)
