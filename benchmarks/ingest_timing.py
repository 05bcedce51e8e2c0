"""One timed full ingest (one worker, no OCR), shared by the ingest A/B scripts."""

from __future__ import annotations

import shutil
import time
from pathlib import Path


def timed_ingest(pdfs: list[Path], out: Path) -> tuple[int, int, float, float]:
    """Ingest ``pdfs`` into ``out`` (replaced): (pages, table blocks, wall s, parent CPU s per page)."""
    from docrag.corpus import Corpus
    from docrag.ingestion import ingest

    shutil.rmtree(out, ignore_errors=True)
    t, c0 = time.perf_counter(), time.process_time()
    ingest(pdfs, out, show_progress=False, ocr="never", workers=1)
    wall, cpu = time.perf_counter() - t, time.process_time() - c0
    corpus = Corpus.open(out)
    n = len(corpus)
    n_tables = sum(b.kind.value == "table" for p in corpus.pages() for b in p.blocks)
    return n, n_tables, wall, cpu / n
