"""PDF and image ingestion into a page corpus: ``ingest(paths, out=...) -> IngestReport``.

The pipeline loads on first use of ``ingest``/``IngestReport``, so importing one ingestion module
(``docrag.ingestion.furniture`` and ``continued_tables``, which the corpus writer uses) does not load them all.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from docrag.ingestion.pipeline import IngestReport, ingest

__all__ = ["IngestReport", "ingest"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        return getattr(importlib.import_module("docrag.ingestion.pipeline"), name)
    raise AttributeError(f"module 'docrag.ingestion' has no attribute {name!r}")
