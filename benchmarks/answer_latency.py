"""Per-question time of the offline defaults by language: retrieval and ``extractive`` generation.

Uses a corpus and indexes made by ``benchmarks/answer_quality.py --work DIR`` (every fetched PDF of the real dev
set and the shared corpus) and the first ``-n`` questions of the real dev set's ``seen`` split per language (of
documents whose PDF is there); models are loaded and warmed up before timing, the generator's embedding caches
start empty::

    python benchmarks/answer_latency.py /tmp/aq -n 12
"""

from __future__ import annotations

import argparse
import json
import logging
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("work", type=Path, help="--work folder of answer_quality.py (corpus/ and indexes/)")
    ap.add_argument("--qa", type=Path, default=ROOT / "benchmarks" / "devset" / "qa.jsonl")
    ap.add_argument("--pdfs", type=Path, default=ROOT / "benchmarks" / "devset" / "pdfs")
    ap.add_argument("--split", default="seen", choices=("seen",),
                    help="the kept split is not timed while developing (FORMAT.md)")
    ap.add_argument("-n", type=int, default=12, help="questions per language")
    args = ap.parse_args()
    logging.disable(logging.WARNING)

    from docrag.pipeline import RAG

    rag = RAG(args.work / "corpus", index_dir=args.work / "indexes", show_progress=False)
    rag.ask("warm up the models")
    rag.ask("预热模型")
    if not args.qa.exists():
        raise SystemExit(f"{args.qa}: not found (the real dev set; see benchmarks/devset/README.md)")
    recs = [json.loads(line) for line in args.qa.read_text(encoding="utf-8").splitlines() if line.strip()]
    recs = [r for r in recs if (args.pdfs / r["doc"]).exists()]
    for lang in ("en", "zh"):
        questions = [r["question"] for r in recs if r["lang"] == lang and r["split"] == args.split][: args.n]
        total = generate = 0.0
        for q in questions:
            t0 = time.perf_counter()
            hits = rag.retrieve(q)
            t1 = time.perf_counter()
            rag.answer(q, hits)
            t2 = time.perf_counter()
            total += t2 - t0
            generate += t2 - t1
        n = len(questions)
        if not n:
            print(f"{lang}: no questions (PDFs not fetched? see benchmarks/devset/SOURCES.md)")
            continue
        print(f"{lang}: {n} questions, {total / n:.2f} s per question (retrieve + generate), "
              f"{generate / n:.2f} s generate")


if __name__ == "__main__":
    main()
