"""The retriever registry: names like ``bm25``, ``minilm``, ``colqwen2:<path>``, ``hybrid:a+b``.

Each family lives in one module that registers itself on import; the lazy map below imports a
module only when its family is asked for, so torch loads only for retrievers that need it.
"""

from __future__ import annotations

from typing import Any

from docrag.index.base import Retriever
from docrag.registry import Registry

_USAGE = {
    "dense": "dense:<sentence-transformers id or path>",
    "colqwen2": "colqwen2:<model id or path>",
    "colqwen2.5": "colqwen2.5:<model id or path>",
    "colpali": "colpali:<model id or path>",
    "colsmol": "colsmol:<model id or path>",
    "bi": "bi:<model id or path>",
    "hybrid": "hybrid:<retriever a>+<retriever b>",
    "lang-hybrid": "lang-hybrid:<retriever a>+<retriever b>",
    "gme": "gme:<model id or path>",
    "dse": "dse:<model id or path>",
    "qwen3-vl-embed": "qwen3-vl-embed:<model id or path>",
    "colqwen3": "colqwen3:<model id or path>",
    "colqwen3.5": "colqwen3.5:<model id or path>",
    "colbert": "colbert:<model id or path>",
    "openai-embed": "openai-embed:<model>",
}


RETRIEVERS: Registry[Retriever] = Registry(
    "retriever",
    lazy_modules={
        "bm25": "docrag.index.bm25",
        "dummy": "docrag.index.dummy",
        "minilm": "docrag.index.dense",
        "e5": "docrag.index.e5",
        "dense": "docrag.index.dense",
        "colqwen2": "docrag.index.colpali_models",
        "colqwen2.5": "docrag.index.colpali_models",
        "colpali": "docrag.index.colpali_models",
        "colsmol": "docrag.index.colpali_models",
        "bi": "docrag.index.single_vector",
        "hybrid": "docrag.index.hybrid",
        "lang-hybrid": "docrag.index.hybrid",
        "gme": "docrag.index.gme",
        "dse": "docrag.index.dse",
        "qwen3-vl-embed": "docrag.index.qwen3_vl_embed",
        "colqwen3": "docrag.index.colqwen3",
        "colqwen3.5": "docrag.index.colqwen3",
        "colbert": "docrag.index.colbert",
        "openai-embed": "docrag.index.openai_embed",
    },
    usage=_USAGE,
)


def get_retriever(name: str, **opts: Any) -> Retriever:
    """Create the retriever ``name`` (``family`` or ``family:argument``); unknown names list valid ones."""
    retriever = RETRIEVERS.create(name, **opts)
    retriever.name = name
    return retriever


def available_retrievers() -> list[str]:
    """Usage strings of every retriever family (``bm25``, ``colqwen2:<model id or path>``, ...),
    without importing any model code."""
    return [RETRIEVERS.usage(f) for f in RETRIEVERS.families()]


def family_names() -> list[str]:
    """Family names without importing any family module."""
    return RETRIEVERS.families()
