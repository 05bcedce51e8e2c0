"""``openai:<model>`` generation end to end against a real OpenAI-compatible server on 127.0.0.1.

The server looks at the images it actually received, finds the pixel box of a coloured region and
replies with it (in the convention under test); the answer's POINT box must land on the region.
"""

from __future__ import annotations

import json

import pytest

from docrag.backends.base import BackendError
from docrag.generation import get_generator
from docrag.generation.prompt import PROMPT_VERSION
from docrag.geometry import Space
from tests.support.openai_server import ScriptedOpenAIServer, request_images, request_texts
from tests.support.synthetic_pages import Region, color_box, make_page

RED, BLUE, GREEN = (220, 20, 20), (20, 20, 220), (20, 160, 20)
TOL_PT = 3.0


@pytest.fixture()
def pages(tmp_path):
    p1 = make_page(tmp_path, [Region((72, 100, 300, 180), RED, "Revenue rose to 5.2 million."),
                              Region((320, 400, 540, 700), GREEN, "A table.")], doc_id="docA", page_no=1)
    p2 = make_page(tmp_path, [Region((50, 50, 250, 120), BLUE, "Costs fell.")], doc_id="docB", page_no=3,
                   width_pt=842.0, height_pt=595.0)   # landscape A4
    return [p1, p2]


def _box_reply(targets: dict[int, tuple], convention: str = "pixel", wrap=lambda s: s):
    """A server script that boxes colour ``targets[i]`` in received image ``i``."""

    def reply(req: dict) -> str:
        images = request_images(req)
        coords = {}
        for i, rgb in targets.items():
            box = color_box(images[i - 1], rgb)
            if convention == "norm1000":
                w, h = images[i - 1].size
                box = [round(box[0] * 1000 / w), round(box[1] * 1000 / h),
                       round(box[2] * 1000 / w), round(box[3] * 1000 / h)]
            coords[str(i)] = [list(box)]
        return wrap(json.dumps({"answer": "5.2 million", "coordinates": coords}))

    return reply


def _assert_on(box, region_pt, tol=TOL_PT):
    assert box.space is Space.POINT
    assert box.coords == pytest.approx(region_pt, abs=tol), (box.coords, region_pt)


@pytest.mark.parametrize("convention", ["pixel", "norm1000"])
def test_server_boxes_land_on_the_right_pdf_region(pages, convention):
    with ScriptedOpenAIServer(_box_reply({1: RED, 2: BLUE}, convention)) as srv:
        gen = get_generator("openai:gpt-test", base_url=srv.base_url, api_key="k", coords=convention, ground="off")
        ans = gen.generate("How much revenue?", pages)
        req = srv.requests[0]
    assert ans.parse_error is None and ans.warnings == []
    assert ans.answer == "5.2 million"
    by_page = {c.page_id: c for c in ans.citations}
    assert set(by_page) == {"docA:1", "docB:3"}
    _assert_on(by_page["docA:1"].boxes[0], (72, 100, 300, 180), tol=3.0 if convention == "pixel" else 4.0)
    _assert_on(by_page["docB:3"].boxes[0], (50, 50, 250, 120), tol=3.0 if convention == "pixel" else 4.0)
    # prompt: each image introduced with the size actually sent (fit 1024x768, aspect kept)
    sizes = [im.size for im in request_images(req)]
    assert sizes == [(593, 768), (1024, 724)]
    texts = request_texts(req)
    assert "Image 1: Width: 593, Height: 768" in texts and "Image 2: Width: 1024, Height: 724" in texts
    assert ans.meta["prompt_version"] == PROMPT_VERSION
    assert ans.usage["total_tokens"] > 0 and ans.latency_s > 0


@pytest.mark.parametrize("wrap", [
    lambda s: "```json\n" + s + "\n```",
    lambda s: "Here you go:\n" + s + "\nLet me know.",
    lambda s: s[:-1] + ",}",                                    # trailing comma
    lambda s: s.replace('"answer"', '// reasoning omitted\n"answer"'),
])
def test_messy_replies_still_give_the_right_boxes(pages, wrap):
    with ScriptedOpenAIServer(_box_reply({1: RED}, wrap=wrap)) as srv:
        ans = get_generator("openai:m", base_url=srv.base_url, api_key="k").generate("q", pages)
    assert ans.parse_error is None
    _assert_on(ans.citations[0].boxes[0], (72, 100, 300, 180))


def test_wrong_indices_and_out_of_bounds_boxes_are_reported(pages):
    reply = json.dumps({"answer": "x", "coordinates": {"5": [[0, 0, 10, 10]],
                                                       "1": [[500, 700, -40, 90], [2000, 2000, 2100, 2100]]}})
    with ScriptedOpenAIServer(reply) as srv:
        ans = get_generator("openai:m", base_url=srv.base_url, api_key="k").generate("q", pages)
    assert [c.page_id for c in ans.citations] == ["docA:1"]
    (box,) = ans.citations[0].boxes
    assert box.coords == pytest.approx((0, 90 * 792 / 768, 500 * 612 / 593, 700 * 792 / 768))
    joined = " | ".join(ans.warnings)
    assert "'5'" in joined and "reordered" in joined and "clipped" in joined and "entirely outside" in joined


def test_unparseable_reply_gives_answer_without_citations(pages):
    with ScriptedOpenAIServer("I cannot answer that from these pages.") as srv:
        ans = get_generator("openai:m", base_url=srv.base_url, api_key="k").generate("q", pages)
    assert ans.citations == [] and ans.parse_error
    assert ans.answer == "I cannot answer that from these pages."
    assert ans.raw == "I cannot answer that from these pages."


def test_request_too_large_drops_the_lowest_ranked_page_and_retries(pages):
    def reply(req):
        n = len(request_images(req))
        if n > 1:
            return (413, "Request Entity Too Large")
        return _box_reply({1: RED})(req)

    with ScriptedOpenAIServer(reply) as srv:
        ans = get_generator("openai:m", base_url=srv.base_url, api_key="k").generate("q", pages)
        assert [len(srv.images(r)) for r in srv.requests] == [2, 1]
    assert any("dropped the lowest-ranked page docB:3" in w for w in ans.warnings)
    _assert_on(ans.citations[0].boxes[0], (72, 100, 300, 180))


def test_too_large_with_one_page_is_an_error(pages):
    with ScriptedOpenAIServer((413, "too large")) as srv:
        gen = get_generator("openai:m", base_url=srv.base_url, api_key="k")
        with pytest.raises(BackendError, match="one page"):
            gen.generate("q", pages[:1])


def test_resize_policy_and_max_pages_are_configurable(pages):
    with ScriptedOpenAIServer(json.dumps({"answer": "a", "coordinates": {}})) as srv:
        gen = get_generator("openai:m", base_url=srv.base_url, api_key="k", max_width=512, max_height=512,
                            max_pixels=100_000, max_pages=1)
        gen.generate("q", pages)
        (img,) = srv.images(0)
    assert img.size[0] * img.size[1] <= 100_000 and max(img.size) <= 512
    assert img.size[0] / img.size[1] == pytest.approx(612 / 792, rel=0.01)


def test_snap_replaces_loose_boxes_by_layout_blocks_and_keeps_the_originals(pages):
    def reply(req):
        w, h = request_images(req)[0].size
        # a loose box around the red block: 10 px too big on every side
        x0, y0, x1, y1 = color_box(request_images(req)[0], RED)
        return json.dumps({"answer": "a", "coordinates": {"1": [[x0 - 10, y0 - 10, x1 + 10, y1 + 10]]}})

    with ScriptedOpenAIServer(reply) as srv:
        ans = get_generator("openai:m", base_url=srv.base_url, api_key="k", snap=True).generate("q", pages)
    cit = ans.citations[0]
    assert cit.snapped
    _assert_on(cit.boxes[0], (72, 100, 300, 180), tol=1e-6)      # exactly the block
    loose = ans.meta["unsnapped_citations"][0]["boxes"][0]["bbox"]
    assert loose[0] < 72 - 5 and loose[2] > 300 + 5


def test_generate_many_runs_concurrently_and_keeps_order(pages):
    import threading
    import time

    active, peak = [0], [0]
    lock = threading.Lock()

    def reply(req):
        with lock:
            active[0] += 1
            peak[0] = max(peak[0], active[0])
        time.sleep(0.15)
        with lock:
            active[0] -= 1
        q = request_texts(req)[1].split("Question:")[1].strip()
        return json.dumps({"answer": q, "coordinates": {}})

    with ScriptedOpenAIServer(reply) as srv:
        gen = get_generator("openai:m", base_url=srv.base_url, api_key="k", concurrency=3)
        answers = gen.generate_many([(f"question {i}", pages[:1]) for i in range(6)])
    assert [a.answer for a in answers] == [f"question {i}" for i in range(6)]
    assert 2 <= peak[0] <= 3


def test_missing_page_image_is_a_clear_corpus_error(pages):
    from docrag.errors import CorpusError

    (pages[0].root / pages[0].image).unlink()
    gen = get_generator("openai:m", base_url="http://127.0.0.1:9/v1", api_key="k")
    with pytest.raises(CorpusError, match="docA_p0001.png"):
        gen.generate("q", pages)
