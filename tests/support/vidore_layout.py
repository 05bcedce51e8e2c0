"""A local copy in ViDoRe V3's layout made from PDFs and a qa.jsonl: page images (no text layer, no
words), per-page markdown, queries, graded qrels and two annotators' pixel boxes.

Annotator ``A`` is the qa.jsonl gold box; annotator ``B`` draws the same evidence at the PDF's own
text-block granularity (the union of the blocks PyMuPDF reports that overlap ``A``), a second,
coarser hand, as ViDoRe V3's annotators disagree on extent. Boxes are integer pixels of the
released image, as ViDoRe V3's.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pymupdf


def _write(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


def _block_union(page: pymupdf.Page, bbox: list[float]) -> list[float]:
    gold = pymupdf.Rect(bbox)
    hits = [pymupdf.Rect(b[:4]) for b in page.get_text("blocks")
            if (pymupdf.Rect(b[:4]) & gold).get_area() > 0.5 * pymupdf.Rect(b[:4]).get_area()]
    if not hits:
        return bbox
    out = hits[0]
    for r in hits[1:]:
        out |= r
    return [out.x0, out.y0, out.x1, out.y1]


def write_vidore_copy(pdf_dir: Path, records: list[dict], out: Path, dpi: int = 100) -> Path:
    """Write ``out/{corpus,queries,qrels,documents_metadata}/test.jsonl`` for the PDFs the
    ``records`` (qa.jsonl rows with ``doc``, ``pages``, ``boxes``) refer to; returns ``out``."""
    docs = sorted({r["doc"] for r in records})
    corpus, ids, metadata = [], {}, []
    for doc in docs:
        with pymupdf.open(pdf_dir / doc) as pdf:
            for i, page in enumerate(pdf, start=1):
                png = page.get_pixmap(dpi=dpi).tobytes("png")
                ids[(doc, i)] = len(corpus)
                corpus.append({"corpus_id": len(corpus), "doc_id": Path(doc).stem, "page_number_in_doc": i,
                               "markdown": page.get_text(), "image": {"bytes": base64.b64encode(png).decode()}})
            metadata.append({"doc_id": Path(doc).stem, "file_name": doc,
                             "page_width_pt": pdf[0].rect.width, "page_height_pt": pdf[0].rect.height})
    queries, qrels = [], []
    scale = dpi / 72.0
    for n, rec in enumerate(records):
        queries.append({"query_id": n, "query": rec["question"], "language": rec.get("lang", "en"),
                        "query_types": [rec.get("category", "text")], "answer": rec["answer"]})
        with pymupdf.open(pdf_dir / rec["doc"]) as pdf:
            for page_no in rec["pages"]:
                gold = [b["bbox"] for b in rec["boxes"] if b["page"] == page_no]
                coarse = [_block_union(pdf[page_no - 1], b) for b in gold]
                boxes = [{"annotator": who, "x1": round(b[0] * scale), "y1": round(b[1] * scale),
                          "x2": round(b[2] * scale), "y2": round(b[3] * scale)}
                         for who, drawn in (("A", gold), ("B", coarse)) for b in drawn]
                qrels.append({"query_id": n, "corpus_id": ids[(rec["doc"], page_no)], "score": 2,
                              "bounding_boxes": boxes})
    _write(out / "corpus" / "test.jsonl", corpus)
    _write(out / "queries" / "test.jsonl", queries)
    _write(out / "qrels" / "test.jsonl", qrels)
    _write(out / "documents_metadata" / "test.jsonl", metadata)
    return out
