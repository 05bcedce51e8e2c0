"""Full-ingest speed with one ingest behaviour on (new) and switched off (old), alternating in one process on the
real dev set's PDFs (one worker, no OCR)::

    python benchmarks/ingest_switch.py row-shading /tmp/ing-shading --repeat 2   # is_row_shading (f6a20ed)
    python benchmarks/ingest_switch.py chart-marks /tmp/ing-charts --repeat 2    # charts read off their drawing
"""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _switches() -> dict[str, tuple[object, str, object]]:
    """name -> (module, attribute, the old behaviour put in its place)."""
    from docrag.ingestion import chart_marks, figures

    def no_shading(rects):
        return False

    def unread(drawings, words, box):
        return []

    return {"row-shading": (figures, "is_row_shading", no_shading),
            "chart-marks": (chart_marks, "read_series", unread)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("switch", choices=("row-shading", "chart-marks"))
    ap.add_argument("work", type=Path, help="scratch folder (replaced)")
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()
    logging.disable(logging.WARNING)

    from ingest_timing import alternate

    module, attr, old = _switches()[args.switch]
    new = getattr(module, attr)
    pdfs = sorted((ROOT / "benchmarks" / "devset" / "pdfs").glob("*.pdf"))   # fetched: see its SOURCES.md
    alternate(pdfs, args.work, args.repeat, [("old", lambda: setattr(module, attr, old)),
                                             ("new", lambda: setattr(module, attr, new))])


if __name__ == "__main__":
    main()
