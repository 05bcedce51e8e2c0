"""Full-ingest speed with row shading read as tables (``is_row_shading``, new) and with it switched off (old),
alternating in one process on the real dev set's PDFs (one worker, no OCR)::

    python benchmarks/ingest_row_shading.py /tmp/ing-shading --repeat 2
"""

from __future__ import annotations

import argparse
import logging
import shutil
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("work", type=Path, help="scratch folder (replaced)")
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()
    logging.disable(logging.WARNING)

    from docrag.corpus import Corpus
    from docrag.ingestion import figures, ingest

    real = figures.is_row_shading
    pdfs = sorted((ROOT / "benchmarks" / "devset" / "pdfs").glob("*.pdf"))   # fetched: see its SOURCES.md
    for i in range(args.repeat):
        for label, check in (("old", lambda rects: False), ("new", real)):
            figures.is_row_shading = check
            out = args.work / label
            shutil.rmtree(out, ignore_errors=True)
            t, c0 = time.perf_counter(), time.process_time()
            ingest(pdfs, out, show_progress=False, ocr="never", workers=1)
            wall, cpu = time.perf_counter() - t, time.process_time() - c0
            n = len(Corpus.open(out))
            print(f"{label} run {i + 1}: {n} pages, wall {wall:.1f} s, {n / wall:.1f} pages/s, "
                  f"parent CPU {cpu / n:.3f} s/page")


if __name__ == "__main__":
    main()
