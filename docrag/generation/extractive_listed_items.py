"""Every item a question lists is answered (rule 220 ``listed_items``, ``docs/extractive-rules.md``).

"How did UK household consumption, housing investment and business investment change in 2023 Q4?", "which grew
fastest among the euro area, the United States and China?", "headline and core inflation rates for the euro area
and the United States": when the quoted evidence names some items of such a list and not the others, the
sentence or cell of the same document that names a missing item, states a quantity when the answer does, and says
most of what the answer's first unit says ("US GDP had grown by 0.8%" beside "In China, GDP had grown by 1.0%"; the
better score among equals), is quoted and cited beside it. An item of capitalised words is named by its initials
too ("United States" is "US"); an owner's name before an item ("Netflix's revenues") is the document's, not the
item's.
Applied in ``extractive.py`` before the complementary evidence of ``extractive_answer.complement``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from docrag.generation.extractive_answer import fmt_cell
from docrag.generation.extractive_units import _CJK, Unit, _has_quantity, content_words
from docrag.words import BRACKETED, YEAR

LISTED_SHARE = 0.2   # a unit naming a missing item competes down to this share of the answering unit's score
MIN_NAMED = 2 / 3    # share of an item's words a unit must hold to name it (all of an item of one or two words)

_WORD = re.compile(r"[A-Za-z][\w'’-]*|\d[\d,.]*%?|[,;:?()]")
# words that end an item: verbs, prepositions, question words, numbers and punctuation (articles are skipped)
_BOUNDARY = frozenset("""is are was were be been did do does has have had change changed changes grow grew grown
rise rose risen fall fell fallen increase increased decrease decreased compare compared in on of for at from to by
between during over among according per respectively what which who how when where why and or as than with that
their its his her our whose""".split())
_AMOUNT = re.compile(r"\bhow (?:many|much)\b|\brates?\b|\bat what\b", re.IGNORECASE)   # a quantity asked
_QUOTED = re.compile(r"'[^']{3,}'(?!\w)|\"[^\"]{3,}\"|‘[^’]{3,}’|“[^”]{3,}”|《[^》]*》")
_SKIP = frozenset({"the", "a", "an"})
MAX_ITEM_WORDS = 4


def _item_words(words: list[str], start: int, step: int) -> list[str]:
    """The words of one item read from ``start`` (forward with ``step`` 1, backward with -1) to a boundary."""
    out: list[str] = []
    i = start
    while 0 <= i < len(words) and len(out) < MAX_ITEM_WORDS:
        w = words[i]
        if w.lower() in _SKIP:
            if out or step < 0:
                break
            i += step
            continue
        if YEAR.fullmatch(w) and not out:   # "for 2024 and 2025": a year is an item of its own
            out.append(w)
            break
        if not w[0].isalpha() or w.lower() in _BOUNDARY:
            break
        out.append(w)
        i += step
    if step < 0:
        out.reverse()
    owners = [n for n, w in enumerate(out[:-1]) if re.search(r"\w['’]s?$", w)]
    return out[owners[-1] + 1:] if owners else out   # "Netflix's revenues": the owner is the document's name


def listed_items(question: str) -> list[list[str]]:
    """The lists of an English question ("A, B and C", "A and B"): each a list of items, each item its words."""
    words = _WORD.findall(_QUOTED.sub(" ; ", BRACKETED.sub(" ; ", question)))   # a quoted title, an aside list nothing
    lists: list[list[str]] = []
    for k, w in enumerate(words):
        if w.lower() != "and":
            continue
        right = _item_words(words, k + 1, 1)
        j = k - 1 if k and words[k - 1] != "," else k - 2   # "A, B, and C"
        left = [_item_words(words, j, -1)]
        while left[-1]:
            j -= len(left[-1])
            while j >= 0 and words[j].lower() in _SKIP:
                j -= 1
            if j < 1 or words[j] != ",":
                break
            j -= 1
            left.append(_item_words(words, j, -1))
        items = [x for x in reversed(left) if x] + ([right] if right else [])
        if len(items) == 2 and "between" in (x.lower() for x in words[max(0, j - 2):j + 1]):
            continue   # "between December 2023 and January 2024": a span, not a list
        if len(items) >= 2 and right and left[0]:
            lists.append(items)
    return lists


def _names(item: list[str], unit_text: str, words: set[str]) -> bool:
    """``unit_text`` (its ``words``, as content_words writes them) names the item, or its initials do."""
    want = content_words(" ".join(item))
    if want and len(want & words) >= (len(want) if len(want) <= 2 else MIN_NAMED * len(want)):
        return True
    caps = [w for w in item if w[0].isupper()]
    return len(caps) >= 2 and re.search(rf"\b{''.join(w[0] for w in caps)}\b", unit_text) is not None


def cover_listed(question: str, used: list[Unit], parts: list[str], units: Sequence[Unit], order: Sequence[int],
                 scores: Sequence[float], top: float, max_citations: int) -> None:
    """Add to ``used`` and ``parts`` a unit for each listed item the quoted evidence does not name (rule 220; when a
    quantity is asked or quoted, a unit stating none names nothing), down to ``LISTED_SHARE`` x ``top``."""
    seen: dict[int, tuple[str, set[str]]] = {}   # id(unit) -> (its quoted text, its words): read once per unit

    def read(u: Unit) -> tuple[str, set[str]]:
        if id(u) not in seen:
            text = fmt_cell(u) if u.kind == "cell" else u.text
            seen[id(u)] = (text, content_words(text))
        return seen[id(u)]

    lists = listed_items(question) if not _CJK.search(question) else []
    if not lists or not used:
        return
    doc = used[0].page.doc_id
    quantity = bool(_AMOUNT.search(question)) or any(_has_quantity(read(u)[0]) for u in used)
    for items in lists:
        for item in items:
            if len(used) >= max_citations:
                return
            if any(_names(item, t, w) and (not quantity or _has_quantity(t)) for t, w in map(read, used)):
                continue
            said = read(used[0])[1] - content_words(" ".join(item))
            found: list[tuple[int, float, Unit]] = []   # (words said as the answer's first unit says them, score, unit)
            for i in order:
                u = units[i]
                if scores[i] < LISTED_SHARE * top:
                    break
                if u.kind not in ("sentence", "cell") or u.page.doc_id != doc or any(u is v for v in used):
                    continue
                text, words = read(u)
                if _names(item, text, words) and (not quantity or _has_quantity(text)):
                    found.append((len(words & said), scores[i], u))
            if found:
                u = max(found, key=lambda f: f[:2])[2]
                used.append(u)
                parts.append(read(u)[0])
