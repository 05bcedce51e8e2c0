"""Scale-out figures measured locally, side by side in one run (docs/scale.md, BENCHMARKS.md "Scale-out").

1. Ingest pages/s of the same PDFs (the shared development PDFs + generated ones, ``--repeat`` times
   inside each file, as ``benchmarks/ingest.py``): the local engine (1 and 2 worker processes) vs
   ``--engine ray`` on a local cluster of 1 and 2 CPUs. Ray is timed warm (cluster started and its
   workers' imports done by a small untimed ingest); the cold start is reported apart.
2. Query latency, Qdrant local mode vs the in-house index, on the same synthetic vectors: dense
   (384-d unit vectors) and multi-vector (ColQwen2-shaped, 128-d tokens), one query per call,
   median ms, and overlap@10 with the in-house exact ranking.
3. Encoding throughput of ``minilm`` on this CPU, local vs a 2-actor Ray pool (pages/s).

    python benchmarks/scale.py [--repeat 2] [--dense-pages 20000] [--multi-pages 500] [--write BENCHMARKS.md]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

SECTION = "## Scale-out (Ray, Qdrant)"


def ingest_figures(repeat: int, tmp: Path) -> list[tuple[str, int, float]]:
    import ray
    from ingest import build_inputs  # benchmarks/ingest.py

    from docrag.ingestion import ingest

    inputs = build_inputs(tmp / "in", repeat)
    warm = inputs[-1]
    rows = []
    for workers in (1, 2):
        t0 = time.perf_counter()
        rep = ingest(inputs, tmp / f"local{workers}", workers=workers, show_progress=False)
        rows.append((f"local engine, {workers} worker process(es)", rep.n_pages, time.perf_counter() - t0))
    for cpus in (1, 2):
        t0 = time.perf_counter()
        ray.init(num_cpus=cpus, include_dashboard=False, log_to_driver=False, object_store_memory=256 << 20)
        ingest([warm], tmp / f"warm{cpus}", engine="ray", show_progress=False)
        cold = time.perf_counter() - t0
        t0 = time.perf_counter()
        rep = ingest(inputs, tmp / f"ray{cpus}", engine="ray", show_progress=False)
        rows.append((f"ray engine, {cpus} CPU worker(s) (cluster start + warm-up {cold:.1f}s not included)",
                     rep.n_pages, time.perf_counter() - t0))
        ray.shutdown()
    from docrag.corpus import Corpus

    fps = {Corpus.open(tmp / d).fingerprint() for d in ("local1", "local2", "ray1", "ray2")}
    assert len(fps) == 1, f"engines made different corpora: {fps}"
    return rows


class FixedRetriever:
    """Serves precomputed vectors: pages by page id, queries by their string 'q<i>'."""

    def __init__(self, kind: str, pages: dict[str, np.ndarray], queries: list[np.ndarray]) -> None:
        from docrag.index.base import Retriever

        class _R(Retriever):
            name = f"fixed-{kind}"

            def encode_pages(self_, pages_, show_progress=True):
                return [pages[p.page_id] for p in pages_]

            def encode_queries(self_, qs, show_progress=False):
                return [queries[int(q[1:])] for q in qs]

        self.retriever = _R()
        self.retriever.kind = kind


def _pages(n: int):
    from docrag.types import Page

    return [Page(doc_id=f"d{i // 10:05d}", page_no=i % 10 + 1, width_pt=612, height_pt=792, file_name=f"d{i // 10}.pdf",
                 lang="en") for i in range(n)]


def _time_queries(index, n_queries: int, k: int = 10) -> tuple[float, list[list[str]]]:
    lat, out = [], []
    for i in range(n_queries):
        t0 = time.perf_counter()
        hits = index.search(f"q{i}", k=k)
        lat.append(time.perf_counter() - t0)
        out.append([h.page_id for h in hits])
    return statistics.median(lat) * 1000, out


def _overlap(a: list[list[str]], b: list[list[str]]) -> float:
    return float(np.mean([len(set(x) & set(y)) / max(1, len(x)) for x, y in zip(a, b, strict=True)]))


def query_figures(dense_pages: int, multi_pages: int, tmp: Path) -> list[tuple[str, int, float, float]]:
    from benchmarks.synthetic import SyntheticCorpus, SyntheticSpec
    from docrag.index.qdrant_store import QdrantIndex, QdrantOptions, close_clients, parse_store
    from docrag.index.store import PageIndex, SearchOptions

    rows = []
    rng = np.random.default_rng(0)
    pages = _pages(dense_pages)
    vecs = rng.normal(size=(dense_pages, 384)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    qv = [v / np.linalg.norm(v) for v in (vecs[rng.integers(0, dense_pages, 50)]
                                          + 0.8 * rng.normal(size=(50, 384)) / np.sqrt(384)).astype(np.float32)]
    fixed = FixedRetriever("dense", {p.page_id: v for p, v in zip(pages, vecs, strict=True)}, qv).retriever
    inhouse = PageIndex.in_memory(fixed, pages)
    ms, ref = _time_queries(inhouse, len(qv))
    rows.append(("dense 384-d, in-house (FAISS flat IP)", dense_pages, ms, 1.0))
    q = QdrantIndex(fixed, parse_store(f"qdrant:{tmp / 'qd'}"), "dense", tmp / "qd-dense.json")
    q.add(pages, show_progress=False)
    ms, got = _time_queries(q, len(qv))
    rows.append(("dense 384-d, Qdrant local mode (cosine)", dense_pages, ms, _overlap(ref, got)))

    spec = SyntheticSpec(tokens_per_page=256, token_jitter=30)
    syn = SyntheticCorpus(spec)
    pages = _pages(multi_pages)
    toks = dict(zip((p.page_id for p in pages), syn.pages(0, multi_pages), strict=True))
    queries, _ = syn.queries(multi_pages, 20)
    fixed = FixedRetriever("multi", toks, queries).retriever
    exact = PageIndex.in_memory(fixed, pages, options=SearchOptions(mode="exact"))
    ms, ref = _time_queries(exact, len(queries))
    rows.append(("multi 128-d x ~240 tokens, in-house exact MaxSim", multi_pages, ms, 1.0))
    two = PageIndex.in_memory(fixed, pages, options=SearchOptions(mode="two-stage", n_candidates=64))
    ms, got = _time_queries(two, len(queries))
    rows.append(("multi, in-house two-stage (centroids, 64 rescored)", multi_pages, ms, _overlap(ref, got)))
    q = QdrantIndex(fixed, parse_store(f"qdrant:{tmp / 'qd'}"), "multi", tmp / "qd-multi.json",
                    QdrantOptions(mode="exact"))
    q.add(pages, show_progress=False)
    ms, got = _time_queries(q, len(queries))
    rows.append(("multi, Qdrant local mode MAX_SIM (one stage)", multi_pages, ms, _overlap(ref, got)))
    q.options = QdrantOptions(mode="two-stage", n_candidates=64)
    ms, got = _time_queries(q, len(queries))
    rows.append(("multi, Qdrant local mode prefetch pooled -> MAX_SIM (64)", multi_pages, ms, _overlap(ref, got)))
    close_clients()
    return rows


def encode_figures(tmp: Path) -> list[tuple[str, int, float]]:
    import ray

    from docrag.index.ray_encode import RayRetriever
    from docrag.index.registry import get_retriever
    from tests.support.index_corpus import make_corpus

    texts = {f"doc{d}": [" ".join(f"word{(d * 7 + p * 13 + w) % 997}" for w in range(250)) for p in range(8)]
             for d in range(6)}
    corpus = make_corpus(tmp / "enc", texts)
    pages = corpus.pages()
    base = get_retriever("minilm", device="cpu")
    base.encode_pages(pages[:4], show_progress=False)
    t0 = time.perf_counter()
    base.encode_pages(pages, show_progress=False)
    rows = [("minilm, local (this process)", len(pages), time.perf_counter() - t0)]
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, object_store_memory=256 << 20)
    wrapped = RayRetriever(base, "minilm", {"device": "cpu"}, actors=2)
    wrapped.encode_pages(pages[:8], show_progress=False)   # actors up, models loaded
    t0 = time.perf_counter()
    wrapped.encode_pages(pages, show_progress=False)
    rows.append(("minilm, Ray pool of 2 CPU actors", len(pages), time.perf_counter() - t0))
    wrapped.shutdown()
    ray.shutdown()
    return rows


def render(ingest_rows, query_rows, encode_rows, args) -> str:
    load = os.getloadavg()[0]
    out = [SECTION, "",
           f"`python benchmarks/scale.py --repeat {args.repeat} --dense-pages {args.dense_pages} "
           f"--multi-pages {args.multi_pages}` ({os.cpu_count()} CPU cores, load average {load:.1f} at the end; "
           "shared machine, so wall times carry noise: compare rows within one run).", "",
           "| ingest engine | pages | seconds | pages/s |", "|---|---|---|---|"]
    out += [f"| {n} | {p} | {s:.1f} | {p / s:.2f} |" for n, p, s in ingest_rows]
    out += ["", "All four corpora have the same fingerprint (checked by the script).", "",
            "| search engine (one query per call, k=10) | pages | median ms | overlap@10 with exact |",
            "|---|---|---|---|"]
    out += [f"| {n} | {p} | {ms:.1f} | {ov:.3f} |" for n, p, ms, ov in query_rows]
    out += ["", "| encoding | pages | seconds | pages/s |", "|---|---|---|---|"]
    out += [f"| {n} | {p} | {s:.1f} | {p / s:.2f} |" for n, p, s in encode_rows]
    return "\n".join(out) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--dense-pages", type=int, default=20000)
    ap.add_argument("--multi-pages", type=int, default=500)
    ap.add_argument("--write", type=Path, help="Replace this section of BENCHMARKS.md with the results.")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="docrag-scale-"))
    try:
        ingest_rows = ingest_figures(args.repeat, tmp)
        query_rows = query_figures(args.dense_pages, args.multi_pages, tmp)
        encode_rows = encode_figures(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    text = render(ingest_rows, query_rows, encode_rows, args)
    print(text)
    if args.write:
        doc = args.write.read_text() if args.write.exists() else "# Benchmarks\n"
        if SECTION in doc:
            start = doc.index(SECTION)
            nxt = doc.find("\n## ", start + len(SECTION))
            doc = doc[:start] + text + (doc[nxt + 1:] if nxt >= 0 else "")
        else:
            doc = doc.rstrip("\n") + "\n\n" + text
        args.write.write_text(doc)


if __name__ == "__main__":
    main()
