"""PDF and image ingestion into a page corpus: ``ingest(paths, out=...) -> IngestReport``."""

from docrag.ingestion.pipeline import IngestReport, ingest

__all__ = ["IngestReport", "ingest"]
