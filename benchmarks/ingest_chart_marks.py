"""Full-ingest speed with vector charts read off their drawing (``chart_marks.read_series``, new) and with it
switched off (old), alternating in one process on the real dev set's PDFs (one worker, no OCR)::

    python benchmarks/ingest_chart_marks.py /tmp/ing-charts --repeat 2
"""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("work", type=Path, help="scratch folder (replaced)")
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()
    logging.disable(logging.WARNING)

    from ingest_timing import timed_ingest

    from docrag.ingestion import chart_marks

    real = chart_marks.read_series
    pdfs = sorted((ROOT / "benchmarks" / "devset" / "pdfs").glob("*.pdf"))   # fetched: see its SOURCES.md
    for i in range(args.repeat):
        for label, read in (("old", lambda drawings, words, box: []), ("new", real)):
            chart_marks.read_series = read
            n, _, wall, cpu = timed_ingest(pdfs, args.work / label)
            print(f"{label} run {i + 1}: {n} pages, wall {wall:.1f} s, {n / wall:.1f} pages/s, "
                  f"parent CPU {cpu:.3f} s/page")


if __name__ == "__main__":
    main()
