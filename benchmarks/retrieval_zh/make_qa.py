"""Turn ``questions.jsonl`` (each question with an ``anchor``: a short verbatim string of its
evidence) into ``qa.jsonl`` with gold ``pages`` and ``boxes`` found in the PDFs (PyMuPDF
``search_for``; the first page holding the anchor). Fails loudly when an anchor is missing.

    python benchmarks/retrieval_zh/make_qa.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pymupdf

HERE = Path(__file__).parent


def locate(pdf: Path, anchor: str) -> tuple[int, list[float]]:
    with pymupdf.open(pdf) as doc:
        for i, page in enumerate(doc):
            rects = page.search_for(anchor)
            if rects:
                r = rects[0]
                return i + 1, [round(v, 1) for v in (r.x0, r.y0, r.x1, r.y1)]
    raise SystemExit(f"{pdf.name}: anchor {anchor!r} not found")


def main() -> None:
    rows = []
    for line in (HERE / "questions.jsonl").read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        q = json.loads(line)
        page, bbox = locate(HERE / "pdfs" / q["doc"], q.pop("anchor"))
        rows.append({**q, "lang": "zh", "pages": [page], "boxes": [{"page": page, "bbox": bbox}],
                     "answer_type": "short"})
    out = HERE / "qa.jsonl"
    out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    sys.stderr.write(f"wrote {len(rows)} questions to {out}\n")


if __name__ == "__main__":
    main()
