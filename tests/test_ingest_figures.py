"""Vector charts as statistics offices draw them: bars painted as thick strokes ("0 0 1 RG 28 w 0 0 m 0 -22 l S")
inside a framed panel whose title sits on the frame's top edge, and what the ``extractive`` generator reads
from them. The page is drawn here with PyMuPDF after the BLS CPI release of the real dev set (en-b-011,
en-b-012: its Chart 1 had been read as a table of loose labels, its title lost); the numbers on the real set
are in BENCHMARKS.md.
"""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from docrag.corpus import Corpus
from docrag.generation import get_generator
from docrag.ingestion import ingest
from docrag.types import BlockKind

MONTHS = ["Jul'24", "Aug", "Sep", "Oct", "Nov", "Dec", "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul'25"]
VALUES = [0.1, 0.2, 0.2, 0.2, 0.3, 0.4, 0.5, 0.2, -0.1, 0.2, 0.1, 0.3, 0.2]
PANEL = (54, 54, 557, 231)
ZERO_Y, PER_TENTH = 180.0, 16.0   # the axis: y of 0.0 and points per 0.1


def _bar_chart_pdf(path: Path) -> None:
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.draw_rect(pymupdf.Rect(*PANEL), color=(0.5, 0.5, 0.5), width=0.5)
    # the title is set on the panel's top edge: its line straddles the frame; printed twice, offset, to look bold
    for dx in (0.0, 0.3):
        page.insert_text((56 + dx, 60), "Chart 1. One-month percent change in CPI for All Urban Consumers, "
                         "seasonally adjusted", fontsize=9)
    page.insert_text((56, 72), "Percent change", fontsize=8)
    for tick in range(-1, 6):
        y = ZERO_Y - tick * PER_TENTH
        page.insert_text((60, y + 3), f"{tick / 10:.1f}", fontsize=8)
        page.draw_line((80, y), (550, y), color=(0.75, 0.75, 0.75), width=0.5)
    for i, (month, value) in enumerate(zip(MONTHS, VALUES, strict=True)):
        x = 103 + 36 * i
        top = ZERO_Y - value * 10 * PER_TENTH
        page.draw_line((x, ZERO_Y), (x, top), color=(0, 0, 1), width=20)   # a bar drawn as a thick line
        label_y = top - 4 if value >= 0 else top + 11
        page.insert_text((x - 7, label_y), f"{value:.1f}", fontsize=8)
        page.insert_text((x - 9, 222), month, fontsize=8)
    # below the chart: a heading with a thick divider under it, then prose
    page.insert_text((54, 400), "Consumer Price Index Summary", fontsize=12)
    page.draw_line((54, 406), (557, 406), color=(0, 0.2, 0.5), width=4)
    page.insert_text((54, 430), "The all items index rose 0.2 percent in July after rising 0.3 percent in June.",
                     fontsize=10)
    doc.save(path)


@pytest.fixture(scope="module")
def chart_page(tmp_path_factory):
    folder = tmp_path_factory.mktemp("charts")
    _bar_chart_pdf(folder / "cpi.pdf")
    out = tmp_path_factory.mktemp("corpus") / "c"
    ingest([folder / "cpi.pdf"], out=out, show_progress=False)
    corpus = Corpus.open(out)
    return corpus.pages([corpus.documents()[0].doc_id])[0]


def test_bars_drawn_as_thick_strokes_are_a_figure_with_its_title(chart_page):
    figures = [b for b in chart_page.blocks if b.kind is BlockKind.FIGURE]
    assert len(figures) == 1
    assert figures[0].box.iou(chart_page.box_pt(*PANEL)) > 0.9
    # the title straddling the frame is the figure's text, not lost between the figure and the text blocks
    assert "Chart 1. One-month percent change" in figures[0].text
    assert figures[0].text.count("One-month") == 1   # the overprinted copy is not read twice
    assert not [b for b in chart_page.blocks if b.kind is BlockKind.TABLE]   # the labels are no table


def test_a_thick_divider_under_a_heading_is_no_figure(chart_page):
    below = chart_page.box_pt(54, 390, 557, 440)
    assert not any(b.kind is BlockKind.FIGURE and b.box.intersection_area(below) > 0 for b in chart_page.blocks)
    assert any("all items index rose" in b.text for b in chart_page.blocks if b.kind is not BlockKind.FIGURE)


def test_the_largest_bar_is_read_from_the_chart(chart_page):
    ans = get_generator("extractive", embed=False).generate(
        "In Chart 1, which month had the largest one-month percent change, and how large was it?", [chart_page])
    assert "Jan" in ans.answer and "0.5" in ans.answer
    figure = next(b for b in chart_page.blocks if b.kind is BlockKind.FIGURE)
    assert any(box.iou(figure.box) > 0.9 for c in ans.citations for box in c.boxes)


def test_the_bar_of_the_sign_asked_is_read_from_the_chart(chart_page):
    """BLS's Chart 1 (en-b-012): "in which month did the CPI decline" asks for the negative bar, not the months
    the question names as its span."""
    ans = get_generator("extractive", embed=False).generate(
        "In Chart 1, in which month between July 2024 and July 2025 did the CPI decline, and by how much?",
        [chart_page])
    assert ans.answer.startswith("-0.1 — Mar")
