"""A short passage of a page's text that shows why it matched a query (for ``search`` and ``serve``)."""

from __future__ import annotations

import re

_WORD = re.compile(r"\w+", re.UNICODE)
_CJK = re.compile(r"[\u3400-\u9fff]")


def _terms(text: str) -> set[str]:
    """Lower-cased words of 3+ characters, and single CJK characters (no spaces between CJK words)."""
    out = {w.lower() for w in _WORD.findall(text) if len(w) >= 3 and not _CJK.search(w)}
    out |= set(_CJK.findall(text))
    return out


def snippet(text: str, query: str, width: int = 160) -> str:
    """The ``width``-character window of ``text`` (whitespace collapsed) holding the most query terms,
    widened to word boundaries, with ``…`` where it was cut; the start of the page when nothing matches."""
    flat = " ".join(text.split())
    if len(flat) <= width:
        return flat
    terms = _terms(query)
    lower = flat.lower()
    best, best_score = 0, 0
    if terms:
        starts = sorted({m.start() for t in terms for m in re.finditer(re.escape(t), lower)})
        for s in starts:
            a = max(0, s - width // 4)
            window = lower[a:a + width]
            score = sum(1 for t in terms if t in window)
            if score > best_score:
                best, best_score = a, score
    a = best
    if a > 0:  # start on a word
        sp = flat.find(" ", a)
        a = sp + 1 if 0 <= sp < a + 20 else a
    b = min(len(flat), a + width)
    if b < len(flat):
        sp = flat.rfind(" ", a, b)
        b = sp if sp > a + width // 2 else b
    return ("…" if a > 0 else "") + flat[a:b] + ("…" if b < len(flat) else "")
