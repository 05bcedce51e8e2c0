"""Values read off a vector chart's drawing (``docrag.ingestion.chart_marks``) and the answers quoting them
(rule 118 ``drawn_read``). The pages are drawn here with PyMuPDF after the BLS CPI release's Chart 2 (two
lines with markers, a legend under the plot, no data labels) and its Chart 1 (bars as thick strokes, one
negative); the real release is read in the last test when the dev set's PDFs are fetched."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from docrag.corpus import Corpus
from docrag.generation import get_generator
from docrag.geometry import Box
from docrag.ingestion import ingest
from docrag.ingestion.chart_marks import read_series, value_axis
from docrag.types import BlockKind, Word

MONTHS = ["Jul'24", "Aug", "Sep", "Oct", "Nov", "Dec", "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul'25"]
ALL_ITEMS = [2.9, 2.5, 2.4, 2.6, 2.7, 2.9, 3.0, 2.8, 2.4, 2.3, 2.4, 2.7, 2.7]
CORE = [3.2, 3.2, 3.3, 3.3, 3.3, 3.2, 3.3, 3.1, 2.8, 2.8, 2.8, 2.9, 3.1]
BOTTOM_Y, PER_UNIT = 480.0, 150.0     # y of 2.2 and points per 1.0 on the value axis
BLUE, PURPLE = (0.0, 0.0, 1.0), (0.6, 0.2, 0.4)
REAL_BLS = Path(__file__).resolve().parents[1] / "benchmarks" / "devset" / "pdfs" / "en_bls_cpi_release_2025-07.pdf"


def _y(value: float) -> float:
    return BOTTOM_Y - (value - 2.2) * PER_UNIT


def _line_chart(page, *, right_axis: bool = False) -> None:
    page.draw_rect(pymupdf.Rect(54, 274, 557, 518), color=(0.5, 0.5, 0.5), width=0.5)
    page.insert_text((56, 283), "Chart 2. 12-month percent change in CPI for All Urban Consumers (CPI-U), "
                     "not seasonally adjusted", fontsize=8)
    for i in range(7):
        value = 2.2 + 0.2 * i
        page.insert_text((58, _y(value) + 3), f"{value:.1f}", fontsize=8)
        if right_axis:   # a second axis on the right, mapped differently
            page.insert_text((540, _y(value) + 3), f"{10 * i}", fontsize=8)
    for i, month in enumerate(MONTHS):
        page.insert_text((92 + 36 * i, 492), month, fontsize=8)
    for series, colour in ((ALL_ITEMS, BLUE), (CORE, PURPLE)):
        points = [pymupdf.Point(100 + 36 * i, _y(v)) for i, v in enumerate(series)]
        page.draw_polyline(points, color=colour, width=0.7)
        for p in points:   # markers on the line, as BLS draws them
            page.draw_circle(p, 1.5, color=colour, fill=colour)
    # the legend under the plot: a short line with a marker, then the series' name
    for x, colour, name in ((160, BLUE, "All items"), (300, PURPLE, "All items less food and energy")):
        page.draw_line((x, 510), (x + 24, 510), color=colour, width=0.7)
        page.draw_circle((x + 12, 510), 1.5, color=colour, fill=colour)
        page.insert_text((x + 36, 513), name, fontsize=8)


def _words(page) -> list[Word]:
    w, h = page.rect.width, page.rect.height
    return [Word(t[4], Box.points(t[0], t[1], t[2], t[3], w, h)) for t in page.get_text("words")]


@pytest.fixture(scope="module")
def line_page(tmp_path_factory):
    folder = tmp_path_factory.mktemp("linechart")
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    _line_chart(page)
    page.insert_text((54, 680), "The all items index rose 2.7 percent for the 12 months ending July.", fontsize=10)
    doc.save(folder / "cpi2.pdf")
    out = tmp_path_factory.mktemp("corpus") / "c"
    ingest([folder / "cpi2.pdf"], out=out, show_progress=False)
    corpus = Corpus.open(out)
    return corpus.pages([corpus.documents()[0].doc_id])[0]


def test_a_line_charts_values_are_read_through_its_value_axis(line_page):
    figure = next(b for b in line_page.blocks if b.kind is BlockKind.FIGURE)
    series = {s["name"]: s for s in figure.meta["series"]}
    assert set(series) == {"All items", "All items less food and energy"}   # named by the legend
    for name, want in (("All items", ALL_ITEMS), ("All items less food and energy", CORE)):
        got = series[name]["values"]
        assert [c for c, _ in got] == MONTHS
        assert [v for _, v in got] == pytest.approx(want, abs=0.011)
        assert series[name]["kind"] == "line"
    assert series["All items"]["min"] == ["Apr", pytest.approx(2.3, abs=0.011)]
    assert series["All items less food and energy"]["max"][1] == pytest.approx(3.3, abs=0.011)


def test_the_low_point_of_a_named_line_is_answered_as_read_off_the_drawing(line_page):
    gen = get_generator("extractive", embed=False)
    ans = gen.generate("In Chart 2, approximately what was the low point of the 12-month percent change in "
                       "all items CPI-U, and in which month?", [line_page])
    assert "2.30 — Apr" in ans.answer and "read off the drawing" in ans.answer
    assert "All items less food" not in ans.answer.split(" (Chart 2")[0]   # the series named, not its sibling


def test_which_series_is_lower_at_the_end_compares_the_series():
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    _line_chart(page)
    series = read_series(page.get_drawings(), _words(page), Box.points(54, 274, 557, 518, 612, 792))
    from docrag.generation.extractive_chart_drawn import drawn_answer
    from docrag.generation.extractive_units import tokenize

    question = "Which of the two series ended the period with the lower value, and about what was it?"
    idf = dict.fromkeys(tokenize(question), 1.0)
    assert drawn_answer(series, question + " lowest", idf).startswith("All items — about 2.70 at Jul'25")


def test_two_value_axes_are_not_read():
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    _line_chart(page, right_axis=True)
    words = _words(page)
    assert value_axis([w for w in words if w.box.x0 < 100]) is not None
    assert read_series(page.get_drawings(), words, Box.points(54, 274, 557, 518, 612, 792)) == []


def test_bars_stand_on_the_baseline_and_stacked_bars_are_not_read():
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    for value in (0, 10, 20, 30):
        page.insert_text((60, 400 - 10 * value + 3), str(value), fontsize=8)
    heights = (12, 25, -8, 18)
    for i, (label, h) in enumerate(zip(("2019", "2020", "2021", "2022"), heights, strict=True)):
        x = 110 + 60 * i
        rect = pymupdf.Rect(x, 400 - 10 * max(h, 0), x + 30, 400 - 10 * min(h, 0))
        page.draw_rect(rect, color=None, fill=(0.8, 0.1, 0.1))
        page.insert_text((x + 4, 420), label, fontsize=8)
    box = Box.points(50, 80, 400, 500, 612, 792)
    (bars,) = read_series(page.get_drawings(), _words(page), box)
    assert bars["kind"] == "bar"
    assert bars["values"] == [["2019", 12.0], ["2020", 25.0], ["2021", -8.0], ["2022", 18.0]]
    page.draw_rect(pymupdf.Rect(110, 280 - 50, 140, 280), color=None, fill=(0.1, 0.1, 0.8))   # stacked on 2019
    assert read_series(page.get_drawings(), _words(page), box) == []


@pytest.mark.skipif(not REAL_BLS.is_file(), reason="dev-set PDFs not fetched (benchmarks/devset/SOURCES.md)")
def test_the_real_bls_release_charts_read_as_published():
    page = pymupdf.open(REAL_BLS)[1]
    words, drawings = _words(page), page.get_drawings()
    (bars,) = read_series(drawings, words, Box.points(54, 54, 557.25, 231.46, 612, 792))
    assert dict(bars["values"])["Mar"] == pytest.approx(-0.1, abs=0.011)   # the only negative bar
    lines = {s["name"]: s for s in read_series(drawings, words, Box.points(54, 273.9, 557.27, 517.97, 612, 792))}
    assert lines["All items"]["min"] == ["Apr", pytest.approx(2.3, abs=0.011)]   # BLS: 2.3 percent in April
    assert dict(lines["All items"]["values"])["Jan"] == pytest.approx(3.0, abs=0.011)
