"""Full-ingest speed of this checkout on the shared PDFs and the real dev set's Chinese PDFs (one process, no OCR).

Run it with two checkouts' interpreters alternately to compare versions side by side, e.g.::

    for i in 1 2 3; do old/.venv/bin/python benchmarks/ingest_ab.py /tmp/ab-old old
                       .venv/bin/python benchmarks/ingest_ab.py /tmp/ab-new new; done
"""

from __future__ import annotations

import argparse
import shutil
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("work", type=Path, help="scratch folder (replaced)")
    ap.add_argument("label", help="name printed with the result")
    args = ap.parse_args()

    from docrag.corpus import Corpus
    from docrag.ingestion import ingest

    pdfs = sorted((ROOT.parent / "shared" / "corpus" / "pdfs").glob("*.pdf"))
    pdfs += sorted((ROOT / "benchmarks" / "devset" / "pdfs").glob("zh_*.pdf"))   # fetched: see its SOURCES.md
    shutil.rmtree(args.work, ignore_errors=True)
    t, c0 = time.perf_counter(), time.process_time()
    ingest(pdfs, args.work / "corpus", show_progress=False, ocr="never", workers=1)
    wall, cpu = time.perf_counter() - t, time.process_time() - c0
    n = len(Corpus.open(args.work / "corpus"))
    print(f"{args.label}: {n} pages, wall {wall:.2f} s, {n / wall:.1f} pages/s, parent CPU {cpu / n:.3f} s/page")


if __name__ == "__main__":
    main()
