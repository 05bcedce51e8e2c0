"""Word forms shared by the ``bm25`` retriever and the ``extractive`` generator, so both match a
question's words to a page's the same way: Porter stems (nltk) and jieba's Chinese segmenter."""

from __future__ import annotations

import logging
import re
import unicodedata
from functools import lru_cache
from typing import Any

#: A bracketed part with no bracket inside, ASCII or full-width ("(loss)", "（单笔3%）"): applied until nothing changes,
#: nested notes go from the innermost out.
BRACKETED = re.compile(r"[(（][^()（）]*[)）]")

#: A year of the last two centuries as printed ("2023"): ``findall`` in text, ``fullmatch`` for a word that is one.
YEAR = re.compile(r"(?:19|20)\d\d")
#: A year standing alone, not inside a longer number ("FY2023", "2023年" count; "120234" does not).
YEAR_ALONE = re.compile(r"(?<!\d)(?:19|20)\d\d(?!\d)")
#: A cell, tick or figure that is a year and nothing else.
YEAR_CELL = re.compile(r"^(?:19|20)\d\d$")

#: English words that say nothing about which passage holds an answer.
STOPWORDS = frozenset("""a an the of in on at to for from by with and or is are was were be been being what which who
whom whose when where why how that this these those it its as do does did has have had than then there their
they them he she his her we our you your i me my not no yes if so such into over under about between per
much many more most less least any all each other same can could would should may might will shall
according report reported""".split())


@lru_cache(maxsize=200_000)
def porter_stem(word: str) -> str:
    """The Porter stem of a lower-cased word ("reverses" and "reverse" give "revers")."""
    return _porter().stem(word)


@lru_cache(maxsize=1)
def _porter() -> Any:
    from nltk.stem.porter import PorterStemmer

    return PorterStemmer()


@lru_cache(maxsize=1)
def jieba() -> Any:
    """The jieba module, loaded once with its start-up logging quieted."""
    import jieba as module

    module.setLogLevel(logging.WARNING)
    return module


@lru_cache(maxsize=1)
def _t2s() -> Any:
    """OpenCC's Traditional-to-Simplified converter (opencc-python-reimplemented, dictionaries bundled)."""
    from opencc import OpenCC

    return OpenCC("t2s")


@lru_cache(maxsize=200_000)
def simplified(run: str) -> str:
    """A run of Chinese characters in Simplified script: a Hong Kong or Taiwan filing's 營業收入 and 淨利潤
    match a question's 营业收入 and 净利润 (and the other way round); Simplified text is returned unchanged."""
    return _t2s().convert(run)


def simplified_text(text: str) -> str:
    """``text`` with its Chinese in Simplified script (not cached: for page-long texts)."""
    return _t2s().convert(text) if any("\u3400" <= ch <= "\u9fff" for ch in text) else text


def folded(text: str) -> str:
    """``text`` without the accents of its Latin letters ("Banco de México" is "Banco de Mexico"): a question
    typed without them names the document printing them, and the other way round. Chinese is unchanged."""
    if text.isascii():
        return text
    return "".join(c for c in unicodedata.normalize("NFD", text) if not unicodedata.combining(c))


def file_name_words(name: str) -> str:
    """A file name's words: "en_banxico_minutes_104_2023-11.pdf" -> "en banxico minutes 104 2023 11 pdf"."""
    return re.sub(r"[_\-.]+", " ", name)
