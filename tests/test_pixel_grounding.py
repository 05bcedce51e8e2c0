"""Pixel grounding (ViDoRe V3 style): hand-computed Dice/IoU, the open choices, and a pixel-mask check."""

from __future__ import annotations

import random
from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np
import pytest

from docrag.citation.pixel_grounding import (
    PixelOptions,
    aggregate,
    describe_options,
    dice_iou,
    question_pixel_score,
    zone_areas,
)
from docrag.geometry import Box


@dataclass
class G:
    page_id: str
    box: Box
    annotator: str = ""


def _page(w=100, h=100, img_w=100, img_h=100):
    return SimpleNamespace(width_pt=w, height_pt=h, image_width=img_w, image_height=img_h)


def _pt(*c, w=100, h=100):
    return Box.points(*c, w, h)


def test_hand_computed_two_annotators_best_kept():
    pages = {"d:1": _page(), "d:2": _page()}
    system = {"d:1": [_pt(0, 0, 10, 10), _pt(5, 0, 15, 10)]}       # union area 150
    gold = [G("d:1", _pt(0, 0, 10, 20), "A"),                      # |S∩A| = 100: Dice 200/350, IoU 100/250
            G("d:1", _pt(10, 0, 20, 10), "B"),                     # |S∩B| = 50: Dice 100/250, IoU 50/200
            G("d:2", _pt(0, 0, 10, 10), "A")]                      # page 2: system empty
    q = question_pixel_score(system, gold, pages)
    assert [p.page_id for p in q.pages] == ["d:1", "d:2"]
    assert q.pages[0].annotator == "A"
    assert q.pages[0].f1 == pytest.approx(4 / 7) and q.pages[0].iou == pytest.approx(0.4)
    # page 2: A gives 0; B drew nothing there either -> skipped by default, so best = 0
    assert q.pages[1].f1 == 0.0 and q.pages[1].iou == 0.0
    assert q.f1 == pytest.approx(2 / 7) and q.iou == pytest.approx(0.2)
    # "one": the empty (page 2, B) pair counts as agreement and wins
    q1 = question_pixel_score(system, gold, pages, options=PixelOptions(empty="one"))
    assert q1.pages[1].f1 == 1.0 and q1.pages[1].annotator == "B"
    assert q1.f1 == pytest.approx((4 / 7 + 1) / 2)


def test_best_annotator_per_page_or_per_question():
    pages = {"d:1": _page(), "d:2": _page()}
    system = {"d:1": [_pt(0, 0, 10, 10)], "d:2": [_pt(0, 0, 10, 10)]}
    gold = [G("d:1", _pt(0, 0, 10, 10), "A"), G("d:1", _pt(50, 50, 60, 60), "B"),      # page 1: A 1.0, B 0
            G("d:2", _pt(50, 50, 60, 60), "A"), G("d:2", _pt(0, 0, 10, 5), "B")]       # page 2: A 0, B 2/3
    per_page = question_pixel_score(system, gold, pages)
    assert [p.annotator for p in per_page.pages] == ["A", "B"]
    assert per_page.f1 == pytest.approx((1.0 + 2 / 3) / 2)
    per_q = question_pixel_score(system, gold, pages, options=PixelOptions(best="question"))
    assert {p.annotator for p in per_q.pages} == {"A"} and per_q.f1 == pytest.approx(0.5)   # A 0.5 > B 1/3
    assert "best annotator per question" in describe_options(PixelOptions(best="question"))


def test_query_vs_page_averaging():
    pages = {"d:1": _page(), "d:2": _page(), "d:3": _page()}
    gold1 = [G("d:1", _pt(0, 0, 10, 20), "A"), G("d:2", _pt(0, 0, 10, 10), "A")]
    q1 = question_pixel_score({"d:1": [_pt(0, 0, 10, 10), _pt(5, 0, 15, 10)]}, gold1, pages)
    q2 = question_pixel_score({"d:3": [_pt(0, 0, 50, 50)]}, [G("d:3", _pt(0, 0, 50, 50))], pages)
    assert q2.f1 == 1.0
    by_q = aggregate([q1, q2, None], "query")
    by_p = aggregate([q1, q2], "page")
    assert by_q["f1"] == pytest.approx(((4 / 7 + 0) / 2 + 1) / 2)
    assert by_p["f1"] == pytest.approx((4 / 7 + 0 + 1) / 3)
    assert by_q["n_questions"] == 2 and by_p["n_pages"] == 3


def test_points_are_mapped_to_the_page_image_pixels():
    # page 50x50 pt rendered at 100x100 px: a pixel box and a point box of the same area agree
    pages = {"d:1": _page(50, 50, 100, 100)}
    gold = [G("d:1", Box.points(0, 0, 5, 5, 50, 50))]
    q = question_pixel_score({"d:1": [Box.pixels(0, 0, 10, 10, 100, 100)]}, gold, pages)
    assert q.f1 == pytest.approx(1.0)
    q = question_pixel_score({"d:1": [Box.pixels(0, 0, 10, 5, 100, 100)]}, gold, pages)
    assert q.f1 == pytest.approx(2 * 50 / 150) and q.iou == pytest.approx(0.5)


def test_relevant_page_boxed_by_nobody_and_no_gold():
    pages = {"d:1": _page(), "d:2": _page()}
    gold = [G("d:1", _pt(0, 0, 10, 10))]
    skip = question_pixel_score({"d:1": [_pt(0, 0, 10, 10)]}, gold, pages, gold_pages=["d:1", "d:2"])
    zero = question_pixel_score({"d:1": [_pt(0, 0, 10, 10)]}, gold, pages, gold_pages=["d:1", "d:2"],
                                options=PixelOptions(empty="zero"))
    assert skip.f1 == 1.0 and len(skip.pages) == 1
    assert zero.f1 == 0.5 and len(zero.pages) == 2
    assert question_pixel_score({"d:1": [_pt(0, 0, 1, 1)]}, [], pages) is None
    assert "skipped" in describe_options(PixelOptions()) and "over all scored pages" in \
        describe_options(PixelOptions(average="page"))
    with pytest.raises(ValueError, match="empty"):
        PixelOptions(empty="maybe")


def test_exact_union_equals_pixel_masks():
    rng = random.Random(0)
    for _ in range(30):
        def rects(n):
            out = []
            for _ in range(n):
                x0, y0 = rng.randrange(0, 40), rng.randrange(0, 40)
                out.append((x0, y0, x0 + rng.randrange(1, 20), y0 + rng.randrange(1, 20)))
            return out
        s, g = rects(rng.randrange(0, 4)), rects(rng.randrange(1, 4))
        ms, mg = np.zeros((64, 64), bool), np.zeros((64, 64), bool)
        for x0, y0, x1, y1 in s:
            ms[y0:y1, x0:x1] = True
        for x0, y0, x1, y1 in g:
            mg[y0:y1, x0:x1] = True
        a_s, a_g, a_i = zone_areas(s, g)
        assert (a_s, a_g, a_i) == (ms.sum(), mg.sum(), (ms & mg).sum())
        d, i = dice_iou(s, g)
        assert d == pytest.approx(2 * (ms & mg).sum() / (ms.sum() + mg.sum()))
        assert i == pytest.approx((ms & mg).sum() / (ms | mg).sum())
