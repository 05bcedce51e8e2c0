"""The retriever registry: names like ``bm25``, ``minilm``, ``colqwen2:<path>``, ``hybrid:a+b``.

Each family lives in one module that registers itself on import; the lazy map below imports a
module only when its family is asked for, so torch loads only for retrievers that need it.
"""

from __future__ import annotations

from typing import Any

from docrag.errors import UnknownNameError
from docrag.index.base import Retriever
from docrag.registry import Family, Registry


def _model(module: str, usage: str = "") -> Family:
    return Family(module=module, usage=usage)


_BUNDLED = "hybrid:bm25+minilm", "lang-hybrid:bm25+minilm"   # hybrids of offline parts

RETRIEVERS: Registry[Retriever] = Registry("retriever", families={
    "bm25": Family("docrag.index.bm25", offline=True),
    "dummy": Family("docrag.index.dummy", offline=True),
    "minilm": Family("docrag.index.dense", offline=True),          # weights bundled in a package
    "e5": Family("docrag.index.e5", offline=True),                 # weights bundled in a package
    "dense": _model("docrag.index.dense", "dense:<sentence-transformers id or path>"),
    "colqwen2": _model("docrag.index.colpali_models", "colqwen2:<model id or path>"),
    "colqwen2.5": _model("docrag.index.colpali_models", "colqwen2.5:<model id or path>"),
    "colpali": _model("docrag.index.colpali_models", "colpali:<model id or path>"),
    "colsmol": _model("docrag.index.colpali_models", "colsmol:<model id or path>"),
    "bi": _model("docrag.index.single_vector", "bi:<model id or path>"),
    # as offline as their parts: pickers offer the hybrids of bundled retrievers
    "hybrid": Family("docrag.index.hybrid", "hybrid:<retriever a>+<retriever b>", offline=True,
                     examples=_BUNDLED[:1]),
    "lang-hybrid": Family("docrag.index.hybrid", "lang-hybrid:<retriever a>+<retriever b>", offline=True,
                          examples=_BUNDLED[1:]),
    "gme": _model("docrag.index.gme", "gme:<model id or path>"),
    "dse": _model("docrag.index.dse", "dse:<model id or path>"),
    "qwen3-vl-embed": _model("docrag.index.qwen3_vl_embed", "qwen3-vl-embed:<model id or path>"),
    "colqwen3": _model("docrag.index.colqwen3", "colqwen3:<model id or path>"),
    "colqwen3.5": _model("docrag.index.colqwen3", "colqwen3.5:<model id or path>"),
    "colbert": _model("docrag.index.colbert", "colbert:<model id or path>"),
    "openai-embed": _model("docrag.index.openai_embed", "openai-embed:<model>"),
})
HYBRIDS = ("hybrid", "lang-hybrid")


def get_retriever(name: str, **opts: Any) -> Retriever:
    """Create the retriever ``name`` (``family`` or ``family:argument``); unknown names list valid ones."""
    retriever = RETRIEVERS.create(name, **opts)
    retriever.name = name
    return retriever


def check_retriever_name(name: str) -> None:
    """Raise :class:`~docrag.errors.UnknownNameError` for a name no retriever answers to (hybrids:
    both parts), before anything is loaded or encoded; ``compare`` checks every name first."""
    family, arg = RETRIEVERS.split(name)
    RETRIEVERS.check_name(name)
    if family in HYBRIDS:
        for part in split_parts(arg or ""):
            check_retriever_name(part)


def split_parts(arg: str) -> tuple[str, str]:
    """``"bm25+colqwen2:/m/x"`` -> ``("bm25", "colqwen2:/m/x")``: the first '+' whose sides are both
    registered family names (the argument of ``hybrid:`` and ``lang-hybrid:``)."""
    families = set(RETRIEVERS.families())
    for i, ch in enumerate(arg):
        if ch == "+":
            a, b = arg[:i].strip(), arg[i + 1:].strip()
            if RETRIEVERS.split(a)[0] in families and RETRIEVERS.split(b)[0] in families:
                return a, b
    raise UnknownNameError(f"hybrid retriever needs two retrievers joined by '+', e.g. 'hybrid:bm25+minilm'; "
                           f"got {arg!r} (families: {', '.join(sorted(families))})")


def available_retrievers() -> list[str]:
    """Usage strings of every retriever family (``bm25``, ``colqwen2:<model id or path>``, ...),
    without importing any model code."""
    return [RETRIEVERS.usage(f) for f in RETRIEVERS.families()]

