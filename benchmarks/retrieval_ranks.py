"""Where the default retriever ranks the gold page, per split of the real dev set: shares only, no question listed
(so the ``kept`` split can be measured without being read).

Uses the corpus and index ``answer_quality.py`` built in ``--work``::

    python benchmarks/retrieval_ranks.py --work /tmp/aq --split seen --split kept
"""

from __future__ import annotations

import argparse
import logging
from collections import Counter
from pathlib import Path

from answer_quality import DEFAULT_SPLITS, SPLITS, load_records

log = logging.getLogger("retrieval_ranks")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--work", type=Path, required=True, help="the folder answer_quality.py ingested into")
    ap.add_argument("--split", choices=SPLITS, action="append", help="repeat for several (default: seen, shared)")
    args = ap.parse_args()
    logging.basicConfig(level=logging.WARNING)
    from docrag.pipeline import RAG

    rag = RAG(args.work / "corpus", index_dir=args.work / "indexes", show_progress=False)
    records = load_records().records
    for split in args.split or DEFAULT_SPLITS:
        ranks = []
        for r in (r for r in records if r["split"] == split and r["category"] != "unanswerable"):
            docs = {d.doc_id for d in rag.corpus.find_documents(r["doc"])}
            hits = rag.retrieve(r["question"])
            ranks.append(next((i for i, h in enumerate(hits, 1) if h.doc_id in docs and h.page_no in r["pages"]), 0))
        if not ranks:
            log.warning("split %s: no question", split)
            continue
        shares = Counter("not retrieved" if x == 0 else str(x) if x <= 3 else "4+" for x in ranks)
        print(f"{split}: {len(ranks)} questions, gold page at rank "
              + ", ".join(f"{k}: {100 * v / len(ranks):.1f} %" for k, v in sorted(shares.items())))


if __name__ == "__main__":
    main()
