"""``grounding``: an offline, text-based stand-in for an MLLM citation judge.

A *cheap proxy*, not a vision model: it reads the text inside the shown units -- the page's words
(PDF text layer or OCR, POINT boxes) whose area lies mostly inside a cited box, or the whole page's
words at page level -- and says "yes" when

* every number of the answer occurs there after normalisation (thousands separators, split
  decimals such as ``11,062. 6``, ``%``/percent, scale words million/billion/thousand/万/亿) -- or,
  with ``derived`` (default), is a sum, difference, product, ratio or percent (change) of two
  numbers of the answer that do occur (calculated answers state their inputs), and
* at least ``min_word_recall`` of the answer's content words (lower-cased, stop words removed, crude
  suffix stemming; each CJK character counts as a word) occur there.

It cannot read charts or images without text, and it cannot check calculations. Its agreement with
gold-box IoU on the development corpus is measured in the tests (``test_citation_agreement.py``).
An answer with nothing to check (no numbers, no content words) or a page with no text is a judge
**error**, not a "no".
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


class GroundingJudge:
    """Offline text-overlap judge (see module docstring); deterministic, so never cached."""

    needs_images = False
    cache_id = None

    def __init__(self, min_word_recall: float = 0.5, min_number_recall: float = 1.0,
                 min_inside: float = 0.5, derived: bool = True) -> None:
        self.derived = bool(derived)
        self.min_word_recall = float(min_word_recall)
        self.min_number_recall = float(min_number_recall)
        self.min_inside = float(min_inside)
        self.name = "grounding"

    def judge(self, prompt: str, images: Sequence[EvidenceImage], context: JudgeContext) -> Verdict:
        return self.decide(context.answer, shown_text(images, self.min_inside),
                           has_text=any(p.page.words or p.page.text or p.page.blocks for p in images))

    def decide(self, answer: str, evidence: str, has_text: bool = True) -> Verdict:
        if not has_text:
            return Verdict.failed("grounding judge: the shown pages have no text (ingest with OCR)")
        a_nums = _numbers_with_decimals(answer)
        a_words = content_words(_NUM.sub(" ", answer))
        if not a_nums and not a_words:
            return Verdict.failed(f"grounding judge: nothing checkable in the answer {answer[:60]!r}")
        e_vals = [v for vals in numbers(evidence) for v in vals]
        e_words = content_words(evidence)
        found = [any(_close(a, e) for a in vals for e in e_vals) for _, vals, _ in a_nums]
        if self.derived and not all(found):
            # a calculated number counts when it follows from two numbers of the answer that were found
            inputs = [raw for (raw, _, _), ok in zip(a_nums, found, strict=True) if ok]
            found = [ok or _derivable(raw, dec, inputs) for (raw, _, dec), ok in zip(a_nums, found, strict=True)]
        n_ok = sum(found)
        w_ok = len(a_words & e_words)
        num_recall = n_ok / len(a_nums) if a_nums else 1.0
        word_recall = w_ok / len(a_words) if a_words else 1.0
        raw = f"numbers {n_ok}/{len(a_nums)}, words {w_ok}/{len(a_words)}"
        ok = num_recall >= self.min_number_recall - 1e-12 and word_recall >= self.min_word_recall - 1e-12
        return Verdict.yes(f"yes ({raw})") if ok else Verdict.no(f"no ({raw})")


@JUDGES.register("grounding", help="offline text proxy: answer numbers and content words inside the cited units")
def _make_grounding(arg: str | None, **opts) -> GroundingJudge:
    return GroundingJudge(**opts)
