"""Count questions of the ``extractive`` generator ("how many", "多少个", "几例"): ``docs/extractive-rules.md``,
23-26 (count fit: tagged integer x1.5, counting column or named row x1.25, decimal
cell x0.7, sentence without the counted word or without an integer x0.85).

A count question wants a whole number: followed by the question's measure word ("50个", "212例"), next
to its noun ("184 languages"), or in a column that counts the noun ("时区数"); decimals such as table
means lose.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from docrag.generation.extractive_cues import _CJK, _norm, named_in
from docrag.generation.extractive_units import Unit
from docrag.words import YEAR_CELL, jieba

_MEASURE = "个例名人家只种项份位次株件条章节所座台辆户部张处场间栋套架艘批年天倍"
_COUNT_ZH = re.compile(r"(?:多少|几)([" + _MEASURE + r"])")
_COUNT_EN = re.compile(r"\bhow many\s+([a-z][a-z-]+)?", re.IGNORECASE)
_INT = re.compile(r"(?<![\d.,])\d{1,3}(?:,\d{3})+(?![\d.])|(?<![\d.,])\d+(?![\d.,]\d)")
_DEC = re.compile(r"\d\.\d")


def count_cue(question: str) -> tuple[str, str] | None:
    """("zh", measure word) or ("en", noun) when the question asks for a count; else None."""
    m = _COUNT_ZH.search(question)
    if m and m.group(1) not in "年倍":
        return "zh", m.group(1)
    m = _COUNT_EN.search(question)
    if m:
        return "en", (m.group(1) or "").lower()
    return None


_COUNTED_AFTER = re.compile(r"(?:多少|几)[" + _MEASURE + r"]([\u3400-\u9fff]+)")
_COUNTED_BEFORE = re.compile(r"([\u3400-\u9fff]+?)(?:共|一共|总共)?有?(?:多少|几)[" + _MEASURE + r"]")
_COUNT_HEAD = ("数", "数量", "个数", "总数", "数目")
NOUN_REACH = 16    # a counted noun asked before the measure word stands this many characters before the figure
_VERBISH = frozenset({"完成", "实现", "达到", "共有", "一共", "总共", "新增", "累计"})   # no noun of their own


def counted_noun(question: str) -> str:
    """What a Chinese count question counts: "有多少个时区" -> 时区, "…的国家和地区有多少个" -> 国家和地区."""
    m = _COUNTED_AFTER.search(question)
    if m:  # the words up to the first verb: "多少种人造语言拥有…" -> 人造语言
        import jieba.posseg as posseg

        jieba()  # quiet
        noun = ""
        for w in posseg.lcut(re.split(r"[的吗呢]", m.group(1))[0]):
            if noun and w.flag.startswith("v"):
                break
            noun += w.word
        return noun
    m = _COUNTED_BEFORE.search(question)
    return re.split(r"[的，,、]", m.group(1))[-1] if m else ""


_PHRASE_END = frozenset("do does did is are was were have has had can could will would in on at of for to from by "
                        "with there".split())


def _counted_phrase(question: str) -> str:
    """What an English count question counts: "How many constructed languages have …" -> constructed languages."""
    m = re.search(r"\bhow many\s+(.*)", question, re.IGNORECASE)
    words: list[str] = []
    for w in (m.group(1).split() if m else []):
        w = w.strip("?,.").lower()
        if not w or w in _PHRASE_END or len(words) == 3:
            break
        words.append(w)
    return " ".join(words)


def _counts_column(headers: Sequence[str], noun: str) -> bool:
    """The cell's column counts ``noun`` ("时区数", "时区个数" for 时区)."""
    heads = [_norm(h).replace(" ", "") for h in headers]
    return any(h.startswith(noun) and h[len(noun):] in (*_COUNT_HEAD, "") for h in heads)


def _tagged_zh(text: str, start: int, end: int, word: str, noun: str, after: bool) -> bool:
    """The integer at ``text[start:end]`` is followed by the measure word (a space apart or not) and names the
    counted noun: right after the measure word ("184种语言"), or, asked before it ("老楼加装电梯完成多少部"), by two
    characters of it within a few characters before the integer ("老楼加装电梯822 部")."""
    rest = text[end:].lstrip()
    if rest[:1] != word:
        return False
    if not noun:
        return True
    if after:
        return rest[1:].lstrip().startswith(noun[:2])
    before = text[max(0, start - NOUN_REACH):start]
    return any(noun[i:i + 2] in before for i in range(len(noun) - 1) if noun[i:i + 2] not in _VERBISH)


def _counts_other(text: str, end: int, word: str) -> bool:
    """The figure ending at ``text[end]`` is followed by a measure word other than ``word`` ("183 个")."""
    after = text[end:].lstrip()[:1]
    return bool(after) and after in _MEASURE and after != word


def count_fit(units: Sequence[Unit], question: str) -> list[float]:
    """A factor per unit for count questions: a whole number followed by the measure word asked for
    (or next to the noun asked about), or in a column that counts that noun ("时区数"), gains; decimal
    values (means, prices) lose."""
    cue = count_cue(question)
    if cue is None:
        return [1.0] * len(units)
    lang, word = cue
    stem = word[:-1] if word.endswith("s") else word
    noun = counted_noun(question) if lang == "zh" else ""  # English headers name the noun itself
    phrase = _counted_phrase(question) if lang == "en" else noun
    m = _COUNTED_AFTER.search(question)
    after = m is not None   # the noun follows the measure word ("多少种人造语言"), else it comes before it
    # "多少个行政区划位于更大的行政区划之内": a clause after the noun narrows the count; its column counts all
    narrowed = bool(m and noun and _CJK.search(m.group(1)[len(noun):]))
    out = []
    for u in units:
        if u.cell is not None and _INT.fullmatch(u.cell.value.strip()) and (
                noun and not narrowed and _counts_column(u.cell.headers, noun)
                or phrase and len(_norm(u.cell.row.label)) >= 2 and named_in(u.cell.row.label, phrase)):
            out.append(1.25)   # "多少个时区" under 时区数; "how many constructed languages" in row Constructed
            continue
        text = u.text
        ints = [m for m in _INT.finditer(text) if not YEAR_CELL.match(m.group(0))]
        if lang == "zh":  # "184种语言" does not count 人造语言; "老楼加装电梯822 部" counts 老楼加装电梯
            tagged = any(_tagged_zh(text, m.start(), m.end(), word, noun, after) for m in ints)
        else:
            tagged = bool(stem) and any(re.match(r"\s+(?:\S+\s+){0,2}?" + re.escape(stem), text[m.end():],
                                                 re.IGNORECASE) for m in ints)
        if tagged:
            out.append(1.5)
        elif lang == "zh" and u.cell is None and ints and all(_counts_other(text, m.end(), word) for m in ints):
            out.append(0.7)   # "183 个" for "多少部": every figure counts something else
        elif u.cell is not None:  # a decimal in a table without a scale is a mean or a price, not a count
            out.append(0.7 if _DEC.search(u.cell.value) and not (u.table and u.table.scale_for(u.cell)) else 1.0)
        elif lang == "en" and stem and not re.search(r"(?<![\w])" + re.escape(stem), text, re.IGNORECASE):
            out.append(0.85)   # "How many constructed languages": a count of languages in general
        else:
            out.append(1.0 if ints else 0.85)
    return out
