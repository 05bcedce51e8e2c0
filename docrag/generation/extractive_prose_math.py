"""Arithmetic on the figures of one quoted sentence (rule 82 ``prose_math``): "fell from 6.8 per cent in
2022-23 to 4.0 per cent in 2023-24" answers "by how many percentage points did it fall" with 2.8; "projected at
0.6 and 1.3 percent for 2024 and 2025, respectively" and "2013 年、2014 年和 2015 年……分别为 4,028.10 万元、
2,412.44 万元和 2,513.06 万元" give each period its figure, and the two periods the question names are combined; a
sum adds the sentence's two amounts ("$50 billion ... to add to our remaining $7.5 billion"). The result shows its
inputs, as table arithmetic does (:mod:`~docrag.generation.extractive_math`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from docrag.generation.extractive_math import Result, compute, finest, fmt_figure
from docrag.generation.extractive_units import Unit, content_words
from docrag.words import YEAR

_NUM = r"-?\d[\d,]*(?:\.\d+)?"
_PCT = r"\s*(?:%|per\s?cent|percent)?"
_FROM_TO = re.compile(rf"\bfrom\s+(?:around\s+|about\s+|\(-\)\s*)?(?P<a>{_NUM}){_PCT}[^.;]{{0,60}}?\bto\s+"
                      rf"(?:around\s+|about\s+)?(?P<b>{_NUM}){_PCT}", re.IGNORECASE)
_PERIOD_ZH = r"(?:\d{4}\s*年(?:度|末)?的?)?"
_FROM_TO_ZH = re.compile(rf"(?:由|从)\s*{_PERIOD_ZH}\s*(?P<a>{_NUM})(?!\s*年)\s*(?:%|万元|亿元|元|个百分点)?"
                         rf"[^，。；]{{0,20}}?(?:(?:下降|增长|上升|提高|降低|减少|增加|回落|升)?(?:至|到)"
                         r"|(?:调整|变更|修正|更正|调减|调增|下调|上调)为)"   # "由 A 元调整为 B 元" (a restatement)
                         rf"\s*{_PERIOD_ZH}\s*"
                         rf"(?P<b>{_NUM})(?!\s*年)")
_RESPECTIVELY = re.compile(rf"(?P<vals>{_NUM}(?:{_PCT}\s*(?:,|and)\s*{_NUM})+){_PCT}[^.;]{{0,40}}?\bfor\s+"
                           r"(?P<keys>[\w-]+(?:\s*(?:,|and)\s*[\w-]+)+),?\s+respectively", re.IGNORECASE)
# the words between the years and "分别为" name no other year ("2016 年度……业绩承诺的一致口径, 2013 年度、…分别为")
_SEPARATELY_ZH = re.compile(r"(?P<keys>(?:\d{4}\s*年(?:度)?\s*[、,，和及与]\s*)+\d{4}\s*年(?:度)?)"
                            r"(?:(?!(?:19|20)\d{2})[^。；]){0,60}?"
                            r"分别(?:为|是|达到?|约为|不\s*低于|不\s*少于)\s*"
                            rf"(?P<vals>{_NUM}[^、,，和及与。；]{{0,6}}"
                            rf"(?:\s*[、,，和及与]\s*{_NUM}[^、,，和及与。；]{{0,6}})+)")
_YEAR = re.compile(r"(?:19|20)\d{2}(?:-\d{2})?")
_RATES = re.compile(rf"{_NUM}\s*(?:%|per\s?cent\b|percent\b)", re.IGNORECASE)


def _numbers(text: str) -> list[str]:
    return re.findall(_NUM, text)


def _keyed(text: str) -> dict[str, str]:
    """{period: figure} of a "A and B for P1 and P2, respectively" / "P1、P2……分别为 A、B" sentence."""
    for pattern in (_RESPECTIVELY, _SEPARATELY_ZH):
        m = pattern.search(text)
        if m is None:
            continue
        keys = _YEAR.findall(m.group("keys")) if pattern is _SEPARATELY_ZH else \
            [k for k in re.split(r"\s*(?:,|and)\s*", m.group("keys")) if k]
        vals = _numbers(m.group("vals"))
        if len(keys) == len(vals) >= 2:
            return dict(zip(keys, vals, strict=True))
    return {}


_SHARE_ZH = re.compile(r"(?P<a>[^，。？?、]{2,16}?)占(?P<b>[^，。？?、]{2,16}?)的?(?:比例|比重|百分比)")
_SHARE_EN = re.compile(r"\b(?:what|which)\s+(?:share|percentage|proportion|fraction)\s+of\s+(?:the\s+)?"
                       r"(?P<b>[\w\s'-]{3,40}?)\s+(?:was|were|is|are|did|came from)\s+(?:the\s+)?"
                       r"(?P<a>[\w\s'-]{3,40}?)(?:[,?.]|$)", re.IGNORECASE)


def _named_figure(name: str, text: str, taken: set[int]) -> tuple[int, str] | None:
    """The figure of ``text`` whose nearby words (the 8 characters before it) share most characters with
    ``name`` (at least half of the fewer): (its position, its text), or None."""
    want = {ch for ch in name.lower() if ch.isalnum() and not ch.isdigit()}
    best: tuple[float, int, str] | None = None
    for m in re.finditer(_NUM, text):
        if m.start() in taken or YEAR.fullmatch(m.group(0)):
            continue
        near = {ch for ch in text[max(0, m.start() - 8):m.start()].lower() if ch.isalnum() and not ch.isdigit()}
        fit = len(want & near) / min(len(want), len(near)) if want and near else 0.0
        if fit >= 0.5 and (best is None or fit > best[0]):
            best = (fit, m.start(), m.group(0))
    return (best[1], best[2]) if best else None


def prose_share(question: str, text: str) -> Result | None:
    """``prose_math`` share: "下架的App占通报违规App的比例" over "通报违规1549 款,下架514 款": the figure named by
    the part over the one named by the whole, each found by the words just before it."""
    m = _SHARE_ZH.search(question) or _SHARE_EN.search(question)
    if m is None or "%" in text or "per cent" in text or "percent" in text:
        return None   # the sentence states a share itself: it is quoted
    part = _named_figure(m.group("a"), text, set())
    whole = _named_figure(m.group("b"), text, {part[0]} if part else set())
    if part is None or whole is None:
        return None
    return compute("share", part[1], whole[1])


# an amount with its currency or scale: "$50 billion", "7.5 亿元" (a bare number or a percentage is none)
_AMOUNT = re.compile(r"(?P<cur>[$€£¥])\s?(?P<num>\d[\d,]*(?:\.\d+)?)"
                     r"(?:\s?(?P<scale>trillion|billion|million|thousand)\b)?"
                     r"|(?P<num2>\d[\d,]*(?:\.\d+)?)\s?(?P<scale2>万亿元|亿元|万元|元)", re.IGNORECASE)
_PART_OF = re.compile(r"其中|of which|\bincluding\b", re.IGNORECASE)   # a total and its part: no sum


def prose_sum(text: str) -> Result | None:
    """``prose_math`` sum: "approved a $50 billion share repurchase authorization to add to our remaining $7.5 billion"
    answers "what total authorization does it give together with the remaining amount" with "$57.5 billion = $50
    billion + $7.5 billion": the sentence's two amounts, of one currency and scale, added; None unless there are
    exactly two, or when one is part of the other ("投资 3.5 亿元，其中自有资金 1.2 亿元")."""
    if _PART_OF.search(text):
        return None
    found = [(m.group("cur") or "", (m.group("scale") or m.group("scale2") or "").lower(), m.group("num") or
              m.group("num2")) for m in _AMOUNT.finditer(text)]
    if len(found) != 2 or found[0][:2] != found[1][:2]:
        return None
    (cur, scale, a), (_, _, b) = found
    res = compute("sum", a, b)
    if res is None:
        return None
    total = res.text.split(" = ")[0]
    unit = f" {scale}" if cur and scale else scale

    def shown(x: str) -> str:
        return f"{cur}{x}{unit}"

    return Result("sum", res.value, f"{shown(total)} = {shown(a)} + {shown(b)}")


def prose_arithmetic(op: str, question: str, text: str) -> Result | None:
    """``op`` (difference or growth) on the two figures of ``text`` the question asks about, or None: a
    "from A to B" change, or the figures of the two periods the question names in a "respectively" /
    "分别为" sentence. A difference is shown as the larger minus the smaller (the question says which way).
    A share is :func:`prose_share`'s, a sum :func:`prose_sum`'s."""
    if op == "share":
        return prose_share(question, text)
    if op == "sum":
        return prose_sum(text)
    if op not in ("difference", "growth"):
        return None
    keyed = _keyed(text)
    asked = [k for k in keyed if k in question]
    m = None
    if len(asked) == 2:
        first, second = sorted(asked)   # the earlier period first
        a, b = keyed[first], keyed[second]
    else:
        m = _FROM_TO.search(text) or _FROM_TO_ZH.search(text)
        if m is None:
            return None
        a, b = m.group("a"), m.group("b")
        if any(YEAR.fullmatch(x) for x in (a, b)):
            return None   # "from 2019 to 2021": periods, not figures
    if op == "difference":
        va, vb = float(a.replace(",", "")), float(b.replace(",", ""))
        a, b = (b, a) if vb < va else (a, b)
        res = compute(op, a, b)
        if res is not None and m is not None and len(_RATES.findall(m.group(0))) == 2:   # two rates: points apart
            return replace(res, text=f"{fmt_figure(res.value, finest((a, b)))} percentage points = {b}% − {a}%")
        return res
    return compute(op, a, b)


CHANGE_SHARE = 0.8   # ``prose_change``: a sentence stating a change competes within this share of the best's score


def prose_change(op: str, question: str, units: Sequence[Unit], scores: Sequence[float], order: Sequence[int],
                 best: Unit) -> tuple[Result, Unit] | None:
    """``prose_change`` (rule 82 over a close sentence): a change asked ("调减了多少", "by how much did it fall") that
    the best sentence cannot compute is computed from the best-scoring sentence of the same document, within
    ``CHANGE_SHARE`` of the best's score, that states the change ("由 308,886,389.01 元调整为 298,285,000.14
    元"; ``order``: the units' indices, best first): (result, that sentence) or None."""
    if op not in ("difference", "growth"):
        return None
    top = max(scores, default=0.0)
    for i in order:
        u = units[i]
        if scores[i] < CHANGE_SHARE * top:
            break
        if u is best or u.kind != "sentence" or u.page.doc_id != best.page.doc_id:
            continue
        res = prose_arithmetic(op, question, u.text)
        if res is not None:
            return res, u
    return None


_SCALE_AFTER = re.compile(r"\s*(%|万亿元|亿元|万元|元|亿|万|billion|million|thousand|per\s?cent|percent)?",
                          re.IGNORECASE)
_PERIOD_WORDS = {"年度", "年末", "年初", "期末", "期初", "fiscal", "year", "quarter"}   # periods name no measure
ACROSS_SHARE = 0.5   # ``prose_across``: sentences scoring at least this share of the best unit are read


def _period_figures(text: str) -> tuple[dict[str, tuple[str, str]], set[str]]:
    """{year: (figure, its scale word)} of a "P1、P2……分别为 A、B" / "A and B for P1 and P2, respectively" sentence,
    and the words naming what the figures are (before the figures), or ({}, set())."""
    for pattern in (_SEPARATELY_ZH, _RESPECTIVELY):
        m = pattern.search(text)
        if m is None:
            continue
        keys = _YEAR.findall(m.group("keys"))
        found = [(n.group(0), (_SCALE_AFTER.match(m.group("vals"), n.end()).group(1) or "").lower())
                 for n in re.finditer(_NUM, m.group("vals"))]
        if len(keys) == len(found) >= 2 and len(set(keys)) == len(keys):
            named = text[:m.start("vals")] if pattern is _SEPARATELY_ZH else text[:m.start()]
            words = {w for w in content_words(named[-80:]) if not YEAR.fullmatch(w) and w not in _PERIOD_WORDS}
            return dict(zip(keys, found, strict=True)), words
    return {}, set()


def prose_across(op: str, question: str, units: Sequence[Unit], scores: Sequence[float],
                 best: Unit) -> tuple[Result, Unit, Unit, str] | None:
    """``prose_across`` (rule 82 across sentences): a difference or growth between the two years the question names
    when no one sentence gives both, from two sentences of the answering document that each give its years their
    figures ("2013 年度、2014 年度和 2015 年度……净利润分别为 18.90 亿元、9.20 亿元和 16.23 亿元" and "2016 年度、
    2017 年度和 2018 年度……净利润分别不低于 21.8 亿元、28 亿元和 34.8 亿元"): the figures of one scale, the words
    naming them shared at least half (the same measure). (result, earlier's sentence, later's sentence, text) or
    None."""
    years = sorted(set(YEAR.findall(question)))
    if op not in ("difference", "growth") or len(years) != 2:
        return None
    top = max(scores, default=0.0)
    found: dict[str, tuple[float, Unit, tuple[str, str], set[str]]] = {}
    for u, s in zip(units, scores, strict=True):
        if u.kind != "sentence" or u.page.doc_id != best.page.doc_id or s < ACROSS_SHARE * top:
            continue
        figures, named = _period_figures(u.text)
        for y in years:
            if y in figures and (y not in found or s > found[y][0]):
                found[y] = (s, u, figures[y], named)
    if len(found) < 2 or found[years[0]][1] is found[years[1]][1]:
        return None   # one sentence gives both: :func:`prose_arithmetic` reads it
    (_, first, (a, scale_a), named_a), (_, second, (b, scale_b), named_b) = found[years[0]], found[years[1]]
    if scale_a != scale_b or not (named_a and named_b) or len(named_a & named_b) < 0.5 * min(len(named_a),
                                                                                               len(named_b)):
        return None   # another scale, or other words: another measure
    res = compute(op, a, b)
    if res is None:
        return None
    return res, first, second, f"{res.text} ({first.text}; {second.text})"


_FIGURE = re.compile(r"(?<![\d.])\d[\d,]*(?:\.\d+)?(?![\d.])")


def states_difference(text: str) -> bool:
    """``stated_difference`` (rule 171): the text prints two figures and their difference ("经营活动产生的现金流量净额
    265,348,926.68 元与净利润 402,233,891.06 元相比存在 136,884,964.38 元差异"): it answers a difference itself, to the
    last decimal printed; years are no figures."""
    found = [m.group(0) for m in _FIGURE.finditer(text) if not YEAR.fullmatch(m.group(0))]
    values = [(float(f.replace(",", "")), len(f.partition(".")[2])) for f in dict.fromkeys(found)][:12]
    for a, da in values:
        for b, db in values:
            for c, dc in values:
                tol = 0.51 * 10 ** -max(da, db, dc)
                if a > b and c not in (a, b) and c > 0 and abs(a - b - c) <= tol:
                    return True
    return False

