"""Exact MaxSim over listed pages: the former gather (per-page slices concatenated in the given order
into fresh buffers, then converted to fp32) against ``docrag.index.maxsim.maxsim_scores`` (pages in
file order, adjacent pages as one run, into a reused fp32 buffer), side by side in one process,
alternating, on a memory-mapped fp16 token file. Results must be identical.

    python benchmarks/search_gather.py --pages 4000 --tokens 725 --rerank 1024 --reps 5
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from docrag.index.maxsim import _sum_by_owner, _tensor, maxsim_scores, pack_queries  # noqa: E402


def former_maxsim(queries, tokens, offsets, page_rows=None, chunk_tokens=1 << 18) -> np.ndarray:
    """The gather used before (commit 0f33038), CPU path."""
    import torch

    q_flat, owner = pack_queries(queries)
    pages = np.arange(len(offsets) - 1) if page_rows is None else np.asarray(page_rows, dtype=np.int64)
    out = np.zeros((len(queries), len(pages)), dtype=np.float32)
    q_t = torch.from_numpy(q_flat)
    starts, ends = offsets[pages], offsets[pages + 1]
    chunk_tokens = max(1, min(chunk_tokens, (1 << 25) // max(1, q_flat.shape[0])))
    col = 0
    while col < len(pages):
        stop, budget = col + 1, ends[col] - starts[col]
        while stop < len(pages) and budget + (ends[stop] - starts[stop]) <= chunk_tokens:
            budget += ends[stop] - starts[stop]
            stop += 1
        lens = ends[col:stop] - starts[col:stop]
        block = tokens[starts[col]:ends[stop - 1]] if page_rows is None else \
            np.concatenate([tokens[s:e] for s, e in zip(starts[col:stop], ends[col:stop], strict=True)], axis=0)
        sim = (q_t @ _tensor(block).to(dtype=torch.float32).T).numpy()
        local = np.zeros(len(lens), dtype=np.int64)
        np.cumsum(lens[:-1], out=local[1:])
        out[:, col:stop] = _sum_by_owner(np.maximum.reduceat(sim, local, axis=1), owner, len(queries))
        col = stop
    return out


def main(argv: list[str] | None = None) -> int:
    import torch

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--pages", type=int, default=4000)
    p.add_argument("--tokens", type=int, default=725)
    p.add_argument("--rerank", type=int, default=1024, help="pages listed (random order) for the rerank case")
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--file", type=Path, default=Path("/tmp/docrag-gather-tokens.npy"))
    args = p.parse_args(argv)
    torch.set_num_threads(args.threads)
    rng = np.random.default_rng(0)
    n_tok = args.pages * args.tokens
    if not args.file.exists() or np.load(args.file, mmap_mode="r").shape != (n_tok, 128):
        from numpy.lib.format import open_memmap

        t = open_memmap(args.file, mode="w+", dtype=np.float16, shape=(n_tok, 128))
        for b in range(0, n_tok, 1 << 20):
            t[b:b + (1 << 20)] = rng.standard_normal((min(1 << 20, n_tok - b), 128), dtype=np.float32)
        t.flush()
        del t
    tokens = np.load(args.file, mmap_mode="r")
    offsets = np.arange(args.pages + 1, dtype=np.int64) * args.tokens
    load0 = os.getloadavg()
    times: dict[tuple[str, str], list[float]] = {}
    for _ in range(args.reps):
        q = rng.standard_normal((20, 128)).astype(np.float32)
        rows = rng.permutation(args.pages)[:args.rerank]
        for case, r in ((f"rerank {args.rerank:,} of {args.pages:,} pages (random order)", rows),
                        (f"exhaustive {args.pages:,} pages", None)):
            got = {}
            for name, fn in (("before", former_maxsim), ("after", maxsim_scores)):
                t0 = time.perf_counter()
                got[name] = fn([q], tokens, offsets, r)
                times.setdefault((case, name), []).append(time.perf_counter() - t0)
            if not np.array_equal(got["before"], got["after"]):
                raise SystemExit(f"{case}: results differ")
    out = sys.stdout.write
    out(f"{args.pages:,} pages x {args.tokens} tokens x 128 dims fp16 (memory-mapped), {args.threads} torch "
        f"thread(s), 20-token query, median of {args.reps}; load average {load0[0]:.1f} -> "
        f"{os.getloadavg()[0]:.1f}\n\n| what | before | after | speed-up |\n|---|---|---|---|\n")
    for case in dict.fromkeys(c for c, _ in times):
        b, a = (statistics.median(times[(case, x)]) for x in ("before", "after"))
        n = args.rerank if case.startswith("rerank") else args.pages
        out(f"| {case} | {1000 * b:,.0f} ms ({1000 * b / n:.2f} ms/page) | {1000 * a:,.0f} ms "
            f"({1000 * a / n:.2f} ms/page) | {b / a:.1f}x |\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
