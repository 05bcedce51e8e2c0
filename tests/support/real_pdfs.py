"""Pages of the real dev-set PDFs (``benchmarks/devset/pdfs``, fetched as its README says), ingested on their own for
a test; tests using them skip where the PDFs are not fetched."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pymupdf

from docrag.corpus import Corpus
from docrag.ingestion import ingest
from docrag.types import Page

DEV_PDFS = Path(__file__).resolve().parents[2] / "benchmarks" / "devset" / "pdfs"
NOT_FETCHED = "dev-set PDFs not fetched (benchmarks/devset/SOURCES.md)"


def real_pages(pdf: Path, page_nos: Sequence[int], folder: Path, name: str = "extract.pdf") -> list[Page]:
    """Pages ``page_nos`` (1-based, in that order) of ``pdf`` as one new PDF ``name`` ingested into a corpus under
    ``folder``; its pages in the order given."""
    folder.mkdir(parents=True, exist_ok=True)
    out = pymupdf.open()
    with pymupdf.open(pdf) as src:
        for n in page_nos:
            out.insert_pdf(src, from_page=n - 1, to_page=n - 1)
    out.save(folder / name)
    ingest([folder / name], folder / "corpus", show_progress=False)
    corpus = Corpus.open(folder / "corpus")
    return corpus.pages([corpus.find_documents(name)[0].doc_id])
