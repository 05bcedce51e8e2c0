"""docrag: retrieval-augmented generation over page images, with visual citations you can check."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from docrag._version import __version__
from docrag.corpus import Corpus
from docrag.geometry import Box, Space
from docrag.types import Answer, Block, BlockKind, Citation, Document, Hit, Page, Word

if TYPE_CHECKING:
    from docrag.grounding import ground
    from docrag.ingestion import ingest
    from docrag.pipeline import RAG

__all__ = ["__version__", "Answer", "Block", "BlockKind", "Box", "Citation", "Corpus", "Document",
           "Hit", "Page", "Space", "Word", "ground", "ingest", "RAG"]

_LAZY = {"ingest": ("docrag.ingestion", "ingest"), "RAG": ("docrag.pipeline", "RAG"),
         "ground": ("docrag.grounding", "ground")}


def __getattr__(name: str) -> Any:
    # Heavy parts (PyMuPDF, torch) load on first use, so `import docrag` stays fast.
    if name in _LAZY:
        module, attr = _LAZY[name]
        return getattr(importlib.import_module(module), attr)
    raise AttributeError(f"module 'docrag' has no attribute {name!r}")
