"""Which unit answers each part of a question that asks for several facts, and whether one answer already answers
them all (``docs/extractive-rules.md``, rules 109 ``quantities_in`` and 122 ``distinct_parts``); the parts themselves
come from :func:`docrag.generation.extractive_parts.parts_of`."""

from __future__ import annotations

from collections.abc import Sequence

from docrag.generation.extractive_cues import asks_rate, percent_only
from docrag.generation.extractive_units import _QUANTITY_Q, Unit, content_words, quantities_in, tokenize


def answers_every_part(answer: str, parts: list[str]) -> bool:
    """Whether ``answer`` (to the whole question) names what each part alone asks for: the words of a part
    that no other part has ("营业收入" of "…2015年营业收入是多少"). A listing of table cells often does
    ("110,143.08 — 归属于母公司所有者的净利润; 4,810,115.48 — 营业收入"): then the parts add nothing."""
    if sum(bool(_QUANTITY_Q.search(p)) for p in parts) > quantities_in(answer):
        return False   # it names each amount asked ("营业收入或净利润任一指标") but states fewer figures (rule 109)
    if any(_QUANTITY_Q.search(p) and not asks_rate(p) for p in parts) and percent_only(answer):
        return False   # an amount asked ("销售量是多少"), only rates stated ("销售量……较上年增长177.78%") (rule 109)
    have = set(tokenize(answer))
    return all(not own or len(own & have) >= 0.8 * len(own) for own in own_words(parts))


def own_words(parts: list[str]) -> list[set[str]]:
    """Each part's words that no other part has ("营业收入" of "…2015年营业收入是多少")."""
    words = [content_words(p) for p in parts]
    return [own - set().union(*words[:i], *words[i + 1:]) for i, own in enumerate(words)]


DISTINCT_PART_MIN = 0.6   # a later part's next unit answers it when it scores this share of the best one


def distinct_best(order: Sequence[int], scores: Sequence[float], units: Sequence[Unit], taken: set[int],
                  own: set[str]) -> int:
    """``distinct_parts`` (rule 122): the index of the unit that answers a part of a question, not one an earlier
    part was answered by unless it holds one of this part's own words. "How much did the shelter index rise in July 2025
    and over the last 12 months?" asks two figures; the July sentence answers the first only, and the second part,
    read in the whole question, ranked it first again. The next unit is taken when it holds one of them and scores at
    least ``DISTINCT_PART_MIN`` of the best."""
    bi = order[0]
    if id(units[bi]) not in taken or not own or own & set(tokenize(units[bi].scored_text)):
        return bi
    alt = next((i for i in order[1:] if id(units[i]) not in taken), None)
    if alt is None or scores[alt] < DISTINCT_PART_MIN * scores[bi] or not own & set(tokenize(units[alt].scored_text)):
        return bi
    return alt
