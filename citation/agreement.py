"""Geometry checks against gold boxes and agreement of automatic scores with IoU or human ratings.

* :func:`question_iou` -- per question, the mean over gold boxes of the best IoU with any predicted
  box on the same page (0 for a gold box whose page was not cited with a box);
* :func:`correlations` -- Pearson, Spearman and Kendall (scipy) with p-values; undefined (NaN) when
  fewer than 3 pairs or when either side is constant, with the reason recorded;
* :func:`load_human_ratings` -- a CSV of 0-5 human ratings (``id`` and ``rating`` columns).
"""

from __future__ import annotations

import csv
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from docrag.citation.oracle import GoldEvidence
from docrag.errors import InputError
from docrag.geometry import Box, best_match_iou
from docrag.types import Answer


def box_iou(pred: Box, gold: Box) -> float:
    """IoU of two boxes on the same page (any spaces with a known page extent)."""
    return pred.iou(gold)


def predicted_boxes(answer: Answer) -> dict[str, list[Box]]:
    """The answer's cited boxes by page id."""
    out: dict[str, list[Box]] = {}
    for c in answer.citations:
        out.setdefault(c.page_id, []).extend(c.boxes)
    return out


def question_iou(pred: Mapping[str, Sequence[Box]] | Answer, gold: Sequence[GoldEvidence]) -> float:
    """Best-match mean IoU: mean over gold boxes of the best IoU with a predicted box on its page."""
    boxes = predicted_boxes(pred) if isinstance(pred, Answer) else pred
    gold_boxes = [g for g in gold if g.box is not None]
    if not gold_boxes:
        return 0.0
    return sum(best_match_iou(boxes.get(g.page_id, []), [g.box]) for g in gold_boxes) / len(gold_boxes)


@dataclass
class Correlations:
    """Pearson / Spearman / Kendall coefficients (-1..1) and p-values over ``n`` pairs."""

    n: int
    pearson: float = math.nan
    spearman: float = math.nan
    kendall: float = math.nan
    p_pearson: float = math.nan
    p_spearman: float = math.nan
    p_kendall: float = math.nan
    note: str = ""
    missing: dict[str, int] = field(default_factory=dict)

    def percent(self) -> dict[str, float]:
        """Coefficients in percent, as the paper reports them (e.g. Pearson 65.06)."""
        return {"pearson": 100 * self.pearson, "spearman": 100 * self.spearman, "kendall": 100 * self.kendall}

    def to_json(self) -> dict:
        return {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in self.__dict__.items()}


def correlations(x: Sequence[float], y: Sequence[float]) -> Correlations:
    """Pearson, Spearman and Kendall correlation of paired scores."""
    from scipy import stats

    if len(x) != len(y):
        raise ValueError(f"paired scores differ in length: {len(x)} vs {len(y)}")
    n = len(x)
    if n < 3:
        return Correlations(n, note=f"only {n} pairs; need at least 3")
    if len(set(x)) < 2 or len(set(y)) < 2:
        return Correlations(n, note="one side is constant; correlation undefined")
    p = stats.pearsonr(x, y)
    s = stats.spearmanr(x, y)
    k = stats.kendalltau(x, y)
    return Correlations(n, float(p.statistic), float(s.statistic), float(k.statistic),
                        float(p.pvalue), float(s.pvalue), float(k.pvalue))


def agreement(auto: Mapping[str, float], reference: Mapping[str, float]) -> Correlations:
    """Correlations over the ids present in both mappings; ids missing on one side are counted."""
    ids = [i for i in auto if i in reference]
    out = correlations([float(auto[i]) for i in ids], [float(reference[i]) for i in ids])
    out.missing = {"only_auto": sum(1 for i in auto if i not in reference),
                   "only_reference": sum(1 for i in reference if i not in auto)}
    return out


ID_COLUMNS = ("id", "qid", "question_id")
RATING_COLUMNS = ("rating", "score", "human")


def load_human_ratings(path: str | Path, *, low: float = 0.0, high: float = 5.0) -> dict[str, float]:
    """Read ``id,rating`` rows (header required; id column ``id``/``qid``/``question_id``, rating
    column ``rating``/``score``/``human``) with ratings in ``low..high``. Errors name the file, the
    line and what to fix."""
    path = Path(path)
    if not path.exists():
        raise InputError(f"{path}: human ratings file not found")
    with open(path, newline="", encoding="utf-8-sig") as fh:
        reader = csv.DictReader(fh)
        header = [h.strip().lower() for h in (reader.fieldnames or [])]
        id_col = next((c for c in ID_COLUMNS if c in header), None)
        rating_col = next((c for c in RATING_COLUMNS if c in header), None)
        if id_col is None or rating_col is None:
            raise InputError(f"{path}: header must name an id column ({'/'.join(ID_COLUMNS)}) and a rating "
                             f"column ({'/'.join(RATING_COLUMNS)}); found {header or 'no header'}")
        original = {h.strip().lower(): h for h in reader.fieldnames or []}
        out: dict[str, float] = {}
        for row in reader:
            line = reader.line_num
            qid = (row.get(original[id_col]) or "").strip()
            value = (row.get(original[rating_col]) or "").strip()
            if not qid and not value:
                continue
            if not qid:
                raise InputError(f"{path}:{line}: empty {id_col}")
            try:
                rating = float(value)
            except ValueError:
                raise InputError(f"{path}:{line}: {rating_col} {value!r} is not a number "
                                 f"(expected {low:g}-{high:g})") from None
            if not (low <= rating <= high) or math.isnan(rating):
                raise InputError(f"{path}:{line}: {rating_col} {rating:g} is outside {low:g}-{high:g}")
            if qid in out:
                raise InputError(f"{path}:{line}: duplicate {id_col} {qid!r}; keep one rating per question")
            out[qid] = rating
    if not out:
        raise InputError(f"{path}: no ratings found")
    return out
