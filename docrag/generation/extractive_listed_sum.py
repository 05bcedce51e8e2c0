"""A sum the question lists by name: "the total of Apple's cash and cash equivalents plus current and non-current
marketable securities as of December 31, 2022", "A、B和C合计". Every quantity named is one cell of one column (one
period), each in a row of its own, and the sum is theirs; when the pages hold no such cells, no two other cells are
added in their place (``docs/extractive-rules.md``, rule 163 ``listed_sum``).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from typing import Any

from docrag.generation.extractive_formula import exact_match, measure_name, name_match
from docrag.generation.extractive_math import (
    cell_figure,
    comparable,
    finest,
    fmt_figure,
    mixes_measures,
    named_figure,
    not_addable,
)
from docrag.generation.extractive_tables import is_serial, parse_number
from docrag.generation.extractive_units import Unit, tokenize

# "the total of A plus B", "the sum of A, B and C": the list ends where its period or date begins
_TOTAL_OF = re.compile(r"\b(?:total|sum|aggregate)\s+of\s+(?:the\s+)?(?P<list>[^?;]{5,200}?)"
                       r"(?=\s+(?:as of|at the end of|at|in|for|during|on|from)\s|[?;]|"
                       r",\s+(?:and|but|or|what|which|how)\b|$)", re.IGNORECASE)
# "what were A and B combined", "how much did A and B bring in together"
_COMBINED = re.compile(r"\b(?:what|how much)\s+(?:was|were|is|are|did)\s+(?:the\s+)?(?P<list>[^?;]{5,200}?)\s+"
                       r"(?:combined|together|in total)\b", re.IGNORECASE)
# "A、B和C合计", "把A与B相加": a list of two names at least, each two characters or more, no bracket in it
_ZH_NAME = r"[\u4e00-\u9fffA-Za-z0-9]{2,24}"
_ZH_LIST = re.compile(rf"(?P<list>{_ZH_NAME}(?:(?:、|和|与|以及|加上){_ZH_NAME})+)的?"
                      r"(?:合计|之和|总和|相加|加总|加起来)")
_ZH_SPLIT = re.compile(r"、|和|与|以及|加上")   # not 及 nor 加 alone: "税金及附加" is one line
# "current and non-current marketable securities": two kinds of one thing, each named in full
_TWO_KINDS = re.compile(r"^(?P<a>[\w-]+) and (?P<b>[\w-]+) (?P<rest>.+)$", re.IGNORECASE)
MIN_LISTED = 2 / 3   # share of a listed name's words the cell's row label and headers must hold


def listed_names(question: str) -> list[str]:
    """The quantities a sum lists by name ("cash and cash equivalents", "current marketable securities",
    "non-current marketable securities"), or [] when the question lists fewer than two."""
    for pattern in (_TOTAL_OF, _COMBINED):
        m = pattern.search(question)
        if m is not None:
            names = _names_en(m.group("list"))
            if len(names) >= 2:
                return names
    m = _ZH_LIST.search(question)
    return [n for n in _ZH_SPLIT.split(m.group("list")) if n] if m is not None else []


def _names_en(text: str) -> list[str]:
    """A list's names: "plus" parts them; without it commas and "and" do, a lone word rejoining the name it
    begins ("cash" and "cash equivalents"); two kinds of one thing are two names."""
    text = measure_name(text)
    if re.search(r"\bplus\b", text, re.IGNORECASE):
        pieces = re.split(r"\s*,?\s*\bplus\b\s*|\s*,\s*", text, flags=re.IGNORECASE)
    else:
        pieces = []
        for piece in re.split(r"\s*,\s*(?:and\s+)?|\s+and\s+", text, flags=re.IGNORECASE):
            if pieces and len(pieces[-1].split()) == 1 and piece.lower().startswith(pieces[-1].lower()):
                pieces[-1] = f"{pieces[-1]} and {piece}"   # "cash" + "cash equivalents"
            else:
                pieces.append(piece)
    names: list[str] = []
    for piece in (p.strip() for p in pieces):
        m = _TWO_KINDS.match(piece)
        a, b = (m.group("a").lower(), m.group("b").lower()) if m else ("", "")
        if m and a != b and (a.endswith(b) or b.endswith(a)):   # "current and non-current", "long-term and short-term"
            names += [f"{m.group('a')} {m.group('rest')}", f"{m.group('b')} {m.group('rest')}"]
        elif tokenize(piece):
            names.append(piece)
    return names


def listed_operands(question: str, units: Sequence[Unit], scores: Sequence[float]) -> list[Unit] | None:
    """``listed_sum``: one cell per name :func:`listed_names` finds, all in one column of one page, each in a row
    of its own, chosen to fit the names best (every name holding ``MIN_LISTED`` of its words); of columns fitting
    as well, the one the scores favour (the period the question names: "as of December 31, 2022", not September 24,
    2022). None when the question lists no sum, [] when no column holds every name."""
    names = listed_names(question)
    if not names:
        return None
    columns: dict[tuple[str, str], list[tuple[Unit, float]]] = {}
    for u, s in zip(units, scores, strict=True):
        if u.cell is not None and parse_number(u.cell.value) is not None and not is_serial(u.cell):
            columns.setdefault((u.page.page_id, u.cell.header_text), []).append((u, s))
    best: tuple[tuple[float, ...], list[Unit]] | None = None
    for cells in columns.values():
        picked = _assigned(names, cells)
        if picked is None:
            continue
        fit, chosen = picked
        key = (fit, sum(s for u, s in cells if u in chosen))
        if best is None or key > best[0]:
            best = (key, chosen)
    return [] if best is None else best[1]


def _assigned(names: list[str], cells: list[tuple[Unit, float]]) -> tuple[float, list[Unit]] | None:
    """The cells of one column that fit ``names`` best, one row each: (total fit, cells in the names' order)."""
    options = []
    for name in names:
        fits = sorted(((name_match(name, u), exact_match(name, u), s, u) for u, s in cells),
                      key=lambda t: (-t[0], -t[1], -t[2]))
        fits = [t for t in fits if t[0] >= MIN_LISTED][:4]
        if not fits:
            return None
        options.append(fits)
    best: tuple[tuple[float, float], list[Unit]] | None = None
    for combo in itertools.product(*options):
        rows = {id(t[3].cell.row) for t in combo if t[3].cell is not None}
        if len(rows) < len(combo):
            continue
        key = (sum(t[0] for t in combo), sum(t[1] for t in combo))
        if best is None or key > best[0]:
            best = (key, [t[3] for t in combo])
    return None if best is None else (best[0][0], best[1])


def listed_sum(cells: Sequence[Unit], meta: dict[str, Any]) -> str | None:
    """"total = a + b + c" for the listed cells when they add up (no percentage beside an amount, no average or
    price per unit, no money beside a count); ``meta`` records the sum, or why it was refused."""
    figures = [c.cell for c in cells if c.cell is not None]
    first = figures[0]
    if any(not_addable("sum", f.header_text) or not_addable("sum", f.row.label) for f in figures):
        meta["arithmetic_refused"] = "sum: averages or prices per unit"
        return None
    if any(not comparable("sum", cell_figure(first), cell_figure(f))
           or mixes_measures("sum", named_figure(first), named_figure(f)) for f in figures[1:]):
        meta["arithmetic_refused"] = "sum: figures of different kinds"
        return None
    values = [parse_number(f.value) for f in figures]
    total = sum(v for v in values if v is not None)
    meta["arithmetic"] = {"op": "sum", "value": total, "inputs": [f.value for f in figures]}
    return f"{fmt_figure(total, finest([f.value for f in figures]))} = {' + '.join(f.value for f in figures)}"
