"""``hybrid:<a>+<b>`` and ``lang-hybrid:<a>+<b>``: reciprocal-rank fusion (RRF) of two retrievers.

``score(page) = sum over parts of w_part / (RRF_K + rank)``, each part searched ``depth`` deep
(default ``max(100, 5k)``). ``hybrid`` weighs both parts 1; ``lang-hybrid`` picks the weights by
the query's language (``zh`` when its CJK characters outnumber its Latin words, else ``en``):
by default ``en`` 1:2 and ``zh`` 1:0 (Chinese queries use the first part alone -- BM25 with jieba
-- since the bundled MiniLM is English-only), other languages 1:1; the option
``weights="en=1:2,zh=1:0.5"`` changes them. Each part keeps its own index folder (the part's
default folder, or ``<index_dir>/<slug of part>`` when an index folder is given), so
``lang-hybrid:bm25+minilm`` reuses the ``bm25`` and ``minilm`` indexes.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from docrag.errors import DocragError, UnknownNameError
from docrag.index.base import Retriever
from docrag.index.registry import RETRIEVERS, get_retriever
from docrag.index.search import PartOpener, SearchIndex
from docrag.types import Hit, Page

RRF_K = 60
#: measured on the English dev corpus + the Chinese set (BENCHMARKS.md, "Default retriever")
DEFAULT_LANG_WEIGHTS: dict[str, tuple[float, float]] = {"en": (1.0, 2.0), "zh": (1.0, 0.0)}
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_LATIN_WORD = re.compile(r"[A-Za-z]+")


def query_lang(text: str) -> str:
    """``zh`` when CJK characters outnumber Latin words, else ``en`` (the rule the QA loaders use)."""
    cjk = len(_CJK.findall(text))
    return "zh" if cjk > 0 and cjk >= len(_LATIN_WORD.findall(text)) else "en"


def parse_weights(spec: str | dict | None) -> dict[str, tuple[float, float]]:
    """``"en=1:2,zh=1:0.5"`` (or a dict) -> ``{"en": (1.0, 2.0), "zh": (1.0, 0.5)}``; None: the defaults."""
    if spec is None:
        return dict(DEFAULT_LANG_WEIGHTS)
    if isinstance(spec, dict):
        items = list(spec.items())
    else:
        items = [tuple(part.split("=", 1)) for part in str(spec).split(",") if part.strip()]
    out = dict(DEFAULT_LANG_WEIGHTS)
    for item in items:
        try:
            lang, value = item
            a, b = (value.split(":") if isinstance(value, str) else value)
            out[str(lang).strip()] = (float(a), float(b))
        except (TypeError, ValueError) as exc:
            raise UnknownNameError(f"lang-hybrid weights {spec!r}: write them as 'en=1:2,zh=1:0.5' "
                                   f"(language=weight of part a:weight of part b)") from exc
    return out


def split_parts(arg: str) -> tuple[str, str]:
    """``"bm25+colqwen2:/m/x"`` -> ``("bm25", "colqwen2:/m/x")``: the first '+' whose sides are both
    registered family names."""
    families = set(RETRIEVERS.families())
    for i, ch in enumerate(arg):
        if ch == "+":
            a, b = arg[:i].strip(), arg[i + 1:].strip()
            if RETRIEVERS.split(a)[0] in families and RETRIEVERS.split(b)[0] in families:
                return a, b
    raise UnknownNameError(f"hybrid retriever needs two retrievers joined by '+', e.g. 'hybrid:bm25+minilm'; "
                           f"got {arg!r} (families: {', '.join(sorted(families))})")


def fuse(rankings: Sequence[Sequence[Hit]], k: int, name: str, weights: Sequence[float] | None = None) -> list[Hit]:
    """(Weighted) reciprocal-rank fusion of ranked hit lists (ties broken by page id)."""
    scores: dict[str, float] = {}
    for j, hits in enumerate(rankings):
        w = 1.0 if weights is None else float(weights[j])
        if w == 0:
            continue
        for h in hits:
            scores[h.page_id] = scores.get(h.page_id, 0.0) + w / (RRF_K + h.rank)
    order = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:k]
    return [Hit(page_id=pid, score=s, rank=i + 1, retriever=name) for i, (pid, s) in enumerate(order)]


class HybridIndex(SearchIndex):
    """Reciprocal-rank fusion of two part indexes (any :class:`~docrag.index.search.SearchIndex`)."""

    def __init__(self, name: str, parts: Sequence[SearchIndex], depth: int | None = None,
                 lang_weights: dict[str, tuple[float, float]] | None = None) -> None:
        self.name = name
        self.parts = list(parts)
        self.depth = depth
        self.lang_weights = lang_weights   # None: plain RRF (weights 1:1)

    def weights_for(self, query: str) -> tuple[float, float] | None:
        if self.lang_weights is None:
            return None
        return self.lang_weights.get(query_lang(query), (1.0, 1.0))

    def search_batch(self, queries: Sequence[str], k: int = 10, filter: dict | None = None) -> list[list[Hit]]:
        depth = self.depth or max(100, 5 * k)
        per_part = [p.search_batch(queries, k=depth, filter=filter) for p in self.parts]
        return [fuse([part[i] for part in per_part], k, self.name, self.weights_for(q)) for i, q in enumerate(queries)]

    @property
    def page_ids(self) -> list[str]:
        return self.parts[0].page_ids

    def __len__(self) -> int:
        return len(self.parts[0])


class HybridRetriever:
    """A :class:`~docrag.index.search.ComposedRetriever`: it encodes nothing itself, its index fuses
    the indexes of its two parts (:meth:`compose`; ``open_index`` opens or builds each part's index)."""

    kind = "hybrid"

    def __init__(self, name: str, part_names: Sequence[str], part_options: dict[str, Any] | None = None,
                 lang_weights: dict[str, tuple[float, float]] | None = None) -> None:
        self.name = name
        self.part_names = tuple(part_names)
        self.part_options = dict(part_options or {})   # retriever options of both parts (device, batch_size, ...)
        self.lang_weights = lang_weights
        self._parts: list[Retriever] | None = None

    @property
    def parts(self) -> list[Retriever]:
        """The part retrievers, made on first use (opening an index makes its parts' retrievers itself)."""
        if self._parts is None:
            self._parts = [get_retriever(p, **self.part_options) for p in self.part_names]
        return self._parts

    @property
    def input(self) -> str:
        return "image" if any(p.input == "image" for p in self.parts) else "text"

    def compose(self, open_part: PartOpener) -> HybridIndex:
        return HybridIndex(self.name, [open_part(p, **self.part_options) for p in self.part_names],
                           lang_weights=self.lang_weights)

    def index(self, pages: Sequence[Page], show_progress: bool = False) -> HybridIndex:
        """An in-memory hybrid index over ``pages`` (the parts' in-memory indexes)."""
        return HybridIndex(self.name, [p.index(pages, show_progress=show_progress) for p in self.parts],
                           lang_weights=self.lang_weights)

    def search(self, query: str, pages: Sequence[Page], k: int = 10) -> list[Hit]:
        return self.index(pages).search(query, k=k)

    def search_batch(self, queries: Sequence[str], pages: Sequence[Page], k: int = 10) -> list[list[Hit]]:
        return self.index(pages).search_batch(queries, k=k)

    def describe(self) -> dict:
        out = {"retriever": self.name, "kind": self.kind, "parts": [p.describe() for p in self.parts]}
        if self.lang_weights is not None:
            out["lang_weights"] = {k: list(v) for k, v in self.lang_weights.items()}
        return out


@RETRIEVERS.register("hybrid", needs_arg=True, help="reciprocal-rank fusion of two retrievers: hybrid:<a>+<b>")
def make_hybrid(arg: str, **opts) -> HybridRetriever:
    if "weights" in opts:
        raise DocragError(f"retriever 'hybrid:{arg}' does not take option weights (plain hybrid weighs both parts "
                          "1); per-language weights are for lang-hybrid")
    a, b = split_parts(arg)
    return HybridRetriever(f"hybrid:{a}+{b}", (a, b), opts)


@RETRIEVERS.register("lang-hybrid", needs_arg=True,
                     help="RRF of two retrievers weighted by query language: lang-hybrid:<a>+<b>")
def make_lang_hybrid(arg: str, weights: str | dict | None = None, **opts) -> HybridRetriever:
    a, b = split_parts(arg)
    return HybridRetriever(f"lang-hybrid:{a}+{b}", (a, b), opts, lang_weights=parse_weights(weights))
