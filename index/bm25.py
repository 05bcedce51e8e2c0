"""``bm25``: BM25 (bm25s) over the page text layer / OCR text.

Tokenizer: Latin words and numbers lower-cased, English stop words removed and Porter-stemmed
(nltk); numbers lose thousands separators (``11,062`` -> ``11062``); runs of CJK characters are
segmented with jieba (search mode: words plus their sub-words), the default; ``bm25:bigram`` gives
character unigrams plus bigrams instead (no dictionary), ``bm25:jieba+bigram`` both.

Pages and queries are indexed as those terms plus each pair of adjacent terms (``operating_margin``,
``营业_收入``), so a page holding the question's phrase outranks one holding its words apart. Measured on
the real dev set's seen split (BENCHMARKS.md "Default retriever on the real dev set"): the gold page
first for 75.6% of English and 75.0% of Chinese questions with pairs, 71.8% and 71.9% without.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from docrag.index.base import Retriever, page_text
from docrag.index.device import check_options
from docrag.index.registry import RETRIEVERS
from docrag.types import Page
from docrag.words import jieba, porter_stem, simplified

TOKENIZER_VERSION = "4"   # 2: adjacent-term pairs added; 3: Chinese in Simplified script; 4: Latin letters end at CJK
DEFAULT_CJK = "jieba"  # measured: BENCHMARKS.md "Default retriever" (zh MRR@10 84.0 vs 80.1 with bigrams)
_HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"   # CJK ideographs: extension A, unified, compatibility
# Latin (and other non-CJK) letters stop where CJK begins: "VIX期货" is "vix" and "期货", not one word
_TOKEN = re.compile(rf"[0-9]+(?:[,.][0-9]+)*|[^\W\d_{_HAN}]+|[{_HAN}]+", re.UNICODE)
_CJK = re.compile(f"[{_HAN}]")
STOPWORDS = frozenset(
    "a an and are as at be but by for if in into is it no not of on or such that the their then there these they "
    "this to was will with what which who whom how when where why do does did from has have had were been its "
    "than per s".split())


CJK_MODES = ("bigram", "jieba", "jieba+bigram")


def _cjk_terms(run: str, mode: str) -> list[str]:
    chars = [c for c in run if _CJK.match(c)]
    out: list[str] = []
    if mode in ("bigram", "jieba+bigram"):
        out.extend(chars)
        out.extend(a + b for a, b in zip(chars, chars[1:], strict=False))
    if mode in ("jieba", "jieba+bigram"):
        out.extend(w for w in jieba().lcut_for_search("".join(chars)) if w.strip())
    return out


def tokenize(text: str, cjk: str = DEFAULT_CJK) -> list[str]:
    """Terms of ``text`` for BM25 (see module docstring); ``cjk`` picks the Chinese terms."""
    out: list[str] = []
    for m in _TOKEN.finditer(text.lower()):
        tok = m.group(0)
        if _CJK.match(tok):
            out.extend(_cjk_terms(simplified(tok), cjk))   # a Traditional-script filing's 營業收入 is 营业收入
        elif tok[0].isdigit():
            out.append(tok.replace(",", "").rstrip("."))
        elif tok not in STOPWORDS and len(tok) > 0:
            out.append(porter_stem(tok))
    return out


def with_pairs(terms: list[str]) -> list[str]:
    """``terms`` plus each pair of adjacent terms joined by ``_`` (phrase evidence for BM25)."""
    return terms + [f"{a}_{b}" for a, b in zip(terms, terms[1:], strict=False)]


class BM25Retriever(Retriever):
    kind = "sparse"
    input = "text"

    def __init__(self, cjk: str = DEFAULT_CJK) -> None:
        self.cjk = cjk

    def encode_pages(self, pages: Sequence[Page], show_progress: bool = True) -> list[list[str]]:
        return [with_pairs(tokenize(page_text(p), self.cjk)) for p in pages]

    def encode_queries(self, queries: Sequence[str], show_progress: bool = False) -> list[list[str]]:
        return [with_pairs(tokenize(q, self.cjk)) for q in queries]

    def describe(self) -> dict:
        return {**super().describe(), "model": "bm25s", "settings": {"tokenizer": TOKENIZER_VERSION, "cjk": self.cjk}}


@RETRIEVERS.register("bm25", optional_arg=True, arg_choices=CJK_MODES,
                     help="BM25 (bm25s) over page text; English and Chinese (bm25:<cjk mode>, modes: "
                          + ", ".join(CJK_MODES) + "; default jieba)")
def make_bm25(arg: str | None, **opts) -> BM25Retriever:
    check_options("bm25", opts, allowed=())
    cjk = arg or DEFAULT_CJK     # the registry has checked it against CJK_MODES
    r = BM25Retriever(cjk)
    r.name = "bm25" if arg is None else f"bm25:{cjk}"
    return r
