"""Numbers and dates as printed in answers and on pages, normalised so that they can be compared.

"$3.2 billion" in an answer and "3,214" in a table headed "in millions" are the same amount;
"455万吨" is 4,550,000 tonnes; "(3.2)" is -3.2; "20 September 2011", "September 20, 2011",
"2011-09-20" and "2011年9月20日" are one date. :func:`quantities` finds numbers with their
printed precision, percent sign and scale word; :func:`context_scale` reads the scale a table or
chart states for its values ("in thousands", "单位：万元"); :func:`same_amount` compares within
the rounding either side printed (:func:`amount_match` says how well: exactly, or only through the
page's coarser rounding); :func:`dates` gives dates as ``YYYY-MM-DD`` (or ``YYYY-MM``) keys. A journal
table's ".81" is 0.81.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

SCALES = {"thousand": 1e3, "thousands": 1e3, "million": 1e6, "millions": 1e6, "mn": 1e6, "mln": 1e6,
          "billion": 1e9, "billions": 1e9, "bn": 1e9, "trillion": 1e12, "trillions": 1e12, "tn": 1e12,
          "千": 1e3, "万": 1e4, "十万": 1e5, "百万": 1e6, "千万": 1e7, "亿": 1e8, "万亿": 1e12,
          "萬": 1e4, "十萬": 1e5, "百萬": 1e6, "千萬": 1e7, "億": 1e8, "萬億": 1e12,   # Traditional script
          "lakh": 1e5, "lakhs": 1e5, "crore": 1e7, "crores": 1e7}                      # Indian reports
_SCALE_ALT = "|".join(sorted(SCALES, key=len, reverse=True))
_NUMBER = re.compile(
    r"(?<![A-Za-z0-9_.])(?P<neg>[-−–]|\()?\s?(?:[$€£¥]|US\$|RMB|HK\$)?\s?"
    # Indian grouping too: 7,92,756 (lakh and crore: pairs of digits before the last three)
    r"(?:(?P<int>\d{1,2}(?:,\d{2})+,\d{3}(?![,\d])|\d{1,3}(?:[,，]\d{3})+|\d+)(?:\.(?P<dec>\d+))?|\.(?P<lead>\d+)(?![.\d]))\)?"
    r"\s?(?P<pct>%|％|percent\b|per cent\b|个百分点|百分点|percentage points?\b|pp\b)?"
    r"(?:(?P<suffix>(?-i:[KMB]))|\s?(?P<scale>" + _SCALE_ALT + r"))?(?![a-z])", re.IGNORECASE)
_SUFFIXES = {"K": 1e3, "M": 1e6, "B": 1e9}   # "$1,076M", "$4.2B": capitals written onto the figure
_CONTEXT = re.compile(
    r"in (?P<en>thousands|millions|billions|trillions)\b|\((?:[$€£¥]|us\$|usd|eur|rmb|cny)?\s*"
    r"(?P<paren>thousands|millions|billions|000s?|000,000s?|mn|bn)\)|(?P<of>thousands|millions|billions) of\b"
    r"|[单單]位\s*[:：]?\s*(?:人民币|人民幣|美元|港币|港幣|港元)?\s*(?P<zh>万亿|萬億|千万|千萬|百万|百萬|十万|十萬|亿|億|万|萬|千)"
    # a Hong Kong filing's "RMB'000", "HK$'000" and "人民幣千元"
    r"|(?:rmb|hk\$|us\$|usd|\$)\s?['’]\s?(?P<k>000)\b"
    r"|(?:人民币|人民幣|港元|港币|港幣|美元)\s?(?P<zh2>百万|百萬|千|万|萬|亿|億)元", re.IGNORECASE)
_MONTHS = {m: i for i, m in enumerate(
    "january february march april may june july august september october november december".split(), start=1)}
_MONTH_ALT = "|".join([*_MONTHS, *(m[:3] for m in _MONTHS), "sept"])
_DATE_PATTERNS = (
    re.compile(r"(?P<y>(?:19|20)\d\d)[-/.](?P<m>\d{1,2})[-/.](?P<d>\d{1,2})(?!\d)"),
    re.compile(r"(?P<y>(?:19|20)\d\d)\s?年\s?(?P<m>\d{1,2})\s?月(?:\s?(?P<d>\d{1,2})\s?日)?"),
    re.compile(r"(?<!\d)(?P<d>\d{1,2})(?:st|nd|rd|th)?\s+(?P<mon>" + _MONTH_ALT + r")\.?,?\s+(?P<y>(?:19|20)\d\d)",
               re.IGNORECASE),
    re.compile(r"(?P<mon>" + _MONTH_ALT + r")\.?\s+(?:(?P<d>\d{1,2})(?:st|nd|rd|th)?,?\s+)?(?P<y>(?:19|20)\d\d)",
               re.IGNORECASE),
    re.compile(r"(?<![\d/])(?P<m>\d{1,2})/(?P<d>\d{1,2})/(?P<y>(?:19|20)\d\d)(?!\d)"),
)


@dataclass(frozen=True)
class Quantity:
    """A number as printed: ``mantissa`` (sign applied), ``scale`` from its own scale word, decimals shown."""

    mantissa: float
    scale: float = 1.0
    decimals: int = 0
    percent: bool = False
    start: int = 0
    end: int = 0
    text: str = ""

    @property
    def value(self) -> float:
        return self.mantissa * self.scale

    @property
    def is_year(self) -> bool:
        return (self.decimals == 0 and self.scale == 1.0 and not self.percent and 1900 <= abs(self.mantissa) <= 2100
                and "," not in self.text and "，" not in self.text)

    @property
    def is_small(self) -> bool:
        """A small whole number (a count, a rank, a footnote mark): weak evidence on its own."""
        if self.mantissa == 0:
            return True
        return self.decimals == 0 and self.scale == 1.0 and abs(self.mantissa) < 100 and not self.percent


def quantities(text: str) -> list[Quantity]:
    """Every number in ``text`` with its sign, decimals, percent sign and scale word."""
    out = []
    for m in _NUMBER.finditer(text):
        digits = (m.group("int") or "0").replace(",", "").replace("，", "")   # ".81" is 0.81 (journal tables)
        dec = m.group("dec") or m.group("lead") or ""
        value = float(f"{digits}.{dec}" if dec else digits)
        neg = m.group("neg")
        if neg and (neg != "(" or m.group(0).rstrip().endswith(")")):   # "(3.2)" is negative, "(2016" is not
            value = -value
        scale = _SUFFIXES[m.group("suffix")] if m.group("suffix") else SCALES.get((m.group("scale") or "").lower(), 1.0)
        start = m.start("int") if m.group("int") else m.start("lead") - 1
        out.append(Quantity(value, scale, len(dec), bool(m.group("pct")), start, m.end(), m.group(0).strip()))
    return out


def context_scale(text: str) -> float | None:
    """The scale a table or chart states for its figures ("in millions", "(000s)", "单位：万元"), if any."""
    m = _CONTEXT.search(text)
    if not m:
        return None
    word = (m.group("en") or m.group("paren") or m.group("of") or m.group("zh") or m.group("k")
            or m.group("zh2") or "").lower()
    if word.startswith("000,000"):
        return 1e6
    if word.startswith("000"):
        return 1e3
    return SCALES.get(word)


def _tolerance(q: Quantity) -> float:
    return 0.5 * 10 ** (-q.decimals) * q.scale


def _significant(q: Quantity) -> int:
    """The significant digits ``q`` was printed with."""
    return len(re.sub(r"\D", "", f"{abs(q.mantissa):.{q.decimals}f}").lstrip("0"))


def same_amount(answer: Quantity, printed: Quantity, scale: float | None = None) -> bool:
    """``answer`` states the amount ``printed`` shows (read in ``scale`` when it has no scale word of
    its own), within the rounding of the less precise of the two; signs are ignored ("fell 3.2%")."""
    return amount_match(answer, printed, scale) > 0


def amount_match(answer: Quantity, printed: Quantity, scale: float | None = None) -> float:
    """How well ``printed`` shows ``answer`` (see :func:`same_amount`): 1 when the page prints it at
    least as precisely as the answer states it ("3,214" in millions for "$3.2 billion"), 0.5 when only
    the page's coarser rounding makes them equal ("96%" on the page for "96.1%": weaker evidence,
    another region may print it exactly), 0 when they differ."""
    a = abs(answer.value)
    candidates = {abs(printed.value), abs(printed.mantissa)}
    if scale and printed.scale == 1.0:
        candidates.add(abs(printed.mantissa) * scale)
    if answer.scale != printed.scale and _significant(answer) >= 4 and abs(answer.mantissa) == abs(printed.mantissa):
        return 1.0      # "4,810,115.48万" and "4,810,115.48" under a unit line the region does not hold
    best = 0.0
    for c in candidates:
        slack = 1e-9 * max(a, c)
        if abs(a - c) <= _tolerance(answer) + slack:
            return 1.0
        shown_scale = c / abs(printed.mantissa) if printed.mantissa else 1.0
        if abs(a - c) <= 0.5 * 10 ** (-printed.decimals) * shown_scale + slack:
            best = 0.5
    return best


def dates(text: str) -> list[tuple[str, int, int]]:
    """Dates in ``text`` as (``YYYY-MM-DD`` or ``YYYY-MM``, start, end), in any common form."""
    out: list[tuple[str, int, int]] = []
    taken: list[tuple[int, int]] = []
    for pattern in _DATE_PATTERNS:
        for m in pattern.finditer(text):
            if any(s < m.end() and m.start() < e for s, e in taken):
                continue
            month = _MONTHS.get(_full_month(m.group("mon"))) if "mon" in m.groupdict() and m.group("mon") else None
            month = month or int(m.group("m"))
            day = m.group("d")
            if not 1 <= month <= 12 or (day and not 1 <= int(day) <= 31):
                continue
            key = f"{m.group('y')}-{month:02d}" + (f"-{int(day):02d}" if day else "")
            out.append((key, m.start(), m.end()))
            taken.append((m.start(), m.end()))
    return sorted(out, key=lambda d: d[1])


def _full_month(name: str) -> str:
    name = name.lower().rstrip(".")
    return next((m for m in _MONTHS if m.startswith(name[:3])), name)
