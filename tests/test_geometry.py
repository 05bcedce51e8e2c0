"""docrag.geometry: every conversion, rotation, IoU, union, clipping, plus round-trip properties."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from docrag.geometry import (
    Box,
    GeometryError,
    Space,
    best_match_iou,
    fit_within,
    rotate_box,
    rotate_point,
    union,
    unrotate_box,
)

PAGE_W, PAGE_H = 612.0, 792.0


# -- construction and validation ------------------------------------------------------------

def test_constructors_set_space_and_extent():
    assert Box.points(1, 2, 3, 4, PAGE_W, PAGE_H).space is Space.POINT
    assert Box.pixels(1, 2, 3, 4, 100, 200).extent == (100.0, 200.0)
    n = Box.norm(0.1, 0.2, 0.3, 0.4)
    assert n.space is Space.NORM and n.extent == (1.0, 1.0)


def test_space_given_as_string_is_coerced():
    assert Box(0, 0, 1, 1, "pt", (10, 10)).space is Space.POINT


@pytest.mark.parametrize("coords", [(math.nan, 0, 1, 1), (0, math.inf, 1, 1)])
def test_non_finite_coordinates_are_rejected(coords):
    with pytest.raises(GeometryError):
        Box(*coords, Space.POINT, (10, 10))


@pytest.mark.parametrize("extent", [(0, 10), (10, -1)])
def test_non_positive_extent_is_rejected(extent):
    with pytest.raises(GeometryError):
        Box(0, 0, 1, 1, Space.PIXEL, extent)


def test_from_grid_uses_the_grid_size():
    b = Box.from_grid([100, 250, 500, 1000], 1000)
    assert b.coords == pytest.approx((0.1, 0.25, 0.5, 1.0))
    assert Box.from_grid([10, 20, 30, 40], 100).coords == pytest.approx((0.1, 0.2, 0.3, 0.4))


def test_width_height_area_validity():
    b = Box.points(10, 20, 40, 60, PAGE_W, PAGE_H)
    assert (b.width, b.height, b.area) == (30, 40, 1200)
    assert b.is_valid()
    flipped = Box.points(40, 60, 10, 20, PAGE_W, PAGE_H)
    assert not flipped.is_valid() and flipped.area == 0
    assert flipped.ordered().coords == b.coords


# -- conversions ------------------------------------------------------------------------------

def test_points_to_norm_and_pixels():
    b = Box.points(61.2, 79.2, 306, 396, PAGE_W, PAGE_H)
    assert b.to_norm().coords == pytest.approx((0.1, 0.1, 0.5, 0.5))
    px = b.to_pixels(1224, 1584)  # 144 dpi rendering
    assert px.space is Space.PIXEL and px.extent == (1224, 1584)
    assert px.coords == pytest.approx((122.4, 158.4, 612, 792))


def test_pixels_to_points_of_a_page():
    px = Box.pixels(0, 0, 1224, 792, 1224, 1584)
    assert px.to_points(PAGE_W, PAGE_H).coords == pytest.approx((0, 0, 612, 396))


def test_points_to_points_of_another_page_size_is_refused():
    b = Box.points(0, 0, 10, 10, PAGE_W, PAGE_H)
    with pytest.raises(GeometryError, match="not of the"):
        b.to_points(595, 842)
    assert b.to_points(PAGE_W, PAGE_H).coords == b.coords


def test_to_space_needs_an_extent_except_for_norm():
    b = Box.pixels(0, 0, 50, 50, 100, 100)
    assert b.to_space(Space.NORM).coords == pytest.approx((0, 0, 0.5, 0.5))
    with pytest.raises(GeometryError, match="extent"):
        b.to_space(Space.POINT)
    assert b.to_space(Space.POINT, (200, 400)).coords == pytest.approx((0, 0, 100, 200))
    assert b.to_space(Space.PIXEL, (10, 10)).coords == pytest.approx((0, 0, 5, 5))


def test_dict_round_trip_and_bad_records():
    b = Box.pixels(1.5, 2.5, 30, 40, 640, 480)
    assert Box.from_dict(b.to_dict()) == b
    with pytest.raises(GeometryError, match="not a box record"):
        Box.from_dict({"bbox": [1, 2, 3]})
    with pytest.raises(GeometryError):
        Box.from_dict({"bbox": [1, 2, 3, 4], "space": "inch", "extent": [1, 1]})
    assert Box.points(1.234, 2, 3, 4, 10, 10).to_list(1) == [1.2, 2.0, 3.0, 4.0]


# -- operations ---------------------------------------------------------------------------

def test_clip_to_extent():
    b = Box.pixels(-10, 5, 120, 130, 100, 100).clipped()
    assert b.coords == (0, 5, 100, 100)
    assert b.is_inside_extent()
    assert not Box.pixels(-1, 0, 5, 5, 100, 100).is_inside_extent()


def test_iou_intersection_coverage_contains():
    a = Box.points(0, 0, 10, 10, 100, 100)
    b = Box.points(5, 0, 15, 10, 100, 100)
    assert a.intersection_area(b) == 50
    assert a.iou(b) == pytest.approx(50 / 150)
    assert a.iou(a) == 1.0
    assert a.iou(Box.points(20, 20, 30, 30, 100, 100)) == 0.0
    assert a.coverage_of(b) == pytest.approx(0.5)
    inner = Box.points(2, 2, 4, 4, 100, 100)
    assert a.contains(inner) and not inner.contains(a)
    assert a.coverage_of(inner) == 1.0
    assert a.contains_point(10, 10) and not a.contains_point(10.1, 5)
    assert a.expanded(2).coords == (-2, -2, 12, 12)


def test_comparing_points_with_norm_converts_through_the_extent():
    a = Box.points(0, 0, 306, 396, PAGE_W, PAGE_H)
    assert a.iou(Box.norm(0, 0, 0.5, 0.5)) == pytest.approx(1.0)


def test_comparing_pixels_with_points_needs_a_conversion():
    with pytest.raises(GeometryError, match="convert"):
        Box.points(0, 0, 1, 1, 10, 10).iou(Box.pixels(0, 0, 1, 1, 10, 10))


def test_same_space_different_extent_compares_via_norm():
    small = Box.pixels(0, 0, 50, 50, 100, 100)
    big = Box.pixels(0, 0, 100, 100, 200, 200)
    assert small.iou(big) == pytest.approx(1.0)


def test_union_and_best_match():
    a = Box.points(0, 0, 10, 10, 100, 100)
    b = Box.points(20, 5, 30, 40, 100, 100)
    u = union([a, b])
    assert u.coords == (0, 0, 30, 40) and u.space is Space.POINT
    with pytest.raises(GeometryError):
        union([])
    assert best_match_iou([a], [a, b]) == pytest.approx(0.5)
    assert best_match_iou([], [a]) == 0.0
    assert best_match_iou([a], []) == 0.0


def test_fit_within_scales_down_only():
    assert fit_within(2000, 1000, 1000, 1000) == (1000, 500)
    assert fit_within(100, 50, 1000, 1000) == (100, 50)


# -- rotation -----------------------------------------------------------------------------

@pytest.mark.parametrize("rotation,expected", [
    (0, (100, 50)), (90, (792 - 50, 100)), (180, (612 - 100, 792 - 50)), (270, (50, 612 - 100)),
])
def test_rotate_point_each_rotation(rotation, expected):
    assert rotate_point(100, 50, rotation, PAGE_W, PAGE_H) == pytest.approx(expected)


def test_rotate_point_rejects_odd_angles():
    with pytest.raises(GeometryError):
        rotate_point(0, 0, 45, PAGE_W, PAGE_H)


@pytest.mark.parametrize("rotation", [0, 90, 180, 270])
def test_rotate_box_matches_pymupdf_rotation_matrix(rotation):
    pymupdf = pytest.importorskip("pymupdf")
    doc = pymupdf.open()
    page = doc.new_page(width=PAGE_W, height=PAGE_H)
    page.set_rotation(rotation)
    rect = pymupdf.Rect(100, 50, 180, 70)
    expected = rect * page.rotation_matrix
    got = rotate_box(Box.points(*rect, PAGE_W, PAGE_H), rotation, PAGE_W, PAGE_H)
    assert got.coords == pytest.approx(tuple(expected.normalize()), abs=1e-6)
    assert got.extent == pytest.approx((page.rect.width, page.rect.height))


def test_rotate_box_needs_points():
    with pytest.raises(GeometryError):
        rotate_box(Box.norm(0, 0, 1, 1), 90, 1, 1)
    with pytest.raises(GeometryError):
        unrotate_box(Box.norm(0, 0, 1, 1), 90)


# -- properties ---------------------------------------------------------------------------

coord = st.floats(min_value=0, max_value=1, allow_nan=False)
sizes = st.floats(min_value=1, max_value=20000, allow_nan=False)


@st.composite
def norm_boxes(draw):
    x0, x1 = sorted((draw(coord), draw(coord)))
    y0, y1 = sorted((draw(coord), draw(coord)))
    return Box.norm(x0, y0, x1, y1)


@settings(max_examples=150, deadline=None)
@given(norm_boxes(), sizes, sizes, sizes, sizes)
def test_round_trip_norm_pixels_points(box, img_w, img_h, page_w, page_h):
    back = box.to_pixels(img_w, img_h).to_points(page_w, page_h).to_norm()
    assert back.coords == pytest.approx(box.coords, abs=1e-9)


@settings(max_examples=150, deadline=None)
@given(norm_boxes(), sizes, sizes, st.sampled_from([0, 90, 180, 270]))
def test_rotate_then_unrotate_is_identity(box, w, h, rotation):
    pts = box.to_points(w, h)
    rotated = rotate_box(pts, rotation, w, h)
    assert rotated.area == pytest.approx(pts.area, rel=1e-9, abs=1e-6)
    assert rotated.is_inside_extent(tol=1e-6 * max(w, h))
    assert unrotate_box(rotated, rotation).coords == pytest.approx(pts.coords, abs=1e-6 * max(w, h))


@settings(max_examples=150, deadline=None)
@given(norm_boxes(), norm_boxes())
def test_iou_symmetric_bounded_and_union_contains_both(a, b):
    assert 0.0 <= a.iou(b) <= 1.0
    assert a.iou(b) == pytest.approx(b.iou(a))
    u = union([a, b])
    assert u.contains(a) and u.contains(b)
    assert u.area + 1e-12 >= max(a.area, b.area)


@settings(max_examples=100, deadline=None)
@given(st.floats(-2, 3), st.floats(-2, 3), st.floats(-2, 3), st.floats(-2, 3))
def test_clipped_is_always_inside(x0, y0, x1, y1):
    assert Box.norm(x0, y0, x1, y1).clipped().is_inside_extent()


def test_x_overlap_is_the_shared_width_in_the_first_box_s_space():
    a = Box.points(50, 10, 250, 20, 612, 792)
    assert a.x_overlap(Box.points(200, 500, 400, 510, 612, 792)) == pytest.approx(50.0)   # rows apart: width only
    assert a.x_overlap(Box.points(300, 10, 400, 20, 612, 792)) == 0.0                    # side by side
    assert a.x_overlap(Box.norm(0.0, 0.0, 0.5, 1.0)) == pytest.approx(200.0)             # converted to points
