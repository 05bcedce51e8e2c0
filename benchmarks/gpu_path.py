"""The GPU path measured through docrag's own code, with random-weight models of real size.

No model hub is reachable from the GPU box, so the checkpoints are built from configs with the
published shapes (Qwen2-VL-2B for ColQwen2, Qwen2.5-VL-7B for generation) and random bf16 weights.
Throughput depends on shapes, not on weight values: pages/s and seconds per answer are those of the
real models, except that the vocabulary is the test tokenizer's (~600 ids instead of ~152k), which
removes the embedding/LM-head cost (~7 % of a decoding step of the 7B model; nothing for encoding).
Random weights never stop early: every answer decodes exactly ``--new-tokens`` tokens.

    PYTHONPATH=. python benchmarks/gpu_path.py --out results/gpu   # encode + generate + maxsim

Writes one JSON file per phase into ``--out`` as soon as the phase ends.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

log = logging.getLogger("gpu_path")

QWEN2_VL_2B_TEXT = dict(hidden_size=1536, intermediate_size=8960, num_hidden_layers=28, num_attention_heads=12,
                        num_key_value_heads=2, tie_word_embeddings=True)
QWEN2_VL_2B_VISION = dict(depth=32, embed_dim=1280, hidden_size=1536, mlp_ratio=4, num_heads=16, in_chans=3,
                          patch_size=14, spatial_merge_size=2, temporal_patch_size=2)
QWEN25_VL_7B_TEXT = dict(hidden_size=3584, intermediate_size=18944, num_hidden_layers=28, num_attention_heads=28,
                         num_key_value_heads=4, tie_word_embeddings=False)
QWEN25_VL_7B_VISION = dict(depth=32, hidden_size=1280, intermediate_size=3420, num_heads=16, in_channels=3,
                           out_hidden_size=3584, patch_size=14, spatial_merge_size=2, temporal_patch_size=2,
                           window_size=112, fullatt_block_indexes=[7, 15, 23, 31], tokens_per_second=2)
ROPE = {"rope_type": "default", "rope_theta": 1000000.0, "mrope_section": [16, 24, 24]}


def _write(out: Path, name: str, payload: dict) -> None:
    out.mkdir(parents=True, exist_ok=True)
    tmp = out / f".{name}.json.tmp"
    tmp.write_text(json.dumps(payload, indent=2))
    tmp.replace(out / f"{name}.json")
    log.info("%s: %s", name, json.dumps(payload))


def _env() -> dict:
    import torch
    import transformers

    return {"gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
            "torch": torch.__version__, "transformers": transformers.__version__,
            "cpu_count": os.cpu_count(), "python": platform.python_version()}


def make_pages(folder: Path, n: int, size: tuple[int, int] = (1190, 1684)) -> list:
    """``n`` page images (A4 at 144 dpi) with text-like content, as docrag ``Page`` records."""
    import numpy as np
    from PIL import Image, ImageDraw

    from docrag.types import Page

    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    pages = []
    distinct = min(n, 32)
    for i in range(distinct):
        im = Image.new("RGB", size, "white")
        draw = ImageDraw.Draw(im)
        for line in range(60):
            words = " ".join("".join(chr(97 + int(c)) for c in rng.integers(0, 26, rng.integers(2, 9)))
                             for _ in range(12))
            draw.text((60, 60 + line * 26), words, fill=(0, 0, 0))
        draw.rectangle((100, 1200, 1000, 1550), outline=(0, 0, 0), width=3)
        im.save(folder / f"p{i}.png")
    for i in range(n):
        pages.append(Page(doc_id="bench", page_no=i + 1, width_pt=595.0, height_pt=842.0, image=f"p{i % distinct}.png",
                          image_width=size[0], image_height=size[1], dpi=144.0, root=folder))
    return pages


def _tokenizer():
    from tests.support.tiny_qwen_vl import _tokenizer as tiny_tokenizer

    return tiny_tokenizer()


def _save_random(model_cls, cfg, proc, folder: Path, never_stop: bool = False) -> int:
    """Build ``model_cls(cfg)`` with random bf16 weights directly on the GPU, save it with ``proc``
    into ``folder`` and return its parameter count (``never_stop``: no EOS, every answer decodes
    ``max_new_tokens``)."""
    import torch

    torch.manual_seed(0)
    prev = torch.get_default_dtype()
    torch.set_default_dtype(torch.bfloat16)
    try:
        with torch.device("cuda"):
            model = model_cls(cfg).eval()
    finally:
        torch.set_default_dtype(prev)
    if never_stop:
        model.generation_config.pad_token_id = 0
        model.generation_config.eos_token_id = None
    n_params = sum(p.numel() for p in model.parameters())
    model.save_pretrained(folder)
    proc.save_pretrained(folder)
    del model
    torch.cuda.empty_cache()
    return n_params


def build_colqwen2(folder: Path, max_visual_tokens: int) -> Path:
    """A Qwen2-VL-2B-shaped ColQwen2 checkpoint with random bf16 weights."""
    from colpali_engine.models import ColQwen2, ColQwen2Processor
    from transformers import Qwen2VLConfig, Qwen2VLImageProcessor, Qwen2VLVideoProcessor

    from tests.support.tiny_qwen_vl import _token_ids

    tok = _tokenizer()
    img = Qwen2VLImageProcessor(min_pixels=4 * 28 * 28, max_pixels=max_visual_tokens * 28 * 28, patch_size=14,
                                temporal_patch_size=2, merge_size=2)
    proc = ColQwen2Processor(image_processor=img, tokenizer=tok, video_processor=Qwen2VLVideoProcessor())
    text = dict(QWEN2_VL_2B_TEXT, vocab_size=len(tok), rope_parameters=ROPE, bos_token_id=0, eos_token_id=2,
                pad_token_id=0)
    cfg = Qwen2VLConfig(text_config=text, vision_config=QWEN2_VL_2B_VISION, **_token_ids(tok))
    n_params = _save_random(ColQwen2, cfg, proc, folder)
    log.info("ColQwen2 (Qwen2-VL-2B shapes): %.2fB parameters", n_params / 1e9)
    return folder


def build_qwen25_vl(folder: Path) -> Path:
    """A Qwen2.5-VL-7B-shaped checkpoint with random bf16 weights (never emits EOS early)."""
    from transformers import (
        Qwen2_5_VLConfig,
        Qwen2_5_VLForConditionalGeneration,
        Qwen2_5_VLProcessor,
        Qwen2VLImageProcessor,
        Qwen2VLVideoProcessor,
    )

    from tests.support.tiny_qwen_vl import CHAT_TEMPLATE, _token_ids

    tok = _tokenizer()
    proc = Qwen2_5_VLProcessor(image_processor=Qwen2VLImageProcessor(min_pixels=4 * 28 * 28,
                                                                     max_pixels=1280 * 28 * 28),
                               tokenizer=tok, video_processor=Qwen2VLVideoProcessor(), chat_template=CHAT_TEMPLATE)
    text = dict(QWEN25_VL_7B_TEXT, vocab_size=len(tok), rope_parameters=ROPE, bos_token_id=0, eos_token_id=2,
                pad_token_id=0)
    cfg = Qwen2_5_VLConfig(text_config=text, vision_config=QWEN25_VL_7B_VISION, **_token_ids(tok))
    n_params = _save_random(Qwen2_5_VLForConditionalGeneration, cfg, proc, folder, never_stop=True)
    log.info("Qwen2.5-VL (7B shapes): %.2fB parameters", n_params / 1e9)
    return folder


def phase_encode(work: Path, out: Path, n_pages: int, batches: list[int], workers: list[int]) -> None:
    import torch

    from docrag.index import get_retriever

    t0 = time.perf_counter()
    ckpt = build_colqwen2(work / "colqwen2-2b-random", max_visual_tokens=768)
    build_s = time.perf_counter() - t0
    pages = make_pages(work / "pages", n_pages)
    rows = []
    for w in workers:
        for b in batches:
            retr = get_retriever(f"colqwen2:{ckpt}", device="cuda", dtype="bfloat16", batch_size=b,
                                 loader_workers=w)
            t_load = time.perf_counter()
            retr.encode_pages(pages[:b], show_progress=False)     # load + warm-up
            warm_s = time.perf_counter() - t_load
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
            t1 = time.perf_counter()
            embs = retr.encode_pages(pages, show_progress=False)
            torch.cuda.synchronize()
            dt = time.perf_counter() - t1
            tokens = sum(e.shape[0] for e in embs) / len(embs)
            q0 = time.perf_counter()
            retr.encode_queries([f"what is the total revenue in {2000 + i}?" for i in range(256)])
            q_dt = time.perf_counter() - q0
            rows.append({"batch_size": b, "loader_workers": w, "pages": len(pages), "seconds": round(dt, 2),
                         "pages_per_s": round(len(pages) / dt, 1), "tokens_per_page": round(tokens, 1),
                         "queries_per_s": round(256 / q_dt, 1), "load_and_warmup_s": round(warm_s, 1),
                         "peak_gpu_gib": round(torch.cuda.max_memory_allocated() / 2**30, 2)})
            log.info("encode %s", rows[-1])
            del retr
            import gc

            gc.collect()
            torch.cuda.empty_cache()
    # preprocessing alone (one process), to see what the loader workers must hide
    from colpali_engine.models import ColQwen2Processor

    proc = ColQwen2Processor.from_pretrained(ckpt)
    imgs = [p.load_image() for p in pages[:32]]
    p0 = time.perf_counter()
    for i in range(0, 32, 8):
        proc.process_images(imgs[i:i + 8])
    prep = (time.perf_counter() - p0) / 32
    _write(out, "encode", {"model": "ColQwen2, Qwen2-VL-2B shapes, random bf16 weights, max 768 visual tokens",
                           "build_s": round(build_s, 1), "preprocess_ms_per_page_one_core": round(prep * 1000, 1),
                           "rows": rows, "env": _env()})


def phase_generate(work: Path, out: Path, n_answers: int, k: int, new_tokens: int) -> None:
    import torch

    from docrag.generation import get_generator

    t0 = time.perf_counter()
    ckpt = build_qwen25_vl(work / "qwen25-vl-7b-random")
    build_s = time.perf_counter() - t0
    pages = make_pages(work / "pages", max(k, 8))
    t1 = time.perf_counter()
    gen = get_generator(f"qwen-vl:{ckpt}", device="cuda", dtype="bfloat16", max_tokens=new_tokens)
    gen.generate("warm-up question?", pages[:k])
    load_s = time.perf_counter() - t1
    torch.cuda.reset_peak_memory_stats()
    times, prompt_tokens, completion = [], [], []
    for i in range(n_answers):
        a0 = time.perf_counter()
        ans = gen.generate(f"What was the total revenue in {2010 + i}?", pages[i % 3:i % 3 + k])
        times.append(time.perf_counter() - a0)
        usage = ans.usage or {}
        prompt_tokens.append(int(usage.get("prompt_tokens", 0)))
        completion.append(int(usage.get("completion_tokens", 0)))
    times.sort()
    _write(out, "generate", {"model": "Qwen2.5-VL-7B shapes, random bf16 weights, sdpa, transformers generate",
                             "k_pages": k, "new_tokens": new_tokens, "answers": n_answers,
                             "build_s": round(build_s, 1), "load_and_warmup_s": round(load_s, 1),
                             "p50_s_per_answer": round(times[len(times) // 2], 2),
                             "mean_s_per_answer": round(sum(times) / len(times), 2),
                             "answers_per_s": round(len(times) / sum(times), 3),
                             "prompt_tokens_mean": round(sum(prompt_tokens) / len(prompt_tokens)),
                             "completion_tokens_mean": round(sum(completion) / len(completion)),
                             "peak_gpu_gib": round(torch.cuda.max_memory_allocated() / 2**30, 2), "env": _env()})


def phase_maxsim(out: Path, n_pages: int, tokens: int, dim: int, queries: int) -> None:
    """Exact MaxSim with the token store resident on the GPU: docrag's engine vs colpali-engine's."""
    import numpy as np
    import torch

    from docrag.index.maxsim import RESIDENT_METHODS, maxsim_scores, maxsim_scores_resident

    g = torch.Generator(device="cuda").manual_seed(0)
    store = torch.randn(n_pages * tokens, dim, device="cuda", dtype=torch.float16, generator=g)
    store /= store.norm(dim=1, keepdim=True)
    offsets = np.arange(0, (n_pages + 1) * tokens, tokens, dtype=np.int64)
    qs = [np.random.default_rng(i).standard_normal((20, dim)).astype(np.float32) for i in range(queries)]

    def per_query_ms(score) -> tuple[float, np.ndarray]:
        """Mean ms per one-query call of ``score`` (after one warm-up call) and the last scores."""
        score(qs[0])
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for q in qs:
            last = score(q)
        torch.cuda.synchronize()
        return round((time.perf_counter() - t0) * 1000 / queries, 1), np.asarray(last, dtype=np.float32)

    rows = []
    ms, docrag_scores = per_query_ms(lambda q: maxsim_scores([q], store, offsets, device="cuda")[0])
    rows.append({"engine": "docrag maxsim_scores (store resident, fp16)", "ms_per_query": ms})
    log.info("maxsim %s", rows[-1])
    rng = np.random.default_rng(1)
    lens = rng.integers(tokens - 125, tokens + 126, n_pages)
    lens = np.minimum(lens, store.shape[0] // n_pages)   # variable lengths inside the same store
    var_offsets = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)
    for label, offs in (("equal lengths", offsets), ("lengths 600-725", var_offsets)):
        for method in RESIDENT_METHODS:
            ms, resident = per_query_ms(lambda q, o=offs, m=method: maxsim_scores_resident([q], store, o, method=m)[0])
            row = {"engine": f"docrag maxsim_scores_resident method={method} ({label})", "ms_per_query": ms}
            if offs is offsets:
                row["max_abs_diff_vs_docrag"] = float(np.abs(resident - docrag_scores).max())
            rows.append(row)
            log.info("maxsim %s", rows[-1])
    try:
        from colpali_engine.utils.processing_utils import BaseVisualRetrieverProcessor

        view = store.view(n_pages, tokens, dim)
        score_multi_vector = BaseVisualRetrieverProcessor.score_multi_vector
        ms, cp = per_query_ms(lambda q: score_multi_vector([torch.from_numpy(q).to("cuda", torch.float16)], view,
                                                           device="cuda", batch_size=4096).float().cpu().numpy()[0])
        rows.append({"engine": "colpali-engine score_multi_vector (fp16 on GPU, batch 4096 pages)",
                     "ms_per_query": ms, "max_abs_diff_vs_docrag": float(np.abs(cp - docrag_scores).max())})
        log.info("maxsim %s", rows[-1])
    except Exception as exc:  # a reported measurement failure, not a silent one
        rows.append({"engine": "colpali-engine score_multi_vector", "error": repr(exc)})
    _write(out, "maxsim", {"pages": n_pages, "tokens_per_page": tokens, "dim": dim, "queries": queries,
                           "store_gib": round(store.numel() * 2 / 2**30, 2), "rows": rows, "env": _env()})


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "gpu")
    ap.add_argument("--work", type=Path, default=None)
    ap.add_argument("--phases", default="encode,generate,maxsim")
    ap.add_argument("--pages", type=int, default=256)
    ap.add_argument("--batches", default="8,16,32")
    ap.add_argument("--workers", default="2")
    ap.add_argument("--answers", type=int, default=5)
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--new-tokens", type=int, default=150)
    ap.add_argument("--maxsim-pages", type=int, default=100_000)
    ap.add_argument("--maxsim-queries", type=int, default=20)
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", stream=sys.stdout)
    work = args.work or Path(tempfile.mkdtemp(prefix="gpu-path-"))
    phases = args.phases.split(",")
    for phase in phases:
        t0 = time.perf_counter()
        if phase == "encode":
            phase_encode(work, args.out, args.pages, [int(b) for b in args.batches.split(",")],
                         [int(w) for w in args.workers.split(",")])
        elif phase == "generate":
            phase_generate(work, args.out, args.answers, args.k, args.new_tokens)
        elif phase == "maxsim":
            phase_maxsim(args.out, args.maxsim_pages, 725, 128, args.maxsim_queries)
        else:
            raise SystemExit(f"unknown phase {phase!r}; use encode, generate, maxsim")
        log.info("phase %s done in %.0f s", phase, time.perf_counter() - t0)


if __name__ == "__main__":
    main()
