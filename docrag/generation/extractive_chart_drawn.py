"""Answers read off a vector chart's drawing (rule 118 ``drawn_read``, ``docs/extractive-rules.md``).

A chart that prints no data label still answers "approximately what was the low point" or "which series ended
lowest": ingest reads its bars and lines through the value axis (``docrag.ingestion.chart_marks``, stored as
``Block.meta["series"]``). The answer names the category, the value with the axis' unit, the series, and says
that the value was read off the drawing (approximate), never passing it off as a printed figure.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from docrag.generation.extractive_tables import parse_number
from docrag.generation.extractive_units import _CJK, _REF, tokenize, without_references

_HIGH = re.compile(r"\b(highest|largest|biggest|tallest|most|peak(?:ed)?|high point|top)\b|最高|最大|最多|峰值|高点",
                   re.IGNORECASE)
_LOW = re.compile(r"\b(lowest|smallest|least|shortest|low point|trough|bottom(?:ed)?)\b|最低|最小|最少|低点|谷值",
                  re.IGNORECASE)
WHICH_Q = re.compile(r"\bwhich\b|哪", re.IGNORECASE)   # a which-question (also extractive_answer's)
# "in which month / quarter did it peak", "哪一年": a category is asked for, not a series
_WHICH_WHEN = re.compile(r"\bwhich\s+(?:\w+\s+){0,2}?(?:month|quarter|year|period|date|day|week|group|time)s?\b"
                         r"|哪(?:一|个)?(?:年|月|季度|组|天|期)", re.IGNORECASE)
_END = re.compile(r"\bend(?:ed|ing)?\b|\bfinal\b|\blast\b|期末|末", re.IGNORECASE)
_YEAR_MONTH = re.compile(r"((?:19|20)\d\d)\s*(?:[-/.]|年)\s*(\d{1,2})(?!\d)")
NAMED_SHARE = 0.6
_TITLE = re.compile(r"《[^》]*》")   # a document's title the question cites
_UNIT_NOTE = re.compile(r"\s*[（(][^（()）]*[)）]\s*$")   # a legend name's closing bracket: its unit
_QUOTE = re.compile(r"“([^”]*)”")   # a quote: a chart's title, or a name quoted alone
# "首次超过300 EFlops", "first exceeded $200": the first category past a threshold
_THRESHOLD = r"\d[\d,]*(?:\.\d+)?"   # "300", "1,000", "2.5": never a lone "." or "1.2.3" (its float would fail)
_FIRST_PAST = re.compile(rf"首次(?P<zh>超过|突破|高于|达到|低于|跌破)\s*(?P<a>{_THRESHOLD})|"
                         r"\bfirst\s+(?P<en>exceed(?:ed|s)?|surpass(?:ed|es)?|top(?:ped|s)?|"
                         r"(?:rose|rise|went|go) above|crossed|"
                         rf"(?:fell|fall|dropped|drop|went|go) below)\s+\$?(?P<b>{_THRESHOLD})", re.IGNORECASE)
_BELOW = ("低于", "跌破", "fell below", "fall below", "dropped below", "drop below", "went below", "go below")
# a category that is a period: "Q4'21", "Q1 2023", "4Q23", "FY2023", "2019", "2019年" (chronological order)
_QUARTER_KEY = re.compile(r"^(?:q(?P<q>[1-4])\s*['’]?\s*|(?P<q2>[1-4])q\s*['’]?)(?P<y>\d{2}|\d{4})$", re.IGNORECASE)
_YEAR_KEY = re.compile(r"^(?:fy\s*)?(?P<y>(?:19|20)\d{2})\s*年?$", re.IGNORECASE)
# "which month did it decline", "哪个因子为正": the sign asked for (not "the largest decline": an extreme)
SIGN_Q = re.compile(r"(?P<neg>\bdeclined?\b|\bfell\b|\bnegative\b|为负|负值)|(?P<pos>\bpositive\b|为正|正值)",
                    re.IGNORECASE)
_YEAR_SPAN = re.compile(r"(?:19|20)\d\d\s*年?\s*[-–~至到]\s*(?:19|20)\d\d")   # "2014-2021年", "2014年至2021年"
_ABSOLUTE = re.compile(r"绝对值|\babsolute\b", re.IGNORECASE)
_NOTE_EN = "read off the drawing: the chart prints no data label"
_NOTE_ZH = "读图估计：图中未标注数值"


def of_sign(items: list, number: Callable[[Any], float | None], signed: re.Match) -> list:
    """``signed_bars``: the items whose figure has the sign :data:`SIGN_Q` matched (negative for "declined",
    positive for "为正"); [] when every item has it (then nothing is picked out)."""
    negative = signed.group("neg") is not None
    hits = [i for i in items if (n := number(i)) is not None and (n < 0 if negative else n > 0)]
    return hits if len(hits) < len(items) else []


def _fmt(series: dict[str, Any], value: float) -> str:
    digits = int(series.get("decimals", 1))
    return f"{series.get('prefix', '')}{value:,.{digits}f}{series.get('suffix', '')}"


def _said(series: list[dict[str, Any]], question: str) -> list[dict[str, Any]]:
    """The series whose legend name the question says whole, outside a title it cites and a longer quote
    ("组合行业占比", not "A股行业占比" whose characters it also has; not "IT硬件" of the chart's title
    “我国IT硬件、软件、服务支出规模”); ``said_longer``: a name said as the start of a longer legend name whose other
    words follow it ("中证500指数日内动量策略" says "中证500日内交易策略", not "中证500"); ``said_head``: of two names a
    Chinese question says on either side of "的", the one after it ("上证50ETF日内动量策略的累计超额": the excess)."""
    own = _TITLE.sub(" ", question).lower()
    found: list[tuple[dict[str, Any], str, int]] = []
    for s in series:
        name = _bare(s)   # "GDP规模年增长率（%）" is said as "GDP规模年增长率"
        at = _QUOTE.sub(lambda m, n=name: m.group(0) if m.group(1) == n else " ", own).find(name)
        if len(name) > 1 and at >= 0:
            found.append(_longer(s, name, at, series, own))
    if _CJK.search(question):
        found = [f for f in found if not any(o[2] > f[2] + len(f[1]) and "的" in own[f[2] + len(f[1]):o[2]]
                                             for o in found)]
    out: list[dict[str, Any]] = []
    for s, _, _ in found:
        if not any(s is o for o in out):
            out.append(s)
    return out


def _bare(s: dict[str, Any]) -> str:
    return _UNIT_NOTE.sub("", s.get("name") or "").lower()


def _longer(s: dict[str, Any], name: str, at: int, series: list[dict[str, Any]],
            own: str) -> tuple[dict[str, Any], str, int]:
    """``said_longer``: the legend name starting with ``name`` whose other words (half of them at least) follow it in
    the question (within three times the name's length and a dozen characters), else ``s`` itself."""
    after = own[at + len(name):at + 3 * len(name) + 12]
    for o in series:
        rest = _bare(o)[len(name):] if o is not s and _bare(o).startswith(name) else ""
        words = [t for t in tokenize(rest) if len(t) > 1]
        if words and 2 * sum(t in after for t in words) >= len(words):
            return o, name, at
    return s, name, at


def _named(series: list[dict[str, Any]], idf: dict[str, float]) -> list[dict[str, Any]]:
    """The series the question names: question weight of the legend name x the root of the share of the name
    asked, within ``NAMED_SHARE`` of the best ("all items", not "all items less food and energy"; both series a
    question names); all of them when none is named."""
    def score(s: dict[str, Any]) -> float:
        toks = set(tokenize(s.get("name", "")))
        weight = sum(idf.get(t, 0.0) for t in toks)
        return weight * (len(toks & idf.keys()) / max(len(toks), 1)) ** 0.5
    scores = [score(s) for s in series]
    best = max(scores, default=0.0)
    return [s for s, v in zip(series, scores, strict=True) if v >= NAMED_SHARE * best] if best > 0 else list(series)


def _ym(text: str) -> tuple[int, int] | None:
    """(year, month) of a category label or a question's date: "2022-08", "2022/8", "2022年8月"."""
    m = _YEAR_MONTH.search(text)
    return (int(m.group(1)), int(m.group(2))) if m else None


def _asked(values: list[list], idf: dict[str, float], question: str = "") -> list[list]:
    """The categories the question names whole ("Apr", "第5组", "2019"), or by year and month ("2022年8月" for
    "2022-08"); a number the question says only as a figure's or table's ("图7", "Figure 7") names no category,
    nor does a word of a title it quotes ("综合" of 《综合期限多样性的趋势选股策略》)."""
    months = {ym for m in _YEAR_MONTH.finditer(question) if (ym := _ym(m.group(0)))}
    refs = ({m.group(3) for m in _REF.finditer(question) if m.group(3).isdigit()}
            - set(re.findall(r"\d+", without_references(question))))
    said = set(tokenize(_TITLE.sub(" ", question))) if question else idf.keys()
    return [v for v in values if ((toks := tokenize(str(v[0]))) and set(toks) <= idf.keys() and set(toks) <= said
                                  and str(v[0]).strip() not in refs)
            or (months and _ym(str(v[0])) in months)]


def _extremes(question: str) -> list[str]:
    """Every extreme asked ("max", "min"), in the question's order: the first is the one asked, and "哪个…绝对值最大、
    哪个最小" asks for both ends."""
    found = [(m.start(), name) for name, rx in (("max", _HIGH), ("min", _LOW)) if (m := rx.search(question))]
    return [name for _, name in sorted(found)]


def _by_size(v: list) -> float:
    """A category ranked by its size: "绝对值最大" over a chart of negative ICs is its longest bar."""
    return abs(v[1])


def _by_value(v: list) -> float:
    return v[1]


def _read(s: dict[str, Any], category: str, value: float, zh: bool) -> str:
    """"about 2.30 — Apr (All items; read off the drawing ...)", "约55% — 2020（算力增速，读图估计…）"."""
    name = s.get("name") or ""
    if zh:
        return f"约{_fmt(s, value)} — {category}（{name + '，' if name else ''}{_NOTE_ZH}）"
    return f"about {_fmt(s, value)} — {category} ({name + '; ' if name else ''}{_NOTE_EN})"


def _first_past(series: list[dict[str, Any]], past: re.Match, zh: bool) -> list[str]:
    """The first category of each series past the threshold asked ("首次超过300", "first exceeded $200")."""
    verb = (past.group("zh") or past.group("en") or "").lower()
    limit = float((past.group("a") or past.group("b")).replace(",", ""))
    out = []
    for s in series:
        hit = next((v for v in s["values"] if (v[1] < limit if verb in _BELOW else v[1] > limit)), None)
        if hit is not None:
            out.append(_read(s, hit[0], hit[1], zh))
    return out


def _chronological(key: str) -> tuple[int, int] | None:
    """(year, quarter) of a category that names a period, else None."""
    k = key.strip()
    m = _QUARTER_KEY.match(k)
    if m:
        year = int(m.group("y"))
        return (year + 2000 if year < 100 else year, int(m.group("q") or m.group("q2")))
    m = _YEAR_KEY.match(k)
    return (int(m.group("y")), 0) if m else None


def label_figures(label: str, percent: bool) -> list[str]:
    """The figures of a data label ("$526, 14%") of one kind: its percentages, or its other figures."""
    return [f for f in label.split(", ") if f.strip().endswith("%") == percent]


def labels_past(values: dict[str, str], question: str) -> str | None:
    """``labels_past`` (rule 118 for data labels): the first period whose data label is past the threshold asked ("in
    which quarter did growth first drop below 20%": "$526, 14% — Q1'23"), its categories read in time order; the
    label's percentage when the threshold is one, else its amount. None unless every category is a period."""
    past = _FIRST_PAST.search(question)
    if past is None or not values:
        return None
    order = {k: _chronological(k) for k in values}
    if any(v is None for v in order.values()):
        return None
    verb = (past.group("zh") or past.group("en") or "").lower()
    limit = float((past.group("a") or past.group("b")).replace(",", ""))
    percent = question[past.end():past.end() + 2].lstrip().startswith("%")
    for k in sorted(values, key=lambda k: order[k]):
        figure = next(iter(label_figures(values[k], percent)), None)
        n = parse_number(figure) if figure is not None else None
        if n is not None and (n < limit if verb in _BELOW else n > limit):
            return f"{values[k]} — {k}"
    return None


def _end_label(zh: bool) -> str:
    """Where a line ends past its last category label."""
    return "期末" if zh else "end of the chart"


def _which_series(drawn: list[dict[str, Any]], extreme: str, question: str, idf: dict[str, float],
                  zh: bool) -> list[str]:
    """Which series is highest / lowest, compared at the category asked, else at the end."""
    values = drawn[0]["values"]
    cats = _asked(values, idf, question) or ([values[-1]] if values and _END.search(question) else [])
    if not cats and _END.search(question) and all(s.get("last") for s in drawn):   # where each line ends
        at = _end_label(zh)
        points = [(s, s["last"][1]) for s in drawn if s.get("name")]
    elif not cats:
        return []
    else:
        at = cats[-1][0]
        points = [(s, v) for s in drawn for c, v in s["values"] if c == at and s.get("name")]
    if not points:
        return []
    s, v = (min if extreme == "min" else max)(points, key=lambda p: p[1])
    if zh:
        return [f"{s['name']} — {at}约{_fmt(s, v)}（{_NOTE_ZH}）"]
    return [f"{s['name']} — about {_fmt(s, v)} at {at} ({_NOTE_EN})"]


def _asks_series(drawn: list[dict[str, Any]], question: str) -> bool:
    """A which-question asks for a series, unless it asks "which year / month / group" and that is what the
    categories are ("哪一组" of a chart whose lines are 第1组 ... 第5组 asks for a line)."""
    when = _WHICH_WHEN.search(question)
    if not when:
        return True
    noun = when.group(0).lower().split()[-1].rstrip("s") if when.group(0).isascii() else when.group(0)[-1]
    named = any(noun in (s.get("name") or "").lower() for s in drawn)
    return named and not any(noun in str(c).lower() for c, _ in drawn[0]["values"])


def drawn_answer(drawn: list[dict[str, Any]], question: str, idf: dict[str, float]) -> str | None:
    """``drawn_read``: the value(s) a chart's drawing shows for what the question asks (a named category, the
    highest or lowest point of a series, the first category past a threshold, or which series is highest or
    lowest at a category or at the end, unless the question says one's name), each with its category and series and
    labelled as read off the drawing; None when the question asks none of these."""
    if not drawn:
        return None
    zh = bool(_CJK.search(question))
    extremes = _extremes(question)
    extreme = extremes[0] if extremes else None
    absolute = bool(_ABSOLUTE.search(question))   # "绝对值" / "absolute": ranked by size
    size = _by_size if absolute else _by_value
    said = _said(drawn, question)
    chosen = said or _named(drawn, idf)
    past = _FIRST_PAST.search(question)
    if past:
        return "; ".join(_first_past(chosen, past, zh)) or None
    if extreme and len(drawn) > 1 and len(said) != 1 and WHICH_Q.search(question) and _asks_series(drawn, question):
        return "; ".join(_which_series(drawn, extreme, question, idf, zh)) or None
    parts: list[str] = []
    signed = SIGN_Q.search(question) if WHICH_Q.search(question) and not extreme else None
    for s in chosen:
        picked = _asked(s["values"], idf, question)
        if signed:   # signed_bars: the categories of the sign asked
            picked = of_sign(s["values"], lambda v: v[1], signed)
        elif extreme and len(picked) >= 2:   # "2016-2020年…最高": the extreme within the span named
            span = s["values"][s["values"].index(picked[0]):s["values"].index(picked[-1]) + 1]
            picked = [(min if extreme == "min" else max)(span, key=size)]
        elif not picked and not extreme and _END.search(question) and s.get("last"):   # drawn_end: "期末大约多少"
            picked = [[s["last"][0] or _end_label(zh), s["last"][1]]]
        elif not s["values"] and not (extreme and s.get(extreme)):
            continue   # a line whose categories are not text: its end and its extremes only
        elif extreme and len(picked) == 1 and _YEAR_SPAN.search(question):   # one end of the span off the trace
            picked = [(min if extreme == "min" else max)(s["values"], key=size)]
        elif not picked and extreme:   # a line's highest / lowest vertex, else its highest / lowest category(ies)
            ends = extremes if len(chosen) == 1 else [extreme]   # both ends asked of one series
            picked = [s[e] if s.get(e) and (not absolute or not s["values"])
                      else (min if e == "min" else max)(s["values"], key=size) for e in ends]
            if _END.search(question) and s.get("last"):   # ``extreme_and_end``: "最高约为多少，期末约为多少"
                picked.append([s["last"][0] or _end_label(zh), s["last"][1]])
        parts.extend(_read(s, c or ("图中" if zh else "on the chart"), v, zh) for c, v in picked)
    return "; ".join(parts) or None


__all__ = ["SIGN_Q", "WHICH_Q", "drawn_answer", "label_figures", "labels_past", "of_sign"]
