"""Snapping predicted boxes to layout blocks."""

from __future__ import annotations

from docrag.generation.snap import snap_box, snap_citations
from docrag.geometry import Box
from docrag.types import Block, BlockKind, Citation, Page


def _page():
    page = Page(doc_id="d", page_no=1, width_pt=600.0, height_pt=800.0)
    page.blocks = [Block(BlockKind.TEXT, page.box_pt(50, 50, 550, 150), "para", 0),
                   Block(BlockKind.TABLE, page.box_pt(50, 200, 550, 400), "table", 1),
                   Block(BlockKind.FIGURE, page.box_pt(50, 450, 300, 700), "chart", 2)]
    return page


def test_loose_box_snaps_to_the_blocks_it_covers():
    page = _page()
    got = snap_box(page.box_pt(40, 40, 560, 410), page.blocks)
    assert [b.coords for b in got] == [(50, 50, 550, 150), (50, 200, 550, 400)]


def test_partial_box_snaps_to_the_best_iou_block():
    page = _page()
    (got,) = snap_box(page.box_pt(60, 220, 400, 380), page.blocks)
    assert got.coords == (50, 200, 550, 400)


def test_box_far_from_every_block_is_kept():
    page = _page()
    box = page.box_pt(400, 600, 590, 790)
    assert snap_box(box, page.blocks) == [box]
    assert snap_box(box, []) == [box]


def test_snap_citations_marks_and_deduplicates():
    page = _page()
    cit = Citation("d:1", [page.box_pt(45, 45, 555, 155), page.box_pt(48, 48, 552, 152)], image_index=1)
    (out,) = snap_citations([cit], {"d:1": page})
    assert out.snapped and [b.coords for b in out.boxes] == [(50, 50, 550, 150)]
    assert not cit.snapped and len(cit.boxes) == 2       # the original is untouched
    other = Citation("x:2", [Box.points(1, 1, 2, 2, 600, 800)])
    assert snap_citations([other], {"d:1": page}) == [other]
