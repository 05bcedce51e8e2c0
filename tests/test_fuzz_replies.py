"""Property test of the reply parser on fuzzed replies: never raises, writes only UTF-8-safe text.

A few hundred examples by default; 10,000 under ``-m slow``. Seeds are fixed (``derandomize``).
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from docrag.generation.parse import ImageFrame, citations_from_coordinates, parse_reply
from docrag.geometry import Space
from docrag.io import dumps_safe
from docrag.types import Page
from tests.support.fuzz_replies import check_utf8_safe, fuzzed_reply

FRAMES_PAGES = [Page(doc_id="d", page_no=i, width_pt=612.0, height_pt=792.0) for i in (1, 2)]
FRAMES = [ImageFrame(i, p, (612, 792), (588, 756)) for i, p in enumerate(FRAMES_PAGES, start=1)]


def _check(reply: str, convention: str) -> None:
    parsed = parse_reply(reply)
    assert isinstance(parsed.answer, str) and isinstance(parsed.coordinates, dict)
    cits, warns = citations_from_coordinates(parsed.coordinates, FRAMES, convention)
    check_utf8_safe(parsed.answer, *parsed.repairs, *warns, parsed.error or "")
    for c in cits:
        for b in c.boxes:
            assert b.space is Space.POINT and b.is_valid() and b.is_inside_extent(tol=1e-6)
    # what ask --json and eval's JSONL write
    dumps_safe({"answer": parsed.answer, "raw": reply, "warnings": warns}).encode("utf-8")


def _property(n: int):
    @settings(max_examples=n, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(seed=st.integers(0, 2 ** 32 - 1), convention=st.sampled_from(["pixel", "norm1000", "model_pixels"]))
    def prop(seed, convention):
        _check(fuzzed_reply(random.Random(seed)), convention)
    return prop


def test_fuzzed_replies_never_raise():
    _property(300)()


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.text(alphabet=st.characters(codec=None), max_size=400))
def test_any_text_including_lone_surrogates(text):
    _check(text, "pixel")


@pytest.mark.slow
def test_ten_thousand_fuzzed_replies_never_raise():
    _property(10_000)()
