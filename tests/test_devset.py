"""The answer-quality dev set is well formed: enough questions of every kind, gold boxes on the pages."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pymupdf

ROOT = Path(__file__).resolve().parents[1]
DEVSET = ROOT / "benchmarks" / "devset"


def _records() -> list[dict]:
    lines = (DEVSET / "generated.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(x) for x in lines if x.strip()]


def test_devset_covers_categories_languages_and_splits():
    recs = _records()
    assert len(recs) + 22 >= 60   # with the shared corpus' 22 questions
    kinds = Counter((r["split"], r["category"]) for r in recs)
    for split in ("tune", "heldout"):
        for cat in ("text", "table", "chart", "multi_page", "unanswerable"):
            assert kinds[(split, cat)] >= 1, (split, cat)
    assert Counter(r["lang"] for r in recs)["zh"] >= 10
    assert len({r["id"] for r in recs}) == len(recs)


def test_gold_boxes_lie_on_their_pages_in_pdf_points():
    for r in _records():
        if r["category"] == "unanswerable":
            assert not r["boxes"] and not r["pages"]
            continue
        path = Path(r.get("path") or DEVSET / "pdfs" / r["doc"])
        if not path.exists():   # the Debian spec is read where the package installs it
            continue
        with pymupdf.open(path) as pdf:
            assert set(r["pages"]) == {b["page"] for b in r["boxes"]}
            for b in r["boxes"]:
                page = pdf[b["page"] - 1]
                x0, y0, x1, y1 = b["bbox"]
                assert 0 <= x0 < x1 <= page.rect.width and 0 <= y0 < y1 <= page.rect.height, r["id"]
                words = [w for w in page.get_text("words") if w[0] >= x0 - 2 and w[2] <= x1 + 2
                         and w[1] >= y0 - 2 and w[3] <= y1 + 2]
                assert words, f"{r['id']}: no text inside the gold box"
