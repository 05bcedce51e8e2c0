"""Retrieval metrics over page rankings (spec §2): nDCG@k, Recall@k, MRR@k, binary relevance.

A *run* maps a question id to its ranked page ids; *qrels* map a question id to its set of gold
page ids. Every function here takes rankings as already-ordered lists, so ties never need breaking
inside a metric. Rankings coming from a retriever are first put in :func:`canonical_order`, which
is exactly the order trec_eval (and so pytrec_eval) uses for a run file: score descending, then
page id descending (byte order). Our numbers therefore equal pytrec_eval's on the run files we
write (``ndcg_cut_k``, ``recall_k``, and ``recip_rank`` on the run cut to the top k) -- the tests
check this to 1e-9.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from urllib.parse import quote, unquote

from docrag.errors import InputError
from docrag.io import atomic_write_text
from docrag.types import Hit

DEFAULT_METRICS: tuple[str, ...] = ("ndcg@5", "ndcg@10", "recall@5", "recall@10", "mrr@10")

Run = Mapping[str, Sequence[str]]
Qrels = Mapping[str, Iterable[str]]


def canonical_order(hits: Sequence[Hit]) -> list[Hit]:
    """Hits sorted as trec_eval reads a run (score desc, then page id desc), duplicates dropped
    (first occurrence kept), ranks renumbered from 1."""
    seen: set[str] = set()
    unique = []
    for h in hits:
        if h.page_id not in seen:
            seen.add(h.page_id)
            unique.append(h)
    ordered = sorted(unique, key=lambda h: (_score_key(h.score), h.page_id.encode("utf-8")), reverse=True)
    return [replace(h, score=float(h.score), rank=i + 1) for i, h in enumerate(ordered)]


def _score_key(score: float) -> float:
    s = float(score)
    return -math.inf if math.isnan(s) else s  # a NaN score ranks last instead of scrambling the sort


# -- per-question metrics ------------------------------------------------------------------------

def recall_at_k(ranked: Sequence[str], relevant: Iterable[str], k: int) -> float:
    rel = set(relevant)
    if not rel:
        return 0.0
    return len(rel.intersection(ranked[:k])) / len(rel)


def ndcg_at_k(ranked: Sequence[str], relevant: Iterable[str], k: int) -> float:
    rel = set(relevant)
    if not rel:
        return 0.0
    dcg = 0.0
    for r, pid in enumerate(ranked[:k], start=1):
        if pid in rel:
            dcg += 1.0 / math.log2(r + 1)
    idcg = 0.0
    for r in range(1, min(len(rel), k) + 1):
        idcg += 1.0 / math.log2(r + 1)
    return dcg / idcg


def mrr_at_k(ranked: Sequence[str], relevant: Iterable[str], k: int) -> float:
    rel = set(relevant)
    for r, pid in enumerate(ranked[:k], start=1):
        if pid in rel:
            return 1.0 / r
    return 0.0


def hit_at_k(ranked: Sequence[str], relevant: Iterable[str], k: int) -> bool:
    """True when at least one gold page is in the top k."""
    return bool(set(relevant).intersection(ranked[:k]))


_FUNCS = {"ndcg": ndcg_at_k, "recall": recall_at_k, "mrr": mrr_at_k}


def parse_metric(name: str) -> tuple[str, int]:
    """``"ndcg@10"`` -> ``("ndcg", 10)``; clear error for anything else."""
    fam, sep, k = name.partition("@")
    if fam not in _FUNCS or not sep or not k.isdigit() or int(k) < 1:
        raise InputError(f"unknown retrieval metric {name!r}; use ndcg@K, recall@K or mrr@K (K >= 1)")
    return fam, int(k)


def question_scores(ranked: Sequence[str], relevant: Iterable[str],
                    metrics: Sequence[str] = DEFAULT_METRICS) -> dict[str, float]:
    """All ``metrics`` (fractions, 0..1) for one ranked list."""
    rel = set(relevant)
    out = {}
    for m in metrics:
        fam, k = parse_metric(m)
        out[m] = _FUNCS[fam](ranked, rel, k)
    return out


def score_run(run: Run, qrels: Qrels, metrics: Sequence[str] = DEFAULT_METRICS) -> dict[str, dict[str, float]]:
    """Per-question scores for every question in ``qrels`` (a question missing from ``run``
    retrieved nothing and scores 0)."""
    return {qid: question_scores(list(run.get(qid, ())), rel, metrics) for qid, rel in qrels.items()}


def mean_scores(per_question: Mapping[str, Mapping[str, float]], qids: Iterable[str] | None = None,
                percent: bool = True) -> dict[str, float]:
    """Mean of each metric over ``qids`` (all questions by default), in percent unless told."""
    ids = list(per_question) if qids is None else list(qids)
    if not ids:
        return {}
    names = list(per_question[ids[0]])
    scale = 100.0 if percent else 1.0
    return {m: scale * sum(per_question[q][m] for q in ids) / len(ids) for m in names}


def recall_curve(run: Run, qrels: Qrels, max_k: int) -> dict[int, float]:
    """Mean Recall@k (percent) for k = 1..max_k."""
    if not qrels:
        return {}
    return {k: 100.0 * sum(recall_at_k(list(run.get(q, ())), rel, k) for q, rel in qrels.items()) / len(qrels)
            for k in range(1, max_k + 1)}


# -- TREC files ------------------------------------------------------------------------------------

def trec_id(value: str) -> str:
    """An id as written in TREC files: whitespace and ``%`` percent-encoded (UTF-8), so ids with
    spaces (FinRAGBench-V query ids) survive the whitespace-separated format; :func:`from_trec_id`
    reverses it."""
    if not value:
        raise InputError("an empty id cannot be written to a TREC file")
    return "".join(quote(c, safe="") if c.isspace() or c == "%" else c for c in value)


def from_trec_id(value: str) -> str:
    return unquote(value)


def write_trec_run(path: Path, hits_by_qid: Mapping[str, Sequence[Hit]], tag: str = "docrag") -> None:
    """A TREC run file ``qid Q0 page_id rank score tag`` (scores written exactly, ``repr``; ids
    through :func:`trec_id`)."""
    lines = []
    tag = trec_id(tag or "docrag")
    for qid, hits in hits_by_qid.items():
        q = trec_id(qid)
        for h in hits:
            lines.append(f"{q} Q0 {trec_id(h.page_id)} {h.rank} {float(h.score)!r} {tag}\n")
    atomic_write_text(path, "".join(lines))


def write_trec_qrels(path: Path, qrels: Qrels) -> None:
    """A TREC qrels file ``qid 0 page_id 1`` (binary relevance; ids through :func:`trec_id`)."""
    lines = []
    for qid, rel in qrels.items():
        q = trec_id(qid)
        for pid in sorted(rel):
            lines.append(f"{q} 0 {trec_id(pid)} 1\n")
    atomic_write_text(path, "".join(lines))


def read_trec_run(path: Path) -> dict[str, dict[str, float]]:
    """``{qid: {page_id: score}}`` from a TREC run file (the form pytrec_eval takes)."""
    run: dict[str, dict[str, float]] = {}
    for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        parts = line.split()
        if len(parts) != 6:
            raise InputError(f"{path}:{n}: expected 'qid Q0 docid rank score tag', got {line!r}")
        run.setdefault(from_trec_id(parts[0]), {})[from_trec_id(parts[2])] = float(parts[4])
    return run


def read_trec_qrels(path: Path) -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = {}
    for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        parts = line.split()
        if len(parts) != 4:
            raise InputError(f"{path}:{n}: expected 'qid 0 docid relevance', got {line!r}")
        qrels.setdefault(from_trec_id(parts[0]), {})[from_trec_id(parts[2])] = int(parts[3])
    return qrels


# -- independent check with pytrec_eval ------------------------------------------------------------

def pytrec_eval_scores(run: Mapping[str, Mapping[str, float]], qrels: Mapping[str, Mapping[str, int]],
                       metrics: Sequence[str] = DEFAULT_METRICS) -> dict[str, dict[str, float]]:
    """The same metrics computed by pytrec_eval on a scored run (``{qid: {page_id: score}}``).

    ``mrr@k`` is pytrec_eval's ``recip_rank`` on the run cut to its top k (trec_eval order);
    questions absent from the run score 0, as in :func:`score_run`.
    """
    import pytrec_eval

    out: dict[str, dict[str, float]] = {q: {} for q in qrels}
    for m in metrics:
        fam, k = parse_metric(m)
        if fam == "mrr":
            cut = {q: dict(sorted(d.items(), key=lambda kv: (kv[1], kv[0].encode("utf-8")), reverse=True)[:k])
                   for q, d in run.items()}
            measure, key, use = "recip_rank", "recip_rank", cut
        else:
            measure = f"{'ndcg_cut' if fam == 'ndcg' else 'recall'}.{k}"
            key, use = f"{'ndcg_cut' if fam == 'ndcg' else 'recall'}_{k}", run
        res = pytrec_eval.RelevanceEvaluator({q: dict(r) for q, r in qrels.items()}, {measure}).evaluate(
            {q: dict(d) for q, d in use.items()})
        for q in qrels:
            out[q][m] = float(res.get(q, {}).get(key, 0.0))
    return out


def max_abs_difference(a: Mapping[str, Mapping[str, float]], b: Mapping[str, Mapping[str, float]]) -> float:
    """Largest |a - b| over questions and metrics present in ``a`` (missing in ``b`` counts as 0)."""
    diff = 0.0
    for q, scores in a.items():
        for m, v in scores.items():
            diff = max(diff, abs(v - b.get(q, {}).get(m, 0.0)))
    return diff
