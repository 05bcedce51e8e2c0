"""The viewer driven in a real headless Chromium (Playwright pointed at the Debian /usr/bin/chromium).

Each test starts the Gradio app on a free 127.0.0.1 port, drives the page, takes a screenshot into
its temp dir and checks that the page made no request to any host other than the local server.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlparse

import pytest

from tests.support.sysdeps import need
from tests.support.viewer_data import make_corpus, make_pdf, make_run

pytestmark = pytest.mark.browser

CHROMIUM = Path(os.environ.get("DOCRAG_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium")
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
                  "--disable-dev-shm-usage"]
TIMEOUT_MS = 60_000


@pytest.fixture(scope="module")
def browser():
    if not CHROMIUM.exists():
        need("chromium")   # skips naming the package (or set DOCRAG_CHROMIUM to a Chromium binary)
        pytest.skip(f"DOCRAG_CHROMIUM={CHROMIUM} does not exist")
    sync_api = pytest.importorskip("playwright.sync_api", reason="the 'playwright' package is not installed")
    with sync_api.sync_playwright() as p:
        br = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_FLAGS)
        yield br
        br.close()


class Served:
    """A started viewer and a browser page on it that records every request it makes."""

    def __init__(self, app, url: str, page) -> None:
        self.app, self.url, self.page = app, url, page
        self.requests: list[str] = []
        page.on("request", lambda req: self.requests.append(req.url))

    def outside_requests(self) -> list[str]:
        local = urlparse(self.url).netloc
        return [u for u in self.requests
                if urlparse(u).scheme in ("http", "https", "ws", "wss") and urlparse(u).netloc != local]


@pytest.fixture
def serve(browser) -> Iterator:
    from docrag.apps.viewer import serve as start

    started: list[Served] = []

    def _serve(app) -> Served:
        url = start(app, host="127.0.0.1", port=0, block=False)
        page = browser.new_page(viewport={"width": 1280, "height": 1000})
        page.set_default_timeout(TIMEOUT_MS)
        served = Served(app, url, page)
        started.append(served)
        page.goto(url)
        page.wait_for_selector("#question textarea")
        return served

    yield _serve
    for s in started:
        s.page.close()
        s.app.close()


def _images_loaded(page, selector: str, at_least: int) -> int:
    """Wait until ``selector`` shows at least ``at_least`` images, all decoded; returns their count.

    Gradio galleries load lazily and re-render when their value changes, so the wait itself scrolls
    every image still loading into view (an image scrolled to before a re-render would never load)."""
    page.wait_for_function(
        """([sel, n]) => {
            const imgs = [...document.querySelectorAll(sel + ' img')];
            const pending = imgs.filter(i => !(i.complete && i.naturalWidth > 0));
            pending.forEach(i => i.scrollIntoView({block: 'center'}));
            return imgs.length >= n && pending.length === 0;
        }""", arg=[selector, at_least], polling=250)
    return page.locator(f"{selector} img").count()


def _textarea_value(page, elem_id: str) -> str:
    return page.eval_on_selector(f"#{elem_id} textarea", "el => el.value")


def test_ask_on_dev_corpus_draws_cited_boxes(serve, synthetic_corpus, tmp_path: Path) -> None:
    """Real pipeline (bm25 + extractive) on the ingested synthetic corpus: answer, citations, boxed pages."""
    from docrag.apps.viewer import build_app

    # the index goes to tmp_path: the session's synthetic corpus is shared and must stay unchanged
    app = build_app(synthetic_corpus, retriever="bm25", generator="extractive", index_dir=tmp_path / "indexes",
                    allow_upload=False)
    s = serve(app)
    page = s.page
    page.fill("#question textarea", "What share of Meridian households reported a financial loss caused by the flood?")
    page.click("#ask")
    # the first question builds the bm25 index and loads the extractive generator's embedder
    page.wait_for_function("document.querySelector('#answer textarea').value.length > 0",
                           timeout=3 * TIMEOUT_MS)
    page.wait_for_selector("#cited-pages img")
    answer = _textarea_value(page, "answer")
    assert answer.strip()
    citations = page.inner_text("#citations")
    assert ".pdf" in citations, citations
    assert _images_loaded(page, "#cited-pages", 1) >= 1
    assert _images_loaded(page, "#crops", 1) >= 1
    assert "bm25" in page.inner_text("#ask-status")
    hits = page.inner_text("#hits")
    assert "meridian_household_survey.pdf" in hits
    page.screenshot(path=str(tmp_path / "ask.png"), full_page=True)
    assert (tmp_path / "ask.png").stat().st_size > 10_000
    # a second question reuses the cached pipeline
    viewer = app.docrag_viewer
    assert len(viewer.pipelines) == 1
    page.fill("#question textarea", "How many data sets were listed on the civic data portal?")
    page.click("#ask")
    page.wait_for_function(f"document.querySelector('#answer textarea').value !== {answer!r}")
    assert len(viewer.pipelines) == 1
    assert not s.outside_requests(), s.outside_requests()


FOOTER = (72.0, 738.0, 420.0, 772.0)   # a box at the very bottom of a 612 x 792 pt page


class _FooterGenerator:
    """Cites a footer box on each of the (up to three) pages it is given."""

    name = "footer"

    def generate(self, question, pages):
        from docrag.types import Answer, Citation

        cites = [Citation(p.page_id, [p.box_pt(*FOOTER)], i) for i, p in enumerate(pages[:3], start=1)]
        return Answer(question=question, answer="See the footers.", citations=cites, generator=self.name)


def _red_rows(png: bytes):
    import io

    import numpy as np
    from PIL import Image

    img = np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)
    red = (img[..., 0] > 170) & (img[..., 1] < 110) & (img[..., 2] < 110)
    return np.nonzero(red.sum(axis=1) >= 3)[0] / img.shape[0]


def _fully_shown(page, selector: str) -> list[dict]:
    """For each image of a gallery: its rectangle and the gallery's, as the browser lays them out."""
    return page.eval_on_selector_all(f"{selector} img", """imgs => imgs.map(i => {
        const r = i.getBoundingClientRect(), g = i.closest('.grid-wrap').getBoundingClientRect();
        return {top: r.top, bottom: r.bottom, gtop: g.top, gbottom: g.bottom, h: r.height, w: r.width,
                nw: i.naturalWidth, nh: i.naturalHeight}; })""")


def test_boxes_at_the_bottom_of_a_page_are_visible_on_every_cited_page(serve, tmp_path: Path) -> None:
    """Three cited pages with a box in the footer: every page is shown whole, the footer box is inside
    the visible image (screenshot of each page as laid out), nothing hides in an inner scroll."""
    from docrag.apps.viewer import build_app
    from docrag.pipeline import RAG

    pages = {"alpha": ["Revenue grew to 42 million dollars in 2011."], "beta": ["Revenue fell in 2010."],
             "gamma": ["Revenue of the group in 2009."]}
    corpus = make_corpus(tmp_path / "corpus", pages)
    factory = lambda c, r, g: RAG(c, retriever="bm25", generator=_FooterGenerator(),  # noqa: E731
                                  index_dir=tmp_path / "idx", show_progress=False)
    s = serve(build_app(corpus, rag_factory=factory, judge="none", allow_upload=False))
    page = s.page
    page.fill("#question textarea", "revenue")
    page.click("#ask")
    assert _images_loaded(page, "#cited-pages", 3) == 3, "all three cited pages are reachable"
    for i, r in enumerate(_fully_shown(page, "#cited-pages")):
        assert r["bottom"] <= r["gbottom"] + 1 and r["top"] >= r["gtop"] - 1, ("clipped by the gallery", i, r)
        assert abs(r["h"] / r["w"] - r["nh"] / r["nw"]) < 0.02, ("whole page, aspect kept", i, r)
        shot = page.locator("#cited-pages img").nth(i).screenshot()
        rows = _red_rows(shot)
        assert len(rows) and rows.max() > 0.9, f"page {i + 1}: the footer box is not in the visible image"
    page.screenshot(path=str(tmp_path / "footer.png"), full_page=True)
    assert not s.outside_requests(), s.outside_requests()


def test_runs_tab_shows_whole_pages_and_fitting_headers(serve, tmp_path: Path) -> None:
    from docrag.apps.viewer import build_app

    corpus = make_corpus(tmp_path / "corpus")
    run_dir = make_run(tmp_path / "run", corpus)
    s = serve(build_app(corpus, run_dir, allow_upload=False))
    page = s.page
    page.get_by_role("tab", name="Runs").click()
    page.wait_for_selector("#run-pages img")
    _images_loaded(page, "#run-pages", 1)
    for r in _fully_shown(page, "#run-pages"):
        assert r["bottom"] <= r["gbottom"] + 1, r
        assert abs(r["h"] / r["w"] - r["nh"] / r["nw"]) < 0.02, r
    # headers wrap between words only: every header is at least as wide as its longest word
    widths = page.eval_on_selector_all("#run-table th", """ths => ths.map(t => {
        const c = document.createElement('canvas').getContext('2d'), el = t.querySelector('span') || t;
        c.font = getComputedStyle(el).font;
        const words = t.innerText.split(/\\s+/).filter(w => w);
        return [t.innerText, el.getBoundingClientRect().width, Math.max(...words.map(w => c.measureText(w).width))];
    })""")
    assert widths and all(w + 1 >= longest for _, w, longest in widths), widths
    assert "cited gold page" in page.inner_text("#run-table")
    assert "cited a gold page" in page.inner_text("#run-detail")


def _pick_option(page, elem_id: str, option: str) -> None:
    page.click(f"#{elem_id} input")
    page.get_by_role("option", name=option, exact=True).click()


def test_runs_tab_filters_and_shows_gold_and_predicted_boxes(serve, tmp_path: Path) -> None:
    """A run written by the real evaluation runner: table, filters, detail with both box colours."""
    from docrag.apps.viewer import build_app

    corpus = make_corpus(tmp_path / "corpus")
    run_dir = make_run(tmp_path / "run", corpus)
    s = serve(build_app(corpus, run_dir, allow_upload=False))
    page = s.page
    page.get_by_role("tab", name="Runs").click()
    page.wait_for_selector("#run-pages img")
    table = page.inner_text("#run-table")
    assert all(q in table for q in ("q1", "q2", "q3")), table
    assert "q1" in page.inner_text("#run-detail")
    assert "grounding" in page.inner_text("#run-summary")
    # a click on a row and a pick in the question dropdown both open that question
    page.locator("#run-table").get_by_text("How many arrests for fraud").locator("visible=true").first.click()
    page.wait_for_function("document.querySelector('#run-detail').innerText.includes('q2 ·')")
    _pick_option(page, "run-question", "q1")
    page.wait_for_function("document.querySelector('#run-detail').innerText.includes('42 million dollars')")
    # category "table" keeps q2 and q3; "retrieval miss = yes" then keeps q3 only
    _pick_option(page, "filter-category", "table")
    page.wait_for_function("!document.querySelector('#run-table').innerText.includes('q1')")
    assert "q2" in page.inner_text("#run-table")
    _pick_option(page, "filter-miss", "yes")
    page.wait_for_function("!document.querySelector('#run-table').innerText.includes('q2')")
    assert "q3" in page.inner_text("#run-table")
    page.wait_for_function("document.querySelector('#run-detail').innerText.includes('1,200 arrests')")
    assert "retrieval_miss" in page.inner_text("#run-detail")
    assert _images_loaded(page, "#run-pages", 2) == 2   # the gold page + the wrongly cited page
    assert _images_loaded(page, "#run-crops", 2) == 2   # one cited crop, one gold crop
    assert "irrelevant" in page.inner_text("#run-verdicts") or "block" in page.inner_text("#run-verdicts")
    assert "Revenue grew" in _textarea_value(page, "run-raw")
    page.screenshot(path=str(tmp_path / "runs.png"), full_page=True)
    assert not s.outside_requests(), s.outside_requests()


def test_upload_adds_good_pdf_and_rejects_bad_file(serve, tmp_path: Path) -> None:
    from docrag.apps.viewer import build_app
    from docrag.corpus import Corpus

    corpus = make_corpus(tmp_path / "corpus")
    before = sorted(corpus.doc_ids())
    good = make_pdf(tmp_path / "quarterly report (final).pdf")
    bad = tmp_path / "broken.pdf"
    bad.write_bytes(b"this is not a pdf at all")
    s = serve(build_app(corpus, upload_dir=tmp_path / "uploads"))
    page = s.page
    page.get_by_text("Add PDFs to the corpus").click()
    # The accordion mounts its children when it opens: give files to the mounted input, not to one
    # that is about to be replaced (seen once under load: the upload never registered).
    page.wait_for_selector("#upload-button", state="visible")
    page.wait_for_selector("#upload", state="visible")

    page.set_input_files("#upload input[type=file]", [str(bad)])
    page.wait_for_selector("#upload :text('broken.pdf')")
    page.click("#upload-button")
    page.wait_for_function("document.querySelector('#upload-status textarea').value.includes('rejected')")
    assert "not a PDF" in _textarea_value(page, "upload-status")
    assert sorted(Corpus.open(corpus.root).doc_ids()) == before

    page.set_input_files("#upload input[type=file]", [str(good)])
    page.wait_for_selector("#upload :text('quarterly')")
    page.click("#upload-button")
    page.wait_for_function("document.querySelector('#upload-status textarea').value.includes('added')")
    assert "quarterly_report_final.pdf" in _textarea_value(page, "upload-status")
    page.wait_for_function("document.querySelector('#corpus-info').innerText.includes('3 document')")
    after = Corpus.open(corpus.root)
    assert len(after.doc_ids()) == 3 and set(before) < set(after.doc_ids())
    assert (tmp_path / "uploads" / "quarterly_report_final.pdf").exists()
    assert not (tmp_path / "uploads" / "broken.pdf").exists()
    page.screenshot(path=str(tmp_path / "upload.png"), full_page=True)
    assert not s.outside_requests(), s.outside_requests()
