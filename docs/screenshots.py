"""Write the README's pictures of the HTML report (docs/img/*.png) from a fresh run, in headless Chromium.

    python docs/screenshots.py          # sgemm_tiled and transpose_naive at their small sizes, h100

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
         "source": '[data-view="source-lines"]'}


def run(name: str):
    mod = all_programs()[name]
    results = []

    def launcher(kernel, grid, block, *args):
        results.append(gpusim.launch(kernel, grid, block, *args, gpu="h100"))
        return results[-1]
    mod.run(launcher, mod.inputs(mod.SMALL_SIZE))
    return results


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, chromium(width=1300) as ctx:
        for name in ("transpose_naive", "sgemm_tiled"):
            path = write(run(name), Path(tmp) / f"{name}.html")
            page = new_page(ctx)
            page.goto(path.as_uri())
            wait_for_charts(page, 3)
            for view, sel in VIEWS.items():
                el = page.locator(sel).first
                if el.count():
                    el.screenshot(path=str(OUT / f"{name}-{view}.png"))
            print(f"{name}: {', '.join(VIEWS)} -> {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
