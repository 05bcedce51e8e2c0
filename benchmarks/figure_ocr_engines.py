"""Charts drawn as pictures, read by each OCR engine side by side: time per figure and the numbers read.

Takes an ingested corpus of the real dev set (``benchmarks/answer_quality.py --work DIR`` leaves one in
``DIR/corpus``), renders every figure that ingest OCR'd (``meta["ocr_text"]``) from its PDF exactly as ingest
does (:mod:`docrag.ingestion.figure_ocr`: at most 200 dpi / 2.5 MP) and reads it with RapidOCR and with Tesseract
in sparse-text mode (page segmentation mode 11, the page's language), alternating per figure (RapidOCR's model
loaded before the first). Reports seconds per figure and, as a proxy for data labels read (labelled so: no gold
labels exist per figure), how many plain numbers each engine read; the answer-quality effect is measured by
``answer_quality.py``::

    python benchmarks/figure_ocr_engines.py /tmp/aq/corpus [--limit N] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import logging
import re
import statistics
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_NUMBER = re.compile(r"(?<![\w.])[-+(]?\d[\d,]*(?:\.\d+)?%?(?![\w])")


def _numbers(words: list[str]) -> int:
    return sum(len(_NUMBER.findall(w)) for w in words)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("corpus", type=Path, help="an ingested corpus of the dev set")
    ap.add_argument("--limit", type=int, default=0, help="at most this many figures (0: all)")
    ap.add_argument("--json", type=Path, help="write the per-figure rows here")
    args = ap.parse_args()
    logging.basicConfig(level=logging.WARNING)

    import pymupdf
    from PIL import Image

    from docrag.corpus import Corpus
    from docrag.geometry import Space
    from docrag.ingestion import ocr
    from docrag.ingestion.figure_ocr import FIGURE_OCR_DPI, FIGURE_OCR_MAX_PIXELS, langs_for
    from docrag.types import BlockKind

    if ocr.available_engine() != "tesseract" or not ocr._rapid_installed():
        raise SystemExit("needs both Tesseract and RapidOCR installed")
    ocr._rapidocr(Image.new("RGB", (64, 64), "white"))   # load RapidOCR's model: no figure pays for it
    corpus = Corpus(args.corpus)
    rows: list[dict] = []
    for page_id in corpus.page_ids():
        page = corpus.page(page_id)
        figures = [b for b in page.blocks if b.kind is BlockKind.FIGURE and b.meta.get("ocr_text")]
        if not figures:
            continue
        doc = corpus.document(page.doc_id)
        pdf = pymupdf.open(doc.source_path)
        pdf_page = pdf[page.page_no - 1]
        lang = "zh" if re.search(r"[\u4e00-\u9fff]", page.text or "") else "en"
        for fig in figures:
            box = fig.box if fig.box.space is Space.POINT else fig.box.to_points(pdf_page.rect.width,
                                                                                 pdf_page.rect.height)
            dpi = min(FIGURE_OCR_DPI, 72.0 * (FIGURE_OCR_MAX_PIXELS / max(box.width * box.height, 1.0)) ** 0.5)
            pix = pdf_page.get_pixmap(clip=pymupdf.Rect(box.x0, box.y0, box.x1, box.y1), dpi=max(int(dpi), 72),
                                      alpha=False)
            image = Image.frombytes("RGB", (pix.width, pix.height), pix.samples)
            row: dict = {"page": page_id, "lang": lang, "pixels": pix.width * pix.height}
            langs = langs_for(lang, ["en", "ch"])
            for name in ("rapidocr", "tesseract"):
                t0 = time.perf_counter()
                result = ocr._rapidocr(image) if name == "rapidocr" else ocr._tesseract(image, langs, psm=11)
                row[f"{name}_s"] = time.perf_counter() - t0
                row[f"{name}_numbers"] = _numbers([w.text for line in result.lines for w in line.words])
            rows.append(row)
            if args.limit and len(rows) >= args.limit:
                break
        pdf.close()
        if args.limit and len(rows) >= args.limit:
            break
    if not rows:
        raise SystemExit(f"no OCR'd figure in {args.corpus}")
    for lang in ("en", "zh", "all"):
        part = [r for r in rows if lang == "all" or r["lang"] == lang]
        if not part:
            continue
        line = [f"{lang}: {len(part)} figures"]
        for name in ("rapidocr", "tesseract"):
            secs = [r[f"{name}_s"] for r in part]
            line.append(f"{name} {statistics.median(secs):.2f} s median, {sum(secs):.1f} s total, "
                        f"{sum(r[f'{name}_numbers'] for r in part)} numbers read")
        print(" | ".join(line))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
