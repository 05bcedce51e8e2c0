"""How circular is the offline ``grounding`` judge? On an ingested corpus with gold boxes (the dev
corpus), for every gold page: every layout block that lies off the gold boxes is quoted as the
answer and cited at itself (what an extractive generator does when it picks the wrong block); a
non-circular judge should reject those, and accept the gold answer / a quote of the gold region
cited at the gold boxes. Swept over ``min_question_support`` (0 = the old, circular behaviour).

    python benchmarks/grounding_judge.py CORPUS --qa ../shared/corpus/qa.jsonl
"""

from __future__ import annotations

import argparse
import json
import logging
from pathlib import Path

from docrag.citation import evaluate, gold_from_qa
from docrag.citation.grounding import GroundingJudge, text_in_boxes
from docrag.corpus import Corpus
from docrag.types import Answer, Citation

log = logging.getLogger("grounding_judge")


def _accepted(judge, corpus, question, answer, page_id, boxes) -> bool | None:
    res = evaluate(Answer(question, answer, citations=[Citation(page_id, list(boxes))]), corpus, judge, level="block")
    return None if res.excluded else res.recall == 1.0


def measure(corpus: Corpus, records: list[dict], thresholds: list[float]) -> dict:
    from tqdm import tqdm

    gold = gold_from_qa(records, corpus)
    out = {}
    for t in thresholds:
        judge = GroundingJudge(min_question_support=t)
        s = {"wrong_rejected": 0, "wrong": 0, "gold_answer_accepted": 0, "gold_answer": 0,
             "gold_quote_accepted": 0, "gold_quote": 0}
        for rec in tqdm(records, desc=f"min_question_support={t}", unit="q"):
            ev = gold[rec["id"]]
            full = Answer(rec["question"], rec["answer"], citations=[Citation(g.page_id, [g.box]) for g in ev])
            s["gold_answer"] += 1
            s["gold_answer_accepted"] += evaluate(full, corpus, judge, level="block").recall == 1.0
            for g in ev:
                page = corpus.page(g.page_id)
                v = _accepted(judge, corpus, rec["question"], text_in_boxes(page, [g.box])[:400], g.page_id, [g.box])
                if v is not None:
                    s["gold_quote"] += 1
                    s["gold_quote_accepted"] += v
                for b in page.blocks:
                    if not b.text or len(b.text.split()) < 4:
                        continue
                    if b.box.coverage_of(g.box) > 0.1 or g.box.coverage_of(b.box) > 0.1:
                        continue
                    v = _accepted(judge, corpus, rec["question"], b.text[:400], g.page_id, [b.box])
                    if v is not None:
                        s["wrong"] += 1
                        s["wrong_rejected"] += not v
        out[str(t)] = s
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpus", type=Path)
    ap.add_argument("--qa", type=Path, required=True)
    ap.add_argument("--thresholds", default="0,0.3,0.4,0.5")
    args = ap.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    records = [json.loads(line) for line in args.qa.read_text(encoding="utf-8").splitlines() if line.strip()]
    result = measure(Corpus.open(args.corpus), records, [float(t) for t in args.thresholds.split(",")])
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
