"""Per-question time of the offline defaults by language: retrieval and ``extractive`` generation.

Uses a corpus and indexes made by ``benchmarks/answer_quality.py --work DIR`` (every dev-set PDF) and
the first ``-n`` questions of one split per language; models are loaded and warmed up before timing,
the generator's embedding caches start empty::

    python benchmarks/answer_latency.py /tmp/aq --split fresh4 -n 12
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
    ap.add_argument("--split", default="fresh4")
    ap.add_argument("-n", type=int, default=12, help="questions per language")
    args = ap.parse_args()
    logging.disable(logging.WARNING)

    from docrag.pipeline import RAG

    rag = RAG(args.work / "corpus", index_dir=args.work / "indexes", show_progress=False)
    rag.ask("warm up the models")
    rag.ask("预热模型")
    recs = [json.loads(line) for line in (ROOT / "benchmarks" / "devset" / "generated.jsonl").read_text(
        encoding="utf-8").splitlines() if line.strip()]
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
        print(f"{lang}: {n} questions, {total / n:.2f} s per question (retrieve + generate), "
              f"{generate / n:.2f} s generate")


if __name__ == "__main__":
    main()
