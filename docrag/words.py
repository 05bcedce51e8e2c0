"""Word forms shared by the ``bm25`` retriever and the ``extractive`` generator, so both match a
question's words to a page's the same way: Porter stems (nltk) and jieba's Chinese segmenter."""

from __future__ import annotations

import logging
from functools import lru_cache
from typing import Any


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
