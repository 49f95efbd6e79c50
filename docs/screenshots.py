"""Write the README's pictures of the HTML report (docs/img/*.png) from a fresh run, in headless Chromium.

    python docs/screenshots.py    # transpose_naive and sgemm_tiled (small sizes), reduce_shared (default), h100

The same browser set-up as the browser tests (tests/html/browser.py); the PNGs are committed."""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "html")]

from browser import chromium, new_page, wait_for_charts  # noqa: E402

import gpusim  # noqa: E402
from gpusim.html import write  # noqa: E402
from programs import all_programs  # noqa: E402

OUT = ROOT / "docs" / "img"
VIEWS = {"summary": '[data-view="summary"]', "advice": '[data-view="advice"]', "stalls": '[data-chart="stalls"]',
         "memory": '[data-chart="memory"]', "roofline": '[data-chart="roofline"]',
         "source": '[data-view="source-lines"]', "timeline": '[data-chart="timeline"]',
         "warp-states": '[data-chart="warp-states"]',
         "animation": ".gpusim-anim"}


def run(name: str, small: bool = True):
    mod = all_programs()[name]
    results = []

    def launcher(kernel, grid, block, *args):
        results.append(gpusim.launch(kernel, grid, block, *args, gpu="h100", events=True))
        return results[-1]
    mod.run(launcher, mod.inputs(mod.SMALL_SIZE if small else mod.DEFAULT_SIZE))
    return results


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, chromium(width=1300) as ctx:
        for name, small in (("transpose_naive", True), ("sgemm_tiled", True), ("reduce_shared", False)):
            path = write(run(name, small), Path(tmp) / f"{name}.html")
            page = new_page(ctx)
            page.goto(path.as_uri())
            wait_for_charts(page, 4)
            page.wait_for_function("() => window.gpusimAnim && window.gpusimAnim.seek", timeout=30000)
            page.evaluate("() => window.gpusimAnim.seek(0.45 * Number("
                          "document.querySelector('.gpusim-scrub').max))")     # the run under way
            page.wait_for_timeout(500)
            for view, sel in VIEWS.items():
                el = page.locator(sel).first
                if el.count():
                    el.screenshot(path=str(OUT / f"{name}-{view}.png"))
            print(f"{name}: {', '.join(VIEWS)} -> {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
