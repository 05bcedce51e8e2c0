"""Check a split's golds with PyMuPDF only (no retriever, no generator): the text inside every gold box holds
the record's evidence.

For every answerable record of the split, the NFKC-normalised text inside its gold boxes
(``page.get_textbox``; ingestion normalises the same way) must contain:

* each of its ``figures``, except for a difference question (answer ``D (A - B)``), whose printed inputs
  ``A`` and ``B`` must be there instead (``D`` is computed, not printed);
* for a multi-page question, each ``;``-separated part of the answer in the box on its own page (the fact
  of page 1 in the page-1 box, the fact of page 2 in the page-2 box).

Unanswerable records must have no answer, figures, pages or boxes. Exits 1 and lists the failures.

    python benchmarks/devset/check_golds.py --split fresh8
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import unicodedata
from pathlib import Path

import pymupdf

HERE = Path(__file__).resolve().parent
_DIFF = re.compile(r"^(\S+) \((\S+) - (\S+)\)$")
_UNIT = re.compile(r"(个|种|度|%)$")


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text))


def box_text(pdf: pymupdf.Document, box: dict) -> str:
    return _norm(pdf[box["page"] - 1].get_textbox(pymupdf.Rect(*box["bbox"])))


def check(rec: dict) -> list[str]:
    if rec["category"] == "unanswerable":
        bad = rec["answer"] or rec["figures"] or rec["pages"] or rec["boxes"]
        return [f"{rec['id']}: unanswerable record has an answer, figures or boxes"] if bad else []
    with pymupdf.open(Path(rec.get("path") or HERE / "pdfs" / rec["doc"])) as pdf:
        texts = [(b["page"], box_text(pdf, b)) for b in rec["boxes"]]
    joined = " ".join(t for _, t in texts)
    errs = []
    m = _DIFF.match(rec["answer"])
    want = [m[2], m[3]] if m else [_norm(f) for f in rec["figures"]]
    errs += [f"{rec['id']}: {w!r} not inside its gold boxes" for w in want if w not in joined]
    if rec["category"] == "multi_page":
        parts = [_UNIT.sub("", p.strip()) for p in re.split(r"[;；]", rec["answer"])]
        pages = sorted({p for p, _ in texts})
        if len(parts) != len(pages):
            errs.append(f"{rec['id']}: {len(parts)} answer parts for pages {pages}")
        for part, page in zip(parts, pages, strict=False):
            on_page = " ".join(t for p, t in texts if p == page)
            if part not in on_page:
                errs.append(f"{rec['id']}: {part!r} not inside its gold box on page {page}")
    return errs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--split", required=True, help="the split to check, e.g. fresh8")
    args = ap.parse_args()
    lines = (HERE / "generated.jsonl").read_text(encoding="utf-8").splitlines()
    recs = [r for r in (json.loads(x) for x in lines if x.strip()) if r["split"] == args.split]
    if not recs:
        sys.exit(f"no records of split {args.split!r} in {HERE / 'generated.jsonl'}")
    errs = [e for r in recs for e in check(r)]
    for e in errs:
        print(e)
    answerable = sum(r["category"] != "unanswerable" for r in recs)
    print(f"{args.split}: {len(recs)} records ({answerable} answerable), {len(errs)} gold failures")
    sys.exit(1 if errs else 0)


if __name__ == "__main__":
    main()
