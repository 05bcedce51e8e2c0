"""Evidence grounding: cite what a person would box, whatever boxes the model drew.

``docrag.ground(question, answer, pages, model_citations=None)`` aligns the answer's facts with the
pages' own geometry and returns, per page, the smallest whole regions (:mod:`docrag.regions`:
paragraph, table with its title, chart with its caption) holding the evidence, adjacent regions
merged, at most :data:`MAX_BOXES_PER_PAGE` a page, with ``focus`` boxes (the matched lines, cells or
words) and a confidence.

Facts of an answer (:func:`answer_facts`): amounts (:mod:`docrag.quantities`: separators, sign,
percent, scale words and a table's stated unit), dates in any common form, and its key words
(Porter stems; jieba words for Chinese). Rules, each named where it applies:

* ``fact_weight``   -- an amount weighs 1, a date 1, a year or a small whole number 0.3, an amount
  the answer calls approximate ("about $1.3", "约") :data:`APPROX_WEIGHT` (read off a chart, it
  is rarely printed), the result of the answer's own arithmetic ("= 1.78") 0.3 (it is computed, not
  printed); a fact the question already states weighs a third (context, not the answer).
* ``rounded``       -- a region that prints an amount only more coarsely than the answer states it
  ("96%" for "96.1%") is credited :data:`ROUNDED_CREDIT` of it (a region printing it exactly wins).
* ``named_unit``    -- the table or chart the question names ("Table 1", "Fig. 3", "图10", "表2-1"; its
  title or caption carries the name) scores :data:`NAMED_BONUS` more, and in ``refine`` model boxes
  that miss it are not trusted (as ``distrust_model``).
* ``text_fact``     -- the answer's key words count as one fact, credited by the share found in a region
  (weight 2 when the answer states no amount or date, else 0.5: the words around figures).
* ``question_near`` -- a region holding the question's terms (rarer terms count more) scores up to
  :data:`QUESTION_WEIGHT` more, and the facts it holds count from ``1 - QUESTION_WEIGHT`` (none of
  the question's terms) to fully (all of them), so a figure that recurs in an unrelated table
  does not win; a chart scores :data:`CHART_BONUS` more for a chart question.
* ``model_prior``   -- in ``refine`` mode a region that holds a model box scores up to
  :data:`MODEL_PRIOR` more, a page the model cited :data:`PAGE_PRIOR` more (``replace``: pages only).
* ``distrust_model`` -- when the model's boxes hold none of the answer's amounts or dates and they are
  stated in regions the boxes miss, ``refine`` weighs the model's pages only, as ``replace`` does (a box
  shifted off its unit or on the wrong page would otherwise pull the citation after it).
* ``cover``         -- regions are chosen greedily until every fact found anywhere is covered;
  a region is added only for facts not yet covered.
* ``merge``         -- chosen regions of one page that touch (gap under :data:`ADJACENT_PT`) become one box.
  Cited pages come in the order the model cited them (its first citation holds its main evidence),
  then in rank order.
* ``trust_model``   -- ``refine`` starts from the regions a model box of a unit's size holds (or lies
  in) that state a strong fact of the answer; further regions must then add :data:`TRUSTED_GAIN`
  times the usual gain (a right model box is not diluted by regions that repeat its figures).
* ``keep_model``    -- ``refine`` keeps a model box of a unit's size (IoU with a chosen region at
  least :data:`KEEP_IOU`, or inside it and a third of it) that holds the evidence found there (the
  model's own box where it agrees), unless its edges cut through the words it touches and it sticks
  out of the region (off the layout: the region's box replaces it; a part well inside a unit stays);
  a line-sized box becomes a focus box; one on no evidence is dropped.
* ``unreadable``    -- ``refine`` also keeps a model box on a chart or table drawn as an image (no
  words to check it against: a real report's chart values are often only pixels), unless the answer's
  amounts are printed in words the boxes miss and neither question nor answer speaks of a chart. A
  chart ingest read by OCR (``meta["ocr_text"]``) stays a picture here: OCR misses labels.
* ``dominated``     -- one region no model box holds states every amount and date of the answer that
  the regions the boxes hold state, and more: the boxes are not trusted (a page repeating part of the
  evidence, a summary beside the full table) and weigh as ``distrust_model`` says.
* ``stacked_date``  -- a date printed over two lines of a region ("June 30," above "2025" in a statement's column
  header) is stated there: two lines are read as one when no single line prints it.
* ``no_evidence``   -- when no fact is found on any page, ``refine`` keeps the model's boxes as
  they are (nothing to judge them by); otherwise the region nearest the question's terms on the
  best page is cited with a low confidence.
"""

from __future__ import annotations

import math
import re
import unicodedata
from bisect import bisect_left, bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

from docrag.cancel import checkpoint
from docrag.geometry import Box, union
from docrag.quantities import Quantity, amount_match, context_scale, dates, quantities, same_amount
from docrag.regions import CHART, TABLE, TITLE, Region, page_regions
from docrag.types import Answer, Citation, Page, Word
from docrag.words import STOPWORDS, jieba, porter_stem, simplified

MODES = ("refine", "replace", "off")
MAX_BOXES_PER_PAGE = 5      # ViDoRe V3's annotators draw at most five boxes a page
MAX_PAGES = 3               # pages one answer cites at most
QUESTION_WEIGHT = 0.6
CHART_BONUS = 0.3           # a chart, when the question asks about a chart or figure
MODEL_PRIOR = 0.6
PAGE_PRIOR = 0.15
KEEP_IOU = 0.5
INSIDE_SHARE = 0.9          # ... unless it lies this much inside the region (a part of it a person chose)
CUT_SHARE = 0.1             # a model box cutting through more of the words it touches is off the layout
ADJACENT_PT = 14.0
APPROX_WEIGHT = 0.2        # an amount the answer calls approximate ("about $1.3")
MIN_GAIN = 0.6              # the least a further region of a cited page must add to be cited
TRUST_PAGE_SHARE = 0.8      # a model box over more of the page than this says nothing about where
TRUST_SHARE = 0.5           # ... and the regions they hold state this much of the answer's amounts and dates
TRUSTED_GAIN = 1.5          # what a region must add, times the above, beside regions a model box holds
NEW_PAGE_GAIN = 0.6         # ... and one on a page not cited yet (another page needs a real fact)
NAMED_BONUS = 0.6           # the table or chart the question names ("Table 1", "图10")
FAR_SHARE = 0.7             # ... of which a region far from the question's terms must still add this share
ROUNDED_CREDIT = 0.5        # an amount the page prints only more coarsely than the answer states it
_DECLINES = re.compile(r"^\s*(not enough information|cannot be determined|unanswerable|无法回答|信息不足)",
                       re.IGNORECASE)
_APPROX = re.compile(r"(about|around|roughly|approximately|approx\.?|nearly|near|almost|some|~|≈|约|大约|近|接近)\s*"
                     r"[$€£¥]?\s*$", re.IGNORECASE)
_COMPUTED = re.compile(r"[=≈]\s*[-−(]?\s*[$€£¥]?\s*$")
_EN_WORD = re.compile(r"[A-Za-z][A-Za-z'\-]{2,}")
_CJK_RUN = re.compile(r"[\u3400-\u9fff]+")
_NAMED = re.compile(r"(?:\b(?P<en>figure|fig\.|table|chart|exhibit|graph)|(?P<zh>图表|图|表))\s*(?P<n>\d+(?:[.\-]\d+)?)"
                    r"(?!\d|\.\d)", re.IGNORECASE)   # "Table 1." ends a caption's number; "Table 1.2" is one
_CHART_CUE = re.compile(r"\b(chart|graph|figure|plot|curve|bar|line)s?\b|图|曲线|走势", re.IGNORECASE)


@dataclass(frozen=True)
class Fact:
    """One thing the answer states: an amount, a date, or (``text``) its key words."""

    kind: str                      # "amount" | "date" | "text"
    text: str
    weight: float
    quantity: Quantity | None = None
    date: str = ""
    terms: tuple[str, ...] = ()


@dataclass
class _Line:
    text: str
    words: list[Word]
    spans: list[tuple[int, int]]   # character span of each word in ``text``

    @cached_property
    def amounts(self) -> list[Quantity]:
        return quantities(self.text)

    @cached_property
    def dates(self) -> list[tuple[str, int, int]]:
        return dates(self.text)

    def words_at(self, start: int, end: int) -> list[Word]:
        return [w for w, (s, e) in zip(self.words, self.spans, strict=True) if s < end and start < e]


@dataclass
class _Candidate:
    page: Page
    rank: int
    region: Region
    lines: list[_Line]
    terms: set[str]
    found: dict[int, float] = field(default_factory=dict)      # fact index -> credit (0..1)
    focus: dict[int, list[Box]] = field(default_factory=dict)  # fact index -> matched boxes
    quotes: dict[int, list[str]] = field(default_factory=dict)
    near: float = 0.0
    prior: float = 0.0
    unreadable: bool = False       # a chart or table drawn as an image (see _unreadable)
    page_scale: float | None = None  # the scale the page states ("(In millions)" over its tables)


@dataclass
class Grounding:
    """What :func:`ground` found: citations (region boxes and focus, PDF points), a confidence in
    [0, 1], the facts looked for and notes on what was kept or dropped."""

    citations: list[Citation]
    confidence: float
    facts: list[str]
    warnings: list[str] = field(default_factory=list)
    mode: str = "refine"

    def to_json(self) -> dict:
        return {"mode": self.mode, "confidence": round(self.confidence, 4), "facts": self.facts,
                "warnings": list(self.warnings)}


# -- words ---------------------------------------------------------------------------------------

def terms_of(text: str) -> set[str]:
    """Key words: Porter stems of English words (no stopwords), jieba words of Chinese runs."""
    text = unicodedata.normalize("NFKC", text)
    out = {porter_stem(w.lower()) for w in _EN_WORD.findall(text) if w.lower() not in STOPWORDS}
    for run in _CJK_RUN.findall(text):
        out.update(w for w in jieba().lcut(simplified(run)) if len(w) >= 2)   # 營業收入 is 营业收入
    return out


def answer_facts(question: str, answer: str) -> list[Fact]:
    """The amounts, dates and key words of ``answer`` (``fact_weight``, ``text_fact``)."""
    q_amounts = quantities(question)
    q_dates = {d for d, _, _ in dates(question)}
    facts: list[Fact] = []
    date_spans = dates(answer)
    for key, _, _ in date_spans:
        facts.append(Fact("date", key, (1 / 3 if key in q_dates else 1.0), date=key))
    for q in quantities(answer):
        if any(s <= q.start < e for _, s, e in date_spans):
            continue
        weight = 0.3 if (q.is_year or q.is_small) else 1.0
        if _APPROX.search(answer[max(0, q.start - 16):q.start]):
            weight = min(weight, APPROX_WEIGHT)     # read off a drawing: rarely printed anywhere
        if any(same_amount(q, other) and q.is_year == other.is_year for other in q_amounts):
            weight /= 3
        if _COMPUTED.search(answer[max(0, q.start - 4):q.start]):
            weight = min(weight, 0.3)       # computed: "2.46 - 0.68 = 1.78" prints 2.46 and 0.68, not 1.78
        if any(f.quantity is not None and abs(f.quantity.value) == abs(q.value) for f in facts):
            continue                        # "- 0.68" in "2.46 - 0.68" is the 0.68 already found
        facts.append(Fact("amount", q.text, weight, quantity=q))
    if any(f.text == g.text for i, f in enumerate(facts) for g in facts[:i]):
        facts = [f for i, f in enumerate(facts) if all(f.text != g.text for g in facts[:i])]
    words = terms_of(answer)
    asked = terms_of(question)
    key = tuple(sorted(words - asked)) or tuple(sorted(words))
    if key:
        alone = not any(f.kind in ("amount", "date") and f.weight >= 1 for f in facts)
        facts.append(Fact("text", " ".join(key[:12]), 2.0 if alone else 0.5, terms=key))
    return facts


# -- pages ---------------------------------------------------------------------------------------

class _PageWords:
    """A page's words sorted by their vertical centre, to find a region's words by bisection."""

    def __init__(self, words: Sequence[Word]) -> None:
        self.words = sorted(words, key=lambda w: w.box.y0 + w.box.y1)
        self.centres = [(w.box.y0 + w.box.y1) / 2 for w in self.words]

    def inside(self, region: Box) -> list[Word]:
        """The words with at least half their area inside ``region`` (their centre is then inside
        its vertical extent, hence the bisection)."""
        if self.words and self.words[0].box.space is not region.space:
            return [w for w in self.words if w.box.area > 0 and region.coverage_of(w.box) >= 0.5]
        rx0, ry0, rx1, ry1 = region.x0, region.y0, region.x1, region.y1
        out = []
        for w in self.words[bisect_left(self.centres, ry0):bisect_right(self.centres, ry1)]:
            b = w.box
            ix = min(rx1, b.x1) - max(rx0, b.x0)
            iy = min(ry1, b.y1) - max(ry0, b.y0)
            area = (b.x1 - b.x0) * (b.y1 - b.y0)
            if ix > 0 and iy > 0 and area > 0 and ix * iy >= 0.5 * area:
                out.append(w)
        return out


def _lines(region: Region, words: _PageWords) -> list[_Line]:
    """The region's words as lines (top to bottom, left to right); its text when it has no words."""
    inside = words.inside(region.box)
    if not inside:
        return [_Line(t, [], []) for t in region.text.splitlines() if t.strip()]
    rows: list[list[Word]] = []
    for w in sorted(inside, key=lambda w: ((w.box.y0 + w.box.y1) / 2, w.box.x0)):
        cy = (w.box.y0 + w.box.y1) / 2
        for row in rows:
            ref = row[0].box
            if ref.y0 <= cy <= ref.y1:
                row.append(w)
                break
        else:
            rows.append([w])
    out = []
    for row in rows:
        row.sort(key=lambda w: w.box.x0)
        text, spans = "", []
        for w in row:
            if text:
                text += " "
            spans.append((len(text), len(text) + len(w.text)))
            text += w.text
        out.append(_Line(unicodedata.normalize("NFKC", text), row, spans))
    return out


def _candidates(pages: Sequence[Page]) -> list[_Candidate]:
    out = []
    for rank, page in enumerate(pages, start=1):
        words = _PageWords(page.words)
        scale = context_scale(page.text or "")
        for region in page_regions(page):
            lines = _lines(region, words)
            text = " ".join(ln.text for ln in lines) + " " + region.label
            out.append(_Candidate(page, rank, region, lines, terms_of(text),
                                  unreadable=_unreadable(page, region, lines), page_scale=scale))
    return out


def _match(c: _Candidate, facts: Sequence[Fact]) -> None:
    """Which facts region ``c`` states (credit per fact) and where (focus boxes, quoted lines)."""
    scale = context_scale(c.region.label + "\n" + c.region.text[:600]) or c.page_scale
    percent_ok = "%" in c.region.text or "％" in c.region.text or "percent" in c.region.text.lower()
    for i, fact in enumerate(facts):
        hits: list[tuple[_Line, list[Word]]] = []
        credit = 1.0
        if fact.kind == "amount" and fact.quantity is not None:
            exact = []
            for ln in c.lines:
                for q in ln.amounts:
                    if fact.quantity.percent and not q.percent and not percent_ok and not q.decimals:
                        continue        # "11%" is not the page number 11 (but "40.39" under "(%)" is 40.39%)
                    how = amount_match(fact.quantity, q, scale)
                    if how and not (q.is_year and not fact.quantity.is_year):
                        (exact if how >= 1 else hits).append((ln, ln.words_at(q.start, q.end)))
            credit = 1.0 if exact else ROUNDED_CREDIT     # ``rounded``: "96%" printed for "96.1%"
            hits = exact or hits
        elif fact.kind == "date":
            for ln in c.lines:
                hits.extend((ln, ln.words_at(s, e)) for key, s, e in ln.dates if key.startswith(fact.date))
            hits = hits or _stacked_date(c.lines, fact.date)
        if hits:
            c.found[i] = credit
        elif fact.kind == "text" and fact.terms:
            share = len(c.terms & set(fact.terms)) / len(fact.terms)
            if share >= 0.2:
                c.found[i] = share
                for ln in c.lines:
                    if len(terms_of(ln.text) & set(fact.terms)) >= max(1, min(2, len(fact.terms))):
                        hits.append((ln, ln.words))
        if hits:
            c.focus[i] = [union(w.box for w in ws) for _, ws in hits if ws][:8]
            c.quotes[i] = [ln.text for ln, _ in hits][:8]


def _stacked_date(lines: Sequence[_Line], date: str) -> list[tuple[_Line, list[Word]]]:
    """``stacked_date``: a column header printing a date over two lines ("June 30," above "2025", as statements
    do) states it: each pair of lines is read as one, and both lines' words at the date are the hit."""
    for a, b in zip(lines, lines[1:], strict=False):
        joined = f"{a.text} {b.text}"
        for key, s, e in dates(joined):
            if key.startswith(date) and s < len(a.text) < e:
                return [(a, a.words_at(s, e)), (b, b.words_at(max(0, s - len(a.text) - 1), e - len(a.text) - 1))]
    return []


def named_units(text: str) -> set[str]:
    """The tables and charts ``text`` names by number ("Table 1", "Fig. 3", "图10", "表 2-1") as
    ``table:1`` / ``figure:3`` keys (a chart, graph or exhibit is a figure)."""
    out = set()
    for m in _NAMED.finditer(unicodedata.normalize("NFKC", text)):
        word = (m.group("en") or m.group("zh")).lower()
        out.add(f"{'table' if word in ('table', '表') else 'figure'}:{m.group('n').replace('-', '.')}")
    return out


def _is_named(c: _Candidate, named: set[str]) -> bool:
    """``named_unit``: region ``c`` is a table or chart the question names (its title or caption,
    at its start or end, carries the name)."""
    if not named or c.region.kind not in (CHART, TABLE, TITLE):
        return False
    text = c.region.label + " " + c.region.text[:160] + " " + c.region.text[-160:]
    own = named_units(text)
    return bool(own & named) or any(k.split(":")[1] == n.split(":")[1] for k in own for n in named
                                    if "figure" in (k.split(":")[0], n.split(":")[0]) and c.region.kind != TITLE)


def _idf(candidates: Sequence[_Candidate], terms: set[str]) -> dict[str, float]:
    n = len(candidates)
    return {t: math.log(1 + (n + 1) / (sum(t in c.terms for c in candidates) + 0.5)) for t in terms}


# -- choosing ------------------------------------------------------------------------------------

def _prior(c: _Candidate, model_boxes: Mapping[str, Sequence[Box]]) -> float:
    """``model_prior``: the largest share of a model box that lies in the region (a box over more
    than half the page says nothing about where)."""
    page_area = c.page.width_pt * c.page.height_pt
    boxes = [b for b in model_boxes.get(c.page.page_id, ()) if 0 < b.area <= 0.5 * page_area]
    return max((b.intersection_area(c.region.box) / b.area for b in boxes), default=0.0)


def _gain(c: _Candidate, facts: Sequence[Fact], covered: dict[int, float]) -> float:
    return sum(f.weight * max(0.0, c.found.get(i, 0.0) - covered.get(i, 0.0)) for i, f in enumerate(facts))


def _choose(candidates: list[_Candidate], facts: Sequence[Fact],
            trusted: Sequence[_Candidate] = ()) -> list[_Candidate]:
    """``cover``: greedy choice of regions until no region adds an uncovered fact, starting from the
    ``trusted`` ones (``trust_model``: then a further region must add :data:`TRUSTED_GAIN` times more,
    on a page the model did not cite its square)."""
    chosen: list[_Candidate] = list(trusted)
    covered: dict[int, float] = {}
    for c in chosen:
        for i, credit in c.found.items():
            covered[i] = max(covered.get(i, 0.0), credit)
    pages: set[str] = {c.page.page_id for c in chosen}
    bar = TRUSTED_GAIN if chosen else 1.0
    while True:
        best, best_score = None, 0.0
        for c in candidates:
            if c in chosen or (c.page.page_id not in pages and len(pages) >= MAX_PAGES):
                continue
            if sum(d.page.page_id == c.page.page_id for d in chosen) >= 2 * MAX_BOXES_PER_PAGE:
                continue
            gain = _gain(c, facts, covered)
            threshold = (bar * MIN_GAIN if c.page.page_id in pages else bar * bar * NEW_PAGE_GAIN) if chosen else 1e-9
            if gain < threshold:
                continue
            gain *= (0.5 if c.region.kind == TITLE else 1.0) * (1 - QUESTION_WEIGHT + c.near)
            if gain < (FAR_SHARE if bar == 1.0 else 1.0) * threshold:
                continue
            score = gain + c.near + c.prior - 0.02 * c.rank
            if score > best_score:
                best, best_score = c, score
        if best is None:
            return chosen
        chosen.append(best)
        pages.add(best.page.page_id)
        for i, credit in best.found.items():
            covered[i] = max(covered.get(i, 0.0), credit)


def _merge(boxes: list[tuple[Box, list[int]]]) -> list[tuple[Box, list[int]]]:
    """``merge``: boxes of one page that touch or overlap become one."""
    boxes = sorted(boxes, key=lambda b: (b[0].y0, b[0].x0))
    changed = True
    while changed:
        changed = False
        for i in range(len(boxes)):
            for j in range(i + 1, len(boxes)):
                a, b = boxes[i][0], boxes[j][0]
                h = min(a.x1, b.x1) - max(a.x0, b.x0)
                v_gap = max(a.y0, b.y0) - min(a.y1, b.y1)
                if h > 0.5 * min(a.width, b.width) and v_gap <= ADJACENT_PT:
                    boxes[i] = (union([a, b]), boxes[i][1] + boxes[j][1])
                    del boxes[j]
                    changed = True
                    break
            if changed:
                break
    return boxes


def _drawn(model: Sequence[Box], chosen: Sequence[_Candidate], regions: Sequence[Box]) -> list[Box]:
    """``keep_model``: the model boxes of a page kept as drawn -- each of a unit's size, holding a
    chosen region and following the page's geometry (IoU with the union of the regions it holds at
    least :data:`KEEP_IOU`)."""
    if not chosen:
        return []
    page = chosen[0].page
    out = []
    for b in model:
        if b.area > TRUST_PAGE_SHARE * page.width_pt * page.height_pt:
            continue
        held = [r for r in regions if _holds(b, r)]
        if (held and any(_holds(b, c.region.box) for c in chosen)
                and b.iou(union(held)) >= KEEP_IOU):
            out.append(b)
    return out


def _citations(chosen: Sequence[_Candidate], facts: Sequence[Fact], model_boxes: Mapping[str, Sequence[Box]],
               keep_model: bool, candidates: Sequence[_Candidate] = (),
               model_order: Sequence[str] = ()) -> list[Citation]:
    """One citation per page: merged region boxes (or agreeing model boxes), and the focus boxes and
    quotes of the facts found there (weak facts -- a year, a small number -- only when alone). Pages in
    the order the model cited them (its first citation holds its main evidence), then in rank order."""
    by_page: dict[str, list[_Candidate]] = {}
    for c in chosen:
        by_page.setdefault(c.page.page_id, []).append(c)
    first = {pid: i for i, pid in reversed(list(enumerate(model_order)))}
    out = []
    for pid, cands in sorted(by_page.items(), key=lambda kv: (first.get(kv[0], len(first)),
                                                             min(c.rank for c in kv[1]))):
        drawn = _drawn(model_boxes.get(pid, ()), cands, [c.region.box for c in candidates
                                                         if c.page.page_id == pid]) if keep_model else []
        rest = [c for c in cands if not any(_holds(d, c.region.box) for d in drawn)]
        merged = _merge([(c.region.box, [c.region.number]) for c in rest])
        merged = sorted(merged, key=lambda m: -sum(_gain_of(c) for c in cands if c.region.number in m[1]))
        merged = merged[:max(0, MAX_BOXES_PER_PAGE - len(drawn))]
        focus_all = [b for c in cands for bs in c.focus.values() for b in bs]
        boxes = list(drawn[:MAX_BOXES_PER_PAGE])
        for box, _ in merged:
            own = [b for b in model_boxes.get(pid, ()) if keep_model and _agrees(b, box, focus_all)
                   and (b.iou(box) >= KEEP_IOU or b.intersection_area(box) >= INSIDE_SHARE * b.area
                        or not _cuts_text(b, cands[0].page))]
            boxes.append(own[0] if own else box)
        focus: list[Box] = []
        quotes: list[str] = []
        for c in cands:
            strong = [i for i in c.focus if facts[i].weight >= 0.5] or sorted(c.focus)
            for i in sorted(strong):
                for b, q in zip(c.focus[i], c.quotes[i], strict=False):
                    if not any(b == f for f in focus):
                        focus.append(b)
                        quotes.append(q)
            if not c.focus and keep_model:
                focus.extend(b for b in model_boxes.get(pid, ())
                             if b.area > 0 and b.intersection_area(c.region.box) / b.area >= 0.8
                             and b.area < 0.8 * c.region.box.area)
        numbers = sorted({n for _, ns in merged for n in ns} | {c.region.number for c in cands if c not in rest})
        out.append(Citation(page_id=pid, boxes=boxes, image_index=min(c.rank for c in cands),
                            focus=focus[:12], quotes=quotes[:12], regions=numbers))
    return out


def _agrees(model: Box, region: Box, focus: Sequence[Box]) -> bool:
    """``keep_model``: the model box lies mostly in the region, is not much larger than it (a
    whole page is not), holds the evidence found there, and is more than a line (a line-sized box
    is a focus, not a citation) -- or, where nothing was matched, overlaps the region well."""
    if model.area <= 0 or model.intersection_area(region) < 0.5 * model.area:
        return False
    if model.area > 1.5 * region.area and model.iou(region) < KEEP_IOU:
        return False
    here = [f for f in focus if f.area > 0 and region.intersection_area(f) > 0.5 * f.area]
    if not here:
        return model.iou(region) >= KEEP_IOU
    if not any(model.intersection_area(f) > 0.5 * f.area for f in here):
        return False
    line = sorted(f.height for f in here)[len(here) // 2]
    return model.height >= 2.5 * line or model.iou(region) >= KEEP_IOU


def _cuts_text(box: Box, page: Page) -> bool:
    """``keep_model``: the box's edges cut through words (more than :data:`CUT_SHARE` of the words it
    touches lie partly outside it) -- drawn off the layout, not around a unit of it."""
    touched = cut = 0
    for w in page.words:
        b = w.box
        if b.area <= 0 or b.space is not box.space:
            continue
        share = box.intersection_area(b) / b.area
        if share > 0:
            touched += 1
            cut += 0.1 < share < 0.9
    return touched > 0 and cut > CUT_SHARE * touched


def _holds(box: Box, region: Box) -> bool:
    """``box`` holds ``region``: at least 0.6 of the region lies inside it."""
    return region.area > 0 and box.intersection_area(region) >= 0.6 * region.area


def _held(c: _Candidate, model_boxes: Mapping[str, Sequence[Box]]) -> bool:
    """A model box of a unit's size (a slide's chart may fill most of the page, but not the whole
    page) holds this region or lies in it."""
    page_area = c.page.width_pt * c.page.height_pt
    region = c.region.box
    return any(0 < b.area <= TRUST_PAGE_SHARE * page_area
               and (_holds(b, region) or _holds(region, b))
               for b in model_boxes.get(c.page.page_id, ()))


def _strong(facts: Sequence[Fact]) -> list[int]:
    """The answer's amounts and dates that count on their own (not a year or a small number)."""
    return [i for i, f in enumerate(facts) if f.kind != "text" and f.weight >= 0.5]


def _trusted(held: Sequence[_Candidate], facts: Sequence[Fact], candidates: Sequence[_Candidate],
             charted: bool = False) -> list[_Candidate]:
    """``trust_model``: of the regions the model's boxes hold (``held``), those that state a fact of the
    answer, when together they state :data:`TRUST_SHARE` of its amounts and dates (its key words when
    it has none); regions drawn as images (unreadable) the model boxes hold too, unless the answer's
    amounts and dates are printed in words elsewhere and not in the regions they hold, and neither
    question nor answer speaks of a chart."""
    strong = _strong(facts)
    wanted = strong or [i for i, f in enumerate(facts) if f.kind == "text"]
    stating = [c for c in held if any(c.found.get(i, 0.0) >= (1.0 if strong else 0.5) for i in wanted)]
    total = sum(facts[i].weight for i in wanted)
    share = sum(facts[i].weight * max((c.found.get(i, 0.0) for c in stating), default=0.0)
                for i in wanted) / total if total else 0.0
    images = [c for c in held if c.unreadable and c not in stating]
    if images and share < TRUST_SHARE and _found_elsewhere(candidates, held, facts):
        # the figures are printed in words the boxes miss: an image is not where they are, unless the
        # question or answer speaks of a chart (its data labels are pixels; the words may repeat them)
        images = [c for c in images if charted and c.region.kind == CHART]
    return (stating if share >= TRUST_SHARE else []) + images


def _dominated(trusted: Sequence[_Candidate], candidates: Sequence[_Candidate], facts: Sequence[Fact]) -> bool:
    """``dominated``: one region no model box holds states every amount and date of the answer that the
    regions they hold state, and more (the boxes are on a page that repeats part of the evidence)."""
    strong = _strong(facts)
    held = {i for c in trusted for i in strong if c.found.get(i, 0.0) >= 1}
    return bool(held) and any({i for i in strong if c.found.get(i, 0.0) >= 1} > held
                              for c in candidates if c not in trusted)


def _found_elsewhere(candidates: Sequence[_Candidate], held: Sequence[_Candidate], facts: Sequence[Fact]) -> bool:
    """``distrust_model``: the answer's amounts or dates are stated only in regions no model box holds."""
    strong = _strong(facts)
    if any(c.found.get(i, 0.0) >= 1 for c in held for i in strong):
        return False                # the boxes hold some of the evidence: a prior worth keeping
    return any(c.found.get(i, 0.0) >= 1 for c in candidates if c not in held for i in strong)


def _unreadable(page: Page, region: Region, lines: Sequence[_Line]) -> bool:
    """``unreadable``: a chart or table drawn as an image -- no words to find the evidence in."""
    if region.kind not in (CHART, TABLE):
        return False
    main = next((b for b in page.blocks if region.block_ids and b.block_id == region.block_ids[0]), None)
    if main is not None and main.meta.get("ocr_text"):
        return True     # a picture read by OCR: its words may miss the labels the answer quotes
    if main is None:
        return sum(len(ln.words) for ln in lines) < 3
    return sum(1 for ln in lines for w in ln.words    # its title and notes aside
               if main.box.contains_point((w.box.x0 + w.box.x1) / 2, (w.box.y0 + w.box.y1) / 2)) < 3


def _gain_of(c: _Candidate) -> float:
    return sum(c.found.values()) + c.near


def _model_boxes(citations: Sequence[Citation] | None, pages: Sequence[Page]) -> dict[str, list[Box]]:
    by_id = {p.page_id: p for p in pages}
    out: dict[str, list[Box]] = {}
    for cit in citations or ():
        page = by_id.get(cit.page_id)
        if page is not None:
            out.setdefault(cit.page_id, []).extend(page.to_page_points(b) for b in cit.boxes)
    return out


def ground(question: str, answer: str, pages: Sequence[Page], *, model_citations: Sequence[Citation] | None = None,
           mode: str = "refine") -> Grounding:
    """Ground ``answer`` to ``question`` on ``pages`` (rank order); see the module docstring.

    ``model_citations`` are the model's own (boxes in any space the page converts); ``mode`` is
    ``refine`` (use them as a prior and keep those on the evidence), ``replace`` (their pages only)
    or ``off`` (return them unchanged).
    """
    if mode not in MODES:
        raise ValueError(f"grounding mode {mode!r}: expected one of {', '.join(MODES)}")
    model_citations = list(model_citations or [])
    if mode == "off":
        return Grounding(model_citations, 0.0, [], mode=mode)
    if not answer.strip() or _DECLINES.match(answer):
        return Grounding([], 0.0, [], ["the answer declines: nothing to ground"], mode)
    facts = answer_facts(question, answer)
    model_boxes = _model_boxes(model_citations, pages)
    model_pages = {c.page_id for c in model_citations}
    candidates = _candidates(pages)
    q_terms = terms_of(question)
    chart_question = bool(_CHART_CUE.search(question))
    named = named_units(question)
    idf = _idf(candidates, q_terms)
    total_idf = sum(idf.values()) or 1.0
    named_regions: list[_Candidate] = []     # named_unit: the tables and charts the question names
    for i, c in enumerate(candidates):
        if i % 16 == 0:
            checkpoint("grounding")
        _match(c, facts)
        c.near = QUESTION_WEIGHT * sum(idf[t] for t in q_terms & c.terms) / total_idf
        if chart_question and c.region.kind == CHART:
            c.near += CHART_BONUS
        if _is_named(c, named):
            c.near += NAMED_BONUS
            named_regions.append(c)
        c.prior = (PAGE_PRIOR if c.page.page_id in model_pages else 0.0)
        if mode == "refine":
            c.prior += MODEL_PRIOR * _prior(c, model_boxes)
    held = [c for c in candidates if _held(c, model_boxes)] if mode == "refine" else []
    charted = chart_question or bool(_CHART_CUE.search(answer))      # "read from the chart's data labels"
    trusted = _trusted(held, facts, candidates, charted) if mode == "refine" else []
    dominated = bool(trusted) and _dominated(trusted, candidates, facts)
    missed = bool(named_regions) and not any(c in held for c in named_regions)
    if dominated or missed:
        trusted = []                # dominated / named_unit: the boxes miss better evidence
    if mode == "refine" and not trusted and (dominated or missed or _found_elsewhere(candidates, held, facts)):
        for c in candidates:        # distrust_model: the boxes miss evidence found elsewhere
            c.prior = PAGE_PRIOR if c.page.page_id in model_pages else 0.0
    chosen = _choose(candidates, facts, trusted)
    if mode == "refine":        # keep_model / unreadable: a model box on a region that holds a fact,
        # or on a chart or table with no text layer (nothing to check it against), stays cited
        chosen.extend(c for c in candidates if c not in chosen and c.prior >= MODEL_PRIOR * 0.8
                      and (c.unreadable or any(facts[i].kind != "text" and credit >= 1
                                                 for i, credit in c.found.items())))
    total = sum(f.weight for f in facts) or 1.0
    covered = {i: max((c.found.get(i, 0.0) for c in chosen), default=0.0) for i in range(len(facts))}
    confidence = sum(f.weight * covered[i] for i, f in enumerate(facts)) / total
    strong = any(covered[i] >= 1 for i, f in enumerate(facts) if f.kind != "text")
    facts_text = [f"{f.kind}:{f.text}" for f in facts]
    if not chosen or (not strong and confidence < 0.2 and not trusted):
        chosen = _fallback(candidates, model_pages)
        confidence = min(confidence, 0.2)
        if not chosen and mode == "refine" and any(model_boxes.values()):
            return Grounding(model_citations, confidence, facts_text,
                             ["no evidence for the answer found on the pages: the model's boxes are kept"], mode)
    warnings = []
    if mode == "refine":
        dropped = sum(1 for pid, boxes in model_boxes.items() for b in boxes
                      if not any(b.intersection_area(c.region.box) > 0.5 * min(b.area, c.region.box.area)
                                 for c in chosen if c.page.page_id == pid))
        if dropped:
            warnings.append(f"dropped {dropped} model box(es) that hold none of the answer's evidence")
    order = [c.page_id for c in model_citations] if mode == "refine" else []
    return Grounding(_citations(chosen, facts, model_boxes, mode == "refine", candidates, order), confidence,
                     facts_text, warnings, mode)


def _fallback(candidates: Sequence[_Candidate], model_pages: set[str]) -> list[_Candidate]:
    """``no_evidence``: the one region nearest the question's terms (a chart for a chart question, a
    chart or table drawn as an image before text: the figures found nowhere may be its pixels); the
    model's boxes only break ties."""
    if not candidates:
        return []

    def score(c: _Candidate) -> float:
        image = CHART_BONUS if c.unreadable and c.near > 0 else 0.0   # figures found nowhere: drawn as pixels
        return c.near + image + 0.15 * c.prior + (0.1 if c.page.page_id in model_pages else 0.0) - 0.05 * c.rank

    best = max(candidates, key=score)
    return [best] if best.near > 0 else []


def ground_answer(answer: Answer, pages: Sequence[Page], mode: str = "refine") -> Answer:
    """Ground a generator's ``answer`` in place: its citations become the grounded ones, the model's
    own stay in ``answer.meta["model_citations"]`` (both are scored), what grounding found in
    ``answer.meta["grounding"]``. ``mode="off"`` leaves the answer as it is."""
    if mode == "off":
        return answer
    result = ground(answer.question, answer.answer, pages, model_citations=answer.citations, mode=mode)
    answer.meta["model_citations"] = [c.to_json() for c in answer.citations]
    answer.meta["grounding"] = result.to_json()
    answer.citations = result.citations
    answer.warnings.extend(result.warnings)
    return answer
