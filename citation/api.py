"""``evaluate`` one answer's citations, batches of answers, dataset scores and dry-run estimates."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from docrag.backends.base import BackendError
from docrag.citation.cache import VerdictCache, open_cache, verdict_key
from docrag.citation.evidence import (
    CitationUnits,
    EvidenceImage,
    Level,
    Mode,
    PageLookup,
    PageSource,
    Unit,
    citation_units,
    evidence_images,
)
from docrag.citation.judge import (
    PROMPT_VERSION,
    Judge,
    JudgeContext,
    build_prompt,
    call_judge,
    judge_cache_id,
    judge_name,
    resolve_judge,
)
from docrag.citation.metrics import CallCounter, UnitVerdict, distinct_sets, score_units, timed
from docrag.citation.verdict import Verdict
from docrag.errors import DocragError
from docrag.evidence import LEVELS
from docrag.types import Answer

log = logging.getLogger(__name__)


@dataclass
class CitationResult:
    """Citation scores of one answer at one level (recall/precision are 0..1, None when excluded)."""

    question: str
    qid: str | None
    level: str
    mode: str
    judge: str
    n_units: int
    recall: float | None
    precision: float | None
    units: list[UnitVerdict] = field(default_factory=list)
    support_all: Verdict | None = None
    calls: int = 0          # judge calls actually made
    cache_hits: int = 0     # verdicts read from the persistent cache
    memo_hits: int = 0      # unit sets with content already asked for this answer
    errors: list[str] = field(default_factory=list)
    usage: dict[str, int] = field(default_factory=dict)
    cost: float | None = None
    judge_seconds: float = 0.0
    answered: bool = True
    warnings: list[str] = field(default_factory=list)

    @property
    def excluded(self) -> bool:
        """Left out of the means: unanswered, or a judge error left the scores undecided."""
        return not self.answered or bool(self.errors) or self.recall is None or self.precision is None

    @property
    def irrelevant(self) -> list[int]:
        return [u.index for u in self.units if u.irrelevant]

    def to_json(self) -> dict:
        return {"qid": self.qid, "question": self.question, "level": self.level, "mode": self.mode,
                "judge": self.judge, "n_units": self.n_units, "recall": self.recall,
                "precision": self.precision, "excluded": self.excluded, "answered": self.answered,
                "support_all": self.support_all.to_json() if self.support_all else None,
                "units": [u.to_json() for u in self.units], "irrelevant": self.irrelevant,
                "calls": self.calls, "cache_hits": self.cache_hits, "memo_hits": self.memo_hits,
                "errors": list(self.errors), "usage": dict(self.usage), "cost": self.cost,
                "judge_seconds": round(self.judge_seconds, 4), "warnings": list(self.warnings)}


def _default_mode(level: Level, mode: Mode | str | None) -> Mode:
    if level is Level.PAGE:
        if mode not in (None, Mode.PAGE, "page"):
            log.debug("page level always shows whole pages; mode %r ignored", mode)
        return Mode.PAGE
    m = Mode(mode or Mode.CROP)
    if m is Mode.PAGE:
        raise ValueError("block level shows boxes: use mode 'crop' (image-cropping) or 'box' (box-bounding)")
    return m


def _qid(answer: Answer, qid: str | None) -> str | None:
    if qid is not None:
        return qid
    q = answer.meta.get("qid", answer.meta.get("id"))
    return str(q) if q is not None else None


class _Session:
    """Asks S(X) for one answer: renders evidence, consults the cache, calls the judge, counts."""

    def __init__(self, judge: Judge, units: Sequence[Unit], mode: Mode, prompt: str,
                 context: JudgeContext, cache: VerdictCache | None) -> None:
        self.judge, self.units, self.mode, self.prompt = judge, units, mode, prompt
        self.context, self.cache, self.counter = context, cache, CallCounter()
        self.cache_id = judge_cache_id(judge)
        self.use_cache = cache is not None and self.cache_id is not None

    def key(self, idx: frozenset[int]) -> str:
        images = evidence_images([self.units[i] for i in sorted(idx)], self.mode)
        return verdict_key(str(self.cache_id), PROMPT_VERSION, self.prompt,
                           [im.content_hash() for im in images])

    def _ask(self, images: Sequence[EvidenceImage]) -> Verdict:
        try:
            return call_judge(self.judge, self.prompt, images, self.context)
        except (DocragError, BackendError, OSError) as exc:   # a failed call is an error verdict
            return Verdict.failed(f"judge call failed: {type(exc).__name__}: {exc}")

    def __call__(self, idx: frozenset[int]) -> Verdict:
        key = None
        if self.use_cache:
            try:
                key = self.key(idx)
            except OSError as exc:   # image unreadable: cannot hash it, ask without the cache
                log.warning("verdict cache skipped for %s: %s", self.context.qid or "answer", exc)
        if key is not None:
            hit = self.cache.get(key)  # type: ignore[union-attr]
            if hit is not None:
                self.counter.cache_hits += 1
                return hit
        images = evidence_images([self.units[i] for i in sorted(idx)], self.mode)
        verdict, seconds = timed(lambda: self._ask(images))
        self.counter.record_call(verdict, seconds)
        if verdict.is_error:
            log.warning("judge %s error on %s: %s", judge_name(self.judge), self.context.qid or "answer",
                        verdict.error)
        elif key is not None:
            self.cache.put(key, verdict, judge=judge_name(self.judge))  # type: ignore[union-attr]
        return verdict


def evaluate(answer: Answer, corpus_or_pages: PageSource, judge: str | Judge = "grounding", *,
             level: Level | str = "block", mode: Mode | str | None = None,
             cache: VerdictCache | str | None = None, qid: str | None = None,
             judge_options: dict[str, Any] | None = None) -> CitationResult:
    """Citation recall and precision of one answer at ``level`` (``page`` | ``block``).

    ``mode`` (block level): ``crop`` (default, image-cropping) or ``box`` (box-bounding); page level
    always shows whole pages. ``cache``: a :class:`VerdictCache` or a JSONL path shared across runs.
    An empty answer text is *unanswered* (no judge call, left out of the means).
    """
    lvl = Level(level)
    md = _default_mode(lvl, mode)
    jd = resolve_judge(judge, **(judge_options or {}))
    vcache = open_cache(cache)
    lookup = corpus_or_pages if isinstance(corpus_or_pages, PageLookup) else PageLookup(corpus_or_pages)
    cu: CitationUnits = citation_units(answer, lookup, lvl)
    result = CitationResult(answer.question, _qid(answer, qid), lvl.value, md.value, judge_name(jd),
                            len(cu.units), None, None, warnings=list(cu.warnings))
    for pid in cu.missing_pages:
        result.errors.append(f"cited page {pid} is not in the corpus; its evidence cannot be shown")
    if not answer.answer.strip():
        result.answered = False
        result.warnings.append("empty answer: unanswered, left out of the means")
        return result
    if result.errors:
        return result
    context = JudgeContext(answer.question, answer.answer, lvl, md, result.qid)
    session = _Session(jd, cu.units, md, build_prompt(answer.answer, md), context, vcache)
    score = score_units([u.key for u in cu.units], session)
    result.recall, result.precision = score.recall, score.precision
    result.support_all, result.memo_hits = score.support_all, score.memo_hits
    result.units = score.units
    for uv in result.units:
        u = cu.units[uv.index]
        uv.page_id, uv.box = u.page_id, (u.box.to_list(2) if u.box is not None else None)
    if score.error:
        result.errors.append(score.error)
    c = session.counter
    result.calls, result.cache_hits, result.usage = c.calls, c.cache_hits, c.usage
    result.judge_seconds = c.judge_seconds
    cost_fn = getattr(jd, "cost", None)
    result.cost = cost_fn(c.usage) if callable(cost_fn) and c.usage else None
    return result


def evaluate_many(answers: Iterable[Answer], corpus_or_pages: PageSource, judge: str | Judge = "grounding", *,
                  levels: Sequence[str] = LEVELS, mode: Mode | str | None = None,
                  cache: VerdictCache | str | None = None, progress: bool = True, workers: int = 1,
                  judge_options: dict[str, Any] | None = None) -> list[CitationResult]:
    """Evaluate many answers at each of ``levels``; one judge and one cache for the whole batch.

    Results come in input order (answer by answer, levels in the order given). ``workers`` > 1
    evaluates answers in parallel threads (for remote judges; a local model serialises anyway).
    """
    from concurrent.futures import ThreadPoolExecutor

    from tqdm import tqdm

    jd = resolve_judge(judge, **(judge_options or {}))
    vcache = open_cache(cache)
    lookup = corpus_or_pages if isinstance(corpus_or_pages, PageLookup) else PageLookup(corpus_or_pages)
    answers = list(answers)

    def one(ans: Answer) -> list[CitationResult]:
        return [evaluate(ans, lookup, jd, level=lvl, mode=mode if lvl != "page" else None, cache=vcache)
                for lvl in levels]

    bar = tqdm(total=len(answers), desc="citations", unit="answer", disable=not progress)
    out: list[CitationResult] = []
    try:
        if workers <= 1:
            for ans in answers:
                out.extend(one(ans))
                bar.update(1)
        else:
            with ThreadPoolExecutor(max_workers=workers) as pool:
                for res in pool.map(one, answers):
                    out.extend(res)
                    bar.update(1)
    finally:
        bar.close()
    return out


def _mean_pct(values: list[float]) -> float | None:
    return 100.0 * sum(values) / len(values) if values else None


def citation_scores(results: Iterable[CitationResult]) -> dict[str, Any]:
    """Dataset scores in percent: ``P_Rec, P_Prec, B_Rec, B_Prec`` (None when a level has no
    included answer), ``n`` (questions included at some level), ``n_excluded`` (questions left out at
    some level, by judge error or no answer), per-level counts, and judge call statistics
    (``judge_calls``, ``cache_hits``, ``calls_per_answer`` over questions and per level, ``usage``,
    ``cost``)."""
    results = list(results)
    out: dict[str, Any] = {}
    included: set[str] = set()
    excluded: set[str] = set()
    for prefix, level in (("P", "page"), ("B", "block")):
        rs = [r for r in results if r.level == level]
        ok = [r for r in rs if not r.excluded]
        out[f"{prefix}_Rec"] = _mean_pct([r.recall for r in ok])  # type: ignore[misc]
        out[f"{prefix}_Prec"] = _mean_pct([r.precision for r in ok])  # type: ignore[misc]
        out[f"n_{level}"] = len(ok)
        out[f"n_excluded_{level}"] = len(rs) - len(ok)
        out[f"n_judge_errors_{level}"] = sum(1 for r in rs if r.errors)
        out[f"calls_per_answer_{level}"] = sum(r.calls for r in rs) / len(rs) if rs else 0.0
        included |= {_result_key(r) for r in ok}
        excluded |= {_result_key(r) for r in rs if r.excluded}
    out["n"] = len(included)
    out["n_excluded"] = len(excluded)
    n_answers = len({_result_key(r) for r in results}) or 1
    calls = sum(r.calls for r in results)
    out["judge_calls"] = calls
    out["cache_hits"] = sum(r.cache_hits for r in results)
    out["calls_per_answer"] = calls / n_answers if results else 0.0
    usage: dict[str, int] = {}
    for r in results:
        for k, v in r.usage.items():
            usage[k] = usage.get(k, 0) + v
    out["usage"] = usage
    costs = [r.cost for r in results if r.cost is not None]
    out["cost"] = sum(costs) if costs else None
    return out


def _result_key(r: CitationResult) -> str:
    return r.qid if r.qid is not None else r.question


@dataclass
class CallEstimate:
    """Judge calls one answer may need: worst case (every S true), minus cache hits, vs 1 + 2|C|."""

    n_units: int
    worst_case: int
    uncached: int
    reference: int   # the reference scripts' 1 + 2|C| (0 for empty C)
    best_case: int   # S(C) false (or |C| = 1)

    def to_json(self) -> dict:
        return dict(self.__dict__)


def dry_run(answer: Answer, corpus_or_pages: PageSource, judge: str | Judge = "grounding", *,
            level: Level | str = "block", mode: Mode | str | None = None,
            cache: VerdictCache | str | None = None) -> CallEstimate:
    """Estimate judge calls without calling the judge (distinct unit sets, cache consulted)."""
    lvl = Level(level)
    md = _default_mode(lvl, mode)
    jd = resolve_judge(judge)
    vcache = open_cache(cache)
    cu = citation_units(answer, PageLookup(corpus_or_pages) if not isinstance(corpus_or_pages, PageLookup)
                        else corpus_or_pages, lvl)
    n = len(cu.units)
    if not answer.answer.strip() or cu.missing_pages or n == 0:
        return CallEstimate(n, 0, 0, 1 + 2 * n if n else 0, 0)
    sets = distinct_sets([u.key for u in cu.units])
    uncached = len(sets)
    if vcache is not None and judge_cache_id(jd) is not None:
        context = JudgeContext(answer.question, answer.answer, lvl, md, _qid(answer, None))
        session = _Session(jd, cu.units, md, build_prompt(answer.answer, md), context, vcache)
        uncached = sum(1 for s in sets if session.key(s) not in vcache)
    return CallEstimate(n, len(sets), uncached, 1 + 2 * n, 1)


def dry_run_many(answers: Iterable[Answer], corpus_or_pages: PageSource, judge: str | Judge = "grounding", *,
                 levels: Sequence[str] = LEVELS, mode: Mode | str | None = None,
                 cache: VerdictCache | str | None = None) -> dict[str, int]:
    """Totals of :func:`dry_run` over answers and levels."""
    jd = resolve_judge(judge)
    vcache = open_cache(cache)
    lookup = corpus_or_pages if isinstance(corpus_or_pages, PageLookup) else PageLookup(corpus_or_pages)
    tot = {"answers": 0, "worst_case": 0, "uncached": 0, "reference": 0, "best_case": 0}
    for ans in answers:
        tot["answers"] += 1
        for lvl in levels:
            est = dry_run(ans, lookup, jd, level=lvl, mode=mode if lvl != "page" else None, cache=vcache)
            for k in ("worst_case", "uncached", "reference", "best_case"):
                tot[k] += getattr(est, k)
    return tot
