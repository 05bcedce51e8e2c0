"""Answer quality of the offline defaults on the Chinese man-page set (``benchmarks/retrieval_zh``), a
tuning set for Chinese prose: page@1 and box per category, scored as ``answer_quality.py`` does (the
gold boxes there are short anchors of the evidence, so a cited paragraph holding one counts).

    python benchmarks/answer_quality_manpages_zh.py --work /tmp/zhm [-v]
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SET = ROOT / "benchmarks" / "retrieval_zh"
sys.path.insert(0, str(ROOT / "benchmarks"))

import answer_quality as aq  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--work", type=Path, default=Path("/tmp/docrag-answer-quality-zh-man"),
                    help="folder for the ingested corpus and its indexes (reused when present)")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every question and answer")
    args = ap.parse_args()
    logging.basicConfig(level=logging.WARNING)

    from docrag.ingestion import ingest
    from docrag.pipeline import RAG

    recs = [json.loads(line) for line in (SET / "qa.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]
    for r in recs:
        r.update(split="manpages_zh", path=str(SET / "pdfs" / r["doc"]))
    ingest(sorted({r["path"] for r in recs}), args.work / "corpus", show_progress=False)
    rag = RAG(args.work / "corpus", index_dir=args.work / "indexes", show_progress=False)
    rows = []
    for r in recs:
        ans = rag.ask(r["question"])
        res = aq.score(r, ans, rag.corpus)
        rows.append(res)
        if args.verbose:
            print(r["id"], r["category"], res["page1"], res["box"], "|", r["question"], "|", ans.answer[:120])
    print("\n".join(aq.table(rows, lambda r: "all") + aq.table(rows, lambda r: f"category {r['category']}")[2:]))


if __name__ == "__main__":
    main()
