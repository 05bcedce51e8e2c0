"""What a "which" / "what" question asks for: "which *country* has ...", "哪个*地区*的时区最多", "哪个*t*" (a
parameter's name); the superlative rules of :mod:`docrag.generation.extractive_extremes` read a table across a row
when its column headers name it (``docs/extractive-rules.md``, rules 79 and 268 ``asked_noun``)."""

from __future__ import annotations

import re
from itertools import islice

from docrag.words import jieba

# the thing asked for: "which *country* has ...", "哪个*地区*的时区最多"
_ASKED_EN = re.compile(r"\b(?:which|what)\b", re.IGNORECASE)
_EN_WORD = re.compile(r"[\w&.’'-]+")
# "which *of the* three segments", "what *was*": no thing asked there (rule 268 ``asked_noun``)
_PASS_EN = frozenset("of the among one a an and or two three four five six seven eight nine ten &".split())
_VERB_EN = frozenset("is are was were had has have did does do would will can could should grew drove explained"
                      .split())
_ASKED_ZH = re.compile(r"哪(?:一个|一|个|些|种|家|位)?([\u3400-\u9fff]+)")
_ASKED_LATIN = re.compile(r"哪(?:一个|一|个)\s*([A-Za-z][A-Za-z0-9_]*)(?![A-Za-z])")   # "哪个t": a parameter


def _without_asked(question: str) -> str:
    """The question less the thing a "which" question asks for: it names the table's rows (its stub),
    so a column labelled with it ("Countries" in a table of ranges) is not the value to compare."""
    span = _asked_en(question)
    question = question[:span[0]] + " " + question[span[1]:] if span else question

    def first_word(m: re.Match[str]) -> str:
        word = _first_word(m.group(1))
        return m.group(0).replace(word, " ", 1) if word else m.group(0)
    return _ASKED_ZH.sub(first_word, question)


def _first_word(run: str) -> str:
    """jieba's first word of a run of Chinese after 哪 (哪个年代撤销的 -> 年代), "" when it is one character."""
    word = next(iter(jieba().lcut(run)), "")
    return word if len(word) >= 2 else ""


def asked_word(question: str) -> str:
    """The thing a "which" question asks for ("哪个季度" -> 季度, "which quarter" -> quarter), "" when none."""
    m = _ASKED_LATIN.search(question)
    if m is not None:   # "哪个t对应的…最高" over columns "t=1 | t=2 | ...": the parameter's name
        return m.group(1).lower()
    m = _ASKED_ZH.search(question)
    if m is not None:
        return _first_word(m.group(1))
    span = _asked_en(question)
    return question[span[0]:span[1]].lower() if span else ""


def _asked_en(question: str) -> tuple[int, int] | None:
    """``asked_noun`` (rule 268): where the thing an English "which"/"what" question asks for is, past names and
    function words ("Which Johnson & Johnson *segment*", "Which of Walmart's three *segments*", "which *group*'s
    contribution"); None when a verb comes first ("What was ...")."""
    m = _ASKED_EN.search(question)
    for w in islice(_EN_WORD.finditer(question, m.end()), 6) if m is not None else ():
        word = w.group(0)
        if word.lower() in _VERB_EN:
            return None
        if word.lower() in _PASS_EN or not word[0].islower():   # a function word or a name ("NVIDIA's")
            continue
        return w.start(), w.start() + len(re.sub(r"[’']s?$", "", word))
    return None
