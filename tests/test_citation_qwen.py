"""The qwen-vl judge over the shared transformers backend, with a tiny random-weight checkpoint:
its garbage replies must become recorded errors (never "no"), and the evidence images must reach
the model (image tokens in the prompt)."""

from __future__ import annotations

import pytest

from docrag.citation import evaluate, get_judge, parse_verdict
from docrag.citation.chat_judge import ChatJudge
from docrag.geometry import Box
from docrag.types import Answer, Citation
from tests.support.citation_pages import synthetic_page


@pytest.fixture(scope="module")
def tiny_qwen(tmp_path_factory) -> str:
    pytest.importorskip("transformers")
    from tests.support.tiny_qwen_vl import build_tiny_qwen25_vl

    return str(build_tiny_qwen25_vl(tmp_path_factory.mktemp("tiny-qwen")))


def test_qwen_vl_judge_sends_images_and_never_reads_garbage_as_no(tiny_qwen, tmp_path):
    page = synthetic_page(tmp_path, dpi=36)
    judge = get_judge(f"qwen-vl:{tiny_qwen}", device="cpu", max_tokens=6)
    assert isinstance(judge, ChatJudge) and judge.backend.name == f"qwen-vl:{tiny_qwen}"
    ans = Answer("q", "Revenue was 42 million.",
                 citations=[Citation(page.page_id, [Box.points(10, 10, 300, 200, 612, 792)])])
    r = evaluate(ans, [page], judge, level="block", mode="crop")
    assert r.calls == 1
    raw = r.support_all.raw
    expected = parse_verdict(raw)
    assert r.support_all.value is expected.value          # strict parsing of whatever it said
    if expected.is_error:
        assert r.excluded and r.recall is None and len(r.errors) == 1
    from docrag.backends import ChatMessage
    from docrag.citation import build_prompt

    no_image = judge.backend.chat([ChatMessage.user(build_prompt(ans.answer, "crop"))], max_tokens=1)
    assert r.usage["prompt_tokens"] > no_image.usage["prompt_tokens"]   # the crop's image tokens
    assert r.usage["completion_tokens"] <= 6
