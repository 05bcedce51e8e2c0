"""Full-ingest speed with row shading read as tables (``is_row_shading``, new) and with it switched off (old),
alternating in one process on the real dev set's PDFs (one worker, no OCR)::

    python benchmarks/ingest_row_shading.py /tmp/ing-shading --repeat 2
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

    from ingest_timing import alternate

    from docrag.ingestion import figures

    real = figures.is_row_shading
    pdfs = sorted((ROOT / "benchmarks" / "devset" / "pdfs").glob("*.pdf"))   # fetched: see its SOURCES.md
    alternate(pdfs, args.work, args.repeat, [("old", lambda: setattr(figures, "is_row_shading", lambda rects: False)),
                                             ("new", lambda: setattr(figures, "is_row_shading", real))])


if __name__ == "__main__":
    main()
