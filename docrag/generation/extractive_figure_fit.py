"""How a figure competes with the units around it when the question does not ask for a chart (rule 247
``labelled_figure``), a chart beside the table of its values (rule 293 ``tabled_chart``), how a table captioned as a
figure is read when the question names it (rule 248 ``captioned_table``), and the text that states what a chart does
not print (rule 277 ``described_chart``); applied in ``extractive.py``."""

from __future__ import annotations

import re
from collections.abc import Sequence

from docrag.generation.extractive_answer import DRAWN_NOTES
from docrag.generation.extractive_chart_labels import _YEARISH
from docrag.generation.extractive_sentences import states_figures
from docrag.generation.extractive_units import Unit, tokenize
from docrag.regions import FIG_CAPTION

LABELLED_FIGURE = 1 / 0.7   # ``labelled_figure`` (rule 247): undoes ``prior``'s x0.7 for a figure not asked as a chart


def labelled_figure(units: Sequence[Unit], question: str, wants_chart: bool) -> list[float]:
    """``labelled_figure`` (rule 247): a chart whose data labels stand over a period the question names ("in fiscal
    2023": a "2023" bar labelled 17,024; a word category, "investments, net", is no period) answers a question
    that never says "chart" as well as a cell does: it keeps its score rather than losing the x0.7 a figure takes
    when no chart is asked for (a footnote under the panels defining the measure, with no figure at all, won)."""
    if wants_chart:
        return [1.0] * len(units)
    asked = set(tokenize(question))
    return [LABELLED_FIGURE if u.kind == "figure" and any(_YEARISH.match(k) and set(tokenize(k)) <= asked
                                                          for k in (u.extra.get("values") or {})) else 1.0
            for u in units]


CAPTIONED_TABLE = 1.5 / 0.85   # ``captioned_table`` (rule 248): a chart's prior in place of a cell's when one is asked


def figure_fit(units: Sequence[Unit], question: str, wants_chart: bool, named: Sequence[bool]) -> list[float]:
    """Rules 247 (:func:`labelled_figure`), 293 (:func:`tabled_chart`) and 248 ``captioned_table``: the cells of a
    table captioned as a figure ("图表7", the statistics under "图10"), when the question names it by that number, are
    read as the figure asked for (a chart's x1.5 in place of a cell's x0.85)."""
    out = [f * t for f, t in zip(labelled_figure(units, question, wants_chart), tabled_chart(units), strict=True)]
    if wants_chart:
        out = [f * CAPTIONED_TABLE if ref and u.kind == "cell" and u.table is not None
               and FIG_CAPTION.match(u.table.title) else f for f, u, ref in zip(out, units, named, strict=True)]
    return out


TABLED_CHART = 0.5   # ``tabled_chart`` (rule 293): a drawing to read beside the table printing its values


def tabled_chart(units: Sequence[Unit]) -> list[float]:
    """``tabled_chart`` (rule 293): a chart with no data label whose drawn categories ("2017" .. "2022" of a 10-K's
    performance graph) head three columns or more of a table on its page is that table drawn: the table prints the
    values the drawing can only approximate (Pfizer's "Five Year Performance" under its graph), so the chart loses."""
    heads: dict[str, set[str]] = {}
    for u in units:
        if u.cell is not None and u.cell.headers:
            heads.setdefault(u.page.page_id, set()).add(u.cell.headers[-1].strip())
    out = []
    for u in units:
        drawn = {str(v[0]).strip() for s in u.extra.get("drawn") or [] for v in s.get("values") or []} \
            if u.kind == "figure" and not u.extra.get("values") else set()
        out.append(TABLED_CHART if len(drawn & heads.get(u.page.page_id, set())) >= 3 else 1.0)
    return out


_FIGURE_NO = re.compile(r"(图表?|figure|fig\.|chart|exhibit)\s*(\d+)", re.IGNORECASE)
DESCRIBED_MIN = 0.3   # ``described_chart`` (rule 277): the describing text scores at least this share of the chart


def described_chart(best: Unit, answer: str, units: Sequence[Unit], order: Sequence[int],
                    scores: Sequence[float]) -> Unit | None:
    """``described_chart`` (rule 277): a chart whose ``answer`` reads the value off the drawing (it prints none asked
    for), and a text naming it by its number that states figures ("图21 是组合每个月的超额收益序列，…均值1.47%，
    …最低一期为-1.3%") among the best-scored units of its document: that text answers; else None."""
    if best.kind != "figure" or not answer.endswith(DRAWN_NOTES):
        return None
    ref = _FIGURE_NO.search(best.text)
    if ref is None:
        return None
    key = (ref.group(1).lower()[:3], ref.group(2))
    for i in order[:16]:
        u = units[i]
        if scores[i] < DESCRIBED_MIN * scores[order[0]]:
            return None
        if u.kind != "figure" and u.page.doc_id == best.page.doc_id and states_figures(u.text) and any(
                (m.group(1).lower()[:3], m.group(2)) == key for m in _FIGURE_NO.finditer(u.text)):
            return u
    return None
