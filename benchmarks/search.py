"""Multi-vector search benchmark: colpali-engine's exhaustive scoring vs docrag's exhaustive MaxSim vs
docrag's two-stage search, on synthetic ColQwen2-shaped page embeddings with planted relevance.

Pages (``--tokens`` x 128, unit norm, fp16) are generated streaming into a real docrag index folder
(memory-mapped shards), the first stages are built (per-page k-means centroids; sign bits with
``--binarize``), and every engine answers the same queries, one query per call. Reported per size:
query latency p50, how often the planted page is ranked first, top-10 overlap with exhaustive,
bytes per page per stage, index build time.

    python benchmarks/search.py --quick                       # < 1 minute
    python benchmarks/search.py --pages 10000,100000          # the BENCHMARKS.md run
    python benchmarks/search.py --recall CORPUS --qa ../shared/corpus/qa.jsonl   # retrieval quality

Exhaustive engines are slow at 100k pages: they answer only ``--exhaustive-sample`` queries there.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import shutil
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))   # benchmarks.synthetic
from benchmarks.synthetic import SyntheticCorpus, SyntheticSpec
from docrag.index.firststage import build_code_stage
from docrag.index.maxsim import _tensor
from docrag.index.store import SCHEMA, SCHEMA_VERSION, PageIndex, SearchOptions
from docrag.index.twostage import binarize, page_centroids

log = logging.getLogger("benchmarks.search")
PRELOAD_BUDGET = 4 << 30     # colpali-engine gets its fp32 page tensors preloaded when they fit in this


class PlantedRetriever:
    """Queries are ids into a list of synthetic query embeddings (pages are already encoded)."""

    name, kind, input = "synthetic", "multi", "none"

    def __init__(self, queries: list[np.ndarray]) -> None:
        self.queries = queries

    def encode_pages(self, pages, show_progress=True):
        raise TypeError("synthetic pages are written directly")

    def encode_queries(self, queries, show_progress=False):
        return [self.queries[int(q)] for q in queries]

    def describe(self) -> dict:
        return {"retriever": self.name, "kind": self.kind, "input": self.input, "settings": {}}


def build_index(root: Path, sc: SyntheticCorpus, n_pages: int, binary: bool, n_centroids: int,
                block: int = 512, tile: int = 0) -> dict:
    """Write pages into ``root`` as a one-segment docrag index; returns timings and sizes.

    ``tile`` > 0 (a multiple of ``block``): only that many distinct pages are generated (and their
    first stage built); page ``i`` is a copy of page ``i % tile`` -- for speed runs on a loaded box,
    where costs do not depend on the values."""
    from numpy.lib.format import open_memmap

    shutil.rmtree(root, ignore_errors=True)
    seg = root / "segments" / "synthetic"
    seg.mkdir(parents=True)
    distinct = tile if 0 < tile < n_pages else n_pages
    if distinct % block and distinct != n_pages:
        raise ValueError(f"--tile must be a multiple of {block}")
    lengths = np.array([sc.page_length(i % distinct) for i in range(n_pages)], dtype=np.int64)
    offsets = np.zeros(n_pages + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    dim = sc.spec.dim
    t0 = time.perf_counter()
    tokens = open_memmap(seg / "tokens.npy", mode="w+", dtype=np.float16, shape=(int(offsets[-1]), dim))
    for b in range(0, n_pages, block):
        stop = min(b + block, n_pages)
        if b < distinct:
            tokens[offsets[b]:offsets[stop]] = np.concatenate(list(sc.pages(b, stop)))
        else:
            src = b % distinct
            tokens[offsets[b]:offsets[stop]] = tokens[offsets[src]:offsets[src + stop - b]]
        if (b // block) % 20 == 0:
            log.info("generated %d/%d pages", stop, n_pages)
    tokens.flush()
    gen_s = time.perf_counter() - t0
    np.save(seg / "offsets.npy", offsets)
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)   # CPU time of a contended multi-threaded build counts spin-waits
    t0, cpu0 = time.perf_counter(), time.process_time()
    cents, c_off = [], [np.zeros(1, np.int64)]
    for b in range(0, distinct, block * 4):
        stop = min(b + block * 4, distinct)
        c, co = page_centroids(tokens[offsets[b]:offsets[stop]], offsets[b:stop + 1] - offsets[b], n_centroids)
        cents.append(c)
        c_off.append(co[1:] + c_off[-1][-1])
        log.info("centroids %d/%d pages", stop, n_pages)
    cents_all, c_off_all = np.concatenate(cents), np.concatenate(c_off)
    if distinct < n_pages:   # copies of the distinct pages' centroids
        counts = np.diff(c_off_all)[np.arange(n_pages) % distinct]
        c_off_all = np.zeros(n_pages + 1, dtype=np.int64)
        np.cumsum(counts, out=c_off_all[1:])
        reps, rest = divmod(n_pages, distinct)
        tail = int(np.sum(counts[:rest]))
        cents_all = np.concatenate([cents_all] * reps + [cents_all[:tail]])
    np.save(seg / "centroids.npy", cents_all)
    np.save(seg / "centroid_offsets.npy", c_off_all)
    centroid_s, centroid_cpu = time.perf_counter() - t0, time.process_time() - cpu0
    centroid_cpu_pages = distinct
    # the "codes" first stage: codebook trained on (the distinct) pages, page code sets
    t0, cpu0 = time.perf_counter(), time.process_time()
    book, page_codes, code_off = build_code_stage(tokens[:offsets[distinct]], offsets[:distinct + 1])
    if distinct < n_pages:
        counts = np.diff(code_off)[np.arange(n_pages) % distinct]
        reps, rest = divmod(n_pages, distinct)
        page_codes = np.concatenate([page_codes] * reps + [page_codes[:int(code_off[rest])]])
        code_off = np.zeros(n_pages + 1, dtype=np.int64)
        np.cumsum(counts, out=code_off[1:])
    np.save(seg / "codebook.npy", book)
    np.save(seg / "page_codes.npy", page_codes)
    np.save(seg / "code_offsets.npy", code_off)
    codes_s, codes_cpu = time.perf_counter() - t0, time.process_time() - cpu0
    torch.set_num_threads(threads)
    binary_s = 0.0
    if binary:
        t0 = time.perf_counter()
        bits = open_memmap(seg / "bits.npy", mode="w+", dtype=np.uint8, shape=(int(offsets[-1]), dim // 8))
        step = 1 << 20
        for s in range(0, int(offsets[-1]), step):
            bits[s:s + step] = binarize(tokens[s:s + step])
        bits.flush()
        binary_s = time.perf_counter() - t0
    page_ids = [f"syn:{i + 1}" for i in range(n_pages)]
    (seg / "pages.json").write_text(json.dumps(page_ids))
    manifest = {"schema": SCHEMA, "schema_version": SCHEMA_VERSION, "retriever": "synthetic", "kind": "multi",
                "input": "none", "settings": {}, "dims": dim, "dtype": "float16",
                "first_stage": ["codes", "centroids"] + (["binary"] if binary else []), "n_centroids": n_centroids,
                "corpus": {}, "doc_ids": ["syn"], "page_ids": page_ids, "n_pages": n_pages,
                "segments": [{"name": "synthetic", "n_pages": n_pages, "dead": []}]}
    (root / "manifest.json").write_text(json.dumps(manifest))
    avg_tokens = float(lengths.mean())
    return {"generate_s": gen_s, "centroids_s": centroid_s,
            "centroids_cpu_ms_per_page": 1000 * centroid_cpu / centroid_cpu_pages, "distinct_pages": distinct,
            "binary_s": binary_s, "avg_tokens": avg_tokens, "codes_s": codes_s,
            "codes_cpu_ms_per_page": 1000 * codes_cpu / distinct,
            "bytes_codes": (page_codes.nbytes + book.nbytes) / n_pages,
            "bytes_exact": avg_tokens * dim * 2, "bytes_centroids": n_centroids * dim * 2,
            "bytes_binary": avg_tokens * dim / 8}


def colpali_engine_scores(query: np.ndarray, tokens, offsets, preloaded, chunk_pages: int = 2048) -> np.ndarray:
    """colpali-engine's ``score_multi_vector`` over all pages (streamed from the fp16 shard in chunks
    of fp32 tensors when they do not fit in memory)."""
    import torch
    from colpali_engine.utils.processing_utils import BaseVisualRetrieverProcessor

    score = BaseVisualRetrieverProcessor.score_multi_vector
    q = [torch.from_numpy(query)]
    if preloaded is not None:
        return score(q, preloaded, device="cpu")[0].numpy()
    out = []
    for b in range(0, len(offsets) - 1, chunk_pages):
        stop = min(b + chunk_pages, len(offsets) - 1)
        block = _tensor(tokens[offsets[b]:offsets[stop]]).float()
        ps = [block[offsets[i] - offsets[b]:offsets[i + 1] - offsets[b]] for i in range(b, stop)]
        out.append(score(q, ps, device="cpu")[0].numpy())
    return np.concatenate(out)


def run_size(n_pages: int, args, spec: SyntheticSpec, workdir: Path) -> dict:
    load_start = os.getloadavg()
    sc = SyntheticCorpus(spec)
    root = workdir / f"index-{n_pages}"
    log.info("building %d pages x ~%d tokens", n_pages, spec.tokens_per_page)
    build = build_index(root, sc, n_pages, args.binarize, args.centroids, tile=args.tile)
    queries, targets = sc.queries(min(n_pages, args.tile or n_pages), args.queries)
    planted = [f"syn:{t + 1}" for t in targets]
    retriever = PlantedRetriever(queries)
    sample = args.queries if n_pages <= args.full_exhaustive_max else min(args.exhaustive_sample, args.queries)

    def engine(mode: str, first_stage: tuple[str, ...]) -> PageIndex:
        opts = SearchOptions(mode=mode, n_candidates=args.candidates, first_stage=first_stage,
                             max_candidates=args.max_candidates, candidates=args.policy)
        idx = PageIndex.load(retriever, root, None, opts)
        for seg in idx.segments:  # keep only the first stage under test
            if "binary" not in first_stage:
                seg.bits = None
            if "centroids" not in first_stage:
                seg.centroids = None
            if "codes" not in first_stage:
                seg.page_codes = None
        return idx

    def timed(fn, n):
        lat, tops = [], []
        for qi in range(n):
            t0 = time.perf_counter()
            tops.append(fn(qi))
            lat.append(time.perf_counter() - t0)
            log.info("query %d/%d: %.2f s", qi + 1, n, lat[-1])
        return lat, tops

    results: dict[str, dict] = {}
    exact = engine("exact", ("centroids",))
    seg = exact.segments[0]
    lat, tops = timed(lambda qi: [h.page_id for h in exact.search(str(qi), k=10)], sample)
    results["docrag exhaustive"] = {"lat": lat, "tops": tops, "bytes": build["bytes_exact"]}
    exhaustive_tops = tops
    preloaded = None
    cp_pages = min(args.colpali_pages or n_pages, n_pages)
    cp_n = min(args.colpali_sample or sample, sample)
    if cp_pages * build["avg_tokens"] * spec.dim * 4 <= PRELOAD_BUDGET:
        import torch

        preloaded = [torch.from_numpy(np.asarray(seg.tokens[seg.offsets[i]:seg.offsets[i + 1]], np.float32))
                     for i in range(cp_pages)]

    def colpali(qi):
        s = colpali_engine_scores(queries[qi], seg.tokens, seg.offsets[:cp_pages + 1], preloaded)
        return [f"syn:{i + 1}" for i in np.argsort(-s, kind="stable")[:10]]

    import colpali_engine.utils.processing_utils  # noqa: F401  -- imported before timing (15-30 s under load)

    lat, tops = timed(colpali, cp_n)
    note = "fp32 preloaded" if preloaded is not None else "fp16 shard streamed as fp32 chunks"
    if cp_pages < n_pages:   # cost is linear in pages (independent batches of 128): scale the time
        lat = [t * n_pages / cp_pages for t in lat]
        note += f"; timed on the first {cp_pages:,} pages x {n_pages / cp_pages:.1f}, quality columns not comparable"
    results["colpali-engine score_multi_vector"] = {"lat": lat, "tops": tops, "bytes": build["bytes_exact"],
                                                    "note": note}
    stages = [tuple(x.split("+")) for x in args.stages.split(",")]
    if args.binarize:
        stages += [("binary",), ("centroids", "binary")]
    for fs in stages:
        idx = engine("two-stage", fs)
        n = args.queries if "binary" not in fs or n_pages <= args.full_exhaustive_max else sample
        reranked: list[int] = []

        def search(qi, idx=idx, reranked=reranked):
            hits = idx.search(str(qi), k=10)
            reranked.extend(idx.last_search.get("reranked", []))
            return [h.page_id for h in hits]
        lat, tops = timed(search, n)
        first_bytes = sum(build[f"bytes_{s}"] for s in fs)
        policy = (f"rounds of {args.candidates} up to {args.max_candidates}" if args.policy == "adaptive"
                  else f"{args.candidates} cand.")
        results[f"docrag two-stage ({'+'.join(fs)}, {policy})"] = {
            "lat": lat, "tops": tops, "bytes": first_bytes,
            "note": f"mean {np.mean(reranked):.0f} reranked" if reranked else ""}
    rows = {}
    for name, r in results.items():
        n = len(r["tops"])
        found = [r["tops"][i][0] == planted[i] for i in range(n)]
        ex_found = [exhaustive_tops[i][0] == planted[i] for i in range(min(n, sample))]
        both = [found[i] for i in range(len(ex_found)) if ex_found[i]]
        overlap = [len(set(r["tops"][i]) & set(exhaustive_tops[i])) / 10 for i in range(min(n, sample))]
        rows[name] = {"queries": n, "p50_ms": 1000 * statistics.median(r["lat"]),
                      "planted_top1": float(np.mean(found)), "planted_top10": float(np.mean(
                          [planted[i] in r["tops"][i] for i in range(n)])),
                      "found_where_exhaustive_found": float(np.mean(both)) if both else float("nan"),
                      "top10_overlap": float(np.mean(overlap)), "bytes_per_page": r["bytes"],
                      "note": r.get("note", "")}
    base = rows["colpali-engine score_multi_vector"]["p50_ms"]
    ex = rows["docrag exhaustive"]["p50_ms"]
    for row in rows.values():
        row["speedup_vs_colpali"] = base / row["p50_ms"]
        row["speedup_vs_exhaustive"] = ex / row["p50_ms"]
    if not args.keep:
        shutil.rmtree(root, ignore_errors=True)
    return {"pages": n_pages, "build": build, "engines": rows, "exhaustive_sample": sample,
            "load_start": load_start, "load_end": os.getloadavg()}


def markdown(result: dict, spec: SyntheticSpec) -> str:
    b = result["build"]
    lines = [f"\n**{result['pages']:,} pages** x {b['avg_tokens']:.0f} tokens x {spec.dim} dims "
             f"(fp16 shard {result['pages'] * b['bytes_exact'] / 2**30:.1f} GiB, memory-mapped). "
             f"Generation {b['generate_s']:.0f} s (stands in for model encoding); index build: centroids "
             f"{b['centroids_s']:.1f} s ({b['centroids_cpu_ms_per_page']:.2f} ms CPU/page, one thread), codes "
             f"{b['codes_s']:.1f} s ({b['codes_cpu_ms_per_page']:.2f} ms CPU/page)"
             + (f", sign bits {b['binary_s']:.1f} s" if b["binary_s"] else "")
             + (f"; {b['distinct_pages']:,} distinct pages repeated (--tile)" if b["distinct_pages"] < result["pages"]
                else "")
             + f". Load average (1/5/15 min) {_load(result['load_start'])} at the start, "
             f"{_load(result['load_end'])} at the end.\n",
             "| engine | queries | p50 latency | x colpali-engine | x docrag exhaustive | planted page #1 "
             "| planted in top-10 | found where exhaustive found | top-10 overlap with exhaustive "
             "| bytes/page (stage) |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for name, r in result["engines"].items():
        note = f" ({r['note']})" if r["note"] else ""
        lines.append(f"| {name}{note} | {r['queries']} | {r['p50_ms']:.0f} ms | {r['speedup_vs_colpali']:.1f}x "
                     f"| {r['speedup_vs_exhaustive']:.1f}x "
                     f"| {r['planted_top1']:.1%} | {r['planted_top10']:.1%} | {r['found_where_exhaustive_found']:.1%} "
                     f"| {r['top10_overlap']:.2f} | {r['bytes_per_page']:,.0f} |")
    return "\n".join(lines) + "\n"


def _load(avg) -> str:
    return "/".join(f"{x:.1f}" for x in avg)


def recall_table(corpus_dir: Path, qa_path: Path, retrievers: list[str], workdir: Path) -> str:
    """Recall@1/3/5/10 and MRR of each retriever on a corpus with a FinRAGBench-style qa.jsonl
    (``doc`` = file name, ``pages`` = 1-based gold pages); fresh indexes in ``workdir``."""
    import docrag.index as di
    from docrag.corpus import Corpus

    corpus = Corpus.open(corpus_dir)
    qa = [json.loads(line) for line in qa_path.read_text(encoding="utf-8").splitlines() if line.strip()]
    gold = []
    for rec in qa:
        (doc,) = corpus.find_documents(rec["doc"])
        gold.append({f"{doc.doc_id}:{p}" for p in rec["pages"]})
    lines = [f"\n{len(qa)} questions, {len(corpus.page_ids())} pages ({corpus_dir.name}).\n",
             "| retriever | R@1 | R@3 | R@5 | R@10 | MRR | index build | query p50 |",
             "|---|---|---|---|---|---|---|---|"]
    for name in retrievers:
        shutil.rmtree(workdir / "recall", ignore_errors=True)
        t0 = time.perf_counter()
        idx = di.open_index(corpus, name, index_dir=workdir / "recall", show_progress=False)
        build_s = time.perf_counter() - t0
        lat, runs = [], []
        for rec in qa:
            t0 = time.perf_counter()
            runs.append([h.page_id for h in idx.search(rec["question"], k=10)])
            lat.append(time.perf_counter() - t0)
        rec_at = {k: np.mean([len(g & set(r[:k])) / len(g) for g, r in zip(gold, runs, strict=True)])
                  for k in (1, 3, 5, 10)}
        mrr = np.mean([next((1 / (i + 1) for i, p in enumerate(r) if p in g), 0.0) for g, r in zip(gold, runs,
                                                                                                   strict=True)])
        lines.append(f"| {name} | {rec_at[1]:.3f} | {rec_at[3]:.3f} | {rec_at[5]:.3f} | {rec_at[10]:.3f} | {mrr:.3f} "
                     f"| {build_s:.1f} s | {1000 * statistics.median(lat):.0f} ms |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--pages", default="10000,100000", help="comma-separated corpus sizes")
    p.add_argument("--tokens", type=int, default=750, help="tokens per page (ColQwen2 pages: ~750)")
    p.add_argument("--queries", type=int, default=100)
    p.add_argument("--exhaustive-sample", type=int, default=5,
                   help="queries answered by exhaustive engines above --full-exhaustive-max pages")
    p.add_argument("--full-exhaustive-max", type=int, default=20000)
    p.add_argument("--candidates", type=int, default=256,
                   help="first-stage candidates reranked exactly (per round with --policy adaptive)")
    p.add_argument("--max-candidates", type=int, default=2048, help="cap of the adaptive rounds")
    p.add_argument("--policy", choices=("adaptive", "fixed"), default="adaptive")
    p.add_argument("--page-noise", type=float, default=2.0, help="synthetic page noise (harder: 3-4)")
    p.add_argument("--concepts", type=int, default=8, help="synthetic concepts per page (harder: 32)")
    p.add_argument("--colpali-sample", type=int, default=0, help="queries colpali-engine answers (0: as exhaustive)")
    p.add_argument("--colpali-pages", type=int, default=0,
                   help="colpali-engine scores only the first N pages and its time is scaled to all (0: all)")
    p.add_argument("--threads", type=int, default=0, help="torch threads (0: torch's default)")
    p.add_argument("--tile", type=int, default=0,
                   help="generate only this many distinct pages (multiple of 512) and repeat them (speed runs)")
    p.add_argument("--stages", default="codes,centroids",
                   help="two-stage engines to run, comma-separated first stages (a+b fuses two)")
    p.add_argument("--centroids", type=int, default=32, help="centroids per page")
    p.add_argument("--binarize", action="store_true", help="also benchmark the sign-bit (popcount) first stage")
    p.add_argument("--workdir", type=Path, default=Path("/tmp/docrag-search-bench"))
    p.add_argument("--json-out", type=Path, default=None)
    p.add_argument("--keep", action="store_true", help="keep the generated index folders")
    p.add_argument("--quick", action="store_true", help="small run (< 1 minute)")
    p.add_argument("--recall", type=Path, default=None, metavar="CORPUS",
                   help="instead: retrieval quality of --retrievers on this corpus against --qa")
    p.add_argument("--qa", type=Path, default=None, help="qa.jsonl for --recall")
    p.add_argument("--retrievers", default="bm25,minilm,hybrid:bm25+minilm,dummy")
    args = p.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", stream=sys.stderr)
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)
    if args.recall is not None:
        if args.qa is None:
            p.error("--recall needs --qa")
        sys.stdout.write(recall_table(args.recall, args.qa, args.retrievers.split(","), args.workdir))
        return 0
    if args.quick:
        args.pages, args.tokens, args.queries, args.binarize = "1000", 300, 20, True
    spec = SyntheticSpec(tokens_per_page=args.tokens, token_jitter=max(1, args.tokens // 15),
                         page_noise=args.page_noise, concepts_per_page=args.concepts)
    results = []
    for n in (int(x) for x in args.pages.split(",")):
        res = run_size(n, args, spec, args.workdir)
        results.append(res)
        sys.stdout.write(markdown(res, spec))
        sys.stdout.flush()
    if args.json_out:
        args.json_out.write_text(json.dumps({"args": {k: str(v) for k, v in vars(args).items()},
                                             "results": results}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
