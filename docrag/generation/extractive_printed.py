"""Figures printed elsewhere: in the question itself (rule 211 ``given_figure``) or in a table under the chart that
draws them (rule 213 ``tabled_chart``). Both lower a unit that is not the answer though it holds the numbers."""

from __future__ import annotations

import re
from collections.abc import Sequence

from docrag.generation.extractive_score import _DATE_IN
from docrag.generation.extractive_tables import parse_number
from docrag.generation.extractive_units import Unit
from docrag.words import YEAR_ALONE

# ``given_figure`` (rule 211): a figure the question itself states ("$100 invested on February 1, 2018", "12.5%",
# "1,234 stores"): a currency or a percent sign, a decimal or a thousands separator, or three digits that are no year
_GIVEN = re.compile(r"[$€£¥￥]\s?\d[\d,]*(?:\.\d+)?|\d[\d,]*\.\d+|\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?\s?%|"
                    r"(?<![\d.,])\d{3,}(?![\d.,])")
GIVEN_FIGURE_LOSS = 0.5


def given_figure(units: Sequence[Unit], scores: Sequence[float], question: str) -> list[float]:
    """``given_figure`` (rule 211): a cell printing a figure the question states loses ``GIVEN_FIGURE_LOSS``: the
    question knows it (Walmart's performance table prints the "$100 invested" in every row's first column)."""
    printed = [m.group(0).strip() for m in _GIVEN.finditer(_DATE_IN.sub(" ", question))]
    given = {v for t in printed if not YEAR_ALONE.fullmatch(t)
             and (v := parse_number(t.lstrip("$€£¥￥ "))) is not None}
    if not given:
        return list(scores)
    return [s * GIVEN_FIGURE_LOSS if u.kind == "cell" and u.cell is not None
            and parse_number(u.cell.value) in given else s for u, s in zip(units, scores, strict=True)]


TABLED_CHART_LOSS = 0.5


def _series_key(name: str) -> str:
    return re.sub(r"[^\w&]+", " ", name.lower()).strip()


def _same_series(a: str, b: str) -> bool:
    """One series key holds the other ("s&p 500 index" in "s&p 500 index total return")."""
    return a in b or b in a


def tabled_chart(units: Sequence[Unit], scores: Sequence[float]) -> list[float]:
    """``tabled_chart`` (rule 213): a chart read off its drawing (no data label) loses ``TABLED_CHART_LOSS`` where a
    table of the same page prints it: rows named as two or more of its series, under columns headed as two or more
    of its categories (a 10-K's performance graph over its table of values: Walmart's, AMD's); a table of other
    measures of the same series (their Sharpe ratios beside their drawn net values) is no such table."""
    printed: dict[str, list[tuple[str, set[str]]]] = {}
    for u in units:
        if u.kind == "cell" and u.cell is not None and u.cell.row.label:
            printed.setdefault(u.page.page_id, []).append((_series_key(u.cell.row.label),
                                                          {_series_key(h) for h in u.cell.headers}))
    out = list(scores)
    for i, u in enumerate(units):
        drawn = u.extra.get("drawn") if u.kind == "figure" and not u.extra.get("values") else None
        cells = printed.get(u.page.page_id) if drawn else None
        if not cells:
            continue
        names = {_series_key(s.get("name") or "") for s in drawn} - {""}
        categories = {_series_key(str(c)) for s in drawn for c, _ in s.get("values") or []} - {""}
        rows = {n for n in names for r, _ in cells if _same_series(n, r)}
        heads = {h for r, hs in cells if any(_same_series(n, r) for n in rows) for h in hs} & categories
        if len(rows) >= 2 and len(heads) >= 2:
            out[i] *= TABLED_CHART_LOSS
    return out


def printed_elsewhere(units: Sequence[Unit], scores: Sequence[float], question: str) -> list[float]:
    """Rules 211 and 213 on ``scores``."""
    return tabled_chart(units, given_figure(units, scores, question))
