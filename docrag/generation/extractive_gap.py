"""The gap between two facts a question compares, each found by a part of it (rule 140 ``parts_gap``).

"2024年地区生产总值增长目标是多少？与2023年实际增速相比相差多少个百分点？" is answered in two parts (the
target on one page, the outcome on another, :mod:`~docrag.generation.extractive_parts`); each part's
answer quoted the figure, and no answer said 0.2. :func:`parts_gap` reads the figure each part's answer
gives for what the question names and states their difference ("0.2 个百分点 = 5.2% − 5%") when both are
of one unit (two percentages give percentage points; an amount in 亿元 is not taken from one in 万元,
nor a count from a percentage), so a reader checks it against the two cited boxes. A part asking for a guidance's
midpoint takes the middle of the range its answer quotes, and two amounts of one currency in different English scale
words ("$1.03 billion", "$1,076M") are compared in the smaller one (rule 161).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from docrag.generation.extractive_answer import QUOTE_SEP
from docrag.generation.extractive_math import compute
from docrag.generation.extractive_part_answers import own_words
from docrag.generation.extractive_parts import compares
from docrag.generation.extractive_units import _CJK, content_words, tokenize
from docrag.quantities import _SUFFIXES, SCALES

# "相差多少", "高多少", "多还是少", "how much higher"; "how does A compare with B" is asked by its parts
# (:func:`~docrag.generation.extractive_parts.compares`). "相差的部分来自哪里" asks no amount.
_GAP_ASKED = re.compile(r"(?:相差|差距|差额|差)了?(?:多少|几|多大)|多还是少|高还是低|"
                        r"(?:相比|比较|较).{0,4}(?:高|低|多|少|快|慢)了?(?:多少|几)|"
                        r"\b(?:difference between|how (?:much|many) (?:more|less|fewer|higher|lower))\b", re.IGNORECASE)
_UNIT = (r"\s*(?P<unit>%|％|\s?percent(?:age points?)?|\s?per cent|个百分点|[万亿千百]?元|万亿|亿|万|条|部|个|家|人|户|"
         r"\((?:millions|thousands|billions)\)|\s?(?:million|billion|thousand|bn|mn)\b|(?-i:[MBK])(?![A-Za-z]))?")
# a figure, not a year's last digits ("Q4'23") nor a part of a name ("Q4", "H20")
_FIGURE = re.compile(r"(?<![A-Za-z0-9_.'’])(?P<num>[-+]?\$?\d[\d,]*(?:\.\d+)?)(?![\d年月日])" + _UNIT, re.IGNORECASE)
_YEARLIKE = re.compile(r"\$?(?:19|20)\d\d")
_RANGE_AFTER = re.compile(r"\s*(?:to|-|–|~|至|到)\s*\$?\d", re.IGNORECASE)   # "2.30 to 2.50": a range, no one figure
_NAMED_NUMBER = re.compile(r"\b[A-Z][A-Za-z&]+\s$")   # "Fortune 500", "Note 11", "Class 3": a name, not a figure
# a cell's answer or a computed one: "75,246 — Data Center", "93.0% = …"
_CELL_OR_SUM = re.compile(r"^\s*[-+(]?\$?\d[\d,.]*\S*\s*(?:\([^)]*\)\s*)?(?:—|=)")
_PERCENT_UNITS = frozenset({"%", "％", "percent", "per cent", "个百分点", "percentage point", "percentage points"})
_NEAR_EN, _NEAR_ZH = 60, 14   # characters before a figure that name it
_MIN_NAMING_WORDS = 2   # words of the question a sentence's figure needs just before it to be the one asked


@dataclass(frozen=True)
class Figure:
    number: str   # as printed, without its unit ("1,730", "5.2")
    unit: str     # "%" for any percentage, else its currency sign and unit word ("条", "(millions)", "$m", "")


_MIDPOINT_Q = re.compile(r"\bmid-?points?\b|区间中值|中值", re.IGNORECASE)
_SCALED = r"\s?(?P<{0}>billion|million|thousand|bn|mn|[MBK](?![A-Za-z]))?"
_RANGE = re.compile(r"(?<![\d.])(?P<cur>\$)?(?P<a>\d[\d,]*(?:\.\d+)?)" + _SCALED.format("ua")
                    + r"\s*(?:to|-|–|~|至|到)\s*\$?(?P<b>\d[\d,]*(?:\.\d+)?)" + _SCALED.format("ub"), re.IGNORECASE)
_SCALE_WORD = {1e3: "thousand", 1e6: "million", 1e9: "billion"}   # the scales compared across parts, as written


def _scale_of(word: str) -> float | None:
    """The factor of an English scale word or letter ("million", "(millions)", "bn", "M"), read from
    :mod:`docrag.quantities`' tables, else None (Chinese scales are not compared: 亿元 against 万元 is refused)."""
    w = word.strip().strip("()")
    if len(w) == 1:
        return _SUFFIXES.get(w.upper())
    return SCALES.get(w.lower()) if w.isascii() else None


def _shown(value: float) -> str:
    """A figure as a person writes it: thousands separated, at most three decimals, no trailing zeros."""
    return f"{value:,.3f}".rstrip("0").rstrip(".")


def _midpoint(answer: str) -> Figure | None:
    """``midpoint``: the middle of the first range the answer quotes ("$1.025 billion to $1.035 billion" ->
    1.03 "$billion"), both ends of one scale (or the scale said once, after the second)."""
    m = _RANGE.search(answer)
    if m is None:
        return None
    ua, ub = m.group("ua") or "", m.group("ub") or ""
    if ua and ub and ua.lower() != ub.lower():
        return None
    lo, hi = (float(m.group(x).replace(",", "")) for x in ("a", "b"))
    if hi <= lo:
        return None
    unit = ub or ua
    word = _SCALE_WORD.get(_scale_of(unit) or 0.0, unit.lower())
    return Figure(_shown((lo + hi) / 2), ("$" if m.group("cur") else "") + word)


def _one_scale(a: Figure, b: Figure) -> tuple[Figure, Figure]:
    """Two amounts of one currency in different scale words ("$billion", "$M") written in the smaller one; others as
    they were."""
    cur_a, cur_b = a.unit.startswith("$"), b.unit.startswith("$")
    sa, sb = _scale_of(a.unit.lstrip("$")), _scale_of(b.unit.lstrip("$"))
    if cur_a != cur_b or sa not in _SCALE_WORD or sb not in _SCALE_WORD:
        return a, b
    small = min(sa, sb)
    unit = ("$" if cur_a else "") + _SCALE_WORD[small]

    def rescaled(f: Figure, scale: float) -> Figure:
        return Figure(_shown(float(f.number.replace(",", "")) * scale / small), unit)

    return rescaled(a, sa), rescaled(b, sb)


def gap_asked(question: str) -> bool:
    """The question asks how far apart two facts are ("相差多少", "高多少", "how does A compare with B")."""
    return bool(_GAP_ASKED.search(question)) or compares(question)


def _unit(raw: str | None, number: str) -> str:
    """The unit a figure is compared in: "%" for any percentage, else its currency sign and unit word ("$m")."""
    u = (raw or "").strip()
    u = u if u in ("M", "B", "K") else u.lower()   # "$1,076M"
    return "%" if u in _PERCENT_UNITS else ("$" if "$" in number else "") + u


def figure_of(answer: str, asked: str, own: set[str] | frozenset[str] = frozenset(),
              others: set[str] | frozenset[str] = frozenset()) -> Figure | None:
    """The figure ``answer`` (one part's answer) gives for what ``asked`` names: the first figure of a cell's
    answer ("75,246 — Data Center …") or of a computed one, else the figure of a quoted sentence whose words
    just before it share most with ``asked`` (at least two words, or one of ``own``, the words of this part no other
    part has, which count first), in a quote with none of ``others`` (the other parts' own words: "In the April
    meeting ... 7 per cent" is no figure of the June projection); never a year, a name's number ("Fortune 500") or
    an end of a range."""
    if _MIDPOINT_Q.search(asked) and (mid := _midpoint(answer)) is not None:
        return mid   # "the midpoint of the guidance": of the range the answer quotes (rule 161)
    found = [m for m in _FIGURE.finditer(answer) if not _YEARLIKE.fullmatch(m.group("num"))
             and not _RANGE_AFTER.match(answer, m.end("num")) and not _RANGE_AFTER.match(answer, m.end())]
    if not found:
        return None
    if _CELL_OR_SUM.match(answer):
        m = found[0]
        return Figure(m.group("num").lstrip("$+"), _unit(m.group("unit"), m.group("num")))
    found = [m for m in found if m.group("unit") or not _NAMED_NUMBER.search(answer, 0, m.start())]
    want = content_words(asked)
    best, best_fit = None, (0, 0)
    for m in found:
        near = set(tokenize(answer[max(0, m.start() - (_NEAR_ZH if _CJK.search(answer) else _NEAR_EN)):m.start()]))
        fit = (len(own & near), len(want & near))   # "EXPORTS ₹ 2,54,970" over "Reliance Industries ... Fortune 500"
        start, end = answer.rfind(QUOTE_SEP, 0, m.start()), answer.find(QUOTE_SEP, m.end())
        quote = set(tokenize(answer[max(0, start):end if end >= 0 else len(answer)]))   # the quote it stands in
        if (fit[0] or fit[1] >= min(_MIN_NAMING_WORDS, len(want))) and fit > best_fit and not others & quote:
            best, best_fit = m, fit
    return Figure(best.group("num").lstrip("$+"), _unit(best.group("unit"), best.group("num"))) if best else None


def parts_gap(question: str, answers: list[str], parts: list[str]) -> str | None:
    """``parts_gap``: "0.2 个百分点 = 5.2% − 5%" from the first two parts' answers when the question asks how
    far apart they are and both give a figure of one unit; None otherwise (the larger less the smaller: the
    question says which way)."""
    if len(answers) < 2 or len(parts) < 2 or not gap_asked(question):
        return None
    own = own_words(parts)
    a, b = (figure_of(answers[i], parts[i], own[i], set().union(*own[:i], *own[i + 1:])) for i in (0, 1))
    if a is not None and b is not None and a.unit != b.unit:
        a, b = _one_scale(a, b)   # "$1.030 billion" against "$1,076M": both in millions (rule 161)
    if a is None or b is None or a.unit != b.unit or a.number == b.number:
        return None
    res = compute("difference", a.number, b.number)
    if res is None:
        return None
    big, small = (a, b) if res.value < 0 else (b, a)
    value = res.text.split(" = ")[0].lstrip("-")
    zh = bool(_CJK.search(question))
    cur, word = ("$", big.unit[1:]) if big.unit.startswith("$") else ("", big.unit)
    shown = "%" if word == "%" else ("" if not word else (word if zh or len(word) == 1 else f" {word}"))
    gap_unit = ("个百分点" if zh else " percentage points") if word == "%" else shown
    return f"{cur}{value}{gap_unit} = {cur}{big.number}{shown} − {cur}{small.number}{shown}"
