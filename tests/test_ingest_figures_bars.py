"""Column charts of a 10-K found as figures (``docrag.ingestion.figures``): bars printing their data label inside
them, bars standing further apart than the clustering gap (one row on one baseline), two charts side by side parted
by their axis lines, and a chart's title and legend line; their labels read once where a PDF prints them twice
(``docrag.generation.extractive_chart_labels``). Drawn here after Intel's 2020 10-K; the real pages are read when
the dev set's PDFs are fetched."""

from __future__ import annotations

import pymupdf
import pytest

from docrag.generation.extractive_units import units_of
from docrag.geometry import Box
from docrag.ingestion import figures
from docrag.ingestion.textlayer import PageFrame, extract_lines, text_flags
from docrag.types import BlockKind
from tests.support.real_pdfs import DEV_PDFS, NOT_FETCHED, real_pages

GREY, BLUE = (0.68, 0.68, 0.68), (0.0, 0.29, 0.52)
INTEL = DEV_PDFS / "en_intel_2020_10k.pdf"


def _two_charts(page, *, title: bool = True, axes: bool = True, apart: float = 58.0) -> None:
    """Two three-year column charts side by side, each on its own axis line, bars 43 points wide and 44 apart,
    each bar's label printed inside it, the second chart 58 points after the first."""
    for x0, heights, name in ((60, (108, 107, 109), "Research and Development $B"),
                              (276 + apart, (55, 51, 49), "Marketing, General and Administrative $B")):
        if axes:
            page.draw_line((x0 - 22, 281), (x0 + 237, 281), color=(0.5, 0.5, 0.5), width=0.5)
        for i, (h, colour) in enumerate(zip(heights, (GREY, GREY, BLUE), strict=True)):
            x = x0 + 87 * i
            page.draw_rect(pymupdf.Rect(x, 281 - h, x + 43, 281), color=None, fill=colour)
            page.insert_text((x + 10, 281 - h / 2), f"${h / 8:.1f}", fontsize=8, color=(1, 1, 1))
            page.insert_text((x + 12, 292), str(2018 + i), fontsize=8)
        if title:
            page.insert_text((x0 + 30, 150), name, fontsize=9)


def test_two_charts_without_axis_lines_are_parted_by_the_wider_gap_between_them():
    """The same charts with no axis line under either: the 100-point gap between them, against 44 between their own
    bars, parts the row (``_charts_apart``)."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    _two_charts(page, axes=False, apart=100.0)
    left, right = _figures(page)
    assert left.x1 < right.x0


def test_a_thin_rule_under_a_centred_heading_is_no_figure():
    """A rule drawn as a thin bevelled band (a 10-K's statement footer line, Uber's) under a centred line of text:
    the band is too thin to be a chart, so no title grows it into one."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    shape = page.new_shape()
    for dy in (0.0, 0.4, 0.8, 1.2, 1.6):   # a bevel: a few diagonal slivers making one thin band
        shape.draw_polyline([(18, 642 + dy), (593, 642.3 + dy), (592, 643 + dy), (19, 642.7 + dy), (18, 642 + dy)])
    shape.finish(color=None, fill=(0.6, 0.6, 0.6))
    shape.commit()
    page.insert_text((230, 620), "The accompanying notes are an integral part", fontsize=8)
    assert _figures(page) == []


def _figures(page) -> list[Box]:
    frame = PageFrame.of(page)
    lines = extract_lines(page, page.get_textpage(flags=text_flags()), frame)
    words = [w for line in lines for w in line.words]
    return sorted((b.box for b in figures.detect_figures(page, frame, words, page.get_drawings())),
                  key=lambda b: b.x0)


def test_labelled_bars_far_apart_make_one_figure_per_chart():
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    _two_charts(page)
    left, right = _figures(page)
    assert left.x0 < 60 and left.x1 < right.x0 and right.x1 > 550   # one figure per chart, not one for both
    assert left.y1 >= 290   # with its years
    assert left.y0 <= 145   # and its title (no bar stands that high: the title line centred over it)


def test_a_title_above_a_caption_both_charts_share_is_its_chart_s_title():
    """The titles stand above a caption line spanning both charts (Intel's "(Percentages indicate expenses as a
    percentage of total revenue)"), the second chart's short bars 80 points under its title: each chart still
    grows by its own title, never by the shared caption."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    _two_charts(page, title=False)
    for x0, name in ((60, "Research and Development $B"), (334, "Marketing, General and Administrative $B")):
        page.insert_text((x0 + 30, 140), name, fontsize=9)
    page.insert_text((190, 156), "(Percentages indicate expenses as a percentage of total revenue)", fontsize=8)
    left, right = _figures(page)
    assert left.y0 <= 132 and right.y0 <= 132   # each with its title, 30 and 83 points above its bars
    assert left.x1 < right.x0   # the caption joins neither to the other


def test_a_heat_map_cell_holding_a_figure_is_no_bar():
    """A shaded table cell one text line high holding its figure is not a labelled bar (Banxico's heat map)."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    for i in range(8):
        x = 60 + 60 * i
        page.draw_rect(pymupdf.Rect(x, 300, x + 50, 312), color=None, fill=(0.9, 0.3, 0.3) if i % 2 else GREY)
        page.insert_text((x + 8, 309), f"{-1.5 + i:.2f}%", fontsize=8)
    assert _figures(page) == []


@pytest.mark.skipif(not INTEL.exists(), reason=NOT_FETCHED)
def test_the_real_10k_charts_are_figures_with_their_labels_read_once(tmp_path):
    """Intel's 2020 10-K (real, page 3): the DCG revenue chart had been read as a table with its operating income
    neighbour; it is a figure holding its title and legend, its labels read once per year (the PDF prints each
    twice), and the operating income chart is its own figure."""
    (page,) = real_pages(INTEL, [3], tmp_path)
    charts = sorted((b for b in page.blocks if b.kind is BlockKind.FIGURE), key=lambda b: b.box.x0)
    assert len(charts) == 2 and charts[0].box.x1 < charts[1].box.x0
    assert "DCG Revenue $B" in charts[0].text and "Adjacent" in charts[0].text
    assert not any(b.kind is BlockKind.TABLE and b.box.y0 < 220 for b in page.blocks)
    values = next(u.extra["values"] for u in units_of(page, 1) if u.kind == "figure" and "DCG Revenue" in u.text)
    assert values["2020"] == "$26.1, $3.0, $23.1"


@pytest.mark.skipif(not INTEL.exists(), reason=NOT_FETCHED)
def test_the_real_10k_expense_charts_hold_their_titles(tmp_path):
    """Intel's 2020 10-K (real, page 6): the R&D and MG&A charts stand under their titles with a caption spanning
    both between; the MG&A chart's bars are short, its title 83 points above them. Each figure holds its title."""
    (page,) = real_pages(INTEL, [6], tmp_path)
    charts = sorted((b for b in page.blocks if b.kind is BlockKind.FIGURE), key=lambda b: b.box.x0)
    assert len(charts) == 2
    assert "Research and Development $B" in charts[0].text and "Marketing" not in charts[0].text
    assert "Marketing, General, and Administrative $B" in charts[1].text and "Percentages" not in charts[1].text
