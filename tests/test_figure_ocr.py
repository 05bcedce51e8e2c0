"""Charts drawn as pictures: ingest OCRs an image figure with no text-layer words inside, so its data labels
can be searched, read by the offline generator and grounded (the real dev set's broker notes and slide
decks print their charts as images)."""

from __future__ import annotations

import io

import pytest

from docrag.corpus import Corpus
from docrag.ingestion import ingest
from docrag.ingestion.figure_ocr import langs_for, needs_figure_ocr
from docrag.ingestion.ocr import available_engine
from docrag.types import BlockKind

BARS = [("Q1'23", "$843"), ("Q2'23", "$875"), ("Q3'23", "$1,034"), ("Q4'23", "$1,076")]


def _ocr_engine() -> str:
    try:
        return available_engine()
    except Exception as exc:  # MissingDependencyError: no engine on this machine
        pytest.skip(f"no OCR engine: {exc}")


def _bar_chart_png() -> bytes:
    """A bar chart as a picture: bars, a data label above each bar, a category label below."""
    from PIL import Image, ImageDraw, ImageFont

    img = Image.new("RGB", (1200, 700), "white")
    draw = ImageDraw.Draw(img)
    font = ImageFont.load_default(size=40)
    for i, (cat, value) in enumerate(BARS):
        x = 120 + i * 260
        top = 520 - (i + 2) * 70
        draw.rectangle((x, top, x + 140, 560), fill=(40, 90, 160))
        draw.text((x + 10, top - 60), value, fill="black", font=font)
        draw.text((x + 10, 590), cat, fill="black", font=font)
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()


@pytest.fixture(scope="module")
def chart_corpus(tmp_path_factory):
    import pymupdf

    _ocr_engine()
    root = tmp_path_factory.mktemp("figure-ocr")
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((72, 80), "Quarterly results of the company", fontsize=16)
    page.insert_text((72, 110), "Revenue grew in every quarter of 2023, as the chart below shows.", fontsize=11)
    page.insert_image(pymupdf.Rect(72, 140, 540, 413), stream=_bar_chart_png())
    page.insert_text((72, 440), "Figure 1: Total revenue ($M) by quarter", fontsize=10)
    doc.save(root / "deck.pdf")
    ingest([root / "deck.pdf"], root / "corpus", show_progress=False)
    return Corpus.open(root / "corpus")


def test_image_chart_is_ocrd_into_words_text_and_the_figure(chart_corpus):
    (pid,) = chart_corpus.page_ids()
    page = chart_corpus.page(pid)
    (fig,) = [b for b in page.blocks if b.kind is BlockKind.FIGURE]
    assert fig.meta["source"] == "image" and fig.meta.get("caption", "").startswith("Figure 1")
    labels = [v for _, v in BARS]
    assert sum(v in fig.meta["ocr_text"] for v in labels) >= 3, fig.meta["ocr_text"]
    inside = [w for w in page.words if fig.box.contains(w.box, tol=1.0)]
    assert sum(any(v == w.text for w in inside) for v in labels) >= 3
    assert "1,034" in page.text                      # searchable: BM25 reads the page text
    # the words sit where they are drawn: "Q3'23" below the third bar, its label above it
    q3 = next(w for w in inside if w.text.startswith("Q3"))
    label = next(w for w in inside if w.text == "$1,034")
    assert label.box.y1 < q3.box.y0 and abs(label.box.x0 - q3.box.x0) < 40


def test_the_offline_generator_reads_a_data_label_of_an_image_chart(chart_corpus):
    from docrag.generation import get_generator

    page = chart_corpus.page(chart_corpus.page_ids()[0])
    ans = get_generator("extractive", embed=False).generate("What was total revenue in Q3'23 in the chart?", [page])
    assert ans.answer.startswith("$1,034 — Q3'23"), ans.answer


def test_figures_with_text_inside_and_small_images_are_not_ocrd(chart_corpus):
    page = chart_corpus.page(chart_corpus.page_ids()[0])
    (fig,) = [b for b in page.blocks if b.kind is BlockKind.FIGURE]
    assert not needs_figure_ocr(fig, page.words)     # its OCR'd words are inside it now
    assert needs_figure_ocr(fig, [])
    fig.meta["source"] = "vector"
    assert not needs_figure_ocr(fig, [])             # a vector chart's words are in the text layer


@pytest.mark.parametrize("mode", ["pages", "never"])
def test_ocr_pages_or_never_leave_image_charts_alone(tmp_path, chart_corpus, mode):
    src = chart_corpus.root.parent / "deck.pdf"
    ingest([src], tmp_path / "corpus", ocr=mode, show_progress=False)
    corpus = Corpus.open(tmp_path / "corpus")
    page = corpus.page(corpus.page_ids()[0])
    assert "1,034" not in page.text and "Quarterly results" in page.text
    assert not any("ocr_text" in b.meta for b in page.blocks)


def test_a_pages_figures_are_read_in_the_pages_language():
    assert langs_for("zh", ["en", "ch"]) == ["ch"] and langs_for("en", ["en", "ch"]) == ["en"]
    assert langs_for("", ["en", "ch"]) == ["en"] and langs_for("zh", ["en"]) == ["en"]


def test_figures_are_read_by_rapidocr_else_as_sparse_text(monkeypatch):
    """Tesseract read a CAICT bar chart's bars as letters and two of its six data labels ("35.8" as "25:2");
    RapidOCR, a dependency, read all six, so a figure goes to RapidOCR even where Tesseract reads the pages.
    Without RapidOCR, Tesseract reads it as sparse text (mode 11): its page mode (3) left most of a real deck's
    bar labels out ($1,034 among them)."""
    from PIL import Image

    from docrag.ingestion import ocr

    if _ocr_engine() != "tesseract":
        pytest.skip("the choice between engines is made where Tesseract is installed")
    import pytesseract

    seen: list[str] = []
    real = pytesseract.image_to_data

    def spy(image, **kw):
        seen.append(kw.get("config", ""))
        return real(image, **kw)

    monkeypatch.setattr(pytesseract, "image_to_data", spy)
    blank = Image.new("RGB", (200, 100), "white")
    if ocr._rapid_installed():
        assert ocr.ocr_image(blank, ["en"], sparse=True).engine == "rapidocr"
    assert ocr.ocr_image(blank, ["en"]).engine == "tesseract"
    monkeypatch.setattr(ocr, "_rapid_installed", lambda: False)
    assert ocr.ocr_image(blank, ["en"], sparse=True).engine == "tesseract"
    assert seen == ["--psm 3", "--psm 11"]


def test_a_picture_of_words_is_no_chart_to_read(tmp_path):
    """Broker notes print their logo ("国泰君安证 GUOTAI JUNAN SECURITIES") and analyst box as pictures; OCR'd,
    they were read as charts and answered six seen questions. A picture whose words hold fewer than three
    numbers (years aside), with no figure caption, gives no chart unit; a chart's ticks and labels do."""
    from docrag.generation.extractive_units import units_of
    from tests.support.synthetic_pages import Region, make_page

    grey = (200, 200, 200)

    def figure_units(ocr_text: str, caption: str = "") -> list:
        regions = [Region((72, 100, 300, 220), grey, "", BlockKind.FIGURE)]
        if caption:
            regions.append(Region((72, 224, 300, 236), grey, caption, BlockKind.CAPTION))
        page = make_page(tmp_path, regions, doc_id="logo", page_no=1)
        page.blocks[0].meta["ocr_text"] = ocr_text
        return [u for u in units_of(page, 1) if u.kind == "figure"]

    assert figure_units("国泰君安证 GUOTAI JUNAN SECURITIES") == []
    assert figure_units("证券研究报告 分析师 登记编号: S1220522030005 2023") == []
    assert len(figure_units("Q1'23 Q2'23 Q3'23 $843 $875 $1,034")) == 1
    assert len(figure_units("Organic revenue growth", caption="Figure 3: Organic revenue growth")) == 1


def test_english_words_rapidocr_ran_together_are_apart_again():
    """RapidOCR read the RBI's fan-chart legend as "50percentCI 70percentCI 90percentCI" and its title as
    "Chart1:QuarterlyProjection of RealGDPGrowth(y-o-y)": no word of "which confidence intervals" matched. Periods,
    names and Chinese text keep their form."""
    from docrag.ingestion.ocr import unglue

    assert unglue("Chart1:QuarterlyProjection of") == "Chart 1: Quarterly Projection of"
    assert unglue("RealGDPGrowth(y-o-y)") == "Real GDP Growth(y-o-y)"
    assert unglue("50percentCI 70percentCI") == "50 percent CI 70 percent CI"
    for kept in ("Q2:2021-22", "FY2025 H200 Q4'23 10x $1,034M 3.5bn", "iPhone eBay JPMorgan",
                 "我国数字经济规模（万亿元）"):
        assert unglue(kept) == kept
