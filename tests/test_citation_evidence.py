"""Crops, red-box overlays and saved evidence land on the right pixels (synthetic pages, and the
ingested pages of the synthetic corpus checked against an independent PyMuPDF render)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from docrag.citation import Mode, crop_image, evidence_images, overlay_image, pixel_rect, save_evidence
from docrag.citation.evidence import citation_units, line_width
from docrag.geometry import Box
from docrag.types import Answer, Citation
from tests.support.citation_pages import synthetic_page


def test_crop_of_a_point_box_is_the_scaled_pixel_region(tmp_path):
    page = synthetic_page(tmp_path, width_pt=612, height_pt=792, dpi=144)   # 1224 x 1584 px, 2 px per pt
    box = Box.points(100.25, 50, 200, 75.5, 612, 792)
    assert pixel_rect(page, box) == (200, 100, 400, 151)
    arr = np.asarray(crop_image(page, box))
    assert arr.shape == (51, 200, 3)
    # the synthetic image encodes x in red and y in green: the crop starts at x=200, y=100
    assert arr[0, 0, 0] == 200 % 256 and arr[0, 0, 1] == 100
    assert arr[-1, -1, 0] == 399 % 256 and arr[-1, -1, 1] == 150


def test_boxes_in_other_spaces_are_converted_through_geometry(tmp_path):
    page = synthetic_page(tmp_path, width_pt=612, height_pt=792, dpi=72)
    norm = Box.norm(0.5, 0.25, 0.75, 0.5)
    assert pixel_rect(page, norm) == (306, 198, 459, 396)
    other_render = Box.pixels(612, 396, 918, 792, 1224, 1584)   # pixels of a 2x rendering
    assert pixel_rect(page, other_render) == (306, 198, 459, 396)


def test_overlay_draws_red_outside_the_box_and_keeps_the_rest(tmp_path):
    page = synthetic_page(tmp_path)
    box = Box.points(100, 100, 200, 150, 612, 792)
    left, top, right, bottom = pixel_rect(page, box)
    orig = np.asarray(page.load_image())
    out = np.asarray(overlay_image(page, [box]))
    lw = line_width(page)
    assert np.array_equal(out[top:bottom, left:right], orig[top:bottom, left:right])   # content untouched
    mid_y, mid_x = (top + bottom) // 2, (left + right) // 2
    for y, x in [(mid_y, left - 1), (mid_y, left - lw), (mid_y, right), (mid_y, right + lw - 1),
                 (top - 1, mid_x), (bottom, mid_x), (top - lw, left - lw)]:
        assert tuple(out[y, x]) == (255, 0, 0), (y, x)
    assert tuple(out[mid_y, left - lw - 1]) == tuple(orig[mid_y, left - lw - 1])
    changed = np.any(out != orig, axis=2).sum()
    assert changed == (right - left + 2 * lw) * (bottom - top + 2 * lw) - (right - left) * (bottom - top)


def test_box_mode_shows_one_overlay_per_page_and_crop_mode_one_crop_per_box(tmp_path):
    p1, p2 = synthetic_page(tmp_path, page_no=1), synthetic_page(tmp_path, page_no=2)
    b = [Box.points(10, 10, 50, 50, 612, 792), Box.points(60, 60, 90, 90, 612, 792)]
    ans = Answer("q", "a", citations=[Citation(p1.page_id, b), Citation(p2.page_id, b[:1])])
    units = citation_units(ans, [p1, p2], "block").units
    assert len(units) == 3
    assert [len(e.boxes) for e in evidence_images(units, Mode.BOX)] == [2, 1]
    assert len(evidence_images(units, Mode.CROP)) == 3
    hashes = {e.content_hash() for e in evidence_images(units, Mode.CROP)}
    assert len(hashes) == 3   # different pixels, different hashes


# -- ingested pages-------------------------------------------------------------------------------

def _render_like(page, pdf):
    """The page rendered independently with PyMuPDF at the page record's own pixel size."""
    import pymupdf

    with pymupdf.open(pdf) as doc:
        pg = doc[page.page_no - 1]
        zoom_x, zoom_y = page.image_width / pg.rect.width, page.image_height / pg.rect.height
        pix = pg.get_pixmap(matrix=pymupdf.Matrix(zoom_x, zoom_y), alpha=False)
        return np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.height, pix.width, pix.n)[..., :3]


@pytest.mark.parametrize("qid", ["syn-01", "syn-02", "syn-05", "syn-08", "syn-11"])
def test_crops_and_overlays_on_ingested_pages_hit_the_gold_box(qid, synthetic_corpus, synthetic_source):
    from docrag.citation import gold_from_qa

    rec = synthetic_source.record(qid)
    gold = gold_from_qa([rec], synthetic_corpus)[qid]
    for g in gold:
        page = synthetic_corpus.page(g.page_id)
        ref = _render_like(page, synthetic_source.pdfs / rec["doc"])
        sx, sy = page.image_width / page.width_pt, page.image_height / page.height_pt
        exp = (math.floor(g.box.x0 * sx), math.floor(g.box.y0 * sy), math.ceil(g.box.x1 * sx), math.ceil(g.box.y1 * sy))
        assert pixel_rect(page, g.box) == exp
        crop = np.asarray(crop_image(page, g.box)).astype(int)
        # the crop matches an independent render of the same region best at offset (0, 0), clearly
        left, top, right, bottom = exp
        diffs = {(dx, dy): np.abs(crop - ref[top + dy:bottom + dy, left + dx:right + dx].astype(int)).mean()
                 for dx in (-2, -1, 0, 1, 2) for dy in (-2, -1, 0, 1, 2)
                 if top + dy >= 0 and left + dx >= 0 and bottom + dy <= ref.shape[0] and right + dx <= ref.shape[1]}
        best = min(diffs, key=diffs.get)
        assert best == (0, 0), diffs
        assert diffs[(0, 0)] < 0.5 * min(v for k, v in diffs.items() if k != (0, 0))
        assert crop.min() < 128   # there is ink inside a gold box
        ov = np.asarray(overlay_image(page, [g.box]))
        assert tuple(ov[(exp[1] + exp[3]) // 2, exp[0] - 1]) == (255, 0, 0)
        original = np.asarray(page.load_image())
        assert np.array_equal(ov[top:bottom, left:right], original[top:bottom, left:right])


def test_save_evidence_writes_pages_crops_overlays(synthetic_corpus, synthetic_source, tmp_path):
    from PIL import Image

    from docrag.citation import gold_from_qa

    rec = synthetic_source.record("syn-02")   # two pages, one gold box on each
    gold = gold_from_qa([rec], synthetic_corpus)["syn-02"]
    ans = Answer(rec["question"], rec["answer"], meta={"qid": "syn-02"},
                 citations=[Citation(g.page_id, [g.box]) for g in gold])
    folder = save_evidence(ans, synthetic_corpus, tmp_path / "ev")
    assert folder.name == "syn-02"
    meta = json.loads((folder / "evidence.json").read_text())
    assert len(meta["pages"]) == 2 and len(meta["crops"]) == 2 and len(meta["overlays"]) == 2
    for c in meta["crops"]:
        left, top, right, bottom = c["pixel_rect"]
        with Image.open(folder / c["file"]) as im:
            assert im.size == (right - left, bottom - top)
    for p in meta["pages"]:
        page = synthetic_corpus.page(p["page_id"])
        with Image.open(folder / p["file"]) as im:
            assert im.size == (page.image_width, page.image_height)
