"""An ingest that first holds its process's GIL for a few seconds (a catastrophic regex, like MuPDF
rendering a hostile page), for the viewer's "stays responsive during an upload" test."""

from __future__ import annotations

import re
import time


def ingest(paths, out, **kwargs):
    from docrag.ingestion import ingest as real

    t0 = time.perf_counter()
    while time.perf_counter() - t0 < 3.0:
        re.match(r"(a+)+$", "a" * 22 + "b")   # C code that never releases the GIL
    return real(paths, out=out, **kwargs)
