"""One timed full ingest (one worker, no OCR), shared by the ingest A/B scripts."""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
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


def alternate(pdfs: list[Path], work: Path, repeat: int, variants: list[tuple[str, Callable[[], None]]]) -> None:
    """Ingest ``pdfs`` once per variant (its setup called first), alternating ``repeat`` times, and print each
    run's speed: an old and a new behaviour side by side in one process."""
    for i in range(repeat):
        for label, setup in variants:
            setup()
            n, _, wall, cpu = timed_ingest(pdfs, work / label)
            print(f"{label} run {i + 1}: {n} pages, wall {wall:.1f} s, {n / wall:.1f} pages/s, "
                  f"parent CPU {cpu:.3f} s/page")
