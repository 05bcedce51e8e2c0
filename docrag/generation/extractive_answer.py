"""How the ``extractive`` generator words an answer from its best unit, adds evidence and rates it
(``docs/extractive-rules.md``, 38-51: every rule with why it exists and which dev questions showed the need).

* :func:`fmt_cell`: a table cell answers with its value, unit, scale and labels ("455,000 — China, Silicon
  carbide, 2010"); a "which" question's cell names its row with the row's text cells;
* :func:`cell_answer`: a percentage the table prints itself is quoted, not computed (percent column);
  arithmetic the question asks for is computed from two cells of one kind (same-unit check), inputs shown;
* :func:`figure_answer`: a chart answers with the data label the question names, or its largest
  (smallest) one for "which ... highest" questions, else its caption and chart text;
* :func:`complement`: units of other blocks that add question terms (gain >= 0.15, score >= 0.6 x best)
  are quoted and cited too;
* :func:`confidence` and :func:`adjusted_confidence`: coverage 0.55 + match 0.45, then losses for names
  missing from every page (x0.6 each), an amount question quoting no number (x0.6) and Chinese nouns
  missing from the answering document (``(1 - share)^2``, floor 0.6, 0 when all are missing).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from docrag.generation.extractive_chart_drawn import SIGN_Q, WHICH_Q, drawn_answer, label_figures, labels_past, of_sign
from docrag.generation.extractive_cues import asks_rate, missing_entities, missing_nouns
from docrag.generation.extractive_derivation import column_mates, derived_rows
from docrag.generation.extractive_formula import formula_of, formula_operands, printed_ratio, prints_share
from docrag.generation.extractive_listed_sum import listed_operands, listed_sum
from docrag.generation.extractive_math import (
    Result,
    adds_a_total,
    cell_figure,
    column_mean,
    comparable,
    compute,
    mixes_measures,
    named_figure,
    not_addable,
    other_rate,
    part_over_whole,
    printed_measure,
    share_row,
    stated_total,
)
from docrag.generation.extractive_operands import ordered, second_operand
from docrag.generation.extractive_periods import (
    _CHANGE_COL,
    _YEAR_BEFORE,
    _row_mates,
    other_periods,
    printed_change,
)
from docrag.generation.extractive_sentences import states_figures
from docrag.generation.extractive_tables import parse_number, unit_of
from docrag.generation.extractive_units import (
    _CJK,
    _QUANTITY_Q,
    Unit,
    _has_quantity,
    page_text,
    tokenize,
)
from docrag.types import Page

_AMOUNT_Q = re.compile(r"\bhow (?:many|much)\b|多少|几[个名例次岁年天倍位项种]", re.IGNORECASE)
_NO_NUMBER_LOSS = 0.6
# a column of note numbers ("Notes", "Footnote explaining effective rate paid", "附注"): references, not values
_NOTE_COL = re.compile(r"\b(?:foot)?notes?\b|附注", re.IGNORECASE)
# whole words: "Corporate" holds no rate, "Shares Purchased" no share
_PERCENT_COL = re.compile(r"\bpercent|%|\bshare\b|\brates?\b|比例|比重|占比", re.IGNORECASE)
# a Chinese noun of the question missing from the answering document is often a paraphrase (冒号 for ":",
# 报告 for "reported"): unless every noun is missing, the loss stops at this factor. On the 270 Chinese
# questions of the generated dev set (retired, with benchmarks/decline_calibration.py, in issue 23: git
# history) (1 - share)^2 alone declined 4 of 242 answerable questions and 8 of 28 unanswerable ones; with
# the floor 0 and 5
_NOUN_FLOOR = 0.6
_MISSING_NAME_LOSS = 0.6
_EXTREME = re.compile(r"\b(highest|largest|biggest|tallest|most|lowest|smallest|least|shortest)\b"
                      r"|最高|最大|最多|最常见|最普遍|最低|最小|最少|最少见", re.IGNORECASE)
_LOW = {"lowest", "smallest", "least", "shortest", "最低", "最小", "最少", "最少见"}
_DRAWN_EN = "(the chart prints no value for this: it can only be read off the drawing)"
_DRAWN_ZH = "（图中未标注该数值，只能从图形上读取）"
DRAWN_NOTES = (_DRAWN_EN, _DRAWN_ZH)   # how an answer read off a drawing ends


QUOTE_SEP = " … "


def joined_quotes(answers: Iterable[str]) -> str:
    """The answers of a question's parts as one, each quote once: parts answered from the same evidence (a
    diagram completing two parts, a cell two parts read) repeated its quotes, three times in zh-a-071."""
    return QUOTE_SEP.join(dict.fromkeys(q for a in answers for q in a.split(QUOTE_SEP) if q))


def fmt_cell(u: Unit, row_names: bool = False) -> str:
    """A value with its unit, scale and labels: ``455,000 — China, Silicon carbide, 2010``; with
    ``row_names`` (a "which" question asks for the row) the row's other text cells join its label:
    ``1442 — 3.0 Woody, Days``."""
    tc, table = u.cell, u.table
    assert tc is not None and table is not None
    value = tc.value
    unit, scale = unit_of(tc, table), table.scale_for(tc)
    if scale in ("万", "亿", "千", "百", "萬", "億") and unit in ("元", "吨", "噸"):   # "57,854.21 万元", not "元 (万)"
        unit, scale = scale + unit, ""
    if unit and unit.lower() in ("percent", "%"):
        value = value if value.endswith("%") else f"{value}%"
    elif unit and unit not in value and not value.endswith("%"):   # a printed percentage is no 元
        value = f"{value} {unit}"
    if scale and not value.endswith("%") and scale not in unit:   # "单位：万元，%": the amounts' scale, not the rates'
        value = f"{value} ({scale})"
    row = tc.row.label
    if row_names:
        row = " ".join([row, *(n for n in tc.row.notes[:2] if len(n) <= 40 and n not in row)]).strip()
    labels = [y for y in (x.rstrip(",，") for x in (row, *tc.headers)) if y]   # "June 30," of "June 30, 2025"
    return f"{value} — {', '.join(labels)}" if labels else value


def cell_answer(best: Unit, op: str, question: str, units: Sequence[Unit], scores: Sequence[float],
                meta: dict[str, Any]) -> tuple[Unit, list[Unit], list[str]]:
    """A cell's answer: ``(best, used, parts)``. For a share or growth the row's printed percentage is
    quoted instead of computed; otherwise the arithmetic ``op`` asks for is computed from ``best`` and
    its second operand when both are of one kind (``meta`` records it, or why it was refused)."""
    mates = {id(u) for u in column_mates(best, units)}
    averaged = column_mean(best, question, [u for u in units if u is best or id(u) in mates])   # in table order
    if averaged is not None:   # column_mean: "各年超额收益的简单平均值", the column's rows averaged (rule 150)
        res, cells = averaged
        meta["arithmetic"] = {"op": "mean", "value": res.value, "inputs": "table cells"}
        return best, cells, [f"{res.text} ({fmt_cell(best)}; {len(cells)} rows)"]
    used: list[Unit] = [best]
    parts: list[str] = []
    quoted: list[Unit] = []   # cells quoted beside the best one when the arithmetic was refused
    listed = listed_operands(question, units, scores)
    if listed and (total := listed_sum(listed, meta)) is not None:   # listed_sum: every cell named
        return listed[0], listed, [f"{total} ({'; '.join(fmt_cell(u) for u in listed)})"]
    op = "" if listed == [] else op   # listed_sum: no cells added in place of those listed but not on the pages
    formula = formula_of(question)
    if formula is not None and (printed_ratio(formula, units) or prints_share(formula, best)):
        formula = None   # standard_ratio: the pages print it; printed_share: the best cell's row is the share
    pair = formula_operands(formula, units, scores) if formula is not None else None
    if pair is not None and printed_measure(question, op, pair[0].cell):   # rule 201: the row named prints rates
        best, formula, pair = pair[0], None, None
    if formula is not None and pair is not None:   # stated_formula: the question names both operands
        first, second = pair
        best = second if formula.op == "difference" else first
        res = _computed(formula.op, first, second, meta, quoted, outflow_as_amount=formula.op == "difference")
        if res is not None:
            return best, [first, second], [f"{res.text} ({fmt_cell(first)}; {fmt_cell(second)})"]
        used, op = [best], ""   # refused: the named cells are quoted, no other operand is guessed
        quoted.append(first if best is second else second)
    elif formula is not None and not formula.named_share:
        op = ""   # the cells the question names are not on the pages read: no operand is guessed
    elif op == "difference" and best.cell is not None and _CHANGE_COL.search(best.cell.header_text) or (
            op and best.cell is not None and printed_measure(question, op, best.cell)):   # rule 197
        op = ""   # printed_change: "同比增长多少" answered by the row's change column is read, not subtracted
    elif op == "sum" and (total := stated_total(best, question, units)) is not None:
        best, used, op = total, [total], ""   # stated_total: the table's 合计 row is read, not a sum picked
    if op in ("share", "growth"):
        printed = [u for u in units if u.cell is not None and best.cell is not None
                   and u.cell.row is best.cell.row and (_PERCENT_COL.search(" ".join(u.cell.headers))
                                                       or op == "growth" and u.cell.value.strip().endswith("%")
                                                       and _CHANGE_COL.search(u.cell.header_text))   # "本年比上年增减"
                   and not (op == "share" and _CHANGE_COL.search(u.cell.header_text))   # 变动比例: a change
                   and not (op == "share" and other_rate(u.cell.header_text, question))   # rule 279: 毛利率 (%)
                   and not _NOTE_COL.search(u.cell.header_text)]
        stated = share_row(best, units) if op == "share" and not printed else None
        if stated is not None:   # rule 196: a row of its own states the share ("研发人员数量占比")
            op, used = "", [stated]
            quoted.append(best)
            best = stated
        if printed:  # the table prints the percentage itself: quote it, with the count beside it
            op = ""
            if printed[0] is not best:
                best = printed[0]
                used = [best]
            score_of = {id(u): sc for u, sc in zip(units, scores, strict=True)}
            amounts = [u for u in _row_mates(best, units) if not _PERCENT_COL.search(u.cell.header_text)
                       and not _CHANGE_COL.search(u.cell.header_text) and parse_number(u.cell.value) is not None]
            if amounts and not any(u.cell.row is best.cell.row and u is not best for u in quoted):
                # the period's own amount ("369,100,908.49 元, 本期数"), not the year before's
                quoted.append(max(amounts, key=lambda u: (not _YEAR_BEFORE.search(u.cell.header_text),
                                                          score_of.get(id(u), 0.0))))
    other = second_operand(op, question, best, units, scores) if op else None
    if other is not None:
        first, second = ordered(op, best, other, question)
        res = _computed(op, first, second, meta, quoted)
        if res is not None:
            used = [first, second]
            parts.append(f"{res.text} ({fmt_cell(first)}; {fmt_cell(second)})")
    if not parts:
        more = list({id(u): u for u in quoted if u is not best}.values())
        rows = other_rows(best, question, units)
        # each other row the question names is read under the other periods it names too
        periods = other_periods(best, question, units)
        for named in (periods, other_columns(best, question, units), rows,
                      [p for u in rows for p in other_periods(u, question, units)], printed_change(best, periods,
                                                                                                   question, units),
                      derived_rows(best, question, units)):
            more += [u for u in named if all(u.cell.cell is not v.cell.cell for v in more)]
        used.extend(more)
        parts.append("; ".join(fmt_cell(u, row_names=bool(WHICH_Q.search(question))) for u in [best, *more]))
    return best, used, parts


def _computed(op: str, first: Unit, second: Unit, meta: dict[str, Any], quoted: list[Unit],
              outflow_as_amount: bool = False) -> Result | None:
    """``op`` on two cells when a person would do it (``meta`` records the result, or why not); a total
    refused beside its part is appended to ``quoted``, both being asked for. ``outflow_as_amount``: "A minus
    B" with B printed as an outflow ("(64,551)") subtracts the amount, as the person who wrote it meant."""
    fc, sc = first.cell, second.cell
    assert fc is not None and sc is not None
    a, b = fc.value, sc.value
    if outflow_as_amount and (parse_number(a) or 0) < 0 < (parse_number(b) or 0):
        a = a.strip().strip("()").lstrip("-−–").strip()
    res = None
    if parse_number(fc.value) == parse_number(sc.value):
        # same_figure: two rows printing one figure (Communications and its organic revenue, both
        # $1,001M) give 100% or 0 -- the second operand is not the one the question means
        meta["arithmetic_refused"] = f"{op}: both operands are {fc.value}"
    elif not_addable(op, fc.header_text) or not_addable(op, sc.header_text):
        meta["arithmetic_refused"] = f"{op}: averages or prices per unit ({fc.value}, {sc.value})"
    elif adds_a_total(op, fc.row.label, sc.row.label):
        meta["arithmetic_refused"] = f"{op}: a total and one of its parts ({fc.value}, {sc.value})"
        quoted.append(second)   # "合计多少？其中 X 多少": both are asked for (the caller drops the best)
    elif mixes_measures(op, named_figure(fc), named_figure(sc)):
        meta["arithmetic_refused"] = f"{op}: money with a count ({fc.value}, {sc.value})"
    elif part_over_whole(op, fc.value, sc.value):   # rule 289
        meta["arithmetic_refused"] = f"{op}: the part exceeds the whole ({fc.value}, {sc.value})"
    elif comparable(op, cell_figure(fc), cell_figure(sc)):
        res = compute(op, a, b)
    else:
        meta["arithmetic_refused"] = f"{op}: a percentage with a count ({fc.value}, {sc.value})"
    if res is not None:
        meta["arithmetic"] = {"op": op, "value": res.value, "inputs": [fc.value, sc.value]}
    return res


def _named_apart(own: str, theirs: str, asked: set[str]) -> bool:
    """``theirs`` (a header or row label) differs from ``own`` only in words the question names, and the
    question also names what sets ``own`` apart."""
    mine, other = set(tokenize(own)), set(tokenize(theirs))
    extra = other - mine
    return bool(extra) and extra <= asked and bool((mine - other) & asked)


def other_columns(best: Unit, question: str, units: Sequence[Unit], most: int = 3) -> list[Unit]:
    """``other_columns``: the cells of ``best``'s row under the other columns the question names ("the
    production, sales and inventory of 口蹄疫疫苗", "sales, EBT and employees for Spain"): each a column
    whose header's words that ``best``'s header lacks are all in the question, when the question also
    names what sets ``best``'s own column apart."""
    if best.cell is None:
        return []
    asked = set(tokenize(question))
    return [u for u in _row_mates(best, units)
            if _named_apart(best.cell.header_text, u.cell.header_text, asked)][:most]  # type: ignore[union-attr]


def other_rows(best: Unit, question: str, units: Sequence[Unit], most: int = 3) -> list[Unit]:
    """``other_columns`` across: the cells of ``best``'s column in the other rows the question names ("the
    annualised return, Sharpe ratio and maximum drawdown of the 0.8-1.0 group"); a row's section ("Net income
    (Operating expenses)") is not part of its name, but ``best``'s section comes first (染料 (分产品) beside 原料药)."""
    if best.cell is None or not best.cell.header_text:
        return []
    asked = set(tokenize(question))
    mates = [u for u in column_mates(best, units) if _named_apart(best.cell.row.name, u.cell.row.name, asked)]
    return sorted(mates, key=lambda u: u.cell.row.section != best.cell.row.section)[:most]  # type: ignore[union-attr]


def _label_figure(label: str, rate: bool) -> float:
    """The figure of a data label ("$526, 14%") of the kind asked (a percentage for a rate), else its last one."""
    return parse_number((label_figures(label, rate) or label.split(", "))[-1]) or 0.0


def figure_answer(best: Unit, question: str, idf: dict[str, float]) -> str:
    """A chart's answer: the data labels the question names, the largest (smallest) for "which bar is
    highest", else the caption with the chart's text."""
    labels = best.extra.get("labels", "")
    values = best.extra.get("values") or {}
    asked = [(k, v) for k, v in values.items() if set(tokenize(k)) & idf.keys()]
    whole = [(k, v) for k, v in asked if set(tokenize(k)) <= idf.keys()]   # "Q3'23", not every "'23" bar
    asked = whole or asked
    extreme = _EXTREME.search(question)
    if extreme and values and (not asked or WHICH_Q.search(question)):  # "which bar is highest": the
        # largest data label (a label that shares a word with the question is not the one asked for)
        pick = min if extreme.group(0).lower() in _LOW else max
        rate = asks_rate(question)   # a bar's "$526, 14%": its growth for "highest growth", its amount otherwise
        k = pick(values, key=lambda k: _label_figure(values[k], rate))
        asked = [(k, values[k])]
    signed = SIGN_Q.search(question) if values and WHICH_Q.search(question) else None
    if signed:   # signed_bars: "in which month did it decline", "哪个因子为正": the bars of that sign
        asked = of_sign(list(values.items()), lambda kv: parse_number(kv[1].split(", ")[-1]), signed) or asked
    first = labels_past(values, question)   # "first drop below 20%": the first period past it (rule 118)
    if first:
        return f"{first} ({best.text})"
    if asked:  # the data label printed on the bar the question names
        return "; ".join(f"{v} — {k}" for k, v in asked) + f" ({best.text})"
    read = drawn_answer(best.extra.get("drawn") or [], question, idf)
    if read:   # drawn_read: no data label answers, the drawing does (approximately, and said so)
        return f"{read} ({best.text})"
    text = best.text + (f" [chart text: {labels[:240]}]" if labels and labels != best.text else "")
    # drawn_value: say so rather than pass the caption off as the value; not of a text that states the figures
    # ("图 13 是…均值 1.76%，…最低一期为 -2.11%", taken as the chart's caption: rule 275 ``stated_not_drawn``)
    if _QUANTITY_Q.search(question) and not states_figures(best.text):
        text += " " + (_DRAWN_ZH if _CJK.search(question) else _DRAWN_EN)
    return text


def complement(used: list[Unit], parts: list[str], units: Sequence[Unit], order: Sequence[int],
               scores: Sequence[float], top: float, docs: Sequence[set[str]], idf: dict[str, float],
               max_citations: int) -> set[str]:
    """Complementary evidence: add to ``used`` and ``parts`` the units of other blocks, in score order (down
    to 0.6 x ``top``, the answering unit's score), that cover question terms the ones used do not; returns
    the question terms covered. Only the answering unit's document completes it (one_document); a sentence of a
    paragraph already quoted may (its block's box is cited once)."""
    covered = set().union(*(docs[units.index(u)] for u in used)) & idf.keys()
    total = sum(idf.values()) or 1.0
    doc = used[0].page.doc_id
    for i in order[1:]:
        if len(used) >= max_citations or scores[i] < 0.6 * top:
            break
        u = units[i]
        if u.page.doc_id != doc or any(u is v or (u.block is v.block and u.page.page_id == v.page.page_id
                                                   and not (u.kind == v.kind == "sentence")) for v in used):
            continue   # another sentence of a quoted paragraph may complete it (rule 45); a table's block is one
        # a sentence adds the terms it says, not its section heading's ("Capital Allocation Strategy" is no capex)
        terms = (docs[i] & set(tokenize(u.text)) if u.kind == "sentence" else docs[i]) & idf.keys()
        gain = sum(idf[t] for t in terms - covered) / total
        if gain < 0.15:
            continue
        used.append(u)
        covered |= docs[i] & idf.keys()
        parts.append(fmt_cell(u) if u.kind == "cell" else u.text)
    return covered


def confidence(idf: dict[str, float], used: Sequence[Unit], lex: float, sem: float, embed: bool,
               best_terms: set[str], matched: set[str] = frozenset()) -> float:
    """How much of the question the cited evidence's pages cover, blended with the best match."""
    # Chinese words (and character pairs) of the question are often phrased otherwise on the
    # page: coverage counts characters only
    full = idf
    idf = {t: v for t, v in idf.items() if not (len(t) >= 2 and all(_CJK.match(c) for c in t))}
    total = sum(idf.values())
    if not total:
        return 0.0
    seen: set[str] = set()
    for u in used:
        seen |= set(tokenize(page_text(u.page)))
    seen |= matched   # terms the cited units answer without printing them ("lowest": a Minimum column)
    cover = sum(w for t, w in idf.items() if t in seen) / total
    match = max(lex, sem if embed else lex)
    if len(idf) < len(full):  # Chinese: the best unit's share of the question's characters
        match = max(match, sum(w for t, w in idf.items() if t in best_terms) / total)
    return round(max(0.0, min(1.0, 0.55 * cover + 0.45 * match)), 4)


def adjusted_confidence(conf: float, question: str, asked: str, pages: Sequence[Page], used: Sequence[Unit],
                        best: Unit, meta: dict[str, Any]) -> float:
    """The confidence after the losses for what the evidence lacks (``meta`` records each); ``asked``: the question
    less the report it names, whose nouns ("电机" of "三协电机招股说明书") name the document: present (rule 237)."""
    missing = missing_entities(question, pages)
    if missing:  # a name the question asks about appears on no page read
        conf = round(conf * _MISSING_NAME_LOSS ** len(missing), 4)
        meta["missing_names"] = missing
    if _AMOUNT_Q.search(question) and not any(_has_quantity(u.text) or u.kind != "sentence" for u in used):
        conf = round(conf * _NO_NUMBER_LOSS, 4)   # asked for an amount, quoted none
        meta["no_number"] = True
    # Chinese nouns are looked for in the best unit's document: a question is about one report
    nouns, share = missing_nouns(question, [p for p in pages if p.doc_id == best.page.doc_id])
    if nouns and (named := [w for w in nouns if w not in asked]):   # the report's own name counts as present
        nouns, share = [w for w in nouns if w not in named], share * (1 - len(named) / len(nouns))
    if nouns:  # Chinese: a share of the question's nouns appears on no page read
        conf = round(conf * (0.0 if share >= 1 else max(_NOUN_FLOOR, (1 - share) ** 2)), 4)
        meta["missing_nouns"] = nouns
        meta["missing_share"] = round(share, 4)
    return conf
