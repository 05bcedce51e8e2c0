"""The resumable evaluation runner: retrieval, generation, answer judging, citation judging, report.

``Evaluator(corpus, items, out=RUN_DIR, config=EvalConfig(...)).run()`` (or
:meth:`Evaluator.from_files`) writes every record to RUN_DIR as soon as it exists, so a killed run
resumes where it stopped. RUN_DIR layout (all JSONL records carry ``qid``; see
``docs/evaluation.md`` for every field)::

    run.json            config (identity checked on resume), versions, timings, status
    questions.jsonl     the evaluated questions (QAItem.to_json())
    retrieval.jsonl     {qid, retriever, k, hits: [Hit.to_json()], seconds}       (stage 1)
    run.trec            TREC run of the top-k hits (trec_eval order); qrels.trec  its gold pages
    answers.jsonl       {qid, context, context_pages, answer: Answer.to_json(), seconds} (stage 2)
    judgements.jsonl    {qid, verdict: {correct, judge, raw, error}}              (stage 3)
    citations.jsonl     {qid, results: {level: CitationResult.to_json()}}          (stage 4)
    generations.jsonl   one complete record per question (stage 5, what the viewer reads)
    verdict_cache.jsonl the citation judge's verdict cache
    report.json / report.md / report.csv / metrics_by_category.png / recall_at_k.png
"""

from __future__ import annotations

import hashlib
import json
import logging
import platform
import shutil
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from docrag._version import __version__
from docrag.citation.pixel_grounding import citations_pixel_record
from docrag.config import DEFAULT_RETRIEVER
from docrag.corpus import Corpus
from docrag.errors import DocragError, InputError
from docrag.eval.answer_metrics import AnswerJudge, ProxyAnswerJudge, answer_scores, get_answer_judge
from docrag.eval.attribution import attribute, gold_box_iou
from docrag.eval.data import QAItem, load_qa
from docrag.eval.retrieval_metrics import DEFAULT_METRICS, canonical_order, hit_at_k, question_scores
from docrag.io import append_jsonl, atomic_write_json, read_json, read_jsonl, sha256_file, write_jsonl
from docrag.types import Answer, Hit

log = logging.getLogger(__name__)

RUN_SCHEMA = "docrag.eval.run"
RUN_SCHEMA_VERSION = 1
CONTEXTS = ("retrieved", "oracle", "none")
LEVELS = ("page", "block")
RETRIEVAL_BATCH = 16


class RunDirError(DocragError):
    """A RUN_DIR cannot be used as asked (made with another config, or not a run folder)."""


def retrieval_metrics_for(k: int) -> tuple[str, ...]:
    """The default metrics whose cutoff fits in a top-``k`` run, plus nDCG@k and Recall@k (and
    MRR@k when MRR@10 does not fit)."""
    from docrag.eval.retrieval_metrics import parse_metric

    out = [m for m in DEFAULT_METRICS if parse_metric(m)[1] <= k]
    out += [m for m in (f"ndcg@{k}", f"recall@{k}") if m not in out]
    if not any(m.startswith("mrr@") for m in out):
        out.append(f"mrr@{k}")
    return tuple(out)


@dataclass
class EvalConfig:
    """What a run computes. Every field except ``show_progress``-like runtime knobs is part of the
    run's identity: a RUN_DIR made with another config refuses to resume."""

    retriever: str = DEFAULT_RETRIEVER  # "none": no retrieval (only with --context oracle|none)
    generator: str = "extractive"    # "none": retrieval-only run
    judge: str = "grounding"         # citation judge; "none": citations not judged
    answer_judge: str = "auto"       # "auto": the citation judge when it is a model, else "proxy"
    context: str = "retrieved"       # retrieved | oracle (gold pages) | none (question only)
    k: int = 10
    levels: tuple[str, ...] = LEVELS
    mode: str = "crop"               # block level: crop (image-cropping) | box (box-bounding)
    metrics: tuple[str, ...] | None = None   # default: see retrieval_metrics_for(k)
    rel_tol: float = 1e-2
    index_dir: str | None = None
    coords: str | None = None        # box convention of a vision generator (--coords); None: its default
    rerank: str = ""                 # rerank stage over the retriever's top rerank_depth pages ("" = none)
    rerank_depth: int = 20
    pixel_empty: str = "skip"        # report-time choices of pixel grounding (not part of the identity)
    pixel_average: str = "query"
    pixel_best: str = "page"

    def __post_init__(self) -> None:
        self.levels = tuple(self.levels)
        self.metrics = tuple(self.metrics) if self.metrics else retrieval_metrics_for(self.k)
        if self.context not in CONTEXTS:
            raise InputError(f"context must be one of {', '.join(CONTEXTS)}, got {self.context!r}")
        if self.k < 1:
            raise InputError(f"k must be at least 1, got {self.k}")
        bad = [lv for lv in self.levels if lv not in LEVELS]
        if bad or not self.levels:
            raise InputError(f"citation levels must be among {', '.join(LEVELS)}, got {list(self.levels)}")
        if self.mode not in ("crop", "box"):
            raise InputError(f"mode must be 'crop' or 'box', got {self.mode!r}")
        if self.context == "retrieved" and self._none(self.retriever):
            raise InputError("--context retrieved needs a retriever; pass --retriever or use --context oracle|none")

    @staticmethod
    def _none(name: str | None) -> bool:
        return name is None or name in ("", "none")

    @property
    def uses_retrieval(self) -> bool:
        return not self._none(self.retriever)

    @property
    def uses_generation(self) -> bool:
        return not self._none(self.generator)

    @property
    def uses_citations(self) -> bool:
        return self.uses_generation and not self._none(self.judge)

    @property
    def resolved_answer_judge(self) -> str:
        if self.answer_judge != "auto":
            return self.answer_judge
        if self.uses_citations and ":" in self.judge and self.judge.split(":", 1)[0] in ("openai", "qwen-vl"):
            return self.judge
        return "proxy"

    def identity(self) -> dict:
        d = asdict(self)
        d["levels"], d["metrics"] = list(self.levels), list(self.metrics)
        d["answer_judge"] = self.resolved_answer_judge
        d.pop("index_dir")  # where an index lives does not change results
        if d.get("coords") is None:
            d.pop("coords")  # runs made before --coords existed keep their identity
        d.pop("pixel_empty")  # pixel grounding choices are applied to stored records at report time
        d.pop("pixel_average")
        d.pop("pixel_best")
        if not self.rerank:  # runs made before the rerank stage existed keep their identity
            d.pop("rerank")
            d.pop("rerank_depth")
        return d


@dataclass
class _Records:
    """Finished records of one stage, keyed by qid (a torn last line is ignored by read_jsonl)."""

    path: Path
    by_qid: dict[str, dict] = field(default_factory=dict)
    duplicates: int = 0

    @classmethod
    def load(cls, path: Path) -> _Records:
        rec = cls(path)
        _drop_torn_tail(path)
        for r in read_jsonl(path):
            if r["qid"] in rec.by_qid:
                rec.duplicates += 1
            rec.by_qid[r["qid"]] = r
        if rec.duplicates:
            log.warning("%s: %d duplicate record(s); the last of each is used", path, rec.duplicates)
        return rec

    def add(self, record: dict) -> None:
        append_jsonl(self.path, record)
        self.by_qid[record["qid"]] = record

    def __contains__(self, qid: str) -> bool:
        return qid in self.by_qid


class Evaluator:
    """Runs an evaluation into RUN_DIR; see the module docstring."""

    def __init__(self, corpus: Corpus | str | Path, items: Sequence[QAItem], out: str | Path,
                 config: EvalConfig | None = None, *, qa_identity: str | None = None,
                 overwrite: bool = False, show_progress: bool = True,
                 generator: Any = None, index: Any = None, citation_judge: Any = None,
                 answer_judge: AnswerJudge | None = None, rebuild_index: bool = False) -> None:
        self.corpus = corpus if isinstance(corpus, Corpus) else Corpus.open(corpus)
        self.items = list(items)
        if not self.items:
            raise InputError("no questions to evaluate")
        self.out = Path(out)
        self.config = config or EvalConfig()
        self.show_progress = show_progress
        self.overwrite = overwrite
        self.qa_identity = qa_identity or _items_hash(self.items)
        # Injected objects (tests, notebooks) replace the registry lookups.
        self._generator, self._index = generator, index
        self._citation_judge, self._answer_judge = citation_judge, answer_judge
        self.rebuild_index = rebuild_index
        self.timings: dict[str, float] = {}
        self.qa_path: str | None = None

    @classmethod
    def from_files(cls, corpus: str | Path, qa: str | Path, out: str | Path, config: EvalConfig | None = None,
                   *, qrels: str | Path | None = None, limit: int | None = None, **kwargs: Any) -> Evaluator:
        """Load the questions of ``qa`` (our JSONL or FinRAGBench-V; ``limit`` keeps the first N)."""
        c = Corpus.open(corpus)
        items = load_qa(qa, c, qrels=qrels, limit=limit)
        ident = _file_or_folder_hash(Path(qa))[:16] + (f"+{sha256_file(Path(qrels))[:16]}" if qrels else "")
        ev = cls(c, items, out, config, qa_identity=ident, **kwargs)
        ev.qa_path = str(qa)
        return ev

    # -- run folder ------------------------------------------------------------------------------
    def _identity(self) -> dict:
        return {"config": self.config.identity(), "corpus_fingerprint": self.corpus.fingerprint(),
                "qa": self.qa_identity}

    def _prepare_dir(self) -> dict:
        meta_path = self.out / "run.json"
        ident = self._identity()
        if self.out.exists() and any(self.out.iterdir()):
            if not meta_path.exists():
                if not self.overwrite:
                    raise RunDirError(f"{self.out}: folder is not empty and is not a docrag eval run; "
                                      "choose a new --out or pass --overwrite")
            else:
                meta = read_json(meta_path)
                if meta.get("schema") != RUN_SCHEMA:
                    raise RunDirError(f"{meta_path}: not a docrag eval run (schema {meta.get('schema')!r})")
                if meta.get("identity") == ident:
                    log.info("resuming run in %s", self.out)
                    return meta
                if not self.overwrite:
                    diffs = _describe_diff(meta.get("identity", {}), ident)
                    raise RunDirError(f"{self.out} was made with a different configuration ({diffs}); "
                                      "use a new --out, or --overwrite to discard it")
            log.warning("--overwrite: discarding the previous run in %s", self.out)
            shutil.rmtree(self.out)
        self.out.mkdir(parents=True, exist_ok=True)
        meta = {"schema": RUN_SCHEMA, "schema_version": RUN_SCHEMA_VERSION, "identity": ident,
                "corpus": str(self.corpus.root), "qa": self.qa_path, "versions": _versions(),
                "created": _now(), "sessions": [], "timings": {}, "status": "created"}
        atomic_write_json(meta_path, meta)
        return meta

    def _save_meta(self, meta: dict) -> None:
        meta["timings"] = {k: round(v, 3) for k, v in self.timings.items()}
        meta["updated"] = _now()
        atomic_write_json(self.out / "run.json", meta)

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
        meta = self._prepare_dir()
        self.timings = {k: float(v) for k, v in meta.get("timings", {}).items()}
        session = {"started": _now(), "docrag": __version__, "resumed": bool(meta.get("sessions"))}
        meta["sessions"].append(session)
        meta["status"] = "running"
        meta["n_questions"] = len(self.items)
        self._save_meta(meta)
        write_jsonl(self.out / "questions.jsonl", [it.to_json() for it in self.items])

        work: dict[str, int] = {}
        cfg = self.config
        retrieval = _Records.load(self.out / "retrieval.jsonl")
        if cfg.uses_retrieval:
            work["retrieval"] = self._timed("retrieval", self._retrieve, retrieval)
            self._write_trec(retrieval)
        answers = _Records.load(self.out / "answers.jsonl")
        judgements = _Records.load(self.out / "judgements.jsonl")
        citations = _Records.load(self.out / "citations.jsonl")
        generations = _Records.load(self.out / "generations.jsonl")
        if cfg.uses_generation:
            work.update(self._timed("generation", self._per_question, retrieval, answers, judgements,
                                    citations, generations))
        session["work_done"] = work
        session["finished"] = _now()

        t0 = time.perf_counter()
        report = build_report(self.items, retrieval.by_qid, generations.by_qid, cfg, self.out)
        write_reports(report, self.out)
        self.timings["report"] = self.timings.get("report", 0.0) + time.perf_counter() - t0
        meta["status"] = "complete"
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
                                     build=True, show_progress=self.show_progress,
                                     **({"rebuild": True} if self.rebuild_index else {}), **rerank)
        return self._index

    def _retrieve(self, records: _Records) -> int:
        from tqdm import tqdm

        todo = [it for it in self.items if it.qid not in records]
        if not todo:
            return 0
        index = self._open_index()
        with tqdm(total=len(todo), desc="retrieval", unit="q", disable=not self.show_progress) as bar:
            for start in range(0, len(todo), RETRIEVAL_BATCH):
                batch = todo[start:start + RETRIEVAL_BATCH]
                t0 = time.perf_counter()
                results = index.search_batch([it.question for it in batch], k=self.config.k)
                per_q = (time.perf_counter() - t0) / len(batch)
                first = (index.inner.search_batch([it.question for it in batch], k=self.config.k)
                         if self.config.rerank else [None] * len(batch))   # the first stage, reported apart
                for it, hits, first_hits in zip(batch, results, first, strict=True):
                    ranked = canonical_order(hits)[: self.config.k]
                    rec = {"qid": it.qid, "retriever": self.config.retriever, "k": self.config.k,
                           "hits": [h.to_json() for h in ranked], "seconds": round(per_q, 6)}
                    if first_hits is not None:
                        rec["reranker"] = self.config.rerank
                        rec["first_stage_hits"] = [h.to_json() for h in canonical_order(first_hits)[: self.config.k]]
                    records.add(rec)
                bar.update(len(batch))
        return len(todo)

    def _write_trec(self, records: _Records) -> None:
        from docrag.eval.retrieval_metrics import write_trec_qrels, write_trec_run

        ids = [it.qid for it in self.items if it.qid in records]
        write_trec_run(self.out / "run.trec", {q: [Hit(**h) for h in records.by_qid[q]["hits"]] for q in ids},
                       tag=_slug(self.config.retriever))
        write_trec_qrels(self.out / "qrels.trec", {it.qid: it.gold_pages for it in self.items})

    # -- stages 2-5, one question at a time --------------------------------------------------------
    def _generator_obj(self):
        if self._generator is None:
            from docrag.config import load_settings
            from docrag.generation import get_generator

            name = self.config.generator
            opts = load_settings().generator_options(name)
            if self.config.coords:
                opts["coords"] = self.config.coords
            self._generator = get_generator(name, **opts)
        return self._generator

    def _answer_judge_obj(self) -> AnswerJudge | None:
        if self._answer_judge is None:
            from docrag.config import load_settings

            name = self.config.resolved_answer_judge
            opts = {"rel_tol": self.config.rel_tol} if name == "proxy" else load_settings().backend_options(name)
            self._answer_judge = get_answer_judge(name, **opts)
        return self._answer_judge

    def _citation_judge_obj(self):
        if self._citation_judge is None:
            from docrag.citation import get_judge
            from docrag.config import load_settings

            name = self.config.judge
            self._citation_judge = get_judge(name, **load_settings().backend_options(name))
        return self._citation_judge

    def _context_pages(self, item: QAItem, retrieval: _Records) -> list[str]:
        if self.config.context == "oracle":
            return list(item.gold_pages)
        if self.config.context == "none":
            return []
        return [h["page_id"] for h in retrieval.by_qid[item.qid]["hits"]]

    def _per_question(self, retrieval: _Records, answers: _Records, judgements: _Records,
                      citations: _Records, generations: _Records) -> dict[str, int]:
        from tqdm import tqdm

        cfg = self.config
        done = {"answers": 0, "judgements": 0, "citations": 0, "generations": 0}
        todo = [it for it in self.items if it.qid not in generations]
        cache = None
        for item in tqdm(todo, desc="generation", unit="q", disable=not self.show_progress):
            if item.qid not in answers:
                pids = self._context_pages(item, retrieval)
                pages = [self.corpus.page(p) for p in pids]
                t0 = time.perf_counter()
                ans = self._generator_obj().generate(item.question, pages)
                seconds = time.perf_counter() - t0
                ans.meta = {**ans.meta, "qid": item.qid}
                if cfg.context == "retrieved" and not ans.hits:
                    ans.hits = [Hit(**h) for h in retrieval.by_qid[item.qid]["hits"]]
                answers.add({"qid": item.qid, "context": cfg.context, "context_pages": pids,
                             "answer": ans.to_json(), "seconds": round(seconds, 6)})
                done["answers"] += 1
            answer = Answer.from_json(answers.by_qid[item.qid]["answer"])
            judge = self._answer_judge_obj()
            if judge is not None and item.qid not in judgements:
                verdict = judge.judge(item.question, item.answer, answer.answer)
                judgements.add({"qid": item.qid, "verdict": verdict.to_json()})
                done["judgements"] += 1
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
                citations.add({"qid": item.qid, "results": results})
                done["citations"] += 1
            generations.add(self._generation_record(item, retrieval, answers, judgements, citations))
            done["generations"] += 1
        return done

    def _generation_record(self, item: QAItem, retrieval: _Records, answers: _Records,
                           judgements: _Records, citations: _Records) -> dict:
        cfg = self.config
        arec = answers.by_qid[item.qid]
        answer = Answer.from_json(arec["answer"])
        metrics: dict[str, Any] = dict(answer_scores(answer.answer, item.answer, cfg.rel_tol))
        verdict = judgements.by_qid.get(item.qid, {}).get("verdict")
        metrics["accuracy"] = verdict["correct"] if verdict else None
        metrics["iou"] = gold_box_iou(answer.citations, item.gold_boxes, self.corpus)
        metrics["pixel"] = citations_pixel_record(answer.citations, item.gold_boxes, item.gold_pages,
                                                  self.corpus.page)
        cited = {c.page_id for c in answer.citations}
        metrics["cited_gold_page"] = bool(cited & set(item.gold_pages)) if answer.citations else False
        ret = None
        gold_retrieved = None
        if item.qid in retrieval:
            ranked = [h["page_id"] for h in retrieval.by_qid[item.qid]["hits"]]
            gold_retrieved = hit_at_k(ranked, item.gold_pages, cfg.k)
            ranks = [r for r, p in enumerate(ranked, start=1) if p in set(item.gold_pages)]
            ret = {"hits": retrieval.by_qid[item.qid]["hits"], "gold_rank": ranks[0] if ranks else None,
                   "gold_retrieved": gold_retrieved,
                   "metrics": question_scores(ranked, item.gold_pages, cfg.metrics)}
        cit = citations.by_qid.get(item.qid, {}).get("results")
        correct = metrics["accuracy"]
        if verdict is None:  # no answer judge configured: the proxy decides the stage label
            correct = ProxyAnswerJudge(cfg.rel_tol).judge(item.question, item.answer, answer.answer).correct
        stage = attribute(context=cfg.context, gold_retrieved=gold_retrieved, correct=correct, citations=cit)
        return {"qid": item.qid, "question": item.question, "category": item.category, "lang": item.lang,
                "answer_type": item.answer_type,
                "gold": {"answer": item.answer, "pages": list(item.gold_pages),
                         "boxes": [b.to_json() for b in item.gold_boxes]},
                "context": cfg.context, "context_pages": arec["context_pages"], "retrieval": ret,
                "answer": arec["answer"], "generation_seconds": arec.get("seconds"),
                "metrics": metrics, "answer_verdict": verdict, "citations": cit, "attribution": stage}


# -- helpers ---------------------------------------------------------------------------------------

def _file_or_folder_hash(path: Path) -> str:
    """sha256 of a question file, or of every file of a question folder (a local ViDoRe V3 copy)."""
    if not path.is_dir():
        return sha256_file(path)
    h = hashlib.sha256()
    for f in sorted(p for p in path.rglob("*") if p.is_file()):
        h.update(f"{f.relative_to(path)}:{sha256_file(f)}\n".encode())
    return h.hexdigest()


def _drop_torn_tail(path: Path) -> None:
    """Cut a half-written last line (a run killed mid-append) so new records start on a fresh line."""
    if not path.exists() or path.stat().st_size == 0:
        return
    with open(path, "rb+") as fh:
        fh.seek(-1, 2)
        if fh.read(1) == b"\n":
            return
        fh.seek(0)
        data = fh.read()
        keep = data.rfind(b"\n") + 1
        log.warning("%s: dropping a half-written last record (%d bytes) from an interrupted run",
                    path, len(data) - keep)
        fh.truncate(keep)


def _items_hash(items: Sequence[QAItem]) -> str:
    blob = json.dumps([it.to_json() for it in items], sort_keys=True, ensure_ascii=False).encode()
    return hashlib.sha256(blob).hexdigest()[:16]


def _describe_diff(old: dict, new: dict) -> str:
    parts = []
    for key in ("config", "corpus_fingerprint", "qa"):
        a, b = old.get(key), new.get(key)
        if key == "config" and isinstance(a, dict) and isinstance(b, dict):
            for f in sorted(set(a) | set(b)):
                if a.get(f) != b.get(f):
                    parts.append(f"{f}: {a.get(f)!r} -> {b.get(f)!r}")
        elif a != b:
            parts.append({"corpus_fingerprint": "the corpus changed", "qa": "the question file changed"}[key])
    return "; ".join(parts) or "unknown difference"


def _slug(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_.+" else "_" for c in name) or "run"


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def _versions() -> dict[str, str]:
    from importlib import metadata

    out = {"docrag": __version__, "python": platform.python_version(), "platform": platform.platform()}
    for pkg in ("torch", "transformers", "colpali-engine", "sentence-transformers", "bm25s", "pymupdf",
                "pytrec-eval-terrier", "rouge-score", "numpy"):
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            out[pkg] = "not installed"
    return out
