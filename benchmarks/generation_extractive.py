"""Speed and citation quality of the offline ``extractive`` generator on the development corpus.

For each question of ``qa.jsonl`` the pages come from a retriever (``--retriever``) or, with
``--retriever gold``, the gold pages after one distractor page of the same document. Reports the
model load time, seconds per question after the load, the share of questions whose citations hit a
gold page, and the mean best IoU of the cited boxes with the gold boxes.

    python benchmarks/generation_extractive.py --corpus <ingested dev corpus> [--retriever bm25]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from docrag.corpus import Corpus
from docrag.generation import get_generator
from docrag.generation.extractive import _embedder


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", required=True, type=Path)
    ap.add_argument("--qa", type=Path, default=Path(__file__).resolve().parents[2] / "shared/corpus/qa.jsonl")
    ap.add_argument("--retriever", default="gold", help="'gold' or a retriever name (index built if missing)")
    ap.add_argument("-k", type=int, default=5)
    args = ap.parse_args()

    corpus = Corpus.open(args.corpus)
    records = [json.loads(line) for line in args.qa.read_text(encoding="utf-8").splitlines() if line.strip()]
    t0 = time.perf_counter()
    _embedder("cpu")
    load_s = time.perf_counter() - t0
    gen = get_generator("extractive")
    index = None
    if args.retriever != "gold":
        from docrag.index import open_index

        index = open_index(corpus, args.retriever, show_progress=False)
    times, hits, ious = [], 0, []
    for rec in records:
        doc = corpus.find_documents(rec["doc"])[0]
        if index is None:
            pages = corpus.pages([doc.doc_id])
            gold = [p for p in pages if p.page_no in rec["pages"]]
            other = [p for p in pages if p.page_no not in rec["pages"]]
            pages = (other[:1] + gold)[:3]
        else:
            pages = [corpus.page(h.page_id) for h in index.search(rec["question"], k=args.k)]
        t = time.perf_counter()
        ans = gen.generate(rec["question"], pages)
        times.append(time.perf_counter() - t)
        best, hit = 0.0, False
        for cit in ans.citations:
            if cit.doc_id != doc.doc_id:
                continue
            page = corpus.page(cit.page_id)
            for g in rec["boxes"]:
                if g["page"] == cit.page_no:
                    hit = True
                    best = max([best] + [b.iou(page.box_pt(*g["bbox"])) for b in cit.boxes])
        hits += hit
        ious.append(best)
    n = len(records)
    print(f"| {args.retriever} | {n} | {load_s:.1f} | {statistics.mean(times):.3f} | {max(times):.3f} "
          f"| {100 * hits / n:.1f} | {statistics.mean(ious):.3f} |")


if __name__ == "__main__":
    main()
