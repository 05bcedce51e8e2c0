"""The reply parser: messy JSON repaired, bad boxes repaired or dropped with warnings, never a crash."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from docrag.generation.parse import ImageFrame, citations_from_coordinates, parse_reply
from docrag.geometry import Box, Space
from docrag.types import Page

GOOD = {"answer": "Revenue was $5.2 million.", "coordinates": {"1": [[10, 20, 110, 220]], "2": [[0, 0, 50, 50]]}}


@pytest.mark.parametrize("reply", [
    json.dumps(GOOD),
    "```json\n" + json.dumps(GOOD, indent=2) + "\n```",
    "Sure! Here is my answer:\n```json\n" + json.dumps(GOOD) + "\n```\nHope this helps.",
    "The answer follows. " + json.dumps(GOOD) + " Done.",
    # comments of three kinds, trailing commas
    """{
        "answer": "Revenue was $5.2 million.",  // the total
        "coordinates": {
            "1": [[10, 20, 110, 220],],  # the table
            /* second page */ "2": [[0, 0, 50, 50]],
        },
    }""",
    # single quotes (Python-style dict)
    "{'answer': 'Revenue was $5.2 million.', 'coordinates': {'1': [[10, 20, 110, 220]], '2': [[0, 0, 50, 50]]}}",
    # unquoted keys
    '{answer: "Revenue was $5.2 million.", coordinates: {1: [[10, 20, 110, 220]], 2: [[0, 0, 50, 50]]}}',
])
def test_messy_replies_are_repaired(reply):
    parsed = parse_reply(reply)
    assert parsed.error is None, parsed
    assert parsed.answer == GOOD["answer"]
    assert parsed.coordinates == {"1": [[10, 20, 110, 220]], "2": [[0, 0, 50, 50]]}


def test_clean_reply_and_plain_fence_record_no_repairs():
    assert parse_reply(json.dumps(GOOD)).repairs == []
    assert parse_reply("```json\n" + json.dumps(GOOD) + "\n```").repairs == []
    assert parse_reply("Here: " + json.dumps(GOOD)).repairs  # prose around it is noted


def test_hash_inside_strings_is_not_a_comment():
    parsed = parse_reply('{"answer": "item #3 costs 5", "coordinates": {}}')
    assert parsed.answer == "item #3 costs 5" and parsed.error is None


def test_unparseable_reply_keeps_text_without_citations_and_records_error():
    parsed = parse_reply("I think the revenue was 5 million but I cannot box it.")
    assert parsed.error and parsed.coordinates == {}
    assert parsed.answer == "I think the revenue was 5 million but I cannot box it."


def test_broken_json_salvages_the_answer_field():
    parsed = parse_reply('{"answer": "42 \\"units\\"", "coordinates": {"1": [[1, 2, 3, 4]] oops ]}')
    assert parsed.answer == '42 "units"'
    assert parsed.coordinates == {} and "salvaged" in parsed.error


def _frames(tmp_path, n=2, size=(400, 300)):
    pages = [Page(doc_id="d", page_no=i, width_pt=800.0, height_pt=600.0, root=tmp_path) for i in range(1, n + 1)]
    return [ImageFrame(i, p, size) for i, p in enumerate(pages, start=1)]


def test_boxes_become_page_points(tmp_path):
    cits, warns = citations_from_coordinates({"1": [[40, 30, 200, 150]]}, _frames(tmp_path), "pixel")
    assert warns == []
    (c,) = cits
    assert c.page_id == "d:1" and c.image_index == 1
    b = c.boxes[0]
    assert b.space is Space.POINT and b.extent == (800.0, 600.0)
    assert b.coords == pytest.approx((80, 60, 400, 300))


def test_norm1000_convention(tmp_path):
    cits, _ = citations_from_coordinates({"2": [[500, 0, 1000, 500]]}, _frames(tmp_path), "norm1000")
    assert cits[0].page_id == "d:2"
    assert cits[0].boxes[0].coords == pytest.approx((400, 0, 800, 300))


def test_model_pixels_convention_uses_the_models_input_size(tmp_path):
    frames = _frames(tmp_path)
    frames[0].model_size = (200, 150)   # the model saw a half-size image
    cits, _ = citations_from_coordinates({"1": [[20, 15, 100, 75]]}, frames, "model_pixels")
    assert cits[0].boxes[0].coords == pytest.approx((80, 60, 400, 300))


def test_bad_boxes_are_repaired_or_dropped_with_warnings(tmp_path):
    coords = {
        "1": [[200, 150, 40, 30],          # reversed -> reordered
              [-10, -10, 100, 100],         # partly outside -> clipped
              [500, 400, 600, 500],         # entirely outside -> dropped
              [10, 10, 10, 50],             # zero width -> dropped
              [1, 2, 3],                    # not four numbers -> dropped
              ["a", "b", "c", "d"]],        # not numbers -> dropped
        "7": [[0, 0, 10, 10]],              # unknown image -> dropped
        "0": [[0, 0, 10, 10]],              # 0 is not a 1-based index -> dropped
    }
    cits, warns = citations_from_coordinates(coords, _frames(tmp_path), "pixel")
    assert [c.page_id for c in cits] == ["d:1"]
    got = [b.coords for b in cits[0].boxes]
    assert got == [pytest.approx((80, 60, 400, 300)), pytest.approx((0, 0, 200, 200))]
    text = "\n".join(warns)
    for needle in ("reordered", "clipped", "entirely outside", "no area", "not four numbers", "'7'", "'0'"):
        assert needle in text
    assert len(warns) == 8


def test_flat_box_and_named_keys_are_accepted_with_warnings(tmp_path):
    cits, warns = citations_from_coordinates({"Image 2": [0, 0, 100, 100]}, _frames(tmp_path), "pixel")
    assert cits[0].page_id == "d:2" and len(cits[0].boxes) == 1
    assert any("read as image 2" in w for w in warns) and any("without the enclosing list" in w for w in warns)


def test_page_cited_without_boxes_stays_a_page_citation(tmp_path):
    cits, warns = citations_from_coordinates({"1": []}, _frames(tmp_path), "pixel")
    assert cits[0].page_id == "d:1" and cits[0].boxes == []
    assert any("without a usable box" in w for w in warns)


# -- properties ---------------------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=8),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5), children, max_size=4),
    max_leaves=20)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=300))
def test_parse_never_raises_on_any_text(text):
    parsed = parse_reply(text)
    assert isinstance(parsed.answer, str)
    assert isinstance(parsed.coordinates, dict)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(coords=st.dictionaries(st.text(max_size=6), json_values, max_size=5),
       convention=st.sampled_from(["pixel", "norm1000", "model_pixels"]))
def test_coordinates_never_raise_and_all_kept_boxes_are_valid_points(tmp_path, coords, convention):
    frames = _frames(tmp_path)
    cits, warns = citations_from_coordinates(coords, frames, convention)
    for c in cits:
        for b in c.boxes:
            assert b.space is Space.POINT and b.is_valid() and b.is_inside_extent(tol=1e-6)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=40), st.dictionaries(st.sampled_from(["1", "2", "3"]),
                                             st.lists(st.lists(st.integers(-50, 2000), min_size=4, max_size=4),
                                                      max_size=3), max_size=3))
def test_wrapped_json_round_trips(prose, coords):
    reply = prose.replace("{", "(").replace("}", ")") + "\n```json\n" + json.dumps(
        {"answer": "x", "coordinates": coords}) + "\n```"
    parsed = parse_reply(reply)
    assert parsed.error is None and parsed.answer == "x" and parsed.coordinates == coords


box_coords = st.tuples(*[st.floats(0, 1, allow_nan=False) for _ in range(4)])
sizes = st.tuples(st.integers(1, 5000), st.integers(1, 5000))


@given(box_coords, sizes, st.tuples(st.floats(10, 3000), st.floats(10, 3000)))
def test_pixel_point_norm_round_trip(c, img, page):
    n = Box.norm(*c)
    px = n.to_pixels(*img)
    pt = px.to_points(*page)
    back = pt.to_pixels(*img).to_norm()
    assert back.coords == pytest.approx(n.coords, abs=1e-9)
    grid = Box.from_grid([v * 1000 for v in c], 1000)
    assert grid.coords == pytest.approx(n.coords, abs=1e-12)


def test_raw_newlines_in_strings_and_list_shaped_coordinates():
    parsed = parse_reply('{"answer": "line one\nline two", "coordinates": [{"image": 2, "bbox": [1, 2, 3, 4]}]}')
    assert parsed.error is None and parsed.answer == "line one\nline two"
    assert parsed.coordinates == {"2": [[1, 2, 3, 4]]}
    assert any("list of {image, bbox}" in r for r in parsed.repairs)


def test_truncated_reply_keeps_the_answer_and_complete_boxes(tmp_path):
    parsed = parse_reply('```json\n{"answer": "42 units", "coordinates": {"1": [[10, 20, 30, 40], [1, 2, 3')
    assert parsed.error is None and parsed.answer == "42 units"
    assert parsed.coordinates == {"1": [[10, 20, 30, 40], [1, 2, 3]]}
    cits, warns = citations_from_coordinates(parsed.coordinates, _frames(tmp_path), "pixel")
    assert len(cits[0].boxes) == 1 and any("not four numbers" in w for w in warns)
    cut_in_string = parse_reply('{"answer": "the total was 5')
    assert cut_in_string.answer == "the total was 5" and cut_in_string.coordinates == {}
