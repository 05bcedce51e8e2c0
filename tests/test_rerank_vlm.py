"""qwen3-vl-rerank: and monoqwen: (yes/no logits over page images) on tiny random Qwen3-VL and a tiny
LoRA adapter on Qwen2-VL: scores equal the reference formula, and they rerank an index's hits."""

from __future__ import annotations

import pytest
from PIL import Image

from docrag.index import open_index
from docrag.index.rerank import get_reranker
from tests.support.index_corpus import FINANCE_DOCS, make_corpus
from tests.support.tiny_qwen_vl import build_tiny_qwen2_vl, build_tiny_qwen3_vl

IMG = "<|vision_start|><|image_pad|><|vision_end|>"


class _P:
    def __init__(self, color):
        self.img = Image.new("RGB", (150, 200), color)

    def load_image(self):
        return self.img


@pytest.fixture(scope="module")
def qwen3(tmp_path_factory):
    return build_tiny_qwen3_vl(tmp_path_factory.mktemp("q3r") / "m")


@pytest.fixture(scope="module")
def mono_adapter(tmp_path_factory):
    from peft import LoraConfig, get_peft_model
    from transformers import AutoProcessor, Qwen2VLForConditionalGeneration

    root = tmp_path_factory.mktemp("mono")
    base = build_tiny_qwen2_vl(root / "base", extra_tokens=("True", "False"))
    net = Qwen2VLForConditionalGeneration.from_pretrained(base, attn_implementation="eager")
    peft = get_peft_model(net, LoraConfig(r=4, target_modules=["q_proj", "v_proj"], init_lora_weights=False))
    peft.save_pretrained(root / "adapter")
    AutoProcessor.from_pretrained(base).save_pretrained(root / "adapter")
    return root / "adapter", base


def _reference(cls_name, model_dir, texts, images, yes, no, adapter=None):
    import torch
    import transformers

    net = getattr(transformers, cls_name).from_pretrained(model_dir, attn_implementation="eager").eval()
    if adapter is not None:
        from peft import PeftModel

        net = PeftModel.from_pretrained(net, adapter).eval()
    proc = transformers.AutoProcessor.from_pretrained(model_dir)
    proc.tokenizer.padding_side = "left"
    batch = proc(text=texts, images=images, padding=True, return_tensors="pt")
    with torch.no_grad():
        logits = net(**batch).logits[:, -1, :]
    y, n = proc.tokenizer.convert_tokens_to_ids(yes), proc.tokenizer.convert_tokens_to_ids(no)
    return torch.softmax(logits[:, [y, n]], dim=-1)[:, 0].tolist()   # = sigmoid(yes - no)


def _fetch(img, factor, max_pixels):
    from qwen_vl_utils import fetch_image

    kw = {"image_patch_size": factor // 2} if factor != 28 else {}
    return fetch_image({"image": img, "min_pixels": 4 * factor * factor, "max_pixels": max_pixels}, **kw)


def test_qwen3_vl_rerank_equals_reference(qwen3):
    pages = [_P("white"), _P("red"), _P("blue")]
    got = get_reranker(f"qwen3-vl-rerank:{qwen3}", device="cpu", max_pixels=96 * 96).score("total revenue", pages)
    system = ('Judge whether the Document meets the requirements based on the Query and the Instruct provided. '
              'Note that the answer can only be "yes" or "no".')
    text = (f"<|im_start|>system\n{system}<|im_end|>\n<|im_start|>user\n<Instruct>: Given a search query, retrieve "
            f"relevant candidates that answer the query.<Query>:total revenue\n<Document>:{IMG}<|im_end|>\n"
            "<|im_start|>assistant\n")
    ref = _reference("Qwen3VLForConditionalGeneration", qwen3, [text] * 3,
                     [_fetch(p.img, 32, 96 * 96) for p in pages], "yes", "no")
    assert got == pytest.approx(ref, abs=1e-5)
    assert len({round(s, 6) for s in got}) == 3


def test_monoqwen_lora_equals_reference_and_reranks_an_index(mono_adapter, tmp_path):
    adapter, base = mono_adapter
    pages = [_P("white"), _P("green")]
    rr = get_reranker(f"monoqwen:{adapter}", device="cpu", max_pixels=112 * 112)
    got = rr.score("arrests by offense", pages)
    text = ("<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\n" + IMG +
            "Assert the relevance of the previous image document to the following query, answer True or False. "
            "The query is: arrests by offense<|im_end|>\n<|im_start|>assistant\n")
    ref = _reference("Qwen2VLForConditionalGeneration", base, [text] * 2,
                     [_fetch(p.img, 28, 112 * 112) for p in pages], "True", "False", adapter=adapter)
    assert got == pytest.approx(ref, abs=1e-5)
    # as a rerank stage over bm25: the order follows the reranker's scores, first-stage scores kept
    corpus = make_corpus(tmp_path / "c", FINANCE_DOCS)
    idx = open_index(corpus, "bm25", show_progress=False, rerank=f"monoqwen:{adapter}", rerank_depth=6)
    hits = idx.search("revenue costs production arrests survey results", k=4)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert all(h.reranker.startswith("monoqwen:") and h.first_stage_rank is not None for h in hits)
