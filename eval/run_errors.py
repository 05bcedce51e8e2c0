"""Failures recorded by an eval run (``errors.jsonl``): which are still open, and which to retry.

A generator call that failed leaves its question without an answer (retried on resume); a judge call
that failed leaves an error verdict in the question's record (that judge is asked again on resume).
Judge errors caused by the reply or the data ("not 'true' or 'false'", a page not in the corpus) are
not call failures and are not retried.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from docrag.eval.data import QAItem
from docrag.eval.records import ErrorRecord, GenerationRecord

CALL_FAILURE_MARKERS = ("judge call failed", "backend error")


def is_call_failure(error: str | None) -> bool:
    """A judge error caused by a failed call (worth retrying), not by a reply or the data."""
    return bool(error) and any(m in error for m in CALL_FAILURE_MARKERS)


def answer_judge_failed(rec: GenerationRecord) -> bool:
    return rec.answer_verdict is not None and is_call_failure(rec.answer_verdict.error)


def citation_judge_failed(rec: GenerationRecord) -> bool:
    return any(is_call_failure(e) for r in (rec.citations or {}).values() for e in r.get("errors", []))


def judge_failed(rec: GenerationRecord) -> bool:
    return answer_judge_failed(rec) or citation_judge_failed(rec)


def open_errors(items: Sequence[QAItem], generations: Mapping[str, GenerationRecord],
                errors: Mapping[str, ErrorRecord]) -> dict:
    """The failures still open after a run: questions without a record (generation failed) or whose
    record holds a failed judge call; ``by_stage`` counts them, ``questions`` lists ``{qid, stage, error}``."""
    out: list[dict] = []
    for it in items:
        rec = generations.get(it.qid)
        err = errors.get(it.qid)
        if rec is None and err is not None:
            out.append({"qid": it.qid, "stage": err.stage, "error": err.error})
        elif rec is not None and judge_failed(rec):
            stage = "answer_judge" if answer_judge_failed(rec) else "citation_judge"
            out.append({"qid": it.qid, "stage": stage, "error": err.error if err else "judge call failed"})
    by_stage: dict[str, int] = {}
    for e in out:
        key = e["stage"].split(":")[0]
        by_stage[key] = by_stage.get(key, 0) + 1
    return {"n": len(out), "by_stage": by_stage, "questions": out}
