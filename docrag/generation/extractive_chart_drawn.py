"""Answers read off a vector chart's drawing (rule 118 ``drawn_read``, ``docs/extractive-rules.md``).

A chart that prints no data label still answers "approximately what was the low point" or "which series ended
lowest": ingest reads its bars and lines through the value axis (``docrag.ingestion.chart_marks``, stored as
``Block.meta["series"]``). The answer names the category, the value with the axis' unit, the series, and says
that the value was read off the drawing (approximate), never passing it off as a printed figure.
"""

from __future__ import annotations

import re
from typing import Any

from docrag.generation.extractive_units import _CJK, tokenize

_HIGH = re.compile(r"\b(highest|largest|biggest|tallest|most|peak(?:ed)?|high point|top)\b|最高|最大|最多|峰值|高点",
                   re.IGNORECASE)
_LOW = re.compile(r"\b(lowest|smallest|least|shortest|low point|trough|bottom(?:ed)?)\b|最低|最小|最少|低点|谷值",
                  re.IGNORECASE)
_WHICH = re.compile(r"\bwhich\b|哪", re.IGNORECASE)
# "in which month / quarter did it peak", "哪一年": a category is asked for, not a series
_WHICH_WHEN = re.compile(r"\bwhich\s+(?:\w+\s+){0,2}?(?:month|quarter|year|period|date|day|week|group|time)s?\b"
                         r"|哪(?:一|个)?(?:年|月|季度|组|天|期)", re.IGNORECASE)
_END = re.compile(r"\bend(?:ed|ing)?\b|\bfinal\b|\blast\b|期末|末", re.IGNORECASE)
_NOTE_EN = "read off the drawing: the chart prints no data label"
_NOTE_ZH = "读图估计：图中未标注数值"


def _fmt(series: dict[str, Any], value: float) -> str:
    digits = int(series.get("decimals", 1))
    return f"{series.get('prefix', '')}{value:,.{digits}f}{series.get('suffix', '')}"


def _named(series: list[dict[str, Any]], idf: dict[str, float]) -> list[dict[str, Any]]:
    """The series whose legend name shares the most question weight, the name most fully asked first ("all
    items", not "all items less food and energy"); all of them when none is named."""
    def weight(s: dict[str, Any]) -> tuple[float, float]:   # question weight, then the name's share asked
        toks = set(tokenize(s.get("name", "")))
        return round(sum(idf.get(t, 0.0) for t in toks), 6), len(toks & idf.keys()) / max(len(toks), 1)
    best = max((weight(s) for s in series), default=(0.0, 0.0))
    return [s for s in series if weight(s) == best] if best[0] > 0 else list(series)


def _asked(values: list[list], idf: dict[str, float]) -> list[list]:
    """The categories the question names whole ("Apr", "第5组", "2019")."""
    return [v for v in values if (toks := tokenize(str(v[0]))) and set(toks) <= idf.keys()]


def _extreme(question: str) -> str | None:
    low, high = _LOW.search(question), _HIGH.search(question)
    if low and (not high or low.start() < high.start()):
        return "min"
    return "max" if high else None


def drawn_answer(drawn: list[dict[str, Any]], question: str, idf: dict[str, float]) -> str | None:
    """``drawn_read``: the value(s) a chart's drawing shows for what the question asks (a named category, the
    highest or lowest point of a series, or which series is highest or lowest at a category or at the end),
    each with its category and series and labelled as read off the drawing; None when the question asks
    none of these."""
    if not drawn:
        return None
    zh = bool(_CJK.search(question))
    about, note = ("约", _NOTE_ZH) if zh else ("about ", _NOTE_EN)
    extreme = _extreme(question)
    chosen = _named(drawn, idf)
    parts: list[str] = []
    if extreme and len(drawn) > 1 and _WHICH.search(question) and not _WHICH_WHEN.search(question):
        # which series is highest / lowest: compared at the category asked, else at the end
        cats = _asked(drawn[0]["values"], idf) or ([drawn[0]["values"][-1]] if _END.search(question) else [])
        if cats:
            at = cats[-1][0]
            points = [(s, v) for s in drawn for c, v in s["values"] if c == at and s.get("name")]
            if points:
                s, v = (min if extreme == "min" else max)(points, key=lambda p: p[1])
                parts.append(f"{s['name']} — {about}{_fmt(s, v)} at {at} ({note})" if not zh
                             else f"{s['name']} — {at}{about}{_fmt(s, v)}（{note}）")
    else:
        for s in chosen:
            name = f"{s['name']}; " if s.get("name") and not zh else (f"{s['name']}，" if s.get("name") else "")
            cats = _asked(s["values"], idf)
            if cats:
                picked = cats
            elif extreme:
                pick = min if extreme == "min" else max
                picked = [s[extreme]] if s.get(extreme) else [pick(s["values"], key=lambda v: v[1])]
            else:
                continue
            parts.extend(f"{about}{_fmt(s, v)} — {c}" + (f"（{name}{note}）" if zh else f" ({name}{note})")
                         for c, v in picked)
    return "; ".join(parts) or None


__all__ = ["drawn_answer"]
