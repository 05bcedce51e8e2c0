"""Task functions for Ray tests (sent to workers by value)."""

from __future__ import annotations

import os
from pathlib import Path


def crash_first_attempt(marker_dir: str, page_no: int, file_name: str):
    """A page task that kills its worker process the first time it sees page ``page_no`` of ``file_name``."""
    from docrag.ingestion.ray_engine import process_page

    file_name_wanted = file_name

    def task(pdf_bytes, key, doc_id, file_name, n, opts):
        marker = Path(marker_dir) / f"crashed-{doc_id}-{n}"
        if n == page_no and file_name == file_name_wanted and not marker.exists():
            marker.write_text("worker killed here\n")
            os._exit(1)
        return process_page(pdf_bytes, key, doc_id, file_name, n, opts)

    return task
