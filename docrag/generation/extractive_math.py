"""Arithmetic a question asks for, done on table cells the ``extractive`` generator cites.

:func:`operation_of` reads the operation from the question (difference, sum, ratio, share, change,
growth); :func:`compute` applies it to two cited cells and returns the result with its inputs shown
("1,696,516 = 2,348,928 − 652,412"), so a reader can check every figure against the cited boxes.
Rules (``docs/extractive-rules.md``, 41, 67, 68): :func:`comparable`, arithmetic only on figures of one kind;
:func:`not_addable`, no sum of averages or prices per unit; :func:`adds_a_total`, no sum of a total and a part.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from docrag.generation.extractive_cues import named_in
from docrag.generation.extractive_formula import formula_of, is_total_row
from docrag.generation.extractive_tables import TableCell, parse_number
from docrag.generation.extractive_units import Unit, content_words

_OPS: list[tuple[str, re.Pattern[str]]] = [
    ("growth", re.compile(r"\b(growth rate|percent(age)? (change|increase|decrease|growth)|grow by what percent|"
                          r"growth (from|between|over)|"
                          r"by what percent(age)?|% change)\b|增长率|增幅|增速|变化率|涨幅|跌幅"
                          r"|(上涨|下跌|增长|下降)(了)?百分之"
                          # "同比增长多少": a year-on-year change is asked as a rate unless a unit follows (rule 106)
                          # "较2013年下降了约多少", "较2014年末增长了约多少": against a named year, a rate too
                          r"|(?:同比|(?:较|比)(?:上年同期|上年|\s*(?:19|20)\d{2}\s*年(?:度|末)?))\s*(?:增长|增加|下降|减少)"
                          r"了?(?:约|大约)?多少"
                          r"(?![元万亿个人家部条吨台只件户份])", re.IGNORECASE)),
    ("share", re.compile(r"\b(what (share|percentage|proportion|fraction) of|share of|percent of|"
                         r"as a (share|percentage) of)\b|占[^，,。；;？?]*?(比例|比重|百分之|多少)|所占",
                         re.IGNORECASE)),
    # (``share_in_clause``: "占…多少" within one clause; "净新高占比提示恐慌时，…维持了多少天" names an indicator)
    # "ratio of A to B" asks for a division; "the Sharpe ratio", "debt to EBITDA ratio" name a printed measure
    ("ratio", re.compile(r"\b(ratio (of|between)|how many times|times (larger|bigger|higher|as (large|much|many)))\b"
                         r"|倍", re.IGNORECASE)),
    ("sum", re.compile(r"\b(sum of|combined|together|in total|total of)\b|合计|总和|一共|加起来", re.IGNORECASE)),
    ("difference", re.compile(r"\b(difference|by how (much|many)|how (much|many) (more|less|fewer|higher|lower)|"
                              r"how far apart|gap between|spread between|how (?:much|many)\b.*\bseparates?|"
                              r"change (in|from|between)|increase (in|from)|decrease (in|from)|"
                              r"(rise|grow|fall|drop|increase|decrease|decline)\w* (between|from))\b"
                              r"|相差|差额|差距|多了多少|少了多少|(?:上涨|下跌|上升|下降|增加|减少|增长|提高|降低|调减|调增|下调|上调)了?(?:约|大约)?"
                              r"(?:多少|几)"
                              r"|比.{1,24}?(?:多|少|高|低|大|小|长|短|贵)了?(?:多少|几)", re.IGNORECASE)),
]


_POINTS_Q = re.compile(r"\bby how many (?:percentage )?points\b|\bhow many (?:percentage )?points\b|多少个百分点",
                       re.IGNORECASE)


_RATE_NOUN = re.compile(r"growth rate|增长率|增速|增幅|变化率", re.IGNORECASE)   # a measure named, not an operation
_CHANGED = re.compile(r"\bchang(?:e|ed|es)\b", re.IGNORECASE)   # "how had the growth rate ... changed"


def operation_of(question: str) -> str:
    """The arithmetic ``question`` asks for: growth, share, ratio, sum, difference or '' (none); one it
    writes out ("（销售量/生产量）", "computed as A minus B") first."""
    if _POINTS_Q.search(question):   # ``points_asked``: a change in percentage points is a difference of two rates
        return "difference"
    formula = formula_of(question)
    if formula is not None and not formula.asked:   # a standard ratio is computed only from a table's cell
        return formula.op
    for name, pattern in _OPS:
        m = pattern.search(question)
        if m is not None:   # rule 221 ``rate_change``: "by how much did the growth rate change" is a rate's change
            return "difference" if name == "growth" and _RATE_NOUN.fullmatch(m.group(0)) and (
                _OPS[-1][1].search(question) or _CHANGED.search(question)) else name
    return ""


@dataclass
class Result:
    op: str
    value: float
    text: str       # the result with its inputs shown


def fmt_figure(v: float, like: str = "") -> str:
    decimals = 0
    m = re.search(r"\.(\d+)", like)
    if m:
        decimals = len(m.group(1))
    if abs(v - round(v)) > 1e-9 and decimals == 0:
        decimals = 2 if abs(v) < 100 else 1
    return f"{v:,.{decimals}f}"


_PERCENT = re.compile(r"%|\bpercent(age)?\b|\bper cent\b|\brates?\b|\bmargins?\b|百分|比重|占比|增长率|增速|同比|环比",
                      re.IGNORECASE)


def is_percent(value: str, headers: str = "") -> bool:
    """The figure is a percentage: printed with %, or under a header that says so."""
    return bool(_PERCENT.search(value) or _PERCENT.search(headers))


# a row whose own label says it is a percentage ("研发投入总额占营业收入比例(%)" in a table of label-value rows)
_ROW_PERCENT = re.compile(r"[%％]|比例|比重|占比|百分比|\bpercent(?:age)?\b|\bper cent\b", re.IGNORECASE)


def cell_figure(tc: TableCell) -> tuple[str, str]:
    """A table cell as :func:`comparable` reads it: its value, and its column headers with "%" when its row's own
    label says it is a percentage (not "Gross margin": an amount)."""
    return tc.value, f"{tc.header_text} %" if _ROW_PERCENT.search(tc.row.own_label) else tc.header_text


def share_row(best: Unit, units: Sequence[Unit]) -> Unit | None:
    """``share_row`` (rule 196): the cell, in ``best``'s column, of the row of its table that states its share:
    the row named by ``best``'s row label and a share word ("研发人员数量占比" under "研发人员数量（人）");
    None when none."""
    tc = best.cell
    if tc is None:
        return None
    stem = re.sub(r"[(（][^()（）]*[)）]", "", tc.row.own_label).strip()
    return next((u for u in units if u.cell is not None and u.table is best.table and u.cell.row is not tc.row
                 and u.cell.headers == tc.headers and len(stem) >= 2 and stem in u.cell.row.own_label
                 and _ROW_PERCENT.search(u.cell.row.own_label.replace(stem, " "))), None)


def comparable(op: str, first: tuple[str, str], second: tuple[str, str]) -> bool:
    """``same_unit``: arithmetic only on figures of one kind, never a count with a percentage
    (real reports: "how much did the store count grow" once subtracted 3.1% from 2,340 stores).
    Each operand is ``(printed value, its headers)``; a share divides two counts, so neither may
    be a percentage."""
    a, b = is_percent(*first), is_percent(*second)
    if op == "share":
        return not a and not b
    return a == b


_MONEY = re.compile(r"[$€£¥]|\b(?:USD|EUR|GBP|RMB|CNY|dollars?|euros?)\b|元", re.IGNORECASE)
_COUNT = re.compile(r"\b(?:employees|staff|headcount|people|persons|stores|customers|shares|users|riders|number of)\b"
                    r"|人数|员工|职工|门店|户数|股数|家数", re.IGNORECASE)


def measure(value: str, names: str) -> str:
    """What a figure measures, from its value and what names it (column headers, row label): ``money``
    (a currency), ``count`` (employees, stores, shares), or ``""`` when they do not say or say both."""
    money = bool(_MONEY.search(value) or _MONEY.search(names))
    count = bool(_COUNT.search(names))
    return "money" if money and not count else "count" if count and not money else ""


def named_figure(tc: TableCell) -> tuple[str, str]:
    """A table cell as :func:`mixes_measures` reads it: its value, and its column headers with its row label."""
    return tc.value, f"{tc.header_text} {tc.row.label}"


def mixes_measures(op: str, first: tuple[str, str], second: tuple[str, str]) -> bool:
    """``same_unit``: money with a count ("20,860 employees" over "2,673 M€ of sales" is no share of anything);
    a ratio may divide them (revenue per employee). Operands are ``(value, headers and row label)``."""
    a, b = measure(*first), measure(*second)
    return op != "ratio" and bool(a) and bool(b) and a != b


_PER_UNIT = re.compile(r"\b(?:average|mean|median)\b|\bper (?:share|unit|ton(?:ne)?|barrel|head|capita)\b|\bprices?\b"
                       r"|平均|均价|单价|每股|人均", re.IGNORECASE)


def not_addable(op: str, headers: str) -> bool:
    """``per_unit_sum``: a sum of averages or of prices per unit means nothing ("how many shares in total"
    once added two months' average prices paid per share)."""
    return op == "sum" and bool(_PER_UNIT.search(headers))


# "A和B合计", "the total of A and B": the rows summed are named, the table's total row is not asked
_NAMED_SUM = re.compile(r"(?:和|与|及|、|\band\b)[^，,。；;？?]*?(?:合计|总计|总和|之和|combined|together)"
                        r"|\b(?:sum|total) of\b[^,.;?]*\band\b", re.IGNORECASE)


def stated_total(best: Any, question: str, units: Sequence[Any]) -> Any | None:
    """``stated_total``: "前十名股东合计持股比例是多少" asks the total a table prints in its 合计 / Total row under
    the column asked, not a sum of cells picked to add (the answer had added two small holders' shares of
    another table on the page); None when the question names the rows to add or no total row prints it."""
    if best.cell is None or _NAMED_SUM.search(question):
        return None
    column = best.cell.headers[-1].strip() if best.cell.headers else ""
    totals = [u for u in units if u.cell is not None and u.page is best.page and is_total_row(u.cell.row.label)
              and u.cell.headers and u.cell.headers[-1].strip() == column and parse_number(u.cell.value) is not None]
    return totals[0] if len(totals) == 1 else None


# "on average" asks a mean, "return on average equity" names a ratio (mean_not_ratio)
_MEAN = re.compile(r"\b(?:average|mean)\s+(?:of|over|across)\b|(?<!return )(?<!yield )(?<!income )\bon average\b"
                   r"|平均值|(?:简单|算术)平均|均值", re.IGNORECASE)
_YEAR_SPAN = re.compile(r"((?:19|20)\d\d)\s*(?:-|–|—|~|～|至|到)\s*((?:19|20)\d\d)")
_AVERAGE_ROW = re.compile(r"^\s*(?:average|mean|平均|均值)", re.IGNORECASE)
_ROW_YEAR = re.compile(r"^\s*((?:19|20)\d\d)")


# words that ask, not name: what is left of an operation's phrase must be printed by the table (printed_measure)
_ASKING = frozenset("what which how much many by in of from between over across on the a an per percent percentage "
                    "cent was were is are".split())
_OP_PATTERNS = dict(_OPS)
_TWO_POINTS = re.compile(r"\bfrom\b.+\bto\b|\bbetween\b.+\band\b|\bversus\b|\bvs\b|较|相比", re.IGNORECASE)


def printed_measure(question: str, op: str, cell: TableCell, headers: Sequence[str] = ()) -> bool:
    """``printed_measure`` (rule 197): the words that seem to ask for arithmetic name the measure the table
    prints ("IC均值" a column, "annual change" in a table of annual percentage changes): the cell is read, nothing
    computed. Not when the question names two points to compare ("from 2021 to 2022", "较上年"). A rate asked of a
    row the question names whole that prints rates is read too (``printed_rate``). A mean is not asked either where
    any of the table's ``headers`` prints the word ("IC均值" the question's other part reads)."""
    if op in ("share", "growth") and cell.value.strip().endswith("%") and named_in(cell.row.label, question):
        return True   # rule 201 ``printed_rate``: "gross margin as a percentage of net revenue", a row of rates
    pattern = _MEAN if op == "mean" else _OP_PATTERNS.get(op)
    m = pattern.search(question) if pattern is not None else None
    if m is None or _TWO_POINTS.search(question):
        return False
    printed = " ".join([cell.title, cell.header_text, *(headers if op == "mean" else ())]).lower()
    words = [w for w in re.findall(r"[a-z]+|[\u4e00-\u9fff]+", m.group(0).lower()) if w not in _ASKING]
    return bool(words) and all(w in printed for w in words)


def column_mean(best: Any, question: str, column: Sequence[Any]) -> tuple[Result, list[Any]] | None:
    """``column_mean``: "2007-2016年各年超额收益的简单平均值", "the average of ... over 2019-2023": the mean of the
    answering cell's ``column`` (its cells, one per row of its table) over its rows (those of the years named when a
    span is; no total or average row), computed with its inputs shown; None unless the question asks a mean and two
    rows or more give figures."""
    if best.cell is None or not _MEAN.search(question):
        return None
    # a row label prints the measure too (广发's 表2: "IC 均值" a row over 周度 / 月度 columns)
    printed = [h for tc in best.table.cells() for h in (*tc.headers, tc.row.label)] if best.table else ()
    if printed_measure(question, "mean", best.cell, printed):
        return None
    cells = [u for u in column if not is_total_row(u.cell.row.label) and not _AVERAGE_ROW.search(u.cell.row.label)
             and parse_number(u.cell.value) is not None]
    if len({u.cell.value.strip().endswith("%") for u in cells}) > 1:
        return None   # ``mean_one_unit`` (rule 288): rates beside plain figures are rows of different measures
    span = _YEAR_SPAN.search(question)
    if span:
        lo, hi = sorted(int(g) for g in span.groups())
        cells = [u for u in cells if (m := _ROW_YEAR.match(u.cell.row.label)) and lo <= int(m.group(1)) <= hi]
    if len(cells) < 2:
        return None
    values = [parse_number(u.cell.value) or 0.0 for u in cells]
    mean = sum(values) / len(values)
    pct = "%" if best.cell.value.strip().endswith("%") or "%" in best.cell.header_text else ""
    shown = " + ".join(u.cell.value.strip() for u in cells)
    return Result("mean", mean, f"{fmt_figure(mean, '0.00')}{pct} = ({shown}) / {len(cells)}"), cells


def adds_a_total(op: str, label_a: str, label_b: str) -> bool:
    """``total_and_part``: a sum of a total row with another row counts that row twice ("其中" a project of
    the 合计 it is part of)."""
    return op == "sum" and is_total_row(label_a) != is_total_row(label_b)


def finest(values: Sequence[str]) -> str:
    """The printed figure with the most decimals: a result is written as finely as its finest input."""
    return max(values, key=lambda t: len(t.split(".")[1]) if "." in t else -1)


def part_over_whole(op: str, part: str, whole: str) -> bool:
    """``part_over_whole`` (rule 289): a share whose part exceeds its whole (390 / 23, a "% Change" column read as
    the whole of Pfizer's revenues) pairs two figures that are no part and whole."""
    return op == "share" and 0 < (parse_number(whole) or 0) < (parse_number(part) or 0)


def compute(op: str, first: str, second: str) -> Result | None:
    """``op`` on two printed figures, ``first`` the earlier / the part, ``second`` the later / the whole.

    difference and change: second − first; growth: (second − first) / first; share: first / second;
    ratio: first / second; sum: first + second. None when a figure does not parse or would divide by 0.
    """
    a, b = parse_number(first), parse_number(second)
    if a is None or b is None:
        return None
    like = finest((first, second))
    if op == "difference":
        v = b - a
        return Result(op, v, f"{fmt_figure(v, like)} = {second} − {first}")
    if op == "sum":
        v = a + b
        return Result(op, v, f"{fmt_figure(v, like)} = {first} + {second}")
    if b == 0 and op in ("share", "ratio"):
        return None
    if op == "share":
        v = 100.0 * a / b
        return Result(op, v, f"{v:.1f}% = {first} / {second}")
    if op == "ratio":
        v = a / b
        return Result(op, v, f"{v:.2f} = {first} / {second}")
    if op == "growth":
        if a == 0:
            return None
        v = 100.0 * (b - a) / abs(a)
        return Result(op, v, f"{v:+.1f}% = ({second} − {first}) / {first}")
    return None


_SHARE_HEAD = re.compile(r"比例|比重|占比|\bshare\b|\bpercent(?:age)? of\b|% of\b|\bmix\b", re.IGNORECASE)


def other_rate(header: str, question: str) -> bool:
    """``other_rate`` (rule 279): a percentage column that names a rate of its own the question does not ask
    ("毛利率 (%)" beside "i茅台 … 约占直销渠道销售收入的多少") prints no share asked: the share is computed."""
    if _SHARE_HEAD.search(header):
        return False
    words = content_words(re.sub(r"[(（]?%[)）]?|percent", " ", header, flags=re.IGNORECASE))
    return bool(words) and not words & content_words(question)
