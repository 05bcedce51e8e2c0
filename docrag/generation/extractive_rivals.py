"""Cells of one document that compete for one answer: copies of a measure printed twice (``repeat_named``, rule
168), rows named alike but for words the question does not ask (``unasked_qualifier``, rule 169), and a column
naming the asked member in its own name over one listing it among its parts (``listed_member``, rule 184); all
applied in ``extractive.py`` after the scores (``docs/extractive-rules.md``)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from docrag.generation.extractive_units import _CJK, Unit, tokenize

REPEAT_NAMED = 1.2   # ``repeat_named``: how much better the question must name one cell of a repeated measure


def repeat_named(units: Sequence[Unit], lex: Sequence[float], scores: Sequence[float]) -> list[float]:
    """``repeat_named`` (rule 168): cells of one document with the same row label under the same column headers (one
    measure printed for several sections, a table repeated under another title) are read where the question's words
    place them: the cell whose lexical score is ``REPEAT_NAMED`` times every other's takes the best score of them
    ("连接器的销售量" is 销售量 under 连接器 on the retriever's second page, not under 光通信器件 on its first;
    "两个分行业" names the 主营业务分行业情况 copy, not the 分产品 one). Only these cells trade places: none ranks
    higher among other units."""
    keys = [(u.page.doc_id, u.cell.row.own_label.strip(), u.cell.header_text) if u.cell is not None else None
            for u in units]
    copies: dict[tuple[str, str, str], list[int]] = {}
    for i, key in enumerate(keys):
        if key is not None:
            copies.setdefault(key, []).append(i)
    out = list(scores)
    for group in (g for g in copies.values() if len(g) > 1):
        named = sorted(group, key=lambda i: -lex[i])
        if lex[named[0]] >= REPEAT_NAMED * lex[named[1]] > 0:
            out[named[0]] = max(scores[i] for i in group) * 1.001
    return out


def unasked_qualifier(units: Sequence[Unit], lex: Sequence[float], scores: Sequence[float], asked: str) -> list[float]:
    """``unasked_qualifier`` (rule 169): of two cells of one document under the same column headers whose row labels
    differ by leading words the question does not ask ("Segment Non-GAAP Operating Margin" and "Non-GAAP Operating
    Margin", asked "the total company non-GAAP operating margin"; or the sections of two rows named alike: "2023年度"
    of "扣除非经常性损益后归属于母公司股东净利润" and of "归属于母公司股东净利润"), the plainer one, named as
    well, takes the other's score when it is the better."""
    words = set(tokenize(asked))
    out = list(scores)
    for group in _column_groups(units):
        names = {i: (units[i].cell.row.own_label.strip().lower(), units[i].cell.row.section.strip().lower())
                 for i in group}
        for i, j in ((i, j) for i in group for j in group if names[i] != names[j]):
            (own_i, sec_i), (own_j, sec_j) = names[i], names[j]
            extra = _leading(own_i, own_j) if own_i != own_j else _leading(sec_i, sec_j)
            asked_extra = extra and {t for t in tokenize(extra) if len(t) > 1} & words   # "益" of 损益 is 收益's
            if extra and not asked_extra and lex[j] >= lex[i] and out[i] > out[j]:
                out[j] = out[i] * 1.001
    return out


def _column_groups(units: Sequence[Unit]) -> list[list[int]]:
    """The indices of the cells of each document under the same column headers, where two or more are."""
    groups: dict[tuple[str, str], list[int]] = {}
    for i, u in enumerate(units):
        if u.cell is not None:
            groups.setdefault((u.page.doc_id, u.cell.header_text), []).append(i)
    return [g for g in groups.values() if len(g) > 1]


def _leading(label: str, plain: str) -> str | None:
    """The words put before ``plain`` to make ``label`` ("Segment" of "Segment Non-GAAP Operating Margin"), when
    ``plain`` is two words or more (four characters of Chinese); else None."""
    if not plain or len(label) <= len(plain) or not label.endswith(plain):
        return None
    extra = label[: -len(plain)]
    if _CJK.match(plain):
        return extra.strip() if len(plain) >= 4 else None
    return extra.strip() if extra.endswith(" ") and len(plain.split()) >= 2 else None


# a bracketed list of parts in a header: "科技板块 (电子+通信+计算机+传媒)", "Asia (China, Japan, India)"
_LISTED = re.compile(r"[(（]([^()（）]*[+＋、,，/][^()（）]*)[)）]")


def _row_groups(units: Sequence[Unit]) -> list[list[int]]:
    """The indices of the cells of each table row holding two cells or more."""
    rows: dict[int, list[int]] = {}
    for i, u in enumerate(units):
        if u.cell is not None:
            rows.setdefault(id(u.cell.row), []).append(i)
    return [g for g in rows.values() if len(g) > 1]


def listed_member(units: Sequence[Unit], scores: Sequence[float], asked: str) -> list[float]:
    """``listed_member`` (rule 184): of two cells of one row, the one whose column is named by a member the question
    asks ("计算机行业") takes the other's score when the other's column lists that member among its parts only
    ("科技板块 (电子+通信+计算机+传媒)": the composite, which also matched "收益率" in its own header line)."""
    out = list(scores)
    for group in _row_groups(units):
        heads = {i: units[i].cell.header_text for i in group}
        for i in group:
            members = [m.strip() for lst in _LISTED.findall(heads[i]) for m in re.split(r"[+＋、,，/]", lst)]
            said = [m for m in members if len(m) >= 2 and m in asked and m not in _LISTED.sub(" ", heads[i])]
            for j in group:
                own = _LISTED.sub(" ", heads[j])
                if j != i and any(m in own for m in said) and out[i] > out[j]:
                    out[j] = out[i] * 1.001
    return out


HEADER_TIE = 0.01   # ``header_named``: cells of one row scoring within this share of each other are tied


def header_named(units: Sequence[Unit], scores: Sequence[float], asked: str) -> list[float]:
    """``header_named`` (rule 195): of cells of one row tied on score (within ``HEADER_TIE``; the table's title holding
    the question's words for every column), the one whose own column header, its bracketed parts aside, holds more of
    the question's words (of two characters or more) takes the best score ("科技板块复合策略 … 累计收益率" is the
    科技板块 column, not 通信 printed first)."""
    words = {t for t in tokenize(asked) if len(t) >= 2}
    out = list(scores)
    for group in _row_groups(units):
        top = max(scores[i] for i in group)
        tied = [i for i in group if scores[i] >= (1 - HEADER_TIE) * top]
        named = {i: len(words & set(tokenize(_LISTED.sub(" ", units[i].cell.header_text)))) for i in tied}
        best = max(tied, key=lambda i: (named[i], scores[i]))
        if len(tied) > 1 and named[best] > min(named.values()):
            out[best] = top * 1.001
    return out


def named_row_first(units: Sequence[Unit], scores: Sequence[float], rowed: Sequence[bool], asked: str) -> list[float]:
    """``named_row_first`` (rule 239): of two cells of one document under the same column headers, the one whose row
    the question names whole (``row_named``) takes the other's score when the other's row label holds none of the
    question's words ("营业收入较2023年度增长了多少" is the 营业收入 row, not the 占比 row below it that a sentence
    model found closer)."""
    words = {t for t in tokenize(asked) if len(t) > 1}
    out = list(scores)
    for group in (g for g in _column_groups(units) if any(rowed[i] for i in g)):
        unnamed = [j for j in group if not rowed[j] and not {
            t for t in tokenize(units[j].cell.row.label) if len(t) > 1} & words]
        if not unnamed:
            continue
        top = max(out[j] for j in unnamed)
        for i in (i for i in group if rowed[i] and out[i] < top):
            out[i] = top * 1.001
    return out


def rivals_before(units: Sequence[Unit], lex: Sequence[float], scores: Sequence[float], asked: str) -> list[float]:
    """Rules 168, 169 and 184 in turn (applied before ``printed_elsewhere``, rules 211 and 213)."""
    return listed_member(units, unasked_qualifier(units, lex, repeat_named(units, lex, scores), asked), asked)


def rivals_after(units: Sequence[Unit], scores: Sequence[float], rowed: Sequence[bool], asked: str) -> list[float]:
    """Rules 195 and 239 in turn (after ``printed_elsewhere``)."""
    return named_row_first(units, header_named(units, scores, asked), rowed, asked)
