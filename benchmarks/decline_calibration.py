"""How the Chinese missing-noun floor (``_NOUN_FLOOR`` of the extractive generator) trades declines.

Asks every question of one language in the dev set (all splits; run ``answer_quality.py --work DIR`` first
so DIR holds the ingested corpus and its indexes) and counts the answerable and the unanswerable questions
declined with the floor and, recomputed from each answer's ``missing_share``, without it ((1 - share)^2).

    python benchmarks/decline_calibration.py --work DIR [--lang zh]
"""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

from answer_quality import load_records
from tqdm import tqdm

from docrag.generation import extractive
from docrag.pipeline import RAG


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--work", type=Path, required=True, help="the --work folder of answer_quality.py")
    ap.add_argument("--lang", default="zh", choices=("zh", "en"))
    args = ap.parse_args()
    logging.basicConfig(level=logging.WARNING)
    rag = RAG(args.work / "corpus", index_dir=args.work / "indexes", show_progress=False)
    gen = rag.generator
    recs = [r for r in load_records() if r["lang"] == args.lang]
    counts = {"floor": [0, 0], "no floor": [0, 0]}   # declined [answerable, unanswerable]
    n = [0, 0]
    for rec in tqdm(recs, desc="questions"):
        ans = rag.answer(rec["question"], rag.retrieve(rec["question"]))
        unans = int(rec["category"] == "unanswerable")
        n[unans] += 1
        conf = ans.meta.get("confidence", ans.confidence)
        share = ans.meta.get("missing_share", 0.0)
        applied = 0.0 if share >= 1 else max(extractive._NOUN_FLOOR, (1 - share) ** 2)
        plain = conf / applied * (1 - share) ** 2 if applied else 0.0
        counts["floor"][unans] += conf < gen.decline_below
        counts["no floor"][unans] += plain < gen.decline_below
    print(f"{args.lang}: {n[0]} answerable, {n[1]} unanswerable questions; decline below {gen.decline_below}")
    for name, (a, u) in counts.items():
        print(f"  {name:9s} answerable declined {a}/{n[0]}, unanswerable declined {u}/{n[1]}")


if __name__ == "__main__":
    main()
