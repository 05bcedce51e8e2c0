"""Arithmetic on a chart's data labels (rule 99, ``chart_math``).

"By how much did non-GAAP gross profit increase from Q4'22 to Q4'23?" over a bar chart labelled "$518"
and "$564": the two bars the question names, earlier to later, combined as :func:`extractive_math.compute`
combines two table cells, inputs shown ("$46 = $564 − $518"). Only a chart's printed data labels are used
(never a value read off the drawing), only two categories the question names whole, and only labels of
one kind (two amounts, or two percentages when the question asks about a rate).
"""

from __future__ import annotations

import re

from docrag.generation.extractive_math import Result, compute
from docrag.generation.extractive_tables import parse_number
from docrag.generation.extractive_units import _CJK, Unit, tokenize

# a rate is asked for: the labels compared are percentages
_RATE_Q = re.compile(r"%|\bpercent|\brate\b|\bmargin\b|\bshare\b|率|占比|比重|百分", re.IGNORECASE)
_YEAR = re.compile(r"(?<!\d)((?:19|20)\d\d)(?!\d)|'(\d\d)\b|’(\d\d)\b")
_QUARTER = re.compile(r"\bQ([1-4])\b|([1-4])Q\b|第([一二三四])季度", re.IGNORECASE)
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_CN_DIGIT = {"一": 1, "二": 2, "三": 3, "四": 4}
# the question asks how much a figure fell: the gap is stated as a positive amount (rule 153)
_FALL_Q = re.compile(r"\b(?:declin|decreas|fall|fell|drop|lower|shrank|shrink)|下降|减少|降低|下跌|回落|下滑",
                     re.IGNORECASE)


def _period(label: str) -> tuple[int, int] | None:
    """(year, quarter or month) of a category label ("Q4'22" -> (2022, 4), "2021" -> (2021, 0)); None
    when it names no year."""
    y = _YEAR.search(label)
    if y is None:
        return None
    year = int(y.group(1)) if y.group(1) else 2000 + int(y.group(2) or y.group(3))
    q = _QUARTER.search(label)
    if q is not None:
        sub = int(q.group(1) or q.group(2)) if (q.group(1) or q.group(2)) else _CN_DIGIT[q.group(3)]
        return year, 3 * sub
    low = label.lower()
    month = next((i for i, m in enumerate(_MONTHS, start=1) if re.search(rf"\b{m}", low)), 0)
    return year, month


def _series_label(printed: str, rate: bool) -> str | None:
    """Of a category's labels, top to bottom ("$518, 2%"), the first of the kind asked (a percentage for a
    rate, else an amount)."""
    for label in (s.strip() for s in printed.split(", ")):
        if parse_number(label) is not None and label.endswith("%") == rate:
            return label
    return None


def chart_arithmetic(best: Unit, op: str, question: str, idf: dict[str, float]) -> str | None:
    """The answer "result = later − earlier (labels — categories) (caption)" for a difference, change,
    growth, sum or ratio asked about two categories of ``best`` (a figure) that print data labels; None
    when the question names not exactly two of them or their labels are not of one kind."""
    if op not in ("difference", "growth", "sum", "ratio") or best.kind != "figure":
        return None
    values: dict[str, str] = best.extra.get("values") or {}
    named = [k for k in values if tokenize(k) and set(tokenize(k)) <= idf.keys()]
    if len(named) != 2:
        return None
    periods = [_period(k) for k in named]
    if all(p is not None for p in periods):
        named = [k for _, k in sorted(zip(periods, named, strict=True), key=lambda t: t[0])]   # earlier to later
    else:
        named.sort(key=lambda k: question.lower().find(k.lower()))
    rate = bool(_RATE_Q.search(question)) and op != "growth"
    first, second = (_series_label(values[k], rate) for k in named)
    if first is None or second is None:
        return None
    res: Result | None = compute(op, first, second)
    if res is None:
        return None
    if op == "difference" and res.value < 0 and _FALL_Q.search(question):   # "by how much did it decline": 24
        res, named, first, second = compute(op, second, first), named[::-1], second, first
    if res is None:
        return None
    text = res.text
    if op == "difference" and first.endswith("%") and second.endswith("%"):   # two rates differ in points
        value, _, inputs = text.partition(" = ")
        text = f"{value}{'个百分点' if _CJK.search(question) else ' percentage points'} = {inputs}"
    return f"{text} ({second} — {named[1]}; {first} — {named[0]}) ({best.text})"
