"""Arithmetic on the two figures a question names, found in sentences as well as in cells (rule 160
``named_figures``).

"境外业务营业收入占主营业务收入的比例" names its part and its whole; rule 105 (``named_share``,
:mod:`~docrag.generation.extractive_formula`) takes them from cells whose labels carry the names. A report often
states one of them in a sentence only ("报告期内，公司实现主营业务收入1,135,639,368.05 元"; "2020 年全球算力总规模达到
429 EFlops"), and the answer quoted a change rate or a sentence with some other percentage instead. Here each
operand is the figure of the answering document whose own words name it: a cell by its row label and headers, a
sentence's figure by the words just before it (back to the clause's start or the figure before). Each name must
hold at least ``MIN_FIT`` of its words there, and more than the other operand's name does; both figures are
amounts of one kind (never a percentage in a share, sum or ratio; unit words, where both print one, equal), so a
count is never divided by a sum of money. The result shows its inputs and quotes both, and both are cited.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from docrag.generation.extractive_answer import fmt_cell
from docrag.generation.extractive_formula import Formula, _fit, formula_of, formula_operands
from docrag.generation.extractive_gap import _PERCENT_UNITS
from docrag.generation.extractive_math import Result, compute, part_over_whole
from docrag.generation.extractive_tables import is_serial, parse_number, unit_of
from docrag.generation.extractive_units import _CJK, _STOP, Unit

MIN_FIT = 0.75   # share of an operand name's words found where the figure is named
READ_SHARE = 0.3   # units scoring at least this share of the best unit are read for operands
_WINDOW_ZH, _WINDOW_EN = 24, 80   # characters before a sentence's figure that may name it
_SCALE = r"万亿元|亿元|万元|千元|元|万亿|亿|万"
_COUNT = r"家|个|人|户|条|部|项|款|次|台|件|吨|辆|套|座|所"   # a count is no amount of money
_NUMBER = r"-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"   # "1,135,639,368.05", "429"; not "2023," of "2023, and"
_FIGURE = re.compile(rf"(?<![A-Za-z0-9_.,])(?P<cur>[$€£¥]\s?)?(?P<num>{_NUMBER})(?![\d,]*\.\d)"
                     rf"\s*(?P<unit>%|％|个百分点|per\s?cent\b|percent\b|{_SCALE}|{_COUNT}|(?:trillion|billion|million|thousand)\b"
                     r"|[A-Za-z]{2,12}\b)?", re.IGNORECASE)
_DATE_AFTER = re.compile(r"\s*(?:年|月|日|季度|个月|周)")   # "2020 年", "12 月": a period, not an amount
_CLAUSE = re.compile(r"[，,;；。:：、（）()]")
_YUAN = {"人民币", "人民币元", "rmb", "cny"}   # "单位：元 币种：人民币": amounts in 元


@dataclass(frozen=True)
class Operand:
    """One figure a question's operand name may denote."""

    unit: Unit       # the sentence or cell holding it
    number: str      # as printed ("1,135,639,368.05")
    measure: str     # its unit word, lower case ("元", "efflops", "$ million", "%", "" when none is printed)
    naming: str      # the words that name it (a cell's row and headers, the words before a sentence's figure)


def _sentence_operands(u: Unit) -> list[Operand]:
    out: list[Operand] = []
    text = u.text
    window = _WINDOW_ZH if _CJK.search(text) else _WINDOW_EN
    start = 0   # where the words that may name the next figure begin
    for m in _FIGURE.finditer(text):
        num = m.group("num")
        clause = max((c.end() for c in _CLAUSE.finditer(text, 0, m.start())), default=0)
        naming = text[max(start, clause, m.start() - window):m.start()]
        start = m.end("num")
        year = bool(re.fullmatch(r"(?:19|20)\d{2}", num)) and not m.group("unit")   # "2020" alone: a period
        if _DATE_AFTER.match(text, m.end("num")) or year or parse_number(num) is None:
            continue
        unit = (m.group("unit") or "").lower().replace("％", "%")
        unit = "%" if unit in _PERCENT_UNITS else "" if unit in _STOP else unit   # "8.35 in 2021": no unit word
        out.append(Operand(u, num, f"{(m.group('cur') or '').strip()} {unit}".strip(), naming))
    return out


def _cell_operand(u: Unit) -> Operand | None:
    tc, table = u.cell, u.table
    if tc is None or table is None or is_serial(tc) or parse_number(tc.value) is None:
        return None
    unit = "%" if tc.value.strip().endswith("%") else (table.scale_for(tc) or unit_of(tc, table)).lower()
    unit = "%" if unit in _PERCENT_UNITS else "元" if unit in _YUAN else unit
    return Operand(u, tc.value.strip(), unit, f"{tc.row.own_label} {tc.header_text}")


def _candidates(units: Sequence[Unit], scores: Sequence[float], best: Unit) -> list[tuple[Operand, float]]:
    top = max(scores, default=0.0)
    out: list[tuple[Operand, float]] = []
    for u, s in zip(units, scores, strict=True):
        if u.page.doc_id != best.page.doc_id or s < READ_SHARE * top:
            continue
        if u.kind == "sentence":
            out.extend((o, s) for o in _sentence_operands(u))
        elif u.kind == "cell" and (o := _cell_operand(u)) is not None:
            out.append((o, s))
    return out


def _pick(formula: Formula, found: list[tuple[Operand, float]]) -> tuple[Operand, Operand] | None:
    """The figures named best by ``formula.a`` and by ``formula.b`` (each named more by its own name than by the
    other's), the first pair of one kind among the three best of each; None when a sentence naming the part states
    the share itself ("数字产业化规模为 8.35 万亿元，……占数字经济比重为 18.3%": quoted, not computed)."""
    fits = [(o, s, _fit(formula.a, o.naming), _fit(formula.b, o.naming)) for o, s in found]
    if formula.op == "share" and any(o.measure == "%" and fb >= MIN_FIT and any(
            p.unit is o.unit and pa >= MIN_FIT for p, _, pa, _ in fits) for o, _, _, fb in fits):
        return None
    parts = sorted(((fa, s, o) for o, s, fa, fb in fits if fa >= MIN_FIT and fa > fb), key=lambda t: t[:2])
    wholes = sorted(((fb, s, o) for o, s, fa, fb in fits if fb >= MIN_FIT and fb > fa), key=lambda t: t[:2])
    for *_, a in parts[::-1][:3]:
        for *_, b in wholes[::-1][:3]:
            if a.number != b.number and _one_kind(formula.op, a, b):
                return a, b
    return None


def _one_kind(op: str, a: Operand, b: Operand) -> bool:
    """Amounts of one kind: no percentage in a share, sum or ratio (a difference of two percentages is fine),
    the same unit word where both print one."""
    if "%" in (a.measure, b.measure):
        return op == "difference" and a.measure == b.measure
    return not (a.measure and b.measure) or a.measure == b.measure


def _quote(o: Operand) -> str:
    return fmt_cell(o.unit) if o.unit.kind == "cell" else o.unit.text


def named_figures(question: str, units: Sequence[Unit], scores: Sequence[float],
                  best: Unit) -> tuple[Result, Unit, Unit, str] | None:
    """``named_figures``: (result, the part's unit, the whole's unit, the answer text) for arithmetic whose two
    operands the question names, when no two cells carry both names (rule 105 answers those) and the answering
    document states them in its sentences or cells; None otherwise."""
    formula = formula_of(question)
    if formula is None or formula.asked or formula.op not in ("share", "ratio", "difference", "sum"):
        return None
    if formula_operands(formula, units, scores) is not None:
        return None
    pair = _pick(formula, _candidates(units, scores, best))
    if pair is None:
        return None
    a, b = pair
    if part_over_whole(formula.op, a.number, b.number):
        return None   # rule 289
    res = compute(formula.op, b.number, a.number) if formula.op == "difference" else \
        compute(formula.op, a.number, b.number)
    if res is None:
        return None
    quotes = list(dict.fromkeys((_quote(a), _quote(b))))
    return res, a.unit, b.unit, f"{res.text} ({'; '.join(quotes)})"
