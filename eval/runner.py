"""The resumable evaluation runner: retrieval, generation, answer judging, citation judging, report.

``Evaluator(corpus, items, out=RUN_DIR, config=EvalConfig(...), settings=...).run()`` (or
:meth:`Evaluator.from_files`) writes every record to RUN_DIR as soon as it exists, so a killed run
resumes where it stopped. RUN_DIR layout (every JSONL record carries ``qid``; the typed records are
in :mod:`docrag.eval.records`, every field in ``docs/evaluation.md``)::

    run.json            RunMeta: identity (checked on resume), versions, sessions, timings, status
    questions.jsonl     the evaluated questions (QAItem.to_json())
    retrieval.jsonl     RetrievalRecord  {qid, retriever, k, hits: [Hit.to_json()], seconds}  (stage 1)
    run.trec            TREC run of the top-k hits (trec_eval order); qrels.trec  its gold pages
    answers.jsonl       AnswerRecord     {qid, context, context_pages, answer, seconds}       (stage 2)
    judgements.jsonl    JudgementRecord  {qid, verdict: {correct, judge, raw, error}}        (stage 3)
    citations.jsonl     CitationRecord   {qid, results: {level: CitationResult.to_json()}}    (stage 4)
    generations.jsonl   GenerationRecord one complete record per question (stage 5, what the viewer reads)
    errors.jsonl        ErrorRecord      {qid, stage, error, at}: a generator call that failed (the question
                        has no answer yet) or a judge call that failed; a resumed run retries exactly these
    verdict_cache.jsonl the citation judge's verdict cache
    report.json / report.md / report.csv / metrics_by_category.png / recall_at_k.png

Settings (endpoints, generation options) are resolved once by the caller and passed in as
``settings``; the runner never reads the config file or the environment itself.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from docrag._version import __version__
from docrag.citation.pixel_grounding import citations_pixel_record
from docrag.config import DEFAULT_RETRIEVAL_BATCH, Settings, load_settings
from docrag.corpus import Corpus
from docrag.errors import DocragError, InputError
from docrag.eval.answer_metrics import AnswerJudge, ProxyAnswerJudge, answer_scores, get_answer_judge
from docrag.eval.attribution import attribute, gold_box_iou
from docrag.eval.data import QAItem, load_qa
from docrag.eval.record_log import RecordLog
from docrag.eval.records import (
    AnswerMetrics,
    AnswerRecord,
    CitationRecord,
    ErrorRecord,
    GenerationRecord,
    Gold,
    JudgementRecord,
    RecordError,
    RetrievalRecord,
    RetrievalSummary,
    RunMeta,
    Session,
)
from docrag.eval.retrieval_metrics import canonical_order, hit_at_k, question_scores, write_trec_qrels, write_trec_run
from docrag.eval.run_config import EvalConfig, retrieval_metrics_for
from docrag.eval.run_dir import (
    RunDirError,
    file_or_folder_hash,
    items_hash,
    now,
    prepare_run_dir,
    run_identity,
    slug,
)
from docrag.eval.run_errors import (
    answer_judge_failed,
    citation_judge_failed,
    is_call_failure,
    judge_failed,
    open_errors,
)
from docrag.evidence import Context
from docrag.io import atomic_write_json, sha256_file, write_jsonl
from docrag.types import Answer, Citation

log = logging.getLogger(__name__)

__all__ = ["EvalConfig", "Evaluator", "RunDirError", "retrieval_metrics_for"]


class Evaluator:
    """Runs an evaluation into RUN_DIR; see the module docstring."""

    def __init__(self, corpus: Corpus | str | Path, items: Sequence[QAItem], out: str | Path,
                 config: EvalConfig | None = None, *, qa_identity: str | None = None,
                 overwrite: bool = False, show_progress: bool = True,
                 generator: Any = None, index: Any = None, citation_judge: Any = None,
                 answer_judge: AnswerJudge | None = None, rebuild_index: bool = False,
                 retriever_options: dict[str, Any] | None = None, settings: Settings | None = None) -> None:
        self.corpus = corpus if isinstance(corpus, Corpus) else Corpus.open(corpus)
        self.items = list(items)
        if not self.items:
            raise InputError("no questions to evaluate")
        self.out = Path(out)
        self.config = config or EvalConfig()
        # resolved by the caller (the CLI, from_files); None: the built-in defaults, no file or environment
        self.settings = settings if settings is not None else Settings()
        self.show_progress = show_progress
        self.overwrite = overwrite
        self.qa_identity = qa_identity or items_hash(self.items)
        # Injected objects (tests, notebooks) replace the registry lookups; they are part of the identity.
        self._generator, self._index = generator, index
        self._citation_judge, self._answer_judge = citation_judge, answer_judge
        self._injected = {"index": index, "generator": generator, "citation_judge": citation_judge,
                          "answer_judge": answer_judge}
        self.rebuild_index = rebuild_index
        self.retriever_options = dict(retriever_options or {})  # batch_size, device: runtime, not identity
        self.timings: dict[str, float] = {}
        self.qa_path: str | None = None
        self._errors: RecordLog[ErrorRecord] = RecordLog(self.out / "errors.jsonl", ErrorRecord)

    @classmethod
    def from_files(cls, corpus: str | Path, qa: str | Path, out: str | Path, config: EvalConfig | None = None,
                   *, qrels: str | Path | None = None, limit: int | None = None, settings: Settings | None = None,
                   **kwargs: Any) -> Evaluator:
        """Load the questions of ``qa`` (our JSONL or FinRAGBench-V; ``limit`` keeps the first N).

        The public entry point: ``settings`` None resolves them here, once (:func:`docrag.config.load_settings`)."""
        if settings is None:
            settings = load_settings()
        c = Corpus.open(corpus)
        items = load_qa(qa, c, qrels=qrels, limit=limit)
        ident = file_or_folder_hash(Path(qa))[:16] + (f"+{sha256_file(Path(qrels))[:16]}" if qrels else "")
        ev = cls(c, items, out, config, qa_identity=ident, settings=settings, **kwargs)
        ev.qa_path = str(qa)
        return ev

    # -- run folder ------------------------------------------------------------------------------
    def _identity(self) -> dict:
        return run_identity(self.config.identity(), self.corpus.fingerprint(), self.qa_identity, self._injected)

    def _save_meta(self, meta: RunMeta) -> None:
        meta.timings = {k: round(v, 3) for k, v in self.timings.items()}
        meta.updated = now()
        atomic_write_json(self.out / "run.json", meta.to_json())

    def _load(self, kind: type) -> RecordLog:
        try:
            return RecordLog.load(self.out / kind.FILE, kind)
        except RecordError as exc:
            raise RunDirError(f"{exc}; this run folder holds records this docrag cannot resume: "
                              "use a new --out, or --overwrite to discard it") from None

    # -- the run ---------------------------------------------------------------------------------
    def run(self) -> dict:
        """Run (or resume) every stage and write the reports; returns ``report.json``'s content."""
        from docrag.eval.report import build_report, write_reports

        # Build the parts first: a bad name or a missing key fails before RUN_DIR is touched.
        if self.config.uses_generation:
            self._generator_obj()
            self._answer_judge_obj()
        if self.config.uses_citations:
            self._citation_judge_obj()
        meta = prepare_run_dir(self.out, self._identity(), corpus=str(self.corpus.root), qa=self.qa_path,
                               overwrite=self.overwrite)
        self.timings = dict(meta.timings)
        session = Session(started=now(), docrag=__version__, resumed=bool(meta.sessions))
        meta.sessions.append(session)
        meta.status = "running"
        meta.n_questions = len(self.items)
        self._save_meta(meta)
        write_jsonl(self.out / "questions.jsonl", [it.to_json() for it in self.items])

        work: dict[str, int] = {}
        cfg = self.config
        retrieval = self._load(RetrievalRecord)
        if cfg.uses_retrieval:
            work["retrieval"] = self._timed("retrieval", self._retrieve, retrieval)
            self._write_trec(retrieval)
        answers, judgements = self._load(AnswerRecord), self._load(JudgementRecord)
        citations, generations = self._load(CitationRecord), self._load(GenerationRecord)
        self._errors = self._load(ErrorRecord)
        if cfg.uses_generation:
            work.update(self._timed("generation", self._per_question, retrieval, answers, judgements,
                                    citations, generations))
        session.work_done, session.finished = work, now()

        t0 = time.perf_counter()
        report = build_report(self.items, retrieval.by_qid, generations.by_qid, cfg, self.out)
        report["errors"] = open_errors(self.items, generations.by_qid, self._errors.by_qid)
        if report["errors"]["n"]:
            log.warning("%d question(s) failed (%s); see %s and rerun the same command to retry them",
                        report["errors"]["n"], ", ".join(f"{k} {v}" for k, v in report["errors"]["by_stage"].items()),
                        self.out / "errors.jsonl")
        write_reports(report, self.out)
        self.timings["report"] = self.timings.get("report", 0.0) + time.perf_counter() - t0
        meta.status = "complete"
        meta.n_errors = report["errors"]["n"]
        self._save_meta(meta)
        return report

    def _timed(self, stage: str, fn, *args):
        t0 = time.perf_counter()
        try:
            return fn(*args)
        finally:
            self.timings[stage] = self.timings.get(stage, 0.0) + time.perf_counter() - t0

    # -- stage 1: retrieval ---------------------------------------------------------------------
    def _open_index(self):
        if self._index is None:
            from docrag.index import open_index

            rerank = {"rerank": self.config.rerank, "rerank_depth": self.config.rerank_depth} \
                if self.config.rerank else {}
            self._index = open_index(self.corpus, self.config.retriever, index_dir=self.config.index_dir,
                                     build=True, show_progress=self.show_progress, **self.retriever_options,
                                     **({"rebuild": True} if self.rebuild_index else {}), **rerank)
        return self._index

    def _retrieve(self, records: RecordLog[RetrievalRecord]) -> int:
        from tqdm import tqdm

        todo = [it for it in self.items if it.qid not in records]
        if not todo:
            return 0
        index = self._open_index()
        with tqdm(total=len(todo), desc="retrieval", unit="q", disable=not self.show_progress) as bar:
            for start in range(0, len(todo), DEFAULT_RETRIEVAL_BATCH):
                batch = todo[start:start + DEFAULT_RETRIEVAL_BATCH]
                t0 = time.perf_counter()
                results = index.search_batch([it.question for it in batch], k=self.config.k)
                per_q = (time.perf_counter() - t0) / len(batch)
                first = (index.inner.search_batch([it.question for it in batch], k=self.config.k)
                         if self.config.rerank else [None] * len(batch))   # the first stage, reported apart
                for it, hits, first_hits in zip(batch, results, first, strict=True):
                    k = self.config.k
                    records.add(RetrievalRecord(
                        qid=it.qid, retriever=self.config.retriever, k=k, hits=canonical_order(hits)[:k],
                        seconds=round(per_q, 6), reranker=self.config.rerank if first_hits is not None else None,
                        first_stage_hits=None if first_hits is None else canonical_order(first_hits)[:k]))
                bar.update(len(batch))
        return len(todo)

    def _write_trec(self, records: RecordLog[RetrievalRecord]) -> None:
        ids = [it.qid for it in self.items if it.qid in records]
        write_trec_run(self.out / "run.trec", {q: records[q].hits for q in ids}, tag=slug(self.config.retriever))
        write_trec_qrels(self.out / "qrels.trec", {it.qid: it.gold_pages for it in self.items})

    # -- stages 2-5, one question at a time --------------------------------------------------------
    def _generator_obj(self):
        if self._generator is None:
            from docrag.generation import get_generator

            name = self.config.generator
            opts = self.settings.generator_options(name)
            if self.config.coords:
                opts["coords"] = self.config.coords
            if self.config.ground:
                opts["ground"] = self.config.ground
            if self.config.cite_by:
                opts["cite_by"] = self.config.cite_by
            self._generator = get_generator(name, **opts)
        return self._generator

    def _answer_judge_obj(self) -> AnswerJudge | None:
        if self._answer_judge is None:
            name = self.config.resolved_answer_judge
            opts = {"rel_tol": self.config.rel_tol} if name == "proxy" else self.settings.backend_options(name)
            self._answer_judge = get_answer_judge(name, **opts)
        return self._answer_judge

    def _citation_judge_obj(self):
        if self._citation_judge is None:
            from docrag.citation import get_judge

            name = self.config.judge
            self._citation_judge = get_judge(name, **self.settings.backend_options(name))
        return self._citation_judge

    def _context_pages(self, item: QAItem, retrieval: RecordLog[RetrievalRecord]) -> list[str]:
        if self.config.context == Context.ORACLE:
            return list(item.gold_pages)
        if self.config.context == Context.NONE:
            return []
        return retrieval[item.qid].page_ids

    def _per_question(self, retrieval: RecordLog[RetrievalRecord], answers: RecordLog[AnswerRecord],
                      judgements: RecordLog[JudgementRecord], citations: RecordLog[CitationRecord],
                      generations: RecordLog[GenerationRecord]) -> dict[str, int]:
        from tqdm import tqdm

        cfg = self.config
        done = {"answers": 0, "judgements": 0, "citations": 0, "generations": 0}
        todo = [it for it in self.items
                if it.qid not in generations or judge_failed(generations[it.qid])]
        cache = None
        for item in tqdm(todo, desc="generation", unit="q", disable=not self.show_progress):
            if item.qid in generations:  # a judge call failed last time: ask that judge again
                rec = generations.by_qid.pop(item.qid)
                if answer_judge_failed(rec):
                    judgements.by_qid.pop(item.qid, None)
                if citation_judge_failed(rec):
                    citations.by_qid.pop(item.qid, None)
            if item.qid not in answers:
                pids = self._context_pages(item, retrieval)
                pages = [self.corpus.page(p) for p in pids]
                t0 = time.perf_counter()
                try:
                    ans = self._generator_obj().generate(item.question, pages)
                except DocragError as exc:   # BackendError included: record it, go on with the next question
                    self._record_error(item.qid, "generation", exc)
                    done["errors"] = done.get("errors", 0) + 1
                    continue
                answers.add(self.answer_record(item, ans, pids, time.perf_counter() - t0, retrieval))
                done["answers"] += 1
            answer = answers[item.qid].answer
            judge = self._answer_judge_obj()
            if judge is not None and item.qid not in judgements:
                verdict = judge.judge(item.question, item.answer, answer.answer)
                judgements.add(JudgementRecord(item.qid, verdict))
                done["judgements"] += 1
                if is_call_failure(verdict.error):
                    self._record_error(item.qid, "answer_judge", verdict.error)
            if cfg.uses_citations and item.qid not in citations:
                from docrag.citation import evaluate
                from docrag.citation.cache import open_cache

                if cache is None:
                    cache = open_cache(str(self.out / "verdict_cache.jsonl"))
                results = {}
                for level in cfg.levels:
                    res = evaluate(answer, self.corpus, judge=self._citation_judge_obj(), level=level,
                                   mode=cfg.mode if level == "block" else None, cache=cache, qid=item.qid)
                    results[level] = res.to_json()
                    failed = [e for e in res.errors if is_call_failure(e)]
                    if failed:
                        self._record_error(item.qid, f"citation_judge:{level}", failed[0])
                citations.add(CitationRecord(item.qid, results))
                done["citations"] += 1
            generations.add(self._generation_record(item, retrieval, answers, judgements, citations))
            done["generations"] += 1
        return done

    def answer_record(self, item: QAItem, ans: Answer, pids: list[str], seconds: float,
                      retrieval: RecordLog[RetrievalRecord]) -> AnswerRecord:
        """The record of a fresh answer (tagged with its qid; the retrieved hits when it has none)."""
        ans.meta = {**ans.meta, "qid": item.qid}
        if self.config.context == Context.RETRIEVED and not ans.hits:
            ans.hits = list(retrieval[item.qid].hits)
        return AnswerRecord(item.qid, Context(self.config.context), list(pids), ans, round(seconds, 6))

    def _record_error(self, qid: str, stage: str, error: Exception | str) -> None:
        text = f"{type(error).__name__}: {error}" if isinstance(error, Exception) else str(error)
        text = " ".join(text.split())[:1000]
        log.warning("question %s: %s failed: %s", qid, stage, text)
        self._errors.add(ErrorRecord(qid, stage, text, now()))

    def _generation_record(self, item: QAItem, retrieval: RecordLog[RetrievalRecord], answers: RecordLog[AnswerRecord],
                           judgements: RecordLog[JudgementRecord],
                           citations: RecordLog[CitationRecord]) -> GenerationRecord:
        cfg = self.config
        arec = answers[item.qid]
        answer = arec.answer
        jrec = judgements.get(item.qid)
        verdict = jrec.verdict if jrec else None
        metrics = AnswerMetrics(**answer_scores(answer.answer, item.answer, cfg.rel_tol),
                                accuracy=verdict.correct if verdict else None,
                                iou=gold_box_iou(answer.citations, item.gold_boxes, self.corpus),
                                pixel=citations_pixel_record(answer.citations, item.gold_boxes, item.gold_pages,
                                                             self.corpus.page))
        if "model_citations" in answer.meta:      # grounded: score the model's own boxes beside them
            own = [Citation.from_json(c) for c in answer.meta["model_citations"]]
            metrics.model_pixel = citations_pixel_record(own, item.gold_boxes, item.gold_pages, self.corpus.page)
        cited = {c.page_id for c in answer.citations}
        metrics.cited_gold_page = bool(cited & set(item.gold_pages)) if answer.citations else False
        ret = None
        gold_retrieved = None
        if item.qid in retrieval:
            ranked = retrieval[item.qid].page_ids
            gold_retrieved = hit_at_k(ranked, item.gold_pages, cfg.k)
            ranks = [r for r, p in enumerate(ranked, start=1) if p in set(item.gold_pages)]
            ret = RetrievalSummary(hits=list(retrieval[item.qid].hits), gold_rank=ranks[0] if ranks else None,
                                   gold_retrieved=gold_retrieved,
                                   metrics=question_scores(ranked, item.gold_pages, cfg.metrics))
        crec = citations.get(item.qid)
        cit = crec.results if crec else None
        correct = metrics.accuracy
        if verdict is None:  # no answer judge configured: the proxy decides the stage label
            correct = ProxyAnswerJudge(cfg.rel_tol).judge(item.question, item.answer, answer.answer).correct
        stage = attribute(context=cfg.context, gold_retrieved=gold_retrieved, correct=correct, citations=cit)
        return GenerationRecord(
            qid=item.qid, question=item.question, category=item.category, lang=item.lang,
            answer_type=item.answer_type, gold=Gold(item.answer, list(item.gold_pages), list(item.gold_boxes)),
            context=Context(cfg.context), context_pages=list(arec.context_pages), retrieval=ret, answer=answer,
            generation_seconds=arec.seconds, metrics=metrics, answer_verdict=verdict, citations=cit,
            attribution=stage)
