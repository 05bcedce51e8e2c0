"""The ``qwen-vl:`` generator citing by region, on CUDA, with a tiny random-weight Qwen2.5-VL checkpoint.

Checks on the GPU what the CPU tests check elsewhere: the model runs on ``cuda`` in bf16 through the
generator, the numbered region marks are drawn on the copy sent to the model and never on the stored
page image, and a cancel token ends ``generate`` at the next token (then the model is free again).
Skipped where no CUDA device is present.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
import torch

from docrag.backends import ImagePart
from docrag.cancel import Cancelled, CancelToken, cancel_scope
from docrag.generation import get_generator
from docrag.types import Answer
from tests.support.synthetic_pages import Region, make_page

pytest.importorskip("qwen_vl_utils")
pytest.importorskip("transformers")

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")]

WHITE = (255, 255, 255)


@pytest.fixture(scope="module")
def tiny_qwen(tmp_path_factory):
    from tests.support.tiny_qwen_vl import build_tiny_qwen25_vl

    return build_tiny_qwen25_vl(tmp_path_factory.mktemp("gpu-models") / "tiny-qwen25-vl")


@pytest.fixture
def page(tmp_path):
    # white regions: nothing of them shows on the stored image, so any colour there is a mark
    return make_page(tmp_path / "pages", [Region((72, 100, 300, 180), WHITE, "Revenue rose to 5.2 million."),
                                          Region((72, 300, 400, 420), WHITE, "Costs fell.")])


def _generator(tiny_qwen, max_tokens: int):
    gen = get_generator(f"qwen-vl:{tiny_qwen}", device="cuda", max_tokens=max_tokens, cite_by="regions")
    model = gen.backend._loaded.model
    assert gen.backend._loaded.device == "cuda"
    param = next(model.parameters())
    assert param.device.type == "cuda" and param.dtype == torch.bfloat16
    return gen, model


def _digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_regions_on_cuda_mark_the_sent_copy_only(tiny_qwen, page):
    from docrag.generation.marks import PALETTE
    from docrag.regions import page_regions

    stored_before = _digest(page.image_path)
    pixels_before = np.asarray(page.load_image())
    gen, model = _generator(tiny_qwen, max_tokens=16)
    sent, logits_devices = [], []
    chat = gen.backend.chat

    def spy(messages, **kw):
        sent.append(messages)
        return chat(messages, **kw)

    gen.backend.chat = spy
    hook = model.get_output_embeddings().register_forward_hook(
        lambda _m, _i, out: logits_devices.append(out.device.type))
    try:
        ans = gen.generate("What is the revenue?", [page])
    finally:
        hook.remove()

    assert isinstance(ans, Answer) and ans.meta["cite_by"] == "regions"
    regions = page_regions(page)
    assert len(regions) >= 2 and ans.meta["images"][0]["regions"] == len(regions)
    assert ans.usage["completion_tokens"] > 0 and ans.raw is not None
    assert logits_devices and set(logits_devices) == {"cuda"}     # every decoding step ran on the GPU
    # the copy sent carries the first region's outline in its palette colour ...
    (image,) = [p.image for p in sent[0][0].content if isinstance(p, ImagePart)]
    w, h = image.size
    assert [w, h] == ans.meta["images"][0]["sent_size"]
    first = regions[0].box.to_pixels(w, h)
    edge = image.getpixel((int((first.x0 + first.x1) / 2), int(first.y1)))
    assert max(abs(a - b) for a, b in zip(edge, PALETTE[0], strict=True)) < 10
    texts = [p.text for p in sent[0][0].content if hasattr(p, "text")]
    assert any(t.startswith("Regions of image 1") and t.count("\n#") == len(regions) for t in texts)
    # ... and the stored page image is untouched (same file, same pixels, still white at that edge)
    assert _digest(page.image_path) == stored_before
    pixels_after = np.asarray(page.load_image())
    assert np.array_equal(pixels_after, pixels_before)
    sw, sh = page.image_width, page.image_height
    stored_first = regions[0].box.to_pixels(sw, sh)
    assert tuple(pixels_after[int(stored_first.y1) - 1, int((stored_first.x0 + stored_first.x1) / 2)]) == WHITE


def test_cancel_ends_cuda_generation_at_the_next_token(tiny_qwen, page, monkeypatch):
    gen, model = _generator(tiny_qwen, max_tokens=32)
    # no end-of-text token: uncancelled, generation runs to max_tokens whatever the random weights say
    monkeypatch.setattr(model.generation_config, "eos_token_id", None)
    steps: list[str] = []
    tokens: list[CancelToken] = []

    def on_logits(_m, _i, out):
        steps.append(out.device.type)
        if tokens and len(steps) == 3:
            tokens[0].cancel("client gone")      # as the server does when the client disconnects

    hook = model.get_output_embeddings().register_forward_hook(on_logits)
    try:
        full = gen.generate("What is the revenue?", [page])
        assert full.usage["completion_tokens"] == 32 and len(steps) == 32
        steps.clear()
        tokens.append(CancelToken())
        with cancel_scope(tokens[0]), pytest.raises(Cancelled) as exc:
            gen.generate("What is the revenue?", [page])
    finally:
        hook.remove()
    assert exc.value.stage == "the model's generation" and exc.value.reason == "client gone"
    assert steps == ["cuda"] * 3                 # stopped right after the token during which it was cancelled
    assert not gen.backend._loaded.lock.locked()
    again = gen.generate("What is the revenue?", [page])     # the model is free for the next answer
    assert again.usage["completion_tokens"] == 32
