"""Arithmetic the question spells out: "产销率（销售量/生产量）", "free cash flow, computed as net cash from
operations minus additions to property and equipment". The question names both operands and their order,
so the ``extractive`` generator takes the cells those names label, in that order, instead of guessing a
second operand beside its best cell (``docs/extractive-rules.md``, rule 76 ``stated_formula``). A standard
ratio the question only names (gross, operating or net margin) is its measure's row over the revenue row
(rule 84 ``standard_ratio``), unless a row prints it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from docrag.generation.extractive_tables import is_serial, parse_number
from docrag.generation.extractive_units import Unit, tokenize

_NAME = r"[^（）()/÷,，;；?？。]{1,40}?"
# "(A/B)", "（A÷B）": a quotient written out beside the measure it defines
_PAREN = re.compile(rf"[（(]\s*(?P<a>{_NAME})\s*(?P<op>/|÷|除以)\s*(?P<b>{_NAME})\s*[）)]")
# "computed as A minus B", "calculated as A divided by B"
_WORDS = re.compile(r"\b(?:computed|calculated|defined|measured|derived|taken)\s+as\s+(?:the\s+)?"
                    r"(?P<a>[^,;?]{3,60}?)\s+(?P<op>minus|less|plus|divided by|over)\s+(?:the\s+)?"
                    r"(?P<b>[^,;?()]{3,60}?)\s*(?=[,;?(]|$|\.\s|\.$)", re.IGNORECASE)
# "销售量除以生产量", "营业收入减去营业成本", "A ÷ B"
_ZH = re.compile(r"(?P<a>[\u4e00-\u9fffA-Za-z]{2,20})\s*(?P<op>除以|减去|加上|÷)\s*(?P<b>[\u4e00-\u9fffA-Za-z]{2,20})")
# a slash names a quotient only after the measure it defines ("产销率（销售量/生产量）"), not between
# alternatives ("(VaR/leverage)")
_MEASURE = re.compile(r"(?:率|比|比例|比重|\bratio|\bmargin|\brate|\bpercentage|\byield|\bmultiple|\bturnover)\s*$",
                      re.IGNORECASE)
_OP = {"/": "quotient", "÷": "quotient", "除以": "quotient", "divided by": "quotient", "over": "quotient",
       "minus": "difference", "less": "difference", "减去": "difference", "plus": "sum", "加上": "sum"}
# a quotient asked as a rate or a percentage is shown as one ("产销率", "gross margin percentage")
_AS_PERCENT = re.compile(r"率|比例|比重|占比|百分|%|\bpercent(?:age)?\b|\bmargin\b|\brate\b", re.IGNORECASE)
_SECTION = re.compile(r"\s*\([^()]*\)\s*$")   # "Operating income (Cost of revenue)": the row's section
MIN_NAME_MATCH = 0.5   # share of an operand name's tokens the cell's row label and headers must hold


@dataclass(frozen=True)
class Formula:
    """``op`` (difference, sum, share or ratio) applied to the quantities named ``a`` and ``b``, in that
    order: a − b, a + b, a / b."""

    op: str
    a: str
    b: str          # alternatives split by "|" ("net sales|revenue")
    asked: str = ""  # a standard ratio's own name ("gross margin percentage"): read where a cell prints it


_REVENUE = "total net sales|net sales|total revenue|revenue"
# standard ratios a statement does not print (``standard_ratio``): the question names the measure, not
# its operands ("What was Microsoft's gross margin percentage for fiscal year 2025?")
_STANDARD = [
    (re.compile(r"\bgross (?:profit )?margin (?:percentage|percent|%|rate|ratio)\b|\bgross margin as a percent",
                re.IGNORECASE), "gross margin|gross profit"),
    (re.compile(r"\boperating (?:profit )?margin\b", re.IGNORECASE), "operating income|income from operations"),
    (re.compile(r"\bnet (?:profit )?margin\b", re.IGNORECASE), "net income"),
]


def formula_of(question: str) -> Formula | None:
    """The arithmetic ``question`` writes out with both operands named, else a standard ratio it names
    (gross, operating or net margin: the measure over revenue), or None."""
    written = _written(question)
    if written is not None:
        return written
    for pattern, measure in _STANDARD:
        m = pattern.search(question)
        if m is not None:
            return Formula("share", measure, _REVENUE, asked=m.group(0))
    return None


def _written(question: str) -> Formula | None:
    for pattern in (_PAREN, _WORDS, _ZH):
        m = pattern.search(question)
        if m is None:
            continue
        if pattern is _PAREN and m.group("op") == "/" and not _MEASURE.search(question[:m.start()]):
            continue
        op = _OP[m.group("op").lower()]
        if op == "quotient":
            op = "share" if _AS_PERCENT.search(question) else "ratio"
        a, b = m.group("a").strip(), m.group("b").strip()
        if tokenize(a) and tokenize(b):
            return Formula(op, a, b)
    return None


def _match(name: str, u: Unit) -> float:
    """Share of ``name``'s tokens in the row label and headers of ``u``'s cell (the best of its "|"
    alternatives)."""
    assert u.cell is not None
    have = set(tokenize(f"{u.cell.row.label} {u.cell.header_text}"))
    shares = [len(want & have) / len(want) for want in (set(tokenize(alt)) for alt in name.split("|")) if want]
    return max(shares, default=0.0)


def _exact(name: str, u: Unit) -> float:
    """1.0 when ``u``'s row label, its section "(...)" aside, is one of ``name``'s alternatives word for word
    ("Revenue", "Total net sales"; not "Operating income (Cost of revenue)" for "revenue", nor "Other income,
    net" for "net income")."""
    assert u.cell is not None
    label = _words(_SECTION.sub("", u.cell.row.label))
    return 1.0 if label and any(label == _words(alt) for alt in name.split("|")) else 0.0


def _words(text: str) -> set[str]:
    """Every word, stopwords too ("other" of "Other income, net" counts)."""
    return set(re.findall(r"[^\W_]+", text.lower()))


def printed_ratio(formula: Formula, units: Sequence[Unit]) -> bool:
    """A standard ratio the pages print as a row of its own ("Gross margin percentage", "Operating
    margin"): it is read, not computed."""
    return bool(formula.asked) and any(u.cell is not None and _match(formula.asked, u) == 1.0 for u in units)


def _beside(a: Unit, b: Unit) -> bool:
    """``b`` pairs with ``a``: same row of one table, or the same column (equal headers, and the same x, or
    the same place in rows of as many cells, where the headers say nothing) of one table or of another
    section's table on the same page (a cash flow statement parsed as one table per section)."""
    ca, cb = a.cell, b.cell
    assert ca is not None and cb is not None
    if a.table is b.table and ca.row is cb.row:
        return True
    if ca.headers != cb.headers or (a.table is not b.table and a.page is not b.page):
        return False
    if ca.cell.box is not None and cb.cell.box is not None:
        x, y = ca.cell.box, cb.cell.box
        return min(x.x1, y.x1) - max(x.x0, y.x0) >= 0.5 * min(x.width, y.width)
    return a.table is b.table and len(ca.row.cells) == len(cb.row.cells) \
        and ca.row.position(ca.cell) == cb.row.position(cb.cell)


def formula_operands(formula: Formula, units: Sequence[Unit],
                     scores: Sequence[float]) -> tuple[Unit, Unit] | None:
    """The cells named ``formula.a`` and ``formula.b`` (one table, sharing a row or a column), ordered as
    :func:`docrag.generation.extractive_math.compute` takes them: (b, a) for a difference (a − b), else
    (a, b). None when either name labels no cell."""
    cells = [(u, s) for u, s in zip(units, scores, strict=True)
             if u.cell is not None and parse_number(u.cell.value) is not None and not is_serial(u.cell)]
    fit = _exact if formula.asked else _match   # a standard ratio's operands are named rows, word for word
    named_a = [(fit(formula.a, u), s, i, u) for i, (u, s) in enumerate(cells)]
    named_b = [(fit(formula.b, u), s, i, u) for i, (u, s) in enumerate(cells)]

    def ranked(named: list[tuple[float, float, int, Unit]]) -> list[Unit]:   # best name fit, then score
        return [u for m, _, _, u in sorted(named, key=lambda t: (-t[0], -t[1], t[2])) if m >= MIN_NAME_MATCH]

    seconds = ranked(named_b)
    for a in ranked(named_a)[:3]:
        b = next((u for u in seconds if u.cell is not a.cell and _beside(a, u)), None)
        if b is not None:
            return (b, a) if formula.op == "difference" else (a, b)
    return None
