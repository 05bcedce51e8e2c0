"""Pixel grounding, ViDoRe V3 style: Dice (= F1) and IoU of cited boxes against gold boxes as pixel zones.

Per page, the union of a system's boxes and the union of one annotator's boxes become two binary
pixel zones of the page image; the page's score against that annotator is their Dice
``2|S∩G| / (|S| + |G|)`` (= pixel F1) and IoU ``|S∩G| / |S∪G|``. With several annotators the best
annotator is kept, per page. Zones are exact unions of axis-aligned rectangles, measured in pixels
of the page image (``pixels="round"``: box edges rounded to whole pixels first, so integer pixel
boxes such as ViDoRe V3's count exactly the pixels ``x1 <= x < x2``, ``y1 <= y < y2``).

ViDoRe V3 leaves two choices open (and a third is ambiguous); all are options here and every report
states them:

* ``empty`` — a (page, annotator) pair where neither side drew a box (a relevant page both left
  unboxed): ``"skip"`` it (default), count it as ``"one"`` (agreement) or ``"zero"``.
* ``average`` — ``"query"``: mean over a question's pages, then over questions (default);
  ``"page"``: every scored page of every question weighs the same.

* ``best`` — the best annotator is kept per ``"page"`` (default) or per ``"question"`` (the
  annotator whose mean over the question's pages is highest).

Pages scored for a question: pages with a gold box (any annotator), pages the system boxed, and the
question's gold pages (relevant pages nobody boxed are the ``empty`` case). A question without any
gold box has no pixel score. Anchors from the ViDoRe V3 paper (arXiv 2601.08620): human
inter-annotator F1 0.602 (IoU 0.497); best VLM Qwen3-VL-30B-A3B 0.089, Gemini 3 Pro 0.065.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from docrag.errors import CorpusError
from docrag.geometry import Box

log = logging.getLogger(__name__)

EmptyPolicy = Literal["skip", "one", "zero"]
Averaging = Literal["query", "page"]
EMPTY_POLICIES = ("skip", "one", "zero")
AVERAGINGS = ("query", "page")
BESTS = ("page", "question")

ANCHORS = {"human_f1": 0.602, "human_iou": 0.497, "qwen3_vl_30b_a3b_f1": 0.089, "gemini_3_pro_f1": 0.065}
ANCHOR_SOURCE = "ViDoRe V3 (arXiv 2601.08620), as quoted in docrag issue 17"

Rect = tuple[float, float, float, float]


@dataclass(frozen=True)
class PixelOptions:
    empty: EmptyPolicy = "skip"
    average: Averaging = "query"
    pixels: Literal["round", "exact"] = "round"
    best: Literal["page", "question"] = "page"

    def __post_init__(self) -> None:
        if self.empty not in EMPTY_POLICIES:
            raise ValueError(f"pixel grounding: empty={self.empty!r}; use one of {', '.join(EMPTY_POLICIES)}")
        if self.average not in AVERAGINGS:
            raise ValueError(f"pixel grounding: average={self.average!r}; use one of {', '.join(AVERAGINGS)}")
        if self.best not in BESTS:
            raise ValueError(f"pixel grounding: best={self.best!r}; use one of {', '.join(BESTS)}")
        if self.pixels not in ("round", "exact"):
            raise ValueError(f"pixel grounding: pixels={self.pixels!r}; use round or exact")

    def to_json(self) -> dict:
        return {"empty": self.empty, "average": self.average, "pixels": self.pixels, "best": self.best}

    @property
    def record_key(self) -> str:
        """Key of this choice in a stored :func:`citations_pixel_record`."""
        return self.empty if self.best == "page" else f"{self.empty}@question"


@dataclass
class PageScore:
    page_id: str
    f1: float
    iou: float
    annotator: str = ""

    def to_json(self) -> dict:
        return {"page_id": self.page_id, "f1": self.f1, "iou": self.iou, "annotator": self.annotator}


@dataclass
class QuestionPixelScore:
    """Per-page scores of one question (pages the ``empty`` policy skipped are absent)."""

    pages: list[PageScore] = field(default_factory=list)

    @property
    def f1(self) -> float | None:
        return sum(p.f1 for p in self.pages) / len(self.pages) if self.pages else None

    @property
    def iou(self) -> float | None:
        return sum(p.iou for p in self.pages) / len(self.pages) if self.pages else None

    def to_json(self) -> dict:
        return {"f1": self.f1, "iou": self.iou, "pages": [p.to_json() for p in self.pages]}


# -- exact area of unions of rectangles ----------------------------------------------------------

def _cells(rects: Sequence[Rect]) -> tuple[list[float], list[float]]:
    xs = sorted({r[0] for r in rects} | {r[2] for r in rects})
    ys = sorted({r[1] for r in rects} | {r[3] for r in rects})
    return xs, ys


def _covered(rects: Sequence[Rect], x0: float, y0: float, x1: float, y1: float) -> bool:
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    return any(r[0] <= cx < r[2] and r[1] <= cy < r[3] for r in rects)


def zone_areas(system: Sequence[Rect], gold: Sequence[Rect]) -> tuple[float, float, float]:
    """``(|S|, |G|, |S∩G|)`` of the unions of two rectangle sets (exact, by coordinate compression)."""
    sys_r = [r for r in system if r[2] > r[0] and r[3] > r[1]]
    gold_r = [r for r in gold if r[2] > r[0] and r[3] > r[1]]
    xs, ys = _cells(sys_r + gold_r)
    a_s = a_g = a_i = 0.0
    for i in range(len(xs) - 1):
        for j in range(len(ys) - 1):
            area = (xs[i + 1] - xs[i]) * (ys[j + 1] - ys[j])
            if area <= 0:
                continue
            in_s = _covered(sys_r, xs[i], ys[j], xs[i + 1], ys[j + 1])
            in_g = _covered(gold_r, xs[i], ys[j], xs[i + 1], ys[j + 1])
            a_s += area * in_s
            a_g += area * in_g
            a_i += area * (in_s and in_g)
    return a_s, a_g, a_i


def dice_iou(system: Sequence[Rect], gold: Sequence[Rect]) -> tuple[float, float] | None:
    """Dice and IoU of two zones; None when both are empty (the ``empty`` policy decides)."""
    a_s, a_g, a_i = zone_areas(system, gold)
    if a_s + a_g <= 0:
        return None
    union = a_s + a_g - a_i
    return 2 * a_i / (a_s + a_g), (a_i / union if union > 0 else 0.0)


# -- one question ----------------------------------------------------------------------------------

def _rect(box: Box, img_w: float, img_h: float, mode: str) -> Rect:
    px = box.to_pixels(img_w, img_h).ordered().clipped()
    x0, y0, x1, y1 = px.coords
    if mode == "round":
        x0, y0, x1, y1 = (float(round(v)) for v in (x0, y0, x1, y1))
    return x0, y0, x1, y1


def page_extent(page: Any) -> tuple[float, float]:
    """The pixel grid of a page: its rendered image size, else its size in points (1 px per pt)."""
    w, h = int(getattr(page, "image_width", 0) or 0), int(getattr(page, "image_height", 0) or 0)
    if w > 0 and h > 0:
        return float(w), float(h)
    return float(page.width_pt), float(page.height_pt)


def question_pixel_score(system: Mapping[str, Sequence[Box]], gold: Iterable[Any], pages: Mapping[str, Any],
                         gold_pages: Iterable[str] = (), options: PixelOptions | None = None
                         ) -> QuestionPixelScore | None:
    """Pixel Dice/IoU of one question.

    ``system``: page id -> boxes (any space that converts to the page's pixels); ``gold``: records
    with ``page_id``, ``box`` and optionally ``annotator`` (``""`` = one anonymous annotator);
    ``pages``: page id -> page (for its pixel grid; pages missing here are skipped). None when the
    question has no gold box.
    """
    opts = options or PixelOptions()
    gold = [g for g in gold if getattr(g, "box", None) is not None]
    if not gold:
        return None
    annotators = sorted({getattr(g, "annotator", "") or "" for g in gold})
    page_ids = sorted({g.page_id for g in gold} | {p for p, bs in system.items() if bs} | set(gold_pages))
    per_ann: dict[str, list[PageScore]] = {a: [] for a in annotators}
    for pid in page_ids:
        page = pages.get(pid)
        if page is None:
            continue
        w, h = page_extent(page)
        s_rects = [_rect(b, w, h, opts.pixels) for b in system.get(pid, [])]
        for ann in annotators:
            g_rects = [_rect(g.box, w, h, opts.pixels) for g in gold
                       if g.page_id == pid and (getattr(g, "annotator", "") or "") == ann]
            res = dice_iou(s_rects, g_rects)
            if res is None:
                if opts.empty == "skip":
                    continue
                res = (1.0, 1.0) if opts.empty == "one" else (0.0, 0.0)
            per_ann[ann].append(PageScore(pid, res[0], res[1], ann))
    if opts.best == "question":   # one annotator for the whole question: the best on average
        scored = [QuestionPixelScore(ps) for ps in per_ann.values() if ps]
        return max(scored, key=lambda q: (q.f1, q.iou), default=QuestionPixelScore())
    out = QuestionPixelScore()
    for pid in page_ids:
        cands = [p for ps in per_ann.values() for p in ps if p.page_id == pid]
        if cands:
            out.pages.append(max(cands, key=lambda p: (p.f1, p.iou)))
    return out


def aggregate(scores: Iterable[Mapping | QuestionPixelScore | None], average: Averaging = "query") -> dict:
    """Mean F1/IoU over questions (``query``) or over all scored pages (``page``), with counts."""
    recs = [s.to_json() if isinstance(s, QuestionPixelScore) else s for s in scores]
    recs = [r for r in recs if r and r.get("pages")]
    if average == "page":
        pages = [p for r in recs for p in r["pages"]]
        f1 = [p["f1"] for p in pages]
        iou = [p["iou"] for p in pages]
    else:
        f1 = [r["f1"] for r in recs]
        iou = [r["iou"] for r in recs]
    mean = (lambda v: sum(v) / len(v) if v else None)  # noqa: E731
    return {"f1": mean(f1), "iou": mean(iou), "n_questions": len(recs),
            "n_pages": sum(len(r["pages"]) for r in recs), "average": average}


def describe_options(options: PixelOptions) -> str:
    """One sentence for reports stating the open choices."""
    empty = {"skip": "skipped", "one": "counted as agreement (1)", "zero": "counted as 0"}[options.empty]
    avg = "per question, then over questions" if options.average == "query" else "over all scored pages"
    return (f"pixel zones in page-image pixels ({options.pixels} box edges); best annotator per {options.best}; "
            f"pages neither side boxed {empty}; averaged {avg}")



def citations_pixel_record(citations: Sequence[Any], gold: Sequence[Any], gold_pages: Iterable[str],
                           page_of: Any, pixels: Literal["round", "exact"] = "round") -> dict | None:
    """A question's pixel scores under every ``empty`` policy (so reports choose later):
    ``{"skip": {...}, "one": {...}, "zero": {...}}``; None without gold boxes. ``citations`` carry
    ``page_id`` and ``boxes``; ``page_of(page_id)`` returns the page or raises (page then skipped)."""
    if not any(getattr(g, "box", None) is not None for g in gold):
        return None
    system: dict[str, list[Box]] = {}
    for c in citations:
        system.setdefault(c.page_id, []).extend(c.boxes)
    pages: dict[str, Any] = {}
    for pid in {*system, *(g.page_id for g in gold), *gold_pages}:
        try:
            pages[pid] = page_of(pid)
        except (CorpusError, KeyError) as exc:  # no pixel grid for a page the corpus lacks
            log.warning("pixel grounding: page %s skipped (%s)", pid, exc)
    out = {}
    for best in BESTS:
        for empty in EMPTY_POLICIES:
            opts = PixelOptions(empty=empty, pixels=pixels, best=best)
            score = question_pixel_score(system, gold, pages, gold_pages, opts)
            out[opts.record_key] = score.to_json() if score is not None else None
    return out


def report_pixel(records: Iterable[Mapping | None], options: PixelOptions) -> dict:
    """Aggregate stored :func:`citations_pixel_record` results under ``options``."""
    return aggregate([(r or {}).get(options.record_key) for r in records], options.average)
