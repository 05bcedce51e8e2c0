"""Periods a question asks for without writing each: a range of years ("2022-2024年", "2019 to 2021") and
"every period of the report" ("报告期内…分别", "报告期各期末", "in each of the last three years")."""

from __future__ import annotations

import re
import unicodedata

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
