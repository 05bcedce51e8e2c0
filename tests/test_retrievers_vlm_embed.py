"""gme:, dse: and qwen3-vl-embed: on tiny random Qwen2-VL / Qwen3-VL checkpoints: each equals its
reference formula (prompt string, pre-resize, pooling, MRL) written out here, and indexes,
searches and reloads a small corpus."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from docrag.index import open_index
from docrag.index.registry import get_retriever
from tests.support.index_corpus import FINANCE_DOCS, make_corpus
from tests.support.tiny_qwen_vl import build_tiny_qwen2_vl, build_tiny_qwen3_vl

SMALL = 112 * 112   # max_pixels for the tiny runs


@pytest.fixture(scope="module")
def qwen2(tmp_path_factory):
    return build_tiny_qwen2_vl(tmp_path_factory.mktemp("q2") / "m")


@pytest.fixture(scope="module")
def qwen3(tmp_path_factory):
    return build_tiny_qwen3_vl(tmp_path_factory.mktemp("q3") / "m")


def _reference(model_dir, cls_name, texts, images, pooling, dim=None):
    """The families' published formulas, by hand: processor -> forward -> pooling -> [MRL] -> L2."""
    import torch
    import transformers

    net = getattr(transformers, cls_name).from_pretrained(model_dir, attn_implementation="eager").eval()
    proc = transformers.AutoProcessor.from_pretrained(model_dir)
    proc.tokenizer.padding_side = "left" if pooling == "last_position" else "right"
    batch = proc(text=texts, images=images, padding=True, return_tensors="pt")
    with torch.no_grad():
        out = net(**batch, output_hidden_states=True)
    hidden = out.hidden_states[-1]
    if pooling == "last_position":                       # DSE: reps = hidden_states[-1][:, -1]
        vec = hidden[:, -1]
    else:                                                # GME / Qwen3-VL-Embedding: last non-pad token
        vec = hidden[torch.arange(len(texts)), batch["attention_mask"].sum(1) - 1]
    if dim:
        vec = vec[:, :dim]
    return torch.nn.functional.normalize(vec, dim=-1).numpy()


def _fetch(img, min_pixels, max_pixels, factor):
    from qwen_vl_utils import fetch_image

    kw = {"image_patch_size": factor // 2} if factor != 28 else {}
    return fetch_image({"image": img, "min_pixels": min_pixels, "max_pixels": max_pixels}, **kw)


def _pages():
    return [Image.new("RGB", (180, 240), c) for c in ("white", "red")]


class _P:
    def __init__(self, img):
        self.img = img

    def load_image(self):
        return self.img


SYS = "<|im_start|>system\n{}<|im_end|>\n"
USER = "<|im_start|>user\n{}<|im_end|>\n<|im_start|>assistant\n"
IMG = "<|vision_start|><|image_pad|><|vision_end|>"


def test_gme_equals_reference(qwen2):
    r = get_retriever(f"gme:{qwen2}", device="cpu", max_pixels=SMALL)
    pages = _pages()
    got_p = np.stack(r.encode_pages([_P(p) for p in pages], show_progress=False))
    got_q = np.stack(r.encode_queries(["total revenue", "what were the operating costs in 2011"]))
    imgs = [_fetch(p, 4 * 28 * 28, SMALL, 28) for p in pages]
    ref_p = _reference(qwen2, "Qwen2VLForConditionalGeneration",
                       [SYS.format("You are a helpful assistant.") + USER.format(IMG) + "<|endoftext|>"] * 2,
                       imgs, "last_token")
    inst = "Find a screenshot that relevant to the user's question."
    ref_q = _reference(qwen2, "Qwen2VLForConditionalGeneration",
                       [SYS.format(inst) + USER.format(q) + "<|endoftext|>"
                        for q in ("total revenue", "what were the operating costs in 2011")], None, "last_token")
    np.testing.assert_allclose(got_p, ref_p, atol=1e-5)
    np.testing.assert_allclose(got_q, ref_q, atol=1e-5)
    assert got_p.shape == (2, 64)


def test_dse_equals_reference_with_mrl(qwen2):
    r = get_retriever(f"dse:{qwen2}", device="cpu", max_pixels=SMALL, dim=16)
    pages = _pages()
    got_p = np.stack(r.encode_pages([_P(p) for p in pages], show_progress=False))
    got_q = np.stack(r.encode_queries(["revenue", "operating costs in the year 2011"]))
    sys_ = SYS.format("You are a helpful assistant.")
    ref_p = _reference(qwen2, "Qwen2VLForConditionalGeneration",
                       [sys_ + USER.format(IMG + "What is shown in this image?") + "<|endoftext|>"] * 2,
                       [_fetch(p, 4 * 28 * 28, SMALL, 28) for p in pages], "last_position", dim=16)
    dummy = [Image.new("RGB", (56, 56), (0, 0, 0))] * 2
    ref_q = _reference(qwen2, "Qwen2VLForConditionalGeneration",
                       [sys_ + USER.format(IMG + f"Query: {q}") + "<|endoftext|>"
                        for q in ("revenue", "operating costs in the year 2011")], dummy, "last_position", dim=16)
    np.testing.assert_allclose(got_p, ref_p, atol=1e-5)
    np.testing.assert_allclose(got_q, ref_q, atol=1e-5)
    assert got_q.shape == (2, 16) and np.allclose(np.linalg.norm(got_q, axis=1), 1.0)


def test_qwen3_vl_embed_equals_reference(qwen3):
    r = get_retriever(f"qwen3-vl-embed:{qwen3}", device="cpu", max_pixels=128 * 128, dim=32)
    pages = _pages()
    got_p = np.stack(r.encode_pages([_P(p) for p in pages], show_progress=False))
    got_q = np.stack(r.encode_queries(["revenue", "operating costs in 2011"]))
    ref_p = _reference(qwen3, "Qwen3VLForConditionalGeneration",
                       [SYS.format("Represent the user's input.") + USER.format(IMG)] * 2,
                       [_fetch(p, 4 * 32 * 32, 128 * 128, 32) for p in pages], "last_token", dim=32)
    inst = "Retrieve images or text relevant to the user's query."
    ref_q = _reference(qwen3, "Qwen3VLForConditionalGeneration",
                       [SYS.format(inst) + USER.format(q) for q in ("revenue", "operating costs in 2011")],
                       None, "last_token", dim=32)
    np.testing.assert_allclose(got_p, ref_p, atol=1e-5)
    np.testing.assert_allclose(got_q, ref_q, atol=1e-5)
    custom = get_retriever(f"qwen3-vl-embed:{qwen3}", device="cpu", query_instruction="Find the table")
    assert custom.query_instruction == "Find the table."   # the official code adds the final period


@pytest.mark.parametrize("family", ["gme", "dse", "qwen3-vl-embed"])
def test_index_search_reload(family, qwen2, qwen3, tmp_path):
    corpus = make_corpus(tmp_path / "c", {"alpha": FINANCE_DOCS["alpha"], "beta": FINANCE_DOCS["beta"]})
    name = f"{family}:{qwen3 if family == 'qwen3-vl-embed' else qwen2}"
    idx = open_index(corpus, name, show_progress=False, device="cpu", max_pixels=SMALL, dim=16)
    hits = idx.search("total revenue", k=4)
    assert len(hits) == 4 and hits[0].score >= hits[-1].score
    assert idx.manifest["settings"]["dim"] == 16 and idx.manifest["settings"]["trust_remote_code"] is False
    again = open_index(corpus, name, build=False, show_progress=False, device="cpu")   # settings adopted
    assert [(h.page_id, round(h.score, 5)) for h in again.search("total revenue", k=4)] == \
        [(h.page_id, round(h.score, 5)) for h in hits]
