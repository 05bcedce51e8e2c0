"""Which two table cells an arithmetic question combines, and in which order: the second operand of a
difference, sum, ratio, share or growth beside the best cell (same row for a change over time, a row the
question names for a comparison, never a range such as "100-199" nor a row number under "序号"; a share's
whole from another table printing the same row, rule 278), and
(earlier, later) / (part, whole) / "A比B多几个" order. Rules (``docs/extractive-rules.md``, 42-43, 81): second
operand (same row x2 for a change, named row x3, x(1 + 0.5 x new terms), of the best cell's kind: no
percentage beside a count) and operand order."""

from __future__ import annotations

import re
from collections.abc import Sequence

from docrag.generation.extractive_cues import named_in, quoted_at
from docrag.generation.extractive_math import cell_figure, comparable, mixes_measures, named_figure
from docrag.generation.extractive_tables import Row, TableCell, is_serial, parse_number, unit_of
from docrag.generation.extractive_units import Unit, content_words, tokenize
from docrag.words import YEAR_ALONE

_EARLIER = re.compile(r"\b(ago|previous|prior|last year|earlier|before)\b|上年|去年|上期", re.IGNORECASE)
_RANGE = re.compile(r"\d[\d,.]*\s*[-–−]\s*\d")   # "100-199", "1.35 - 1.42": a range, not an operand
_GAP = re.compile(r"相差|差额|差距|差值|\bdiffer(?:ence|s)?\s+between\b|\bgap\s+between\b", re.IGNORECASE)
_THAN = re.compile(r"\bthan\b|比", re.IGNORECASE)
_LESS = re.compile(r"\b(?:fewer|less|lower|smaller|shorter|cheaper)\b.*\bthan\b|比.{1,24}?(?<!多)(?:少|低|小|短|便宜)",
                   re.IGNORECASE)


def _named_at(row: Row, question: str) -> int:
    """Where ``question`` first names the row (its label, or a cell text such as "200-299"), or -1."""
    q = question.lower()
    names = (row.label.strip().lower(), *(n.strip().lower() for n in row.notes))
    at = [q.find(t) for t in names if len(t) > 1 and t in q]
    for c in row.cells:   # a key printed in the row ("200-299"), quoted whole: not "21" inside "2021"
        key = c.text.strip().lower()
        m = quoted_at(key, q) if _RANGE.match(key) else None
        if m:
            at.append(m.start())
    return min(at, default=-1)


# a column that names a period: a year, a quarter, a month, a date, 本期 / 上年同期, current / prior
_PERIOD_HEAD = re.compile(r"(?:19|20)\d\d|\b(?:q[1-4]|[1-4]q|h[12]|fy)\b|\b(?:quarters?|months?|years?|weeks?|current|"
                          r"prior|previous|ended|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b|本期|上期|本年|"
                          r"上年|同期|期末|期初|季度|月|年", re.IGNORECASE)


def second_operand(op: str, question: str, best: Unit, units: Sequence[Unit],
                   scores: Sequence[float]) -> Unit | None:
    """The cell the arithmetic pairs with ``best``: the best-scoring cell of the same table that
    shares its row or its column."""
    tc = best.cell
    if tc is None:
        return None
    asked = set(tokenize(question))
    named = set(tokenize(f"{tc.row.label} {' '.join(tc.headers)}"))
    named_words = content_words(_OP_WORDS.sub(" ", question))
    cands = []
    for u, s in zip(units, scores, strict=True):
        if u is best or u.cell is None or best.table is None or not best.table.joins(u.table) \
                or u.cell.value == tc.value and u.cell.row is tc.row or _RANGE.match(u.cell.value.strip()) \
                or is_serial(u.cell):
            continue   # a range such as "100-199" is a key, a row number counts rows: neither is an operand
        if not comparable(op, cell_figure(tc), cell_figure(u.cell)) \
                or mixes_measures(op, named_figure(tc), named_figure(u.cell)):
            continue   # same_kind_operand: a percentage beside a count, a count beside money, is no operand of it
        same_row = u.cell.row is tc.row
        same_col = u.cell.headers == tc.headers and u.cell.row is not tc.row
        if op == "share" and same_row and _over_time(tc, u.cell, True):
            continue   # share_of_itself: one row's two periods (108 of 131 研发人员) are no part and its whole
        if op == "growth" and (same_row or same_col) and not _over_time(tc, u.cell, same_row):
            continue   # growth_over_time: two segments' columns (or rows) are no change over time
        if op == "difference" and same_row and not _over_time(tc, u.cell, True) and not _column_asked(u.cell, asked):
            continue   # measures_apart (rule 127): 毛利率 less 营业收入比上年增减 is no difference anyone asked
        named_at = _named_at(u.cell.row, question) if same_col else -1
        if same_col and not _row_named(u.cell, named_words) and named_at < 0 and not _over_time(tc, u.cell, False):
            continue   # unnamed_row (rule 164): a row the question does not name, nor another period, is no operand
        if same_row or same_col:
            gain = len(set(tokenize(f"{u.cell.row.label} {' '.join(u.cell.headers)}")) & asked - named)
            row_bonus = 2.0 if op in ("difference", "growth") else 1.0  # a change over time: one row
            if same_row and _other_period(question, tc, u.cell):
                row_bonus = 0.5   # one_period_asked: "2024年度A与B相差多少" asks two rows of 2024, not A's 2023
            named_row = 3.0 if same_col and (named_in(u.cell.row.label, question)   # "A比B多几个"
                                             or named_at >= 0) else 1.0
            cands.append((s * (row_bonus if same_row else named_row) * (1 + 0.5 * gain), u))
    cands = _span_asked(question, tc, cands)
    if not cands and op == "share":
        return _whole_elsewhere(best, units, question)
    return max(cands, key=lambda x: x[0])[1] if cands else None


def _whole_elsewhere(best: Unit, units: Sequence[Unit], question: str) -> Unit | None:
    """``whole_elsewhere`` (rule 278): a share whose table holds no whole ("what share of consolidated net sales came
    from the Walmart U.S. segment": the segment's table prints its own net sales only; "i茅台…约占直销渠道销售收入的
    多少": the channel table prints 直销) divides by the largest figure of another table, for the same period (year,
    or the same column heads), in the same unit and scale, and larger, in a row of the same label or one the question
    names."""
    tc, table = best.cell, best.table
    part = parse_number(tc.value) if tc is not None else None
    if tc is None or table is None or not part or part <= 0:
        return None
    year, label = _year_of(tc.headers), tc.row.own_label.strip().lower()
    scale, unit = table.scale_for(tc), unit_of(tc, table)
    wholes = [(v, u) for u in units if u.cell is not None and u.table is not None and not table.joins(u.table)
              and (label and u.cell.row.own_label.strip().lower() == label or named_in(u.cell.row.label, question))
              and (year and _year_of(u.cell.headers) == year or u.cell.header_text == tc.header_text)
              and (v := parse_number(u.cell.value)) is not None and v > part
              and u.table.scale_for(u.cell) == scale and unit_of(u.cell, u.table) == unit]
    return max(wholes, key=lambda x: x[0])[1] if wholes else None


# the words that ask for the arithmetic ("what share of", "占…的比例"), not for a row
_OP_WORDS = re.compile(r"\b(?:what|which)\s+(?:share|percentage|proportion|fraction|ratio)\s+of\b|"
                       r"\b(?:share|percentage|proportion|ratio|sum|total|difference|growth|change)\s+(?:of|in|between)\b",
                       re.IGNORECASE)


def _row_named(cell: TableCell, asked: set[str]) -> bool:
    """``unnamed_row``: half the content words of the row's own label, its section aside, are the question's (or the
    question quotes a key of the row: "100-199", :func:`_named_at`)."""
    words = {w for w in content_words(cell.row.own_label) if not w.isdigit()}   # "October 1 - 31" is October's
    return not words or len(words & asked) >= 0.5 * len(words)


_FISCAL = re.compile(r"\bfiscal\b|\bfy\s?\d|财年|财政年度", re.IGNORECASE)   # a fiscal year: not the calendar's
_PERIOD_TOKEN = re.compile(r"(?:19|20)\d\d|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|q[1-4]|h[12]|fy\d*")


def _periods_of(text: str) -> set[str]:
    """The years, months, quarters and halves ``text`` names, as :func:`tokenize` writes them."""
    return {t for t in tokenize(text) if _PERIOD_TOKEN.fullmatch(t)}


def _span_asked(question: str, best: TableCell, cands: list[tuple[float, Unit]]) -> list[tuple[float, Unit]]:
    """``span_asked`` (rule 125): when the question names periods the best cell's row and column do not ("between
    July 2024 and July 2025", "from October to December"), a candidate naming one of them is the other end of
    the span, weighed by (1 + the asked periods it names), and a candidate naming none is of the best cell's own
    period (another item, another measure), weighed 0.5; when no candidate names one, a candidate of a period the
    question does not name is no operand (``unasked_period``: "需较2015年增长多少" to reach 2016's commitment is not
    2015 over 2014), and the others stay as they were."""
    asked = _periods_of(question)
    mine = _periods_of(f"{best.row.label} {best.header_text}")
    if not asked - mine:
        return cands
    periods = [(s, u, _periods_of(f"{u.cell.row.label} {u.cell.header_text}")) for s, u in cands if u.cell is not None]
    named = [(s, u, p & asked) for s, u, p in periods]
    if not any(p - mine for _, _, p in named):
        if _FISCAL.search(question):   # "the first quarter of fiscal 2027" is headed "Apr 26, 2026"
            return cands
        return [(s, u) for s, u, p in periods if not p or p & asked]
    return [(s * (1 + len(p)) if p - mine else s * 0.5, u) for s, u, p in named]


_CHANGE = re.compile(r"\b(?:chang|grow|grew|increas|decreas|ris|rose|fell|fall|declin|drop|up|down|compar|versus|vs)|"
                     r"增|减|变|升|降|涨|跌|同比|环比|比上|较上", re.IGNORECASE)


def _other_period(question: str, best: TableCell, other: TableCell) -> bool:
    """``one_period_asked`` (rule 124): the question names its years, ``best``'s column is one of them, ``other``'s
    column names none of them, and the question asks no change ("相差多少", not "增长多少", "how much did ... rise")."""
    asked = set(YEAR_ALONE.findall(question))
    return bool(asked) and not _CHANGE.search(question) and bool(asked & set(YEAR_ALONE.findall(best.header_text))) \
        and not asked & set(YEAR_ALONE.findall(other.header_text))


def _column_asked(cell: TableCell, asked: set[str]) -> bool:
    """Half the words of ``cell``'s column headers (Chinese words, not single characters) are the question's."""
    words = content_words(cell.header_text)
    return bool(words) and len(words & asked) >= 0.5 * len(words)


def _over_time(a: TableCell, b: TableCell, same_row: bool) -> bool:
    """``growth_over_time``: the two cells' columns (rows, for cells of one column) both name a period."""
    names = (a.header_text, b.header_text) if same_row else (a.row.label, b.row.label)
    return all(_PERIOD_HEAD.search(n) for n in names)


def _year_of(headers: Sequence[str]) -> str:
    """The one year a cell's column headers print ("2024年度", "FY2023"), else ""."""
    years = set(YEAR_ALONE.findall(" ".join(headers)))
    return years.pop() if len(years) == 1 else ""


def ordered(op: str, a: Unit, b: Unit, question: str = "") -> tuple[Unit, Unit]:
    """(earlier, later) for differences and growth, (part, whole) for shares and ratios; for a
    comparison ("A比B多几个", "how many more ... A ... than B") (B, A), so the result is A − B."""
    ca, cb = a.cell, b.cell
    assert ca is not None and cb is not None
    if op == "difference" and _GAP.search(question) and not _THAN.search(question):
        va, vb = parse_number(ca.value) or 0.0, parse_number(cb.value) or 0.0   # ``gap_asked`` (rule 130): how far
        return (a, b) if va <= vb else (b, a)   # apart, no direction ("A与B相差多少"): the larger less the smaller
    if op == "difference" and _THAN.search(question):
        pa, pb = _named_at(ca.row, question), _named_at(cb.row, question)
        if pa >= 0 and pb >= 0 and pa != pb:   # "A has fewer than B": B − A
            first_named_last = (pa < pb) != bool(_LESS.search(question))
            return (b, a) if first_named_last else (a, b)
    if op in ("share",):
        va, vb = parse_number(ca.value) or 0.0, parse_number(cb.value) or 0.0
        total_a = "total" in ca.row.label.lower() or any("total" in h.lower() for h in ca.headers)
        total_b = "total" in cb.row.label.lower() or any("total" in h.lower() for h in cb.headers)
        if total_a != total_b:
            return (b, a) if total_a else (a, b)
        return (a, b) if va <= vb else (b, a)
    if op == "ratio":
        return a, b
    ea, eb = bool(_EARLIER.search(" ".join(ca.headers))), bool(_EARLIER.search(" ".join(cb.headers)))
    if ea != eb:
        return (a, b) if ea else (b, a)
    ya, yb = _year_of(ca.headers), _year_of(cb.headers)
    if ya and yb and ya != yb:   # rule 240: newest-first columns, still in time order
        return (a, b) if ya < yb else (b, a)
    if ca.row is cb.row:
        ax = ca.cell.box.x0 if ca.cell.box is not None else ca.row.position(ca.cell)
        bx = cb.cell.box.x0 if cb.cell.box is not None else cb.row.position(cb.cell)
        return (a, b) if ax <= bx else (b, a)
    return (a, b) if (a.page.page_no, ca.row.index) <= (b.page.page_no, cb.row.index) else (b, a)   # parts in order
