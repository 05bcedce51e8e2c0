"""First stages for multi-vector search, side by side: quality against exhaustive MaxSim, speed against
exhaustive and colpali-engine's ``score_multi_vector``, bytes per page, build CPU per page.

Data (``--data``):
* ``real``: MiniLM token embeddings of man pages (``benchmarks/realistic_corpus.py`` output), with its
  real questions; ``--pages N`` above the real count scales it with
  :class:`benchmarks.synthetic.ResampledCorpus` (real pages first, then resampled ones).
* ``synthetic``: the planted ColQwen2-shaped generator (``benchmarks.synthetic``) with
  ``--page-noise`` / ``--concepts``.

Every option reranks its candidates with exact MaxSim (fp16 tokens, memory-mapped), one query per
call. Candidate policies: ``fixed N`` (the N best first-stage pages) and ``rounds`` (adaptive:
rounds of 256 until a round changes nothing in the top-10, at least 256, at most ``--max-cand``).

    python benchmarks/search_firststage.py --data real --pages 2000
    python benchmarks/search_firststage.py --data synthetic --pages 2000 --page-noise 3 --concepts 32
    python benchmarks/search_firststage.py --data real --pages 100000 --exact-queries 8 --queries 30
"""

from __future__ import annotations

import argparse
import json
import logging
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))   # benchmarks.synthetic
from benchmarks.synthetic import ResampledCorpus, SyntheticCorpus, SyntheticSpec
from docrag.index.firststage import InvertedCodes, Muvera, build_codes, fuse_ranks, rerank_rounds
from docrag.index.maxsim import _tensor, maxsim_scores
from docrag.index.twostage import binarize, binary_maxsim, page_centroids

log = logging.getLogger("benchmarks.search_firststage")
DATA = Path(__file__).resolve().parent / "_data"


# ---------------------------------------------------------------------------------------------- data
def load_queries(real: Path) -> tuple[list[np.ndarray], list[int]]:
    qt, qo = np.load(real / "query_tokens.npy"), np.load(real / "query_offsets.npy")
    meta = json.loads((real / "meta.json").read_text())
    return [qt[qo[i]:qo[i + 1]] for i in range(len(qo) - 1)], [q["page"] for q in meta["questions"]]


def write_store(path: Path, gen, n_pages: int, block: int = 1024) -> tuple[np.ndarray, np.ndarray, float]:
    """Pages of ``gen`` into ``path/tokens.npy`` (fp16, memory-mapped) + offsets; reused when present."""
    from numpy.lib.format import open_memmap

    done = path / "done.json"
    if done.exists():
        return np.load(path / "tokens.npy", mmap_mode="r"), np.load(path / "offsets.npy"), \
            json.loads(done.read_text())["generate_s"]
    path.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    lengths = np.array([gen.page_length(i) for i in range(n_pages)], dtype=np.int64)
    offsets = np.zeros(n_pages + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    dim = len(gen.page(0)[0])
    tokens = open_memmap(path / "tokens.npy", mode="w+", dtype=np.float16, shape=(int(offsets[-1]), dim))
    for b in range(0, n_pages, block):
        stop = min(b + block, n_pages)
        tokens[offsets[b]:offsets[stop]] = np.concatenate(list(gen.pages(b, stop)))
        if (b // block) % 10 == 0:
            log.info("generated %d/%d pages", stop, n_pages)
    tokens.flush()
    del tokens
    np.save(path / "offsets.npy", offsets)
    gen_s = time.perf_counter() - t0
    done.write_text(json.dumps({"generate_s": gen_s}))
    return np.load(path / "tokens.npy", mmap_mode="r"), offsets, gen_s


def dataset(args) -> tuple[np.ndarray, np.ndarray, list[np.ndarray], list[int] | None, str]:
    if args.data == "real":
        real = args.real
        rt, ro = np.load(real / "tokens.npy", mmap_mode="r"), np.load(real / "offsets.npy")
        queries, gold = load_queries(real)
        n_real = len(ro) - 1
        if args.pages <= n_real:
            ro = ro[:args.pages + 1]
            keep = [i for i, g in enumerate(gold) if g < args.pages]
            return rt[:ro[-1]], ro, [queries[i] for i in keep], [gold[i] for i in keep], \
                f"{args.pages:,} real man pages (MiniLM tokens)"
        gen = ResampledCorpus(np.asarray(rt), ro)
        tokens, offsets, _ = write_store(args.workdir / f"real-{args.pages}", gen, args.pages)
        return tokens, offsets, queries, gold, (f"{n_real:,} real man pages + {args.pages - n_real:,} resampled "
                                                "(ResampledCorpus)")
    spec = SyntheticSpec(tokens_per_page=args.tokens, token_jitter=max(1, args.tokens // 15),
                         page_noise=args.page_noise, concepts_per_page=args.concepts)
    sc = SyntheticCorpus(spec)
    name = f"syn-{args.pages}-{args.tokens}-{args.page_noise}-{args.concepts}"
    tokens, offsets, _ = write_store(args.workdir / name, sc, args.pages)
    queries, targets = sc.queries(args.pages, args.queries)
    return tokens, offsets, queries, [int(t) for t in targets], \
        f"synthetic {args.pages:,} pages, page_noise {args.page_noise}, {args.concepts} concepts/page"


# ---------------------------------------------------------------------------------------------- stages
def _cpu() -> float:
    return time.process_time()


def build_stages(tokens, offsets, wanted: list[str], chunk: int = 2048) -> dict:
    """First-stage data per option name, with bytes/page and build CPU ms/page."""
    import torch

    n = len(offsets) - 1
    out: dict[str, dict] = {}
    threads = torch.get_num_threads()
    torch.set_num_threads(1)   # CPU time of a contended multi-threaded build counts spin-waits: build on one thread
    for name in wanted:
        c0 = _cpu()
        if name.startswith("centroids"):
            k = int(name.split("-")[1])
            parts, offs = [], [np.zeros(1, np.int64)]
            for b in range(0, n, chunk):
                s = min(b + chunk, n)
                c, co = page_centroids(tokens[offsets[b]:offsets[s]], offsets[b:s + 1] - offsets[b], k)
                parts.append(c)
                offs.append(co[1:] + offs[-1][-1])
            data = {"c": np.concatenate(parts), "co": np.concatenate(offs)}
            nbytes = data["c"].nbytes
            if data["c"].nbytes * 2 <= 2 << 30:   # resident fp32, as the store keeps it
                data["c"] = _tensor(data["c"]).float()
        elif name == "binary":
            data = {"bits": np.concatenate([binarize(tokens[s:s + (1 << 20)])
                                            for s in range(0, len(tokens), 1 << 20)])}
            nbytes = data["bits"].nbytes
        elif name == "codes":
            book, pc, co = build_codes(tokens, offsets)
            data = {"book": book, "inv": InvertedCodes(pc, co, len(book))}
            nbytes = pc.nbytes + co.nbytes + book.nbytes
        elif name == "muvera":
            import faiss

            m = Muvera(tokens.shape[1])
            fde = np.concatenate([m.pages(tokens[offsets[b]:offsets[min(b + chunk, n)]],
                                          offsets[b:min(b + chunk, n) + 1] - offsets[b]) for b in range(0, n, chunk)])
            index = faiss.IndexFlatIP(fde.shape[1])
            index.add(fde)
            data = {"m": m, "index": index}
            nbytes = fde.shape[0] * fde.shape[1] * 2   # stored fp16
        else:
            raise ValueError(name)
        cpu = _cpu() - c0
        out[name] = {"data": data, "bytes_per_page": nbytes / n, "build_ms_per_page": 1000 * cpu / n}
        log.info("built %s: %.2f ms CPU/page, %.0f B/page", name, 1000 * cpu / n, nbytes / n)
    torch.set_num_threads(threads)
    return out


def first_scores(name: str, st: dict, q: np.ndarray, offsets, tokens, n_first: int) -> np.ndarray:
    """Approximate scores of every page for one query (muvera: only its ``n_first`` best, rest -inf)."""
    d = st["data"]
    if name.startswith("centroids"):
        return maxsim_scores([q], d["c"], d["co"])[0]
    if name == "binary":
        return binary_maxsim([q], d["bits"], offsets, dim=tokens.shape[1])[0]
    if name == "codes":
        return d["inv"].scores([q], d["book"])[0]
    if name == "muvera":
        out = np.full(len(offsets) - 1, -np.inf, dtype=np.float32)
        sc, ids = d["index"].search(d["m"].queries([q]), min(n_first, len(out)))
        out[ids[0][ids[0] >= 0]] = sc[0][ids[0] >= 0]
        return out
    raise ValueError(name)


# ---------------------------------------------------------------------------------------------- metrics
def ndcg10(ranked: list[int], exact: list[int]) -> float:
    gain = {p: 10 - r for r, p in enumerate(exact[:10])}
    dcg = sum(gain.get(p, 0) / np.log2(r + 2) for r, p in enumerate(ranked[:10]))
    ideal = sum((10 - r) / np.log2(r + 2) for r in range(min(10, len(exact))))
    return dcg / ideal if ideal else 0.0


def colpali_scores(q: np.ndarray, tokens, offsets, chunk_pages: int = 2048) -> np.ndarray:
    import torch
    from colpali_engine.utils.processing_utils import BaseVisualRetrieverProcessor

    out = []
    for b in range(0, len(offsets) - 1, chunk_pages):
        s = min(b + chunk_pages, len(offsets) - 1)
        block = _tensor(tokens[offsets[b]:offsets[s]]).float()
        ps = [block[offsets[i] - offsets[b]:offsets[i + 1] - offsets[b]] for i in range(b, s)]
        out.append(BaseVisualRetrieverProcessor.score_multi_vector([torch.from_numpy(q)], ps, device="cpu")[0].numpy())
    return np.concatenate(out)


def run(args) -> dict:
    tokens, offsets, queries, gold, label = dataset(args)
    queries, gold = queries[:args.queries], (gold[:args.queries] if gold is not None else None)
    n = len(offsets) - 1
    n_exact = min(args.exact_queries or len(queries), len(queries))
    log.info("%s: %d pages, %.0f tokens/page, %d queries (%d with exhaustive)", label, n,
             offsets[-1] / n, len(queries), n_exact)
    rows: dict[str, dict] = {}
    exact_top, lat_ex, lat_cp = [], [], []
    import colpali_engine.utils.processing_utils  # noqa: F401  -- imported before timing (15-30 s under load)

    for qi in range(n_exact):     # interleaved: docrag exhaustive, colpali-engine
        t0 = time.perf_counter()
        s = maxsim_scores([queries[qi]], tokens, offsets)[0]
        lat_ex.append(time.perf_counter() - t0)
        exact_top.append(list(np.argsort(-s, kind="stable")[:10]))
        if qi < args.colpali_queries:   # linear in pages: optionally timed on a prefix and scaled
            cp_pages = min(args.colpali_pages or n, n)
            t0 = time.perf_counter()
            colpali_scores(queries[qi], tokens, offsets[:cp_pages + 1])
            lat_cp.append((time.perf_counter() - t0) * n / cp_pages)
        log.info("exhaustive query %d/%d", qi + 1, n_exact)
    bytes_exact = tokens.shape[1] * 2 * offsets[-1] / n
    rows["docrag exhaustive (exact)"] = {"lat": lat_ex, "tops": exact_top, "bytes": bytes_exact, "build": 0.0}
    rows["colpali-engine score_multi_vector"] = {"lat": lat_cp, "tops": [], "bytes": bytes_exact, "build": 0.0}
    names = args.stages.split(",")
    built = build_stages(tokens, offsets, list(dict.fromkeys(part for n_ in names for part in n_.split("+"))))
    policies = [("fixed", int(c)) for c in args.fixed.split(",") if c] + [(f"rounds p{args.patience}", args.max_cand)]
    for name in names:
        parts = name.split("+")   # "a+b": the stages fused by reciprocal rank, as the index does
        st = {"bytes_per_page": sum(built[x]["bytes_per_page"] for x in parts),
              "build_ms_per_page": sum(built[x]["build_ms_per_page"] for x in parts)}
        for pol, size in policies:
            lat, tops, cands = [], [], []
            for q in queries:
                t0 = time.perf_counter()
                first = fuse_ranks([first_scores(x, built[x], q, offsets, tokens, max(size, args.max_cand))
                                    for x in parts])

                def exact(rows_, q=q):
                    return maxsim_scores([q], tokens, offsets, np.asarray(rows_))[0]
                if pol == "fixed":
                    pos, sc, _ = rerank_rounds(first, exact, 10, size, size, size)
                else:
                    pos, sc, _ = rerank_rounds(first, exact, 10, 256, 256, size, patience=args.patience)
                tops.append(list(pos[np.argsort(-sc, kind="stable")[:10]]))
                lat.append(time.perf_counter() - t0)
                cands.append(len(pos))
            rows[f"{name}, {pol} {size}"] = {"lat": lat, "tops": tops, "bytes": st["bytes_per_page"],
                                             "build": st["build_ms_per_page"], "cand": float(np.mean(cands))}
            log.info("%s %s %d: p50 %.0f ms, overlap@10 %.3f, mean reranked %.0f", name, pol, size,
                     1000 * statistics.median(lat), np.mean([len(set(tops[i]) & set(exact_top[i])) / 10
                                                             for i in range(min(len(tops), n_exact))]),
                     np.mean(cands))
    base_cp = statistics.median(lat_cp) if lat_cp else float("nan")
    base_ex = statistics.median(lat_ex)
    table = {}
    for name, r in rows.items():
        if not r["lat"]:
            continue
        k = min(len(r["tops"]), n_exact)
        p50 = statistics.median(r["lat"])
        table[name] = {
            "queries": len(r["lat"]), "p50_ms": 1000 * p50,
            "x_vs_exhaustive": base_ex / p50, "x_vs_colpali": base_cp / p50,
            "overlap10": float(np.mean([len(set(r["tops"][i]) & set(exact_top[i])) / 10 for i in range(k)]))
            if k else None,
            "ndcg10": float(np.mean([ndcg10(r["tops"][i], exact_top[i]) for i in range(k)])) if k else None,
            "gold_in_top10": float(np.mean([gold[i] in r["tops"][i] for i in range(len(r["tops"]))]))
            if gold is not None and r["tops"] else None,
            "bytes_per_page": r["bytes"], "build_ms_per_page": r["build"], "mean_candidates": r.get("cand")}
    return {"label": label, "pages": n, "colpali_pages": min(args.colpali_pages or n, n),
            "tokens_per_page": float(offsets[-1] / n), "dim": int(tokens.shape[1]),
            "exact_queries": n_exact, "colpali_queries": len(lat_cp), "rows": table}


def markdown(res: dict) -> str:
    lines = [f"\n**{res['label']}**: {res['pages']:,} pages x {res['tokens_per_page']:.0f} tokens x {res['dim']} dims; "
             f"quality over the {res['exact_queries']} queries exhaustive answered; colpali-engine timed on "
             f"{res['colpali_queries']}" + (f" over the first {res['colpali_pages']:,} pages, time scaled to all"
                                            if res["colpali_pages"] < res["pages"] else "") + ".\n",
             "| engine / first stage, candidates | queries | p50 ms | x exhaustive | x colpali-engine | overlap@10 "
             "| nDCG@10 | gold page in top-10 | mean reranked | first-stage bytes/page | build CPU ms/page |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]

    def f(v, fmt):
        return "—" if v is None or (isinstance(v, float) and np.isnan(v)) else format(v, fmt)
    for name, r in res["rows"].items():
        lines.append(f"| {name} | {r['queries']} | {r['p50_ms']:.0f} | {f(r['x_vs_exhaustive'], '.1f')} "
                     f"| {f(r['x_vs_colpali'], '.1f')} | {f(r['overlap10'], '.3f')} | {f(r['ndcg10'], '.3f')} "
                     f"| {f(r['gold_in_top10'], '.3f')} | {f(r['mean_candidates'], '.0f')} "
                     f"| {f(r['bytes_per_page'], ',.0f')} | {f(r['build_ms_per_page'], '.2f')} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", choices=("real", "synthetic"), default="real")
    p.add_argument("--real", type=Path, default=DATA / "man-minilm")
    p.add_argument("--pages", type=int, default=2000)
    p.add_argument("--queries", type=int, default=200)
    p.add_argument("--exact-queries", type=int, default=0, help="queries exhaustive answers (0 = all)")
    p.add_argument("--colpali-queries", type=int, default=5)
    p.add_argument("--colpali-pages", type=int, default=0,
                   help="colpali-engine scores the first N pages, its time scaled to all (0: all pages)")
    p.add_argument("--threads", type=int, default=0, help="torch threads (0: torch's default)")
    p.add_argument("--tokens", type=int, default=750)
    p.add_argument("--page-noise", type=float, default=3.0)
    p.add_argument("--concepts", type=int, default=32)
    p.add_argument("--stages", default="centroids-16,centroids-32,centroids-64,binary,codes,muvera")
    p.add_argument("--fixed", default="256", help="fixed candidate counts (comma-separated)")
    p.add_argument("--max-cand", type=int, default=2048, help="cap of the adaptive rounds policy")
    p.add_argument("--patience", type=int, default=2, help="adaptive rounds: quiet rounds before stopping")
    p.add_argument("--workdir", type=Path, default=DATA)
    p.add_argument("--json-out", type=Path, default=None)
    args = p.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", stream=sys.stderr)
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)
    res = run(args)
    sys.stdout.write(markdown(res))
    if args.json_out:
        args.json_out.write_text(json.dumps(res, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
