"""The span of a period a question asks for and the span a table column covers (``docs/extractive-rules.md``,
rule 80 ``period_span`` and rule 172 ``year_not_quarter``): a year's figure is not a quarter's."""

from __future__ import annotations

import re
from collections.abc import Sequence

from docrag.generation.extractive_units import Unit
from docrag.words import YEAR_ALONE

# the span of a statement's column ("Three Months Ended" / "Twelve Months Ended") a question asks for; a
# document named by its period ("the 2023 annual report", "年度报告", "Q4 2023 earnings") asks for neither
_YEAR_Q = re.compile(r"\b(?:fiscal|full|financial)[\s-]year\b|\bFY\s?'?\d{2,4}\b|\b(?:twelve|12)[\s-]months?\b"
                     r"|\byear ended\b|全年|年度(?!报告)", re.IGNORECASE)
_QUARTER_Q = re.compile(r"\b(?:first|second|third|fourth)[\s-]quarter\b|\b(?:three|3)[\s-]months?\b"
                        r"|\bquarter ended\b|第[一二三四1-4]季度|单季度?", re.IGNORECASE)
_YEAR_COL = re.compile(r"\b(?:twelve|12)[\s-]months?\b|\byears? ended\b|\b(?:fiscal|full)[\s-]year\b|全年|年度",
                       re.IGNORECASE)
_QUARTER_COL = re.compile(r"\b(?:three|3)[\s-]months?\b|\bquarters? ended\b|季度", re.IGNORECASE)
_PART_OF_YEAR = re.compile(r"季|月|半年|\b(?:Q[1-4]|H[12]|quarters?|months?|half|January|February|March|April|May|"
                           r"June|July|August|September|October|November|December|"
                           r"(?:Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)\.?)\b",
                           re.IGNORECASE)


def span_fit(units: Sequence[Unit], question: str, gain: float = 1.2, loss: float = 0.75) -> list[float]:
    """``period_span``: "fiscal year 2025" asks for the "Twelve Months Ended" column, "the fourth quarter" for
    "Three Months Ended": cells under the span asked win, cells under the other span lose. ``year_not_quarter``
    (rule 172): a question naming a year and no part of it ("2019年营业收入") asks for the year's figure: cells under a
    quarter's column lose (the year's gain nothing: its column is often headed by the year alone)."""
    want_year, want_quarter = bool(_YEAR_Q.search(question)), bool(_QUARTER_Q.search(question))
    if not want_year and not want_quarter and YEAR_ALONE.search(question) and not _PART_OF_YEAR.search(question):
        want_year, gain = True, 1.0   # ``year_not_quarter``: "2019年营业收入" is the year's, not a 第一季度 cell's
    if want_year == want_quarter:
        return [1.0] * len(units)
    out = []
    for u in units:
        # the span heads the columns, or titles the table ("Twelve Months Ended June 30," over a statement's columns)
        head = f"{u.cell.header_text} {u.table.title if u.table is not None else ''}" if u.cell is not None else ""
        year, quarter = bool(_YEAR_COL.search(head)), bool(_QUARTER_COL.search(head))
        if year == quarter:
            out.append(1.0)
        else:
            out.append(gain if year == want_year else loss)
    return out
