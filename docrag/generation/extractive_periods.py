"""Periods a question asks for without writing each: a range of years ("2022-2024年", "2019 to 2021") and
"every period of the report" ("报告期内…分别", "报告期各期末", "in each of the last three years"); the cells of an
answering row under them (``other_periods``) and its printed change (``printed_change``)."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from docrag.generation.extractive_units import Unit

# "2022-2024年", "2022年至2024年", "2019 to 2021", "2019–2021"
_RANGE = re.compile(r"((?:19|20)\d\d)\s*年?\s*(?:-|–|—|~|～|至|到|\bto\b|\bthrough\b)\s*((?:19|20)\d\d)", re.IGNORECASE)
_FULL_YEAR = re.compile(r"full[\s-]?year|fiscal[\s-]?year|financial[\s-]?year")
_PERIOD = re.compile(r"^(?:fy\d*|ytd|q[1-4]|h[12]|[1-4]q\d{2}|(?:19|20)\d{2})$")
_LONGEST = 10   # a range of more years is a sample period ("2005-2023"), not columns to read
_EVERY_PERIOD = re.compile(r"报告期(?:内|各期|各年)|各报告期|(?:最近|近)[两三]年(?:各年|每年)?|"
                           r"\b(?:in )?each of the (?:last |past )?(?:two|three|four) (?:fiscal )?years\b",
                           re.IGNORECASE)


def year_range(question: str) -> set[str]:
    """``year_range`` (rule 234): the years between a range's ends ("2022-2024年…分别" asks for 2023 too)."""
    out: set[str] = set()
    for a, b in _RANGE.findall(question):
        lo, hi = sorted((int(a), int(b)))
        if hi - lo <= _LONGEST:
            out.update(str(y) for y in range(lo, hi + 1))
    return out


def every_period(question: str) -> bool:
    """``every_period`` (rule 235): the question asks for each period the report covers ("报告期内研发费用分别
    是多少")."""
    return bool(_EVERY_PERIOD.search(question))


def periods_named(text: str) -> set[str]:
    """The periods a question or a column header names: ``q4``, ``fy``, ``2q23``, ``2023``, ``h1``, ``ytd``
    ("full-year", "fiscal year" are ``fy``; "2015年" is ``2015``)."""
    t = _FULL_YEAR.sub(" fy ", unicodedata.normalize("NFKC", text).lower()).replace("年", " ")
    return {x for x in re.findall(r"[a-z]+\d*|\d+[a-z]*\d*", t) if _PERIOD.match(x)}


# a column of changes ("% Change", "本年比上年增减", "y/y"): not a period
_CHANGE_COL = re.compile(r"增减|变动|\bchange\b|\bgrowth\b|\by/y\b", re.IGNORECASE)
# "what were they a year earlier", "compared with the prior-year quarter", "上年同期": the year before
_YEAR_BEFORE = re.compile(r"\b(?:a|one) year (?:earlier|before|ago)\b|\bprior[\s-]year\b|\bprevious year\b|"
                          r"\byear[\s-]ago\b|\bsame (?:period|quarter) (?:of |in )?(?:the )?(?:last|previous|prior) "
                          r"year\b|上年同期|去年同期|上年|去年", re.IGNORECASE)


def _row_mates(best: Unit, units: Sequence[Unit]) -> list[Unit]:
    """The other cells of ``best``'s row, one unit per cell."""
    out: list[Unit] = []
    for u in units:
        if (u is not best and u.cell is not None and u.cell.row is best.cell.row  # type: ignore[union-attr]
                and u.cell.cell is not best.cell.cell and not any(v.cell.cell is u.cell.cell for v in out)):
            out.append(u)
    return out


def other_periods(best: Unit, question: str, units: Sequence[Unit], most: int = 3) -> list[Unit]:
    """``other_periods``: the cells of ``best``'s row under the other periods the question names ("for Q4
    2023 and for full-year 2023", "in 2Q23 versus 2Q22"): each a column whose header's periods are all
    asked and include one ``best``'s header lacks. "A year earlier", "the prior-year quarter", "上年同期"
    name the year before the answering column's (``year_before``); a range of years each year in it, "报告期内"
    every period the row's columns head (rules 234, 235)."""
    if best.cell is None:
        return []
    asked, own_periods = periods_named(question) | year_range(question), periods_named(best.cell.header_text)
    if not asked and every_period(question):
        most, asked = 4, own_periods.union(*(periods_named(u.cell.header_text) for u in _row_mates(best, units)
                                             if not _CHANGE_COL.search(u.cell.header_text)))  # type: ignore[union-attr]
    if _YEAR_BEFORE.search(question):   # year_before: the year before the answering column's
        asked |= {str(int(p) - 1) for p in own_periods if p.isdigit()}
    want = asked - own_periods
    if not want:
        return []
    return [u for u in _row_mates(best, units)
            if (own := periods_named(u.cell.header_text)) & want and own <= asked][:most]  # type: ignore[union-attr]


_VERSUS = re.compile(r"\b(?:compared? (?:with|to)|versus|vs\.?|against)\b|较|相比|对比", re.IGNORECASE)


def printed_change(best: Unit, periods: Sequence[Unit], question: str, units: Sequence[Unit]) -> list[Unit]:
    """``printed_change`` (rule 243): a figure asked "in Q2 2023 compared with Q2 2022", quoted under both periods,
    is quoted with its row's printed change ("% Change" 8.1%) as a person comparing them would."""
    if not periods or not _VERSUS.search(question):
        return []
    changes = [u for u in _row_mates(best, units) if _CHANGE_COL.search(u.cell.header_text)]  # type: ignore[union-attr]
    return sorted(changes, key=lambda u: "%" not in u.cell.header_text + u.cell.value)[:1]  # type: ignore[union-attr]
