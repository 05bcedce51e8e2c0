"""Reply variants seen from real models (issue 10 item 5) and replies that used to crash the parser."""

from __future__ import annotations

import json

import pytest

from docrag.generation.parse import ImageFrame, citations_from_coordinates, parse_reply
from docrag.types import Page


def _frames(tmp_path, n=2, size=(400, 300)):
    pages = [Page(doc_id="d", page_no=i, width_pt=800.0, height_pt=600.0, root=tmp_path) for i in range(1, n + 1)]
    return [ImageFrame(i, p, size) for i, p in enumerate(pages, start=1)]


def _cite(tmp_path, reply):
    parsed = parse_reply(reply)
    cits, warns = citations_from_coordinates(parsed.coordinates, _frames(tmp_path), "pixel")
    return parsed, {c.page_id: [tuple(round(v) for v in b.coords) for b in c.boxes] for c in cits}, warns


@pytest.mark.parametrize("reply, page, box", [
    ('{"answer": "5", "coordinates": {"1": "[[40, 30, 200, 150]]"}}', "d:1", (80, 60, 400, 300)),
    ('{"answer": "5", "coordinates": {"2": ["40, 30, 200, 150"]}}', "d:2", (80, 60, 400, 300)),
    ('{"answer": "5", "coordinates": "{\\"1\\": [[40, 30, 200, 150]]}"}', "d:1", (80, 60, 400, 300)),
    ('{"answer": "5", "coordinates": {"<image_2>": [[40, 30, 200, 150]]}}', "d:2", (80, 60, 400, 300)),
    ('{"answer": "5", "coordinates": {"图1": [[40, 30, 200, 150]]}}', "d:1", (80, 60, 400, 300)),
    ('{"answer": "5", "coordinates": {"Image 2:": [[40, 30, 200, 150]]}}', "d:2", (80, 60, 400, 300)),
])
def test_string_boxes_string_coordinates_and_key_spellings(tmp_path, reply, page, box):
    parsed, cited, warns = _cite(tmp_path, reply)
    assert parsed.answer == "5" and parsed.error is None
    assert cited == {page: [box]}, warns


def test_qwen_bare_bbox_list_goes_to_image_one(tmp_path):
    reply = 'The revenue is 5 million.\n```json\n[{"bbox_2d": [40, 30, 200, 150], "label": "revenue"}]\n```'
    parsed, cited, _ = _cite(tmp_path, reply)
    assert parsed.answer == "The revenue is 5 million."
    assert cited == {"d:1": [(80, 60, 400, 300)]}
    assert any("image 1" in r for r in parsed.repairs)


def test_answer_and_coordinates_in_two_fences(tmp_path):
    reply = ('```json\n{"answer": "12%"}\n```\nand the boxes:\n'
             '```json\n{"coordinates": {"2": [[40, 30, 200, 150]]}}\n```')
    parsed, cited, _ = _cite(tmp_path, reply)
    assert parsed.answer == "12%" and cited == {"d:2": [(80, 60, 400, 300)]}
    assert any("two separate" in r for r in parsed.repairs)


def test_reply_echoing_the_template_placeholder_lines(tmp_path):
    reply = """```json
{
    "answer": "12%",
    "coordinates": {
        "1": [[40, 30, 200, 150], ...],  # ...
        ...
    }
}
```"""
    parsed, cited, _ = _cite(tmp_path, reply)
    assert parsed.answer == "12%" and cited == {"d:1": [(80, 60, 400, 300)]}
    template = '{"answer": "7", "coordinates": {"1": [[x1, y1, x2, y2]], "2": [[40, 30, 200, 150]]}}'
    parsed, cited, _ = _cite(tmp_path, template)
    assert parsed.answer == "7" and cited["d:2"] == [(80, 60, 400, 300)] and not cited.get("d:1")


def test_ellipsis_inside_the_answer_string_is_kept():
    assert parse_reply('{"answer": "up ... down", "coordinates": {"1": [[1, 2, 3, 4], ...]}}').answer == "up ... down"


@pytest.mark.parametrize("reply", [
    '{"answer": "x", "coordinates": {"1": [[1e999, 2, 3, 4], [' + "9" * 400 + ', 1, 2, 3]]}}',
    '{"answer": "x", "coordinates": {"' + "7" * 5000 + '": [[1, 2, 3, 4]]}}',
    '{"answer": ' + "1" * 5000 + ', "coordinates": {}}',
    '{"answer": "x", "coordinates": {"1": [[' + "1" * 5000 + ', 2, 3, 4]]}}',
    "{'answer': {1, 2, 3}, 'coordinates': {}}",
    "{'answer': b'bytes', 'coordinates': {}}",
    "{'answer': ..., 'coordinates': {1: ...}}",
    "{'answer': 1j, 'coordinates': {" + "9" * 400 + ": [[1, 2, 3, 4]]}}",
    '{"answer": "cut \\ud83d',
    '{"answer": "lone \\udc80 surrogate", "coordinates": {}}',
    '{"answer": NaN, "coordinates": {"1": [[Infinity, 0, 1, 1]]}}',
    "[" * 5000 + "]" * 5000,
    "{" * 3000,
])
def test_hostile_replies_never_raise_and_stay_utf8(tmp_path, reply):
    parsed, _, warns = _cite(tmp_path, reply)
    parsed.answer.encode("utf-8")
    for w in parsed.repairs + warns + [parsed.error or ""]:
        w.encode("utf-8")
    json.dumps({"answer": parsed.answer, "coordinates": parsed.coordinates}, ensure_ascii=False).encode("utf-8")
