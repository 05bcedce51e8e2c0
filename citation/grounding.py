"""``grounding``: an offline, text-based stand-in for an MLLM citation judge (a **proxy**).

Not a vision model: it reads the text inside the shown units -- the page's words (PDF text layer or
OCR, POINT boxes) whose area lies mostly inside a cited box, or the whole page's words at page
level. Its verdict comes from whether that region supports the answer's **key facts**, whatever
block the generator quoted:

* every number of the answer occurs there with a compatible scale (``5.2 million`` matches
  ``5,200,000`` or a ``5.2`` under a million header, not ``5.2 billion``; thousands separators,
  split decimals such as ``11,062. 6``, ``%``/percent, million/billion/thousand/万/亿 understood) --
  or, with ``derived`` (default), is a sum, difference, product, ratio or percent (change) of two
  numbers of the answer that do occur (calculated answers state their inputs);
* at least ``min_entity_recall`` of the answer's named entities (capitalised names, acronyms)
  occur there; an answer with no numbers and no names falls back to ``min_word_recall`` of its
  content words;
* and the region is where the **question** points: at least ``min_question_support`` of the
  question's terms, weighted by how rare each is among the lines of the shown pages, occur in it
  (terms of the pages' top/bottom margin bands -- running headers and footers that name the
  document -- do not count).
  This is what makes the judge non-circular: an extractive answer always matches the block it was
  quoted from, but a quote of the wrong block lacks what the question asks about.

It cannot read charts or images without text, and it cannot check calculations. Its agreement with
gold-box IoU and its rejection of wrong-block quotes on the development corpus are measured in the
tests (``tests/test_real_corpus_citation.py``). An answer with nothing to check or a page with no
text is a judge **error**, not a "no".
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence

from docrag.citation.evidence import EvidenceImage, Mode
from docrag.citation.judge import JUDGES, JudgeContext
from docrag.citation.verdict import Verdict
from docrag.types import Page

SCALES = {"thousand": 1e3, "k": 1e3, "million": 1e6, "mn": 1e6, "m": 1e6, "billion": 1e9, "bn": 1e9,
          "b": 1e9, "trillion": 1e12, "tn": 1e12, "万": 1e4, "亿": 1e8, "千": 1e3, "百万": 1e6}
STOP = set("""a an the and or of to in on at for by with from as is are was were be been being it its this
that these those than then there their they he she we you i not no yes but if so such per vs versus
about around roughly approximately approx some about over under into out up down more less most least
which who whom what when where why how also may might can could would should will has have had do does
did each all any both between among during since until while after before above below same other
ago near nearly roughly
""".split())
# units and scale words: usually printed in a header or axis label outside the cited block
UNIT_WORDS = set("""gal gallon lb lbs cwt bbl barrel ton tonne metric cent dollar euro usd eur yuan rmb kg km
percent pct thousand million billion trillion mn bn tn
""".split())

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_NUM = re.compile(r"(?<![\w.])[-−–]?\$?(\d{1,3}(?:,\d{3})+(?![\d,])|\d+)(\.\d+)?\s*(%|percent\b|per cent\b|"
                  r"百万|万|亿|千|(?:thousand|million|billion|trillion|mn|bn|tn|k|m|b)\b)?", re.IGNORECASE)
_WORD = re.compile(r"[a-z]+(?:['’][a-z]+)?", re.IGNORECASE)   # hyphenated words count as parts


def repair_text(text: str) -> str:
    """Join numbers split by text extraction: ``11,062. 6`` -> ``11,062.6``, ``1, 070`` -> ``1,070``."""
    text = re.sub(r"(\d)\.\s+(\d)", r"\1.\2", text)
    return re.sub(r"(\d),\s+(\d{3})(?!\d)", r"\1,\2", text)


def numbers(text: str) -> list[set[float]]:
    """Each number in ``text`` as the set of values it may stand for (raw and scaled)."""
    return [vals for _, vals, _ in _numbers_with_decimals(text)]


def _numbers_with_decimals(text: str) -> list[tuple[float, set[float], int]]:
    """``(raw value, values it may stand for, decimals shown)`` for each number in ``text``."""
    out = []
    for m in _NUM.finditer(repair_text(text)):
        raw = float(m.group(1).replace(",", "") + (m.group(2) or ""))
        unit = (m.group(3) or "").lower()
        vals = {raw}
        if unit in SCALES:
            vals.add(raw * SCALES[unit])
        elif unit.startswith(("%", "percent", "per cent")):
            vals.add(raw / 100.0)
        out.append((raw, vals, len(m.group(2) or ".") - 1))
    return out


def _derivable(target: float, decimals: int, inputs: list[float]) -> bool:
    """``target`` (shown with ``decimals`` decimals) is a sum, difference, product, ratio or percent
    (change) of two ``inputs``, up to the rounding of ``target``."""
    tol = 0.5 * 10 ** (-decimals) + 1e-9 * abs(target)
    for i, a in enumerate(inputs):
        for j, b in enumerate(inputs):
            if i == j:
                continue
            cands = [a + b, a - b, a * b]
            if b:
                cands += [a / b, 100 * a / b, 100 * (a - b) / b]
            if any(abs(abs(c) - target) <= tol for c in cands):
                return True
    return False


def _stem(w: str) -> str:
    w = w.lower().replace("’", "'").strip("'-")
    for suf in ("'s", "ies", "es", "s", "ed", "ing", "ly"):
        if w.endswith(suf) and len(w) - len(suf) >= 3:
            return w[: -len(suf)] + ("y" if suf == "ies" else "")
    return w


def content_words(text: str) -> set[str]:
    """Lower-cased, stemmed content words (no stop words, no single letters) and CJK characters."""
    words = {_stem(w) for w in _WORD.findall(text) if len(w) > 1 and w.lower() not in STOP}
    words -= UNIT_WORDS
    words |= set(_CJK.findall(text))
    return {w for w in words if w}


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def shown_text(images: Sequence[EvidenceImage], min_inside: float = 0.5) -> str:
    """Text the judge 'sees': words of each shown page (page mode) or those mostly inside a shown box."""
    parts: list[str] = []
    for ev in images:
        parts.append(page_text(ev.page) if ev.mode is Mode.PAGE else
                     text_in_boxes(ev.page, ev.boxes, min_inside))
    return "\n".join(parts)


def page_text(page: Page) -> str:
    return " ".join(w.text for w in page.words) if page.words else page.text


def text_in_boxes(page: Page, boxes: Iterable, min_inside: float = 0.5) -> str:
    """Words whose area lies at least ``min_inside`` inside one of ``boxes`` (POINT), in reading
    order; pages without word boxes fall back to text blocks mostly inside a box."""
    boxes = list(boxes)
    if page.words:
        items = [w for w in page.words if w.box.area > 0 and any(b.coverage_of(w.box) >= min_inside for b in boxes)]
        return " ".join(w.text for w in items)
    items = [b for b in page.blocks if b.text and any(x.coverage_of(b.box) >= min_inside for x in boxes)]
    return " ".join(b.text for b in items)


def _scaled_numbers(text: str) -> list[tuple[float, float | None, bool]]:
    """``(raw value, scale or None, is percent)`` for each number in ``text``."""
    out = []
    for m in _NUM.finditer(repair_text(text)):
        raw = float(m.group(1).replace(",", "") + (m.group(2) or ""))
        unit = (m.group(3) or "").lower()
        out.append((raw, SCALES.get(unit), unit.startswith(("%", "percent", "per cent"))))
    return out


def number_supported(num: tuple[float, float | None, bool], evidence: list[tuple[float, float | None, bool]]) -> bool:
    """The answer number ``num`` occurs in the evidence with a compatible scale: the same scaled
    value (``5.2 million`` = ``5,200,000``), or the same figure where the scales do not conflict
    (``5.2 million`` vs a ``5.2`` under a "million" header; not ``5.2 billion``)."""
    raw, scale, pct = num
    for e_raw, e_scale, e_pct in evidence:
        if _close(raw * (scale or 1.0), e_raw * (e_scale or 1.0)):
            return True
        if _close(raw, e_raw) and (scale is None or e_scale is None or scale == e_scale):
            return True
        if pct and not e_pct and _close(raw / 100.0, e_raw):
            return True
    return False


_ENTITY = re.compile(r"\b(?:[A-Z]{2,}[A-Za-z]*|[A-Z][a-z]+(?:[-\s][A-Z][a-z]+)*)\b")
MONTHS = set("january february march april may june july august september october november december".split())


def named_entities(text: str, short: int = 12) -> set[str]:
    """Capitalised names and acronyms of ``text``, stemmed like :func:`content_words`, e.g.
    ``{"germany", "save", "bundesbank"}``; a sentence-initial capital counts only in a short answer
    (at most ``short`` words), where it is usually a name ("Spain: 12.0")."""
    out: set[str] = set()
    keep_initial = len(text.split()) <= short
    for m in _ENTITY.finditer(text):
        before = text[: m.start()].rstrip()
        if not keep_initial and (not before or before[-1] in ".!?:;\n\"'("):
            if not m.group(0).isupper():
                continue   # sentence-initial capital: not evidence of a name
        for w in re.split(r"[-\s]+", m.group(0)):
            w = _stem(w)
            if len(w) > 1 and w not in STOP and w not in UNIT_WORDS and w not in MONTHS:
                out.add(w)
    return out


def question_terms(question: str) -> set[str]:
    """What the question is about: its content words and the numbers it names (years, table numbers)."""
    terms = content_words(_NUM.sub(" ", question))
    terms |= {f"#{raw:g}" for raw, _, _ in _scaled_numbers(question)}
    return terms


def _terms_of(text: str) -> set[str]:
    return content_words(_NUM.sub(" ", text)) | {f"#{raw:g}" for raw, _, _ in _scaled_numbers(text)}


def question_support(question: str, evidence: str, context_lines: Sequence[str],
                     margin_lines: Sequence[str] = ()) -> float | None:
    """IDF-weighted share of the question's terms found in ``evidence``; the weights come from the
    lines of the shown pages (a term on every line says little about where the answer is), and
    terms found on no line of those pages are left out, as are terms of the page's margin bands
    (running headers and footers name the document, not the evidence). None when no term is left."""
    margin = set().union(*(_terms_of(ln) for ln in margin_lines)) if margin_lines else set()
    terms = question_terms(question) - margin
    line_terms = [_terms_of(ln) for ln in context_lines if ln.strip()]
    n = len(line_terms)
    weights = {}
    for t in terms:
        df = sum(1 for lt in line_terms if t in lt)
        if df:
            weights[t] = math.log((n + 1) / (df + 0.5))
    total = sum(weights.values())
    if not weights or total <= 0:
        return None
    found = _terms_of(evidence)
    return sum(w for t, w in weights.items() if t in found) / total


MARGIN_BAND = 0.08   # top and bottom share of the page height treated as running header/footer


def page_lines(page: Page) -> tuple[list[str], list[str]]:
    """``(body lines, margin lines)`` of the page: its blocks' text lines, split by whether the block
    lies in the top or bottom :data:`MARGIN_BAND` (without blocks: the text's lines, no margins)."""
    if not page.blocks:
        return (page.text or "").splitlines(), []
    body, margin = [], []
    h = page.height_pt or 1.0
    for b in page.blocks:
        if not b.text:
            continue
        in_margin = b.box.y1 <= MARGIN_BAND * h or b.box.y0 >= (1 - MARGIN_BAND) * h
        (margin if in_margin else body).extend(b.text.splitlines())
    return body, margin


class GroundingJudge:
    """Offline judge of whether the cited region's text supports the answer's key facts (see the
    module docstring); deterministic, so never cached. A proxy: it reads text, not pixels."""

    needs_images = False
    cache_id = None
    is_proxy = True

    def __init__(self, min_word_recall: float = 0.5, min_number_recall: float = 1.0,
                 min_inside: float = 0.5, derived: bool = True, min_entity_recall: float = 0.5,
                 min_question_support: float = 0.4) -> None:
        self.derived = bool(derived)
        self.min_word_recall = float(min_word_recall)
        self.min_number_recall = float(min_number_recall)
        self.min_entity_recall = float(min_entity_recall)
        self.min_question_support = float(min_question_support)
        self.min_inside = float(min_inside)
        self.name = "grounding"

    def judge(self, prompt: str, images: Sequence[EvidenceImage], context: JudgeContext) -> Verdict:
        body: list[str] = []
        margin: list[str] = []
        for ev in images:
            b, m = page_lines(ev.page)
            body += b
            margin += m
        return self.decide(context.answer, shown_text(images, self.min_inside),
                           has_text=any(p.page.words or p.page.text or p.page.blocks for p in images),
                           question=context.question, context_lines=body + margin, margin_lines=margin)

    def decide(self, answer: str, evidence: str, has_text: bool = True, question: str = "",
               context_lines: Sequence[str] | None = None, margin_lines: Sequence[str] = ()) -> Verdict:
        """Yes when the evidence holds the answer's key facts -- every number (scale-compatible, or
        derived from two found numbers) and at least ``min_entity_recall`` of its names; content
        words only when the answer has neither -- *and*, given the question, the evidence is where
        the question's distinctive terms are (``min_question_support``)."""
        if not has_text:
            return Verdict.failed("grounding judge: the shown pages have no text (ingest with OCR)")
        a_nums = _scaled_numbers(answer)
        a_ents = named_entities(_NUM.sub(" ", answer))
        a_words = content_words(_NUM.sub(" ", answer))
        if not a_nums and not a_ents and not a_words:
            return Verdict.failed(f"grounding judge: nothing checkable in the answer {answer[:60]!r}")
        e_nums = _scaled_numbers(evidence)
        e_words = content_words(evidence)
        found = [number_supported(n, e_nums) for n in a_nums]
        if self.derived and not all(found):
            # a calculated number counts when it follows from two numbers of the answer that were found
            dec = [d for _, _, d in _numbers_with_decimals(answer)]
            inputs = [raw for (raw, _, _), ok in zip(a_nums, found, strict=True) if ok]
            found = [ok or _derivable(n[0], dec[i] if i < len(dec) else 0, inputs)
                     for i, (n, ok) in enumerate(zip(a_nums, found, strict=True))]
        n_ok = sum(found)
        num_ok = (n_ok / len(a_nums) if a_nums else 1.0) >= self.min_number_recall - 1e-12
        parts = [f"numbers {n_ok}/{len(a_nums)}"]
        if a_nums or a_ents:
            ent_ok_n = len(a_ents & e_words)
            facts_ok = num_ok and (ent_ok_n / len(a_ents) if a_ents else 1.0) >= self.min_entity_recall - 1e-12
            parts.append(f"names {ent_ok_n}/{len(a_ents)}")
        else:   # no key facts: fall back to the answer's content words
            w_ok = len(a_words & e_words)
            facts_ok = w_ok / len(a_words) >= self.min_word_recall - 1e-12
            parts.append(f"words {w_ok}/{len(a_words)}")
        support = question_support(question, evidence, context_lines or [], margin_lines) if question else None
        q_ok = support is None or support >= self.min_question_support - 1e-12
        if support is not None:
            parts.append(f"question terms {100 * support:.0f}%")
        raw = ", ".join(parts)
        return Verdict.yes(f"yes ({raw})") if facts_ok and q_ok else Verdict.no(f"no ({raw})")


@JUDGES.register("grounding", help="offline text proxy: the answer's key facts (numbers with scale, names) "
                                   "and the question's terms inside the cited units")
def _make_grounding(arg: str | None, **opts) -> GroundingJudge:
    return GroundingJudge(**opts)
