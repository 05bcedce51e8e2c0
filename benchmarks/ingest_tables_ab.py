"""Full-ingest speed with this checkout's table finder (new) and the one of an earlier commit (old), alternating
in one process on the real dev set's PDFs (one worker, no OCR)::

    python benchmarks/ingest_tables_ab.py /tmp/ing-tables --old 3028c6e --repeat 2
"""

from __future__ import annotations

import argparse
import logging
import subprocess
import sys
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _old_tables(commit: str) -> types.ModuleType:
    """``docrag.ingestion.tables`` as it was at ``commit``, loaded beside the current one."""
    source = subprocess.run(["git", "-C", str(ROOT), "show", f"{commit}:docrag/ingestion/tables.py"],
                            check=True, capture_output=True, text=True).stdout
    module = types.ModuleType("docrag.ingestion.tables_old")
    sys.modules[module.__name__] = module
    exec(compile(source, f"tables.py@{commit}", "exec"), module.__dict__)
    return module


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("work", type=Path, help="scratch folder (replaced)")
    ap.add_argument("--old", required=True, help="commit whose table finder is the baseline")
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()
    logging.disable(logging.WARNING)

    from ingest_timing import timed_ingest

    from docrag.ingestion import pdfpage, tables

    finders = {"old": _old_tables(args.old), "new": tables}
    pdfs = sorted((ROOT / "benchmarks" / "devset" / "pdfs").glob("*.pdf"))   # fetched: see its SOURCES.md
    for i in range(args.repeat):
        for label, module in finders.items():
            pdfpage.tables = module
            n, n_tables, wall, cpu = timed_ingest(pdfs, args.work / label)
            print(f"{label} run {i + 1}: {n} pages, {n_tables} tables, wall {wall:.1f} s, {n / wall:.1f} pages/s, "
                  f"parent CPU {cpu:.3f} s/page", flush=True)
    pdfpage.tables = tables


if __name__ == "__main__":
    main()
