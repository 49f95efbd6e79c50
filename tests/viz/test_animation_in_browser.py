"""The animated playback in a real browser (headless Chromium through Playwright): it loads without
console errors, advances, pauses, keeps >= 30 frames/s on a full H100 run, and clicking an SM lists
its CTAs. Screenshots go to tests/artifacts/."""

import shutil
import tempfile
from pathlib import Path

import pytest

import gpusim
from gpusim.presets import TINY
from gpusim.viz import animate
from programs import reduce_shared, vecadd

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def _browser_path():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        p = shutil.which(name)
        if p:
            return p
    return None


@pytest.fixture(scope="module")
def browser():
    path = _browser_path()
    if path is None:
        pytest.skip("no Chromium found (apt-get install chromium): the browser tests need one")
    sync_api = pytest.importorskip("playwright.sync_api", reason="pip install playwright")
    with sync_api.sync_playwright() as p, tempfile.TemporaryDirectory() as profile:
        ctx = p.chromium.launch_persistent_context(profile, executable_path=path, args=ARGS, headless=True,
                                                   viewport={"width": 1400, "height": 1000})
        yield ctx
        ctx.close()


def _record(mod, size, gpu):
    inp = mod.inputs(size)
    out = []
    mod.run(lambda k, g, b, *a: out.append(gpusim.launch(k, g, b, *a, gpu=gpu, events=True)) or out[-1], inp)
    return out[0]


def _open(browser, result, tmp_path, name):
    html = tmp_path / f"{name}.html"
    animate.write(result, html)
    page = browser.new_page()
    errors = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(html.as_uri())
    page.wait_for_function("window.gpusimAnim !== undefined", timeout=20000)
    return page, errors, html


def test_animation_plays_pauses_and_shows_an_sms_ctas(browser, tmp_path):
    r = _record(reduce_shared, 1 << 14, TINY)
    page, errors, _ = _open(browser, r, tmp_path, "tiny")
    assert page.evaluate("gpusimAnim.playing") is False
    page.evaluate("gpusimAnim.play()")
    page.wait_for_timeout(1500)
    t1 = page.evaluate("gpusimAnim.t")
    assert t1 > 0 and page.evaluate("gpusimAnim.frame") > 0
    page.evaluate("gpusimAnim.pause()")
    t2 = page.evaluate("gpusimAnim.t")
    page.wait_for_timeout(500)
    assert page.evaluate("gpusimAnim.t") == t2 and page.evaluate("gpusimAnim.playing") is False
    box = page.evaluate("gpusimAnim.smBox(1)")
    page.mouse.click(box["x"] + box["w"] / 2, box["y"] + box["cell"] / 2)     # the SM's CTA row, above its warps
    info = page.inner_text(".gpusim-info")
    ran = [c for c in r.events.cta if c["sm"] == 1]
    assert info.startswith("SM 1") and f"CTA {ran[0]['cta']} " in info
    assert sum(line.startswith("CTA ") for line in info.splitlines()) == len(ran)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "animation_tiny.png"))
    assert errors == []


def test_full_h100_run_animates_at_30_fps_or_more(browser, tmp_path):
    r = _record(vecadd, vecadd.DEFAULT_SIZE, "h100")
    page, errors, html = _open(browser, r, tmp_path, "h100")
    page.evaluate("gpusimAnim.play()")
    page.wait_for_timeout(1000)
    f0 = page.evaluate("gpusimAnim.rendered")
    page.wait_for_timeout(3000)
    fps = (page.evaluate("gpusimAnim.rendered") - f0) / 3.0
    print(f"h100 vecadd {vecadd.DEFAULT_SIZE}: {fps:.1f} frames/s drawn, page {html.stat().st_size / 1e6:.2f} MB, "
          f"{r.events.n_samples} samples, {len(r.events.cta)} CTAs, {len(r.events.requests)} requests")
    ARTIFACTS.mkdir(exist_ok=True)
    page.evaluate("gpusimAnim.pause(); gpusimAnim.seek(gpusimAnim.cycles / 2)")
    page.screenshot(path=str(ARTIFACTS / "animation_h100.png"))
    assert fps >= 30
    assert errors == []
