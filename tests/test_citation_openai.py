"""The openai judge against a real loopback OpenAI-compatible server: prompts as specified, the
evidence images really sent, strict verdicts, errors counted, usage and cost summed, cache reused."""

from __future__ import annotations

import numpy as np
import pytest

from docrag.citation import build_prompt, crop_image, evaluate, get_judge, overlay_image
from docrag.citation.chat_judge import ChatJudge
from docrag.geometry import Box
from docrag.types import Answer, Citation
from tests.support.citation_pages import synthetic_page
from tests.support.openai_server import ScriptedOpenAIServer

BOX_A = Box.points(10, 100, 90, 150, 612, 792)
BOX_B = Box.points(110, 100, 190, 150, 612, 792)


@pytest.fixture()
def page(tmp_path):
    return synthetic_page(tmp_path, dpi=72)


def make_answer(page, *boxes, text="Revenue rose 5%."):
    return Answer("How did revenue change?", text, citations=[Citation(page.page_id, list(boxes))])


def judge_for(srv, **opts):
    return get_judge("openai:judge-model", base_url=srv.base_url, api_key="test-key", max_retries=0, **opts)


def _has_red(img) -> bool:
    arr = np.asarray(img)
    return bool(np.any(np.all(arr == (255, 0, 0), axis=2)))


def test_crop_mode_sends_the_spec_prompt_and_the_crops(page):
    with ScriptedOpenAIServer("Yes") as srv:
        r = evaluate(make_answer(page, BOX_A), [page], judge_for(srv), level="block", mode="crop")
    assert (r.recall, r.precision, r.calls) == (1.0, 1.0, 1)
    req = srv.requests[0]
    assert req["model"] == "judge-model" and req["temperature"] == 0.0
    assert srv.texts(req) == [build_prompt("Revenue rose 5%.", "crop"), "Here are my images:"]
    [img] = srv.images(req)
    assert np.array_equal(np.asarray(img), np.asarray(crop_image(page, BOX_A)))
    assert r.usage["prompt_tokens"] > 0 and r.usage["completion_tokens"] == 1


def test_box_and_page_modes_send_whole_pages(page):
    with ScriptedOpenAIServer("yes") as srv:
        judge = judge_for(srv)
        rb = evaluate(make_answer(page, BOX_A, BOX_B), [page], judge, level="block", mode="box")
        rp = evaluate(make_answer(page, BOX_A, BOX_B), [page], judge, level="page")
    assert rb.recall == 1.0 and rp.recall == 1.0
    first_box = srv.requests[0]
    assert srv.texts(first_box) == [build_prompt("Revenue rose 5%.", "box"), "Here are my images:"]
    [overlay] = srv.images(first_box)   # both boxes on one page -> one overlay image
    assert np.array_equal(np.asarray(overlay), np.asarray(overlay_image(page, [BOX_A, BOX_B])))
    page_req = srv.requests[rb.calls]
    assert srv.texts(page_req) == [build_prompt("Revenue rose 5%.", "page"), "Here are my images:"]
    [full] = srv.images(page_req)
    assert full.size == (593, 768) and not _has_red(full)   # downscaled to the generator size (1024x768 box)


def test_irrelevant_box_found_through_the_server(page):
    # the server says yes iff the crop of box A is among the images (A's crop is 80x50 px at 72 dpi
    # and its red channel starts at x=10)
    def reply(req):
        from tests.support.openai_server import request_images

        starts = [np.asarray(im)[0, 0, 0] for im in request_images(req)]
        return "Yes, it does." if 10 in starts else "No."

    with ScriptedOpenAIServer(reply) as srv:
        r = evaluate(make_answer(page, BOX_A, BOX_B), [page], judge_for(srv))
    assert (r.recall, r.precision, r.irrelevant) == (1.0, 0.5, [1])
    assert r.calls == len(srv.requests) == 3


def test_unparseable_reply_and_http_failure_are_errors(page):
    with ScriptedOpenAIServer("I believe the answer is covered.") as srv:
        r = evaluate(make_answer(page, BOX_A), [page], judge_for(srv))
    assert r.excluded and r.recall is None and "unparseable" in r.errors[0]
    with ScriptedOpenAIServer((400, "bad request")) as srv:
        r2 = evaluate(make_answer(page, BOX_A), [page], judge_for(srv))
    assert r2.excluded and "judge call failed" in r2.errors[0] and r2.calls == 1


def test_cache_rerun_makes_no_requests_and_cost_is_accounted(page, tmp_path):
    cache = tmp_path / "verdicts.jsonl"
    with ScriptedOpenAIServer(["yes", "no", "yes"]) as srv:
        judge = judge_for(srv, price_prompt=2.0, price_completion=10.0)
        first = evaluate(make_answer(page, BOX_A, BOX_B), [page], judge, cache=cache)
        assert len(srv.requests) == 3 and first.calls == 3
        expected = (first.usage["prompt_tokens"] * 2.0 + first.usage["completion_tokens"] * 10.0) / 1e6
        assert first.cost == pytest.approx(expected) and first.cost > 0
        again = evaluate(make_answer(page, BOX_A, BOX_B), [page], judge, cache=cache)
        assert len(srv.requests) == 3 and again.calls == 0 and again.cache_hits == 3
        assert (again.recall, again.precision) == (first.recall, first.precision)


def test_judge_reuses_an_existing_backend(page):
    from docrag.backends import get_backend

    with ScriptedOpenAIServer("yes") as srv:
        backend = get_backend("openai:shared", base_url=srv.base_url, api_key="k")
        judge = get_judge("openai:shared", backend=backend, max_image_side=32)
        assert isinstance(judge, ChatJudge) and judge.backend is backend
        evaluate(make_answer(page, BOX_A), [page], judge)
        [img] = srv.images(0)
        assert max(img.size) == 32   # scaled down to fit, aspect kept
        with pytest.raises(TypeError):
            get_judge("openai:shared", backend=backend, base_url="http://x")


def test_parallel_batch_gives_the_sequential_results(page):
    from docrag.citation import citation_scores, evaluate_many

    answers = [make_answer(page, BOX_A, BOX_B, text=f"Revenue rose {i}%.") for i in range(6)]

    def reply(req):
        images = srv.images(req)
        if len(images) == 2:
            return "yes"
        # answer "3%": the crop of box A (red channel starts at x=10) suffices alone
        return "yes" if "3%" in srv.texts(req)[0] and np.asarray(images[0])[0, 0, 0] == 10 else "no"

    with ScriptedOpenAIServer(reply) as srv:
        seq = evaluate_many(answers, [page], judge_for(srv), levels=("block",), progress=False)
        par = evaluate_many(answers, [page], judge_for(srv), levels=("block",), progress=False, workers=4)
    assert [(r.recall, r.precision) for r in seq] == [(r.recall, r.precision) for r in par]
    assert [r.precision for r in seq] == [1.0, 1.0, 1.0, 0.5, 1.0, 1.0]   # jointly needed, except "3%"
    assert seq[3].irrelevant == [1] and all(r.calls == 3 for r in seq)
    assert citation_scores(par)["B_Rec"] == 100.0


def test_page_level_full_resolution_when_asked(page):
    with ScriptedOpenAIServer("yes") as srv:
        evaluate(make_answer(page, BOX_A), [page], judge_for(srv, page_max_width=0), level="page")
    [full] = srv.images(srv.requests[0])
    assert full.size == (page.image_width, page.image_height)


@pytest.mark.parametrize("reply, value", [
    ("**Yes**", "yes"), ("Yes.", "yes"), ("  'No' ", "no"), ("- no, the boxes miss it", "no"), ("## YES", "yes"),
    ("Answer: yes", "yes"), ("**Verdict:** No.", "no"), ("`yes`", "yes"),
    ("I think yes", "error"), ("Yesterday", "error"), ("The answer is no", "error"), ("nope", "error"), ("", "error"),
])
def test_verdicts_with_markdown_or_punctuation_parse_a_substring_never(page, reply, value):
    with ScriptedOpenAIServer(reply) as srv:
        r = evaluate(make_answer(page, BOX_A), [page], judge_for(srv), level="page")
    assert (r.recall == 1.0) if value == "yes" else (r.recall == 0.0 if value == "no" else r.excluded)
