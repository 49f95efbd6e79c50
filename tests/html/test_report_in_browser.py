"""The report in a real browser (headless Chromium through Playwright): it loads without console
errors, the source view's hottest row is the line the counters say, every chart draws, and each
view is saved as a screenshot under tests/artifacts/ (docs/screenshots.py writes docs/img/)."""
from pathlib import Path

import numpy as np
import pytest
from browser import chromium, chromium_path, new_page, wait_for_charts
from kernels import launch_copy

from gpusim.html import compare, write

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"

pytestmark = pytest.mark.skipif(chromium_path() is None, reason="no Chromium found (apt-get install chromium, or "
                                "set GPUSIM_CHROMIUM): the report's browser tests need one")
pytest.importorskip("playwright", reason="the playwright package is not installed (pip install playwright)")


@pytest.fixture(scope="module")
def result():
    return launch_copy(strided=True)


@pytest.fixture(scope="module")
def browser():
    with chromium() as ctx:
        yield ctx


@pytest.fixture(scope="module")
def loaded(result, browser, tmp_path_factory):
    """The report opened in Chromium, its charts drawn."""
    path = tmp_path_factory.mktemp("report") / "report.html"
    write(result, path)
    ARTIFACTS.mkdir(exist_ok=True)
    page = new_page(browser)
    page.goto(path.as_uri())
    assert wait_for_charts(page, 3) == 3
    return page


def test_report_loads_without_console_errors(loaded):
    assert loaded.errors == []
    assert loaded.title().startswith("gpusim: strided_copy")


def test_hottest_row_in_the_dom_is_the_hottest_pc(loaded, result):
    row = loaded.locator('table[data-view="ptx-lines"] tr[data-hot-rank="1"]')
    assert row.count() == 1
    assert int(row.get_attribute("data-pc")) == int(np.argmax(result.per_pc["stall"].sum(axis=1)))
    assert "hot" in row.get_attribute("class")


@pytest.mark.parametrize("chart", ["stalls", "memory", "roofline"])
def test_each_chart_draws_on_a_canvas(loaded, chart):
    fig = loaded.locator(f'[data-chart="{chart}"]')
    fig.scroll_into_view_if_needed()
    box = fig.bounding_box()
    assert box["width"] > 200 and box["height"] > 100
    assert fig.locator("canvas").count() >= 1
    fig.screenshot(path=str(ARTIFACTS / f"report-{chart}.png"))


@pytest.mark.parametrize("view", ["summary", "advice", "ptx-lines", "source-lines"])
def test_each_view_is_shown(loaded, view):
    el = loaded.locator(f'[data-view="{view}"]')
    assert el.count() == 1 and el.is_visible()
    el.screenshot(path=str(ARTIFACTS / f"report-{view}.png"))


def test_compare_page_draws_in_the_browser(result, browser, tmp_path):
    b = launch_copy(strided=False)
    a, bb = compare.Side("strided", result.metrics, result), compare.Side("coalesced", b.metrics, b)
    path = tmp_path / "compare.html"
    path.write_text(compare.render(a, bb, compare.rows(a, bb)))
    page = new_page(browser)
    page.goto(path.as_uri())
    assert wait_for_charts(page, 1) == 1
    assert page.errors == []
    assert page.locator('tr[data-mark="large"]').count() >= 1
    page.screenshot(path=str(ARTIFACTS / "compare.png"), full_page=True)


def test_cta_timeline_draws_when_the_result_has_events(result, browser, tmp_path):
    import types
    cta = np.zeros(8, dtype=[("cta", "i4"), ("sm", "i4"), ("start", "i8"), ("end", "i8")])
    cta["cta"], cta["sm"] = range(8), [0, 1] * 4
    cta["start"], cta["end"] = [0, 0, 300, 320, 600, 640, 900, 950], [290, 310, 590, 630, 890, 940, 1200, 1250]
    r = types.SimpleNamespace(**{**vars(result), "events": types.SimpleNamespace(cta=cta)})
    path = write(r, tmp_path / "timeline.html")
    page = new_page(browser)
    page.goto(path.as_uri())
    assert wait_for_charts(page, 4) == 4
    assert page.errors == []
    fig = page.locator('[data-chart="timeline"]')
    fig.scroll_into_view_if_needed()
    fig.screenshot(path=str(ARTIFACTS / "report-timeline.png"))
