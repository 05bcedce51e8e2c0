"""Judge calls per answer of docrag's citation metrics vs the reference scripts' 1 + 2|C|.

On the development corpus (../shared/corpus), each question gets synthetic citation sets built from
its gold boxes and layout blocks of the cited pages: gold only; gold + 1, 2 or 3 distractor blocks;
distractors only (recall 0). The ``oracle`` judge (yes iff the shown units cover the gold evidence)
scores them; we report the mean number of judge calls per answer, the reference 1 + 2|C| and the
wall time of the offline ``grounding`` judge on the same sets.

    python benchmarks/citation_calls.py [--corpus DIR]     # DIR: an ingested dev corpus (else ingests)
"""

from __future__ import annotations

import argparse
import json
import logging
import tempfile
import time
from pathlib import Path

from docrag.citation import citation_scores, evaluate, get_judge, gold_from_qa
from docrag.corpus import Corpus
from docrag.types import Answer, Citation

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "corpus"
log = logging.getLogger("citation_calls")


def citation_sets(rec: dict, gold, corpus: Corpus) -> list[list[Citation]]:
    by_page: dict[str, list] = {}
    for g in gold:
        by_page.setdefault(g.page_id, []).append(g.box)
    distractors = []
    for pid, boxes in by_page.items():
        page = corpus.page(pid)
        distractors += [(pid, b.box) for b in page.blocks
                        if all(b.box.iou(gb) < 0.1 and gb.coverage_of(b.box) < 0.5 for gb in boxes)]
    gold_cits = [Citation(pid, list(boxes)) for pid, boxes in by_page.items()]
    sets = [gold_cits]
    for k in (1, 2, 3):
        extra = distractors[:k]
        if len(extra) == k:
            sets.append(gold_cits + [Citation(pid, [b]) for pid, b in extra])
    if distractors:
        sets.append([Citation(pid, [b]) for pid, b in distractors[:2]])
    return sets


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, default=None)
    args = ap.parse_args()
    records = [json.loads(line) for line in open(SHARED / "qa.jsonl", encoding="utf-8") if line.strip()]
    with tempfile.TemporaryDirectory() as tmp:
        if args.corpus is None:
            from docrag.ingestion import ingest

            ingest([SHARED / "pdfs"], out=Path(tmp) / "corpus", show_progress=False)
        corpus = Corpus.open(args.corpus or Path(tmp) / "corpus")
        gold = gold_from_qa(records, corpus)
        oracle = get_judge("oracle", gold=gold)
        grounding = get_judge("grounding")
        answers = []
        for rec in records:
            for cits in citation_sets(rec, gold[rec["id"]], corpus):
                answers.append(Answer(rec["question"], rec["answer"], citations=cits, meta={"qid": rec["id"]}))
        rows = []
        for level in ("block", "page"):
            results = [evaluate(a, corpus, oracle, level=level) for a in answers]
            s = citation_scores(results)
            ref = sum(1 + 2 * r.n_units if r.n_units else 0 for r in results) / len(results)
            units = sum(r.n_units for r in results) / len(results)
            t0 = time.perf_counter()
            g = [evaluate(a, corpus, grounding, level=level) for a in answers]
            dt = (time.perf_counter() - t0) / len(answers)
            rows.append((level, len(results), units, s["judge_calls"] / len(results), ref,
                         sum(r.memo_hits for r in results) / len(results), 1000 * dt,
                         sum(r.calls for r in g) / len(g)))
    print("| level | answers | mean units n | oracle calls/answer | reference 1 + 2n | memo hits/answer "
          "| grounding ms/answer | grounding calls/answer |")
    print("|---|---|---|---|---|---|---|---|")
    for level, n, units, calls, ref, memo, ms, gcalls in rows:
        print(f"| {level} | {n} | {units:.2f} | {calls:.2f} | {ref:.2f} | {memo:.2f} | {ms:.1f} | {gcalls:.2f} |")


if __name__ == "__main__":
    main()
