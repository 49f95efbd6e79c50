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
def browser_page(width: int = 1400, height: int = 1000):
    """A Playwright page in a fresh headless Chromium; console errors and page errors collect in
    page.errors (a list of strings)."""
    from playwright.sync_api import sync_playwright
    with tempfile.TemporaryDirectory(prefix="gpusim-chromium-") as profile, sync_playwright() as pw:
        ctx = pw.chromium.launch_persistent_context(profile, executable_path=chromium_path(), headless=True,
                                                    args=FLAGS, viewport={"width": width, "height": height})
        try:
            page = ctx.pages[0] if ctx.pages else ctx.new_page()
            errors: list[str] = []
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.errors = errors
            yield page
        finally:
            ctx.close()
