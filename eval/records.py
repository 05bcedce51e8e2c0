"""The typed records of an evaluation RUN_DIR: what ``docrag eval`` writes and the report and viewer read.

One dataclass per file (every JSONL line is one record keyed by ``qid``)::

    run.json           RunMeta           schema, schema_version, identity, versions, sessions, status
    retrieval.jsonl    RetrievalRecord   {qid, retriever, k, hits, seconds[, reranker, first_stage_hits]}
    answers.jsonl      AnswerRecord      {qid, context, context_pages, answer, seconds}
    judgements.jsonl   JudgementRecord   {qid, verdict: {correct, judge, raw, error}}
    citations.jsonl    CitationRecord    {qid, results: {level: CitationResult.to_json()}}
    generations.jsonl  GenerationRecord  one complete record per question
    errors.jsonl       ErrorRecord       {qid, stage, error, at}

``to_json`` writes the exact on-disk form; ``from_json(d, where)`` reads it and raises
:class:`RecordError` naming the file, line and field when a line has another shape (reading and
appending files: :mod:`docrag.eval.record_log`). The shape version is ``run.json``'s
``schema_version`` (:data:`RUN_SCHEMA_VERSION`); a run folder of another version is refused with a
message saying what to do (no older shape exists, so :data:`MIGRATIONS`, where one would go, is empty).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from docrag.errors import InputError
from docrag.eval.answer_metrics import AnswerVerdict
from docrag.eval.attribution import STAGES
from docrag.evidence import LEVELS, Context, GoldEvidence
from docrag.geometry import GeometryError
from docrag.types import Answer, Hit

log = logging.getLogger(__name__)

RUN_SCHEMA = "docrag.eval.run"
RUN_SCHEMA_VERSION = 1
#: ``{old_version: function(run.json dict) -> dict of old_version + 1}``; applied in order on read
MIGRATIONS: dict[int, Callable[[dict], dict]] = {}


class RecordError(InputError):
    """A run record of another shape than this docrag writes (names the file, line and field)."""


_MISSING = object()
_NUM = (int, float)


def _get(d: Mapping[str, Any], name: str, where: str, types: tuple[type, ...], default: Any = _MISSING, *,
         none: bool = False) -> Any:
    """Field ``name`` of ``d``, checked against ``types`` (``none``: None allowed)."""
    if name not in d:
        if default is _MISSING:
            raise RecordError(f"{where}: field {name!r} missing")
        return default
    value = d[name]
    if value is None and none:
        return None
    if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
        want = " or ".join(t.__name__ for t in types) + (" or null" if none else "")
        raise RecordError(f"{where}: field {name!r} must be {want}, got {value!r:.80}")
    return value


def _obj(d: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(d, Mapping):
        raise RecordError(f"{where}: expected a JSON object, got {d!r:.80}")
    return d


def _hits(raw: Any, where: str, name: str = "hits") -> list[Hit]:
    if not isinstance(raw, list):
        raise RecordError(f"{where}: field {name!r} must be a list of hits")
    try:
        return [Hit(**h) for h in raw]
    except TypeError as exc:
        raise RecordError(f"{where}: field {name!r}: not a hit ({exc})") from None


def _answer(raw: Any, where: str) -> Answer:
    try:
        return Answer.from_json(_obj(raw, f"{where}: field 'answer'"))
    except (KeyError, TypeError, ValueError, GeometryError) as exc:
        raise RecordError(f"{where}: field 'answer': not an Answer record ({type(exc).__name__}: {exc})") from None


def _verdict(raw: Any, where: str) -> AnswerVerdict:
    d = _obj(raw, f"{where}: field 'verdict'")
    return AnswerVerdict(correct=_get(d, "correct", where, (bool,), none=True),
                         judge=_get(d, "judge", where, (str,)), raw=_get(d, "raw", where, (str,), default=""),
                         error=_get(d, "error", where, (str,), default=None, none=True))


def _citations(raw: Any, where: str) -> dict[str, dict]:
    """``{level: CitationResult.to_json()}`` (the citation layer's own JSON, checked for what we read)."""
    d = _obj(raw, f"{where}: field 'results'")
    out = {}
    for level, res in d.items():
        if level not in LEVELS:
            raise RecordError(f"{where}: citation level {level!r} is not one of {', '.join(LEVELS)}")
        w = f"{where}: citations[{level!r}]"
        res = _obj(res, w)
        _get(res, "recall", w, _NUM, none=True), _get(res, "precision", w, _NUM, none=True)
        out[level] = {**res, "errors": _get(res, "errors", w, (list,), default=[])}
    return out


@dataclass
class RetrievalRecord:
    """Stage 1: the top-k hits of one question (and the first stage's own, when a reranker ran)."""

    FILE: ClassVar[str] = "retrieval.jsonl"
    qid: str
    retriever: str
    k: int
    hits: list[Hit]
    seconds: float = 0.0
    reranker: str | None = None
    first_stage_hits: list[Hit] | None = None

    @property
    def page_ids(self) -> list[str]:
        return [h.page_id for h in self.hits]

    def to_json(self) -> dict:
        out = {"qid": self.qid, "retriever": self.retriever, "k": self.k, "hits": [h.to_json() for h in self.hits],
               "seconds": self.seconds}
        if self.first_stage_hits is not None:
            out["reranker"] = self.reranker or ""
            out["first_stage_hits"] = [h.to_json() for h in self.first_stage_hits]
        return out

    @classmethod
    def from_json(cls, d: Any, where: str = FILE) -> RetrievalRecord:
        d = _obj(d, where)
        first = d.get("first_stage_hits")
        return cls(qid=_get(d, "qid", where, (str,)), retriever=_get(d, "retriever", where, (str,)),
                   k=_get(d, "k", where, (int,)), hits=_hits(d.get("hits"), where),
                   seconds=_get(d, "seconds", where, _NUM, default=0.0),
                   reranker=_get(d, "reranker", where, (str,), default=None, none=True),
                   first_stage_hits=None if first is None else _hits(first, where, "first_stage_hits"))


@dataclass
class AnswerRecord:
    """Stage 2: the generator's answer on the pages it saw."""

    FILE: ClassVar[str] = "answers.jsonl"
    qid: str
    context: Context
    context_pages: list[str]
    answer: Answer
    seconds: float | None = None

    def to_json(self) -> dict:
        return {"qid": self.qid, "context": Context(self.context).value, "context_pages": list(self.context_pages),
                "answer": self.answer.to_json(), "seconds": self.seconds}

    @classmethod
    def from_json(cls, d: Any, where: str = FILE) -> AnswerRecord:
        d = _obj(d, where)
        return cls(qid=_get(d, "qid", where, (str,)), context=_context(d, where),
                   context_pages=_get(d, "context_pages", where, (list,)), answer=_answer(d.get("answer"), where),
                   seconds=_get(d, "seconds", where, _NUM, default=None, none=True))


def _context(d: Mapping[str, Any], where: str) -> Context:
    value = _get(d, "context", where, (str,))
    try:
        return Context(value)
    except ValueError:
        raise RecordError(f"{where}: field 'context' must be one of {', '.join(c.value for c in Context)}, "
                          f"got {value!r}") from None


@dataclass
class JudgementRecord:
    """Stage 3: the answer judge's verdict."""

    FILE: ClassVar[str] = "judgements.jsonl"
    qid: str
    verdict: AnswerVerdict

    def to_json(self) -> dict:
        return {"qid": self.qid, "verdict": self.verdict.to_json()}

    @classmethod
    def from_json(cls, d: Any, where: str = FILE) -> JudgementRecord:
        d = _obj(d, where)
        return cls(qid=_get(d, "qid", where, (str,)), verdict=_verdict(d.get("verdict"), where))


@dataclass
class CitationRecord:
    """Stage 4: the citation judge's result per level (``CitationResult.to_json()``)."""

    FILE: ClassVar[str] = "citations.jsonl"
    qid: str
    results: dict[str, dict]

    def to_json(self) -> dict:
        return {"qid": self.qid, "results": dict(self.results)}

    @classmethod
    def from_json(cls, d: Any, where: str = FILE) -> CitationRecord:
        d = _obj(d, where)
        return cls(qid=_get(d, "qid", where, (str,)), results=_citations(d.get("results"), where))


@dataclass
class ErrorRecord:
    """A failed generator or judge call (``stage``: generation, answer_judge, citation_judge:<level>)."""

    FILE: ClassVar[str] = "errors.jsonl"
    qid: str
    stage: str
    error: str
    at: str = ""

    def to_json(self) -> dict:
        return {"qid": self.qid, "stage": self.stage, "error": self.error, "at": self.at}

    @classmethod
    def from_json(cls, d: Any, where: str = FILE) -> ErrorRecord:
        d = _obj(d, where)
        return cls(qid=_get(d, "qid", where, (str,)), stage=_get(d, "stage", where, (str,)),
                   error=_get(d, "error", where, (str,)), at=_get(d, "at", where, (str,), default=""))


@dataclass
class Gold:
    """The gold side of a question: answer, pages and boxes."""

    answer: str
    pages: list[str]
    boxes: list[GoldEvidence] = field(default_factory=list)

    def to_json(self) -> dict:
        return {"answer": self.answer, "pages": list(self.pages), "boxes": [b.to_json() for b in self.boxes]}

    @classmethod
    def from_json(cls, d: Any, where: str) -> Gold:
        d = _obj(d, f"{where}: field 'gold'")
        boxes = _get(d, "boxes", where, (list,), default=[])
        return cls(answer=_get(d, "answer", where, (str,)), pages=_get(d, "pages", where, (list,)),
                   boxes=[GoldEvidence.from_json(b, f"{where}: gold box {i}") for i, b in enumerate(boxes)])


@dataclass
class RetrievalSummary:
    """Retrieval as seen from one question's generation record."""

    hits: list[Hit]
    gold_rank: int | None
    gold_retrieved: bool | None
    metrics: dict[str, float]

    def to_json(self) -> dict:
        return {"hits": [h.to_json() for h in self.hits], "gold_rank": self.gold_rank,
                "gold_retrieved": self.gold_retrieved, "metrics": dict(self.metrics)}

    @classmethod
    def from_json(cls, d: Any, where: str) -> RetrievalSummary:
        d = _obj(d, f"{where}: field 'retrieval'")
        return cls(hits=_hits(d.get("hits"), where), gold_rank=_get(d, "gold_rank", where, (int,), none=True),
                   gold_retrieved=_get(d, "gold_retrieved", where, (bool,), none=True),
                   metrics=_get(d, "metrics", where, (dict,), default={}))


@dataclass
class AnswerMetrics:
    """The judge-free and judged scores of one answer (``pixel``: every pixel-grounding policy)."""

    rouge_l: float | None = None
    numeric_match: bool | None = None
    numeric_recall: float | None = None
    accuracy: bool | None = None          # the answer judge's verdict (None: not judged or failed)
    iou: float | None = None
    pixel: dict | None = None
    cited_gold_page: bool = False
    model_pixel: dict | None = None       # ``pixel`` of the generator's own boxes, before grounding

    _TYPES: ClassVar[dict[str, tuple[type, ...]]] = {
        "rouge_l": _NUM, "numeric_match": (bool,), "numeric_recall": _NUM, "accuracy": (bool,), "iou": _NUM,
        "pixel": (dict,), "cited_gold_page": (bool,), "model_pixel": (dict,)}

    def to_json(self) -> dict:
        return {name: getattr(self, name) for name in self._TYPES}

    @classmethod
    def from_json(cls, d: Any, where: str) -> AnswerMetrics:
        d = _obj(d, f"{where}: field 'metrics'")
        unknown = sorted(set(d) - set(cls._TYPES))
        if unknown:
            raise RecordError(f"{where}: unknown metric field(s) {', '.join(map(repr, unknown))}")
        return cls(**{k: _get(d, k, where, t, default=None, none=True) for k, t in cls._TYPES.items()
                      if k in d})


@dataclass
class GenerationRecord:
    """Stage 5: everything about one question (what the report and the viewer read)."""

    FILE: ClassVar[str] = "generations.jsonl"
    qid: str
    question: str
    gold: Gold
    context: Context
    context_pages: list[str]
    answer: Answer
    metrics: AnswerMetrics
    attribution: str
    category: str = ""
    lang: str = ""
    answer_type: str = ""
    retrieval: RetrievalSummary | None = None
    generation_seconds: float | None = None
    answer_verdict: AnswerVerdict | None = None
    citations: dict[str, dict] | None = None

    @property
    def correct(self) -> bool | None:
        """The answer judge's verdict (None: no judge, or its call failed)."""
        return self.metrics.accuracy

    def to_json(self) -> dict:
        return {"qid": self.qid, "question": self.question, "category": self.category, "lang": self.lang,
                "answer_type": self.answer_type, "gold": self.gold.to_json(),
                "context": Context(self.context).value, "context_pages": list(self.context_pages),
                "retrieval": self.retrieval.to_json() if self.retrieval else None,
                "answer": self.answer.to_json(), "generation_seconds": self.generation_seconds,
                "metrics": self.metrics.to_json(),
                "answer_verdict": self.answer_verdict.to_json() if self.answer_verdict else None,
                "citations": self.citations, "attribution": self.attribution}

    @classmethod
    def from_json(cls, d: Any, where: str = FILE) -> GenerationRecord:
        d = _obj(d, where)
        stage = _get(d, "attribution", where, (str,))
        if stage not in STAGES:
            raise RecordError(f"{where}: field 'attribution' must be one of {', '.join(STAGES)}, got {stage!r}")
        ret, verdict, cit = d.get("retrieval"), d.get("answer_verdict"), d.get("citations")
        return cls(qid=_get(d, "qid", where, (str,)), question=_get(d, "question", where, (str,)),
                   category=_get(d, "category", where, (str,), default=""),
                   lang=_get(d, "lang", where, (str,), default=""),
                   answer_type=_get(d, "answer_type", where, (str,), default=""),
                   gold=Gold.from_json(d.get("gold"), where), context=_context(d, where),
                   context_pages=_get(d, "context_pages", where, (list,)),
                   retrieval=None if ret is None else RetrievalSummary.from_json(ret, where),
                   answer=_answer(d.get("answer"), where),
                   generation_seconds=_get(d, "generation_seconds", where, _NUM, default=None, none=True),
                   metrics=AnswerMetrics.from_json(d.get("metrics"), where),
                   answer_verdict=None if verdict is None else _verdict(verdict, where),
                   citations=None if cit is None else _citations(cit, where), attribution=stage)


@dataclass
class Session:
    """One invocation of a run (a resumed run has several)."""

    started: str
    docrag: str
    resumed: bool
    work_done: dict[str, int] = field(default_factory=dict)
    finished: str | None = None

    def to_json(self) -> dict:
        out: dict[str, Any] = {"started": self.started, "docrag": self.docrag, "resumed": self.resumed}
        if self.finished is not None:
            out.update(work_done=dict(self.work_done), finished=self.finished)
        return out

    @classmethod
    def from_json(cls, d: Any, where: str) -> Session:
        d = _obj(d, where)
        return cls(started=_get(d, "started", where, (str,)), docrag=_get(d, "docrag", where, (str,)),
                   resumed=_get(d, "resumed", where, (bool,)), work_done=_get(d, "work_done", where, (dict,), {}),
                   finished=_get(d, "finished", where, (str,), default=None, none=True))


@dataclass
class RunMeta:
    """``run.json``: what the run is (``identity``, checked on resume) and how it went."""

    identity: dict[str, Any]
    corpus: str
    qa: str | None = None
    versions: dict[str, str] = field(default_factory=dict)
    created: str = ""
    sessions: list[Session] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    status: str = "created"
    n_questions: int | None = None
    n_errors: int | None = None
    updated: str | None = None
    schema_version: int = RUN_SCHEMA_VERSION

    def to_json(self) -> dict:
        out: dict[str, Any] = {"schema": RUN_SCHEMA, "schema_version": self.schema_version,
                               "identity": self.identity, "corpus": self.corpus, "qa": self.qa,
                               "versions": dict(self.versions), "created": self.created,
                               "sessions": [s.to_json() for s in self.sessions], "timings": dict(self.timings),
                               "status": self.status}
        for key in ("n_questions", "n_errors", "updated"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        return out

    @classmethod
    def from_json(cls, d: Any, where: str = "run.json") -> RunMeta:
        """Read ``run.json``; another schema, or a version this docrag cannot read, is a :class:`RecordError`."""
        d = dict(_obj(d, where))
        if d.get("schema") != RUN_SCHEMA:
            raise RecordError(f"{where}: not a docrag eval run (field 'schema' is {d.get('schema')!r}, "
                              f"expected {RUN_SCHEMA!r})")
        version = _get(d, "schema_version", where, (int,))
        while version < RUN_SCHEMA_VERSION and version in MIGRATIONS:
            d = MIGRATIONS[version](d)
            version = d["schema_version"] = version + 1
            log.info("%s: read as schema_version %d", where, version)
        if version != RUN_SCHEMA_VERSION:
            newer = version > RUN_SCHEMA_VERSION
            raise RecordError(f"{where}: field 'schema_version' is {version}; this docrag reads run folders of "
                              f"version {RUN_SCHEMA_VERSION}" + ("; upgrade docrag to read it" if newer else
                                                                 " and cannot migrate this one; "
                                                                 "re-run it into a new --out (or --overwrite)"))
        timings = _get(d, "timings", where, (dict,), default={})
        return cls(identity=_get(d, "identity", where, (dict,)), corpus=_get(d, "corpus", where, (str,)),
                   qa=_get(d, "qa", where, (str,), default=None, none=True),
                   versions=_get(d, "versions", where, (dict,), default={}),
                   created=_get(d, "created", where, (str,), default=""),
                   sessions=[Session.from_json(s, f"{where}: session {i}")
                             for i, s in enumerate(_get(d, "sessions", where, (list,), default=[]))],
                   timings={k: float(_get(timings, k, f"{where}: timings", _NUM)) for k in timings},
                   status=_get(d, "status", where, (str,), default="created"),
                   n_questions=_get(d, "n_questions", where, (int,), default=None, none=True),
                   n_errors=_get(d, "n_errors", where, (int,), default=None, none=True),
                   updated=_get(d, "updated", where, (str,), default=None, none=True), schema_version=version)

    @classmethod
    def read(cls, path: Path) -> RunMeta:
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise RecordError(f"{path}: not valid JSON ({exc.msg})") from None
        return cls.from_json(data, str(path))

