"""The viewer's logic, independent of Gradio (tested without a browser): the pipelines, asking,
judging, uploads and the run details. The Gradio app around it is :mod:`docrag.apps.viewer`."""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from typing import Any

from docrag.apps import viewer_runs as runs
from docrag.apps.viewer_render import GOLD_COLOR, PRED_COLOR, annotate_page, page_crops, thumbnail
from docrag.apps.viewer_upload import Uploader, UploadPolicy
from docrag.cancel import Cancelled, CancelToken
from docrag.citation import evaluate, get_judge, judge_options
from docrag.citation.judge import JUDGES
from docrag.config import ServeLimits, Settings, load_settings
from docrag.corpus import Corpus
from docrag.errors import CorpusError, DocragError
from docrag.generation.conventions import coords_options
from docrag.generation.marks import cite_by_options
from docrag.generation.registry import GENERATORS
from docrag.index.registry import RETRIEVERS
from docrag.index.store import slug
from docrag.pipeline import RAG
from docrag.types import Answer, split_page_id

log = logging.getLogger(__name__)

NO_JUDGE = "none"
CITATION_HEADERS = ["#", "file", "page", "boxes (pt)", "verdict", "page id"]
HIT_HEADERS = ["rank", "score", "file", "page", "cited", "page id"]
VERDICT_HEADERS = ["unit", "verdict", "detail"]

RagFactory = Callable[[Corpus, str, str], Any]


# -- registries and defaults ---------------------------------------------------------------------
# A dropdown offers up front the names its registry declares offline (families like
# ``colqwen2:<path>`` need the user's model path; the dropdowns accept any typed name).

def retriever_choices() -> list[str]:
    return RETRIEVERS.offline_names()


def generator_choices() -> list[str]:
    return GENERATORS.offline_names()


def judge_choices() -> list[str]:
    return [NO_JUDGE, *JUDGES.offline_names()]


def _settings() -> Settings:
    return load_settings()


@dataclass(frozen=True)
class Defaults:
    retriever: str
    generator: str
    judge: str
    k: int


def default_choices() -> Defaults:
    """Preselected names: the user's settings (config file, ``DOCRAG_*``) over the offline defaults.

    The judge is the one the CLI uses (``docrag eval``'s default, offline ``grounding`` unless
    configured), so the verdict tables are filled as they would be on the command line."""
    s = _settings()
    return Defaults(s.retriever, s.generator, s.judge or NO_JUDGE, int(s.k))


def _default_rag_factory(corpus: Corpus, retriever: str, generator: str, indexes_root: Path | None = None,
                         coords: str | None = None, rerank: dict | None = None, ground: str | None = None,
                         cite_by: str | None = None) -> Any:
    """``docrag.pipeline.RAG``; with ``indexes_root``, each retriever's index lives in its own
    sub-folder there (``<root>/<retriever slug>``), else where the settings put it. ``coords``: the
    box convention of vision generators (``--coords``); ``ground``: citation grounding
    (``--ground``); ``cite_by``: regions or boxes, for vision generators (``--cite-by``); ``rerank``: ``{"rerank": name,
    "rerank_depth": n}`` adds a rerank stage."""
    index_dir = None
    if indexes_root is not None:
        index_dir = Path(indexes_root) / slug(retriever)
    return RAG(corpus, retriever=retriever, generator=generator, index_dir=index_dir, show_progress=False,
               generator_options={**coords_options(coords, generator), **({"ground": ground} if ground else {}),
                                  **cite_by_options(cite_by, generator)} or None,
               retriever_options=dict(rerank or {}))


def _default_judge_factory(name: str) -> Any:
    return get_judge(name, **judge_options(name, _settings()))


# -- server-side state ---------------------------------------------------------------------------

class PipelineCache:
    """One RAG pipeline per ``(retriever, generator)``; built once, reused by every request."""

    def __init__(self, corpus: Corpus, factory: RagFactory | None = None) -> None:
        self.corpus = corpus
        self.factory = factory or _default_rag_factory
        self._pipelines: dict[tuple[str, str], Any] = {}
        self._locks: dict[tuple[str, str], threading.Lock] = {}
        self._lock = threading.Lock()

    def get(self, retriever: str, generator: str) -> tuple[Any, threading.Lock]:
        key = (retriever, generator)
        with self._lock:
            lock = self._locks.setdefault(key, threading.Lock())
        with lock:  # build outside the global lock: other pairs are not blocked meanwhile
            if key not in self._pipelines:
                t0 = time.perf_counter()
                pipeline = self.factory(self.corpus, retriever, generator)
                _ = pipeline.index   # open or build the index now: not inside a question's time budget
                self._pipelines[key] = pipeline
                log.info("built pipeline %s + %s in %.1f s", retriever, generator, time.perf_counter() - t0)
            return self._pipelines[key], lock

    def __len__(self) -> int:
        return len(self._pipelines)

    def clear(self) -> None:
        """Forget every pipeline (after the corpus changed, indexes must be rebuilt)."""
        with self._lock:
            self._pipelines.clear()


@dataclass
class AskResult:
    """Everything the Ask tab shows for one question."""

    answer: Answer | None = None
    status: str = ""
    citation_rows: list[list[Any]] = field(default_factory=list)
    cited_pages: list[tuple[Any, str]] = field(default_factory=list)
    crops: list[tuple[Any, str]] = field(default_factory=list)
    hit_rows: list[list[Any]] = field(default_factory=list)
    retrieved: list[tuple[Any, str]] = field(default_factory=list)
    verdict_rows: list[list[Any]] = field(default_factory=list)
    raw: str = ""


class Viewer:
    """The viewer's logic, independent of Gradio (so it can be tested without a browser)."""

    def __init__(self, corpus: Corpus, run_dir: Path | None = None, *,
                 rag_factory: RagFactory | None = None, judge_factory: Callable[[str], Any] | None = None,
                 upload_dir: Path | None = None, upload_policy: UploadPolicy | None = None,
                 allow_upload: bool = True, k: int = 10, limits: ServeLimits | None = None) -> None:
        self.corpus = corpus
        self.limits = limits or _settings().serve
        self.run_dir = run_dir
        self.pipelines = PipelineCache(corpus, rag_factory)
        self.judge_factory = judge_factory or _default_judge_factory
        self._judges: dict[str, Any] = {}
        self.uploader = Uploader(corpus, upload_dir, upload_policy) if allow_upload else None
        self.k = k
        self._runs: dict[str, tuple[float, runs.Run]] = {}

    # -- corpus ----------------------------------------------------------------------------------
    def corpus_info(self) -> str:
        """One line (folder, counts, languages); the file names folded away under it."""
        docs = self.corpus.documents()
        langs = Counter(p.lang or "?" for p in self.corpus.pages())
        lang_text = ", ".join(f"{k} {v}" for k, v in langs.most_common(4))
        names = "".join(f"<li>{escape(n)}</li>" for n in sorted(d.file_name for d in docs)[:200])
        more = f"<li>… and {len(docs) - 200} more</li>" if len(docs) > 200 else ""
        return (f"**Corpus** `{self.corpus.root.name}` — {len(docs)} document(s), {len(self.corpus)} page(s)"
                + (f" · languages: {lang_text}" if lang_text else "")
                + f"\n\n<details><summary>files</summary><ul>{names}{more}</ul></details>")

    def page_label(self, pid: str) -> tuple[str, str]:
        """``(file name, page number)`` for display."""
        try:
            doc_id, no = split_page_id(pid)
            return self.corpus.document(doc_id).file_name, str(no)
        except (CorpusError, ValueError):
            return "?", pid

    # -- asking ----------------------------------------------------------------------------------
    def ask(self, question: str, retriever: str, generator: str, judge: str = NO_JUDGE,
            k: int | None = None) -> AskResult:
        question = (question or "").strip()
        if not question:
            return AskResult(status="Type a question first.")
        if len(self.corpus) == 0:
            return AskResult(status="The corpus is empty: upload a PDF first.")
        retriever, generator = (retriever or "").strip(), (generator or "").strip()
        if not retriever or not generator:
            return AskResult(status="Choose a retriever and a generator.")
        k = int(k or self.k)
        refused = self.over_limits(question, k)
        if refused:
            return AskResult(status=f"**Error:** {refused}")
        token = CancelToken(self.limits.timeout)
        try:
            rag, lock = self.pipelines.get(retriever, generator)
            t0 = time.perf_counter()
            token.acquire(lock, "waiting for the pipeline")
            try:
                answer = rag.ask(question, k=k, cancel=token)
            finally:
                lock.release()
            elapsed = time.perf_counter() - t0
        except Cancelled as exc:
            log.warning("ask cancelled: %s", exc)
            return AskResult(status=f"**Error:** no answer within the time budget of {self.limits.timeout:g} s "
                                    f"({self.limits.where('timeout')}); the work was stopped ({exc})")
        except DocragError as exc:
            log.warning("ask failed: %s", exc)
            return AskResult(status=f"**Error:** {exc}")
        result = self.render_answer(answer)
        verdict_note = ""
        if judge and judge != NO_JUDGE:
            result.verdict_rows, verdict_note = self.judge_answer(answer, judge)
            by_unit = {row[0]: row[1] for row in result.verdict_rows}
            for row in result.citation_rows:
                row[4] = by_unit.get(row[5], "")
        result.status = self._status(answer, elapsed, retriever, generator) + result.status + verdict_note
        return result

    def over_limits(self, question: str, k: int) -> str:
        """Why ``question`` / ``k`` are refused (the limit and its key), or ``""``."""
        lim = self.limits
        if len(question) > lim.max_question_chars:
            return (f"the question is {len(question)} characters; the limit is {lim.max_question_chars} "
                    f"({lim.where('max_question_chars')})")
        if k > lim.max_k:
            return f"k is {k}; the limit is {lim.max_k} ({lim.where('max_k')})"
        return ""

    def _status(self, answer: Answer, elapsed: float, retriever: str, generator: str) -> str:
        lines = [f"{len(answer.hits)} page(s) retrieved by `{retriever}`, answered by `{generator}` "
                 f"in {elapsed:.2f} s; {len(answer.citations)} page(s) cited, "
                 f"{sum(len(c.boxes) for c in answer.citations)} box(es)."]
        if answer.parse_error:
            lines.append(f"**Parse error:** {answer.parse_error}")
        lines += [f"⚠ {w}" for w in answer.warnings]
        return "\n\n".join(lines)

    def render_answer(self, answer: Answer) -> AskResult:
        """Tables and images for ``answer`` (cited pages with boxes drawn, crops, retrieved pages)."""
        res = AskResult(answer=answer, raw=answer.raw or "")
        cited_ids = {c.page_id for c in answer.citations}
        for i, cit in enumerate(answer.citations, start=1):
            file_name, page_no = self.page_label(cit.page_id)
            boxes = "; ".join(
                "[" + ", ".join(f"{v:.0f}" for v in b.coords) + "]" for b in cit.boxes) or "(whole page)"
            res.citation_rows.append([i, file_name, page_no, boxes, "", cit.page_id])
            try:
                page = self.corpus.page(cit.page_id)
            except (CorpusError, ValueError) as exc:
                res.status += f"\n\n⚠ cited page {cit.page_id} not in the corpus ({exc})"
                continue
            caption = f"[{i}] {file_name} p.{page_no} — {len(cit.boxes)} box(es)"
            res.cited_pages.append((annotate_page(page, predicted=cit.boxes, focus=cit.focus), caption))
            for j, crop in enumerate(page_crops(page, cit.boxes), start=1):
                res.crops.append((crop, f"[{i}.{j}] {file_name} p.{page_no}"))
        for hit in answer.hits:
            file_name, page_no = self.page_label(hit.page_id)
            cited = "yes" if hit.page_id in cited_ids else ""
            res.hit_rows.append([hit.rank, round(float(hit.score), 4), file_name, page_no, cited, hit.page_id])
            try:
                page = self.corpus.page(hit.page_id)
            except (CorpusError, ValueError):
                continue
            res.retrieved.append((thumbnail(page), f"#{hit.rank} {file_name} p.{page_no} · {hit.score:.3f}"))
        return res

    def judge_answer(self, answer: Answer, judge_name: str) -> tuple[list[list[Any]], str]:
        """Verdict rows ``[unit, verdict, detail]`` and a status note for the configured judge."""
        if not answer.citations:
            return [], "\n\nNo citations to judge."
        try:
            judge = self._judges.get(judge_name) or self._judges.setdefault(judge_name, self.judge_factory(judge_name))
            result = _evaluate_citations(answer, self.corpus, judge)
        except DocragError as exc:
            return [], f"\n\n**Judge error:** {exc}"
        return _verdict_rows(result), "\n\n" + _citation_scores_note(result)

    # -- uploads ---------------------------------------------------------------------------------
    def upload(self, files: Sequence[str] | None) -> str:
        if self.uploader is None:
            return "Uploads are disabled for this viewer."
        if not files:
            return "Choose one or more PDF files first."
        pairs = [(Path(f), Path(f).name) for f in files]
        result = self.uploader.add(pairs)
        if result.added:
            self.pipelines.clear()  # indexes of the old corpus are stale now
        return result.message()

    # -- runs ------------------------------------------------------------------------------------
    def load_run(self, run_dir: str | Path) -> runs.Run:
        path = Path(str(run_dir).strip()).expanduser()
        gen = path / "generations.jsonl"
        mtime = gen.stat().st_mtime if gen.exists() else 0.0
        key = str(path.resolve()) if path.exists() else str(path)
        cached = self._runs.get(key)
        if cached and cached[0] == mtime:
            return cached[1]
        run = runs.load_run(path, self.corpus)
        self._runs[key] = (mtime, run)
        return run

    def run_detail(self, run: runs.Run, qid: str) -> dict[str, Any]:
        """Markdown, page images (gold green, predicted red), crops, verdict rows and raw reply."""
        rec = run.record(qid)
        pages, crops = [], []
        for pid in rec.pages_to_show():
            file_name, page_no = self.page_label(pid)
            try:
                page = self.corpus.page(pid)
            except (CorpusError, ValueError):
                continue
            pred, gold = rec.predicted_boxes(pid), rec.gold_boxes_on(pid)
            role = ("gold" if pid in rec.gold_pages or gold else "") + (
                " + cited" if rec.answer and any(c.page_id == pid for c in rec.answer.citations) else "")
            caption = f"{file_name} p.{page_no} ({role.strip(' +') or 'shown'})"
            pages.append((annotate_page(page, predicted=pred, gold=gold),
                          f"{caption} — gold {len(gold)}, cited {len(pred)}"))
            crops += [(c, f"cited · {file_name} p.{page_no}") for c in page_crops(page, pred)]
            crops += [(c, f"gold · {file_name} p.{page_no}") for c in page_crops(page, gold)]
        verdicts = [[v.get("unit", ""), v.get("verdict", ""), v.get("detail", "")] for v in rec.verdicts]
        return {"markdown": _record_markdown(rec, self), "pages": pages, "crops": crops,
                "verdicts": verdicts, "raw": rec.answer.raw if rec.answer else ""}


def _evaluate_citations(answer: Answer, corpus: Corpus, judge: Any) -> list[Any]:
    """Page-level and block-level (image-cropping) citation results of ``answer``."""
    return [evaluate(answer, corpus, judge=judge, level="page"),
            evaluate(answer, corpus, judge=judge, level="block", mode="crop")]


def _verdict_rows(results: Sequence[Any]) -> list[list[Any]]:
    """``[unit, verdict, detail]`` rows: per level S(C), then one row per cited unit."""
    return [[r["unit"], r["verdict"], r["detail"]] for r in runs.citation_verdicts(res.to_json() for res in results)]


def _pct(value: Any) -> str:
    return "n/a" if value is None else f"{100 * float(value):.0f}%"


def _citation_scores_note(results: Sequence[Any]) -> str:
    parts = []
    for res in results:
        data = res.to_json()
        parts.append(f"{data.get('level')} recall {_pct(data.get('recall'))}, precision "
                     f"{_pct(data.get('precision'))} ({data.get('calls', 0)} judge call(s))")
    return "**Judge " + (results[0].judge if results else "") + ":** " + "; ".join(parts)


def _record_markdown(rec: runs.RunRecord, viewer: Viewer) -> str:
    gold_pages = ", ".join(" p.".join(viewer.page_label(p)) for p in rec.gold_pages) or "—"
    lines = [f"### {rec.qid} · {rec.category or 'uncategorised'} · {rec.lang or '?'}"
             + (f" · stage: {rec.stage}" if rec.stage else ""),
             f"**Question:** {rec.question}",
             f"**Gold answer:** {rec.gold_answer or '—'}  \n**Gold pages:** {gold_pages}"]
    if rec.answer is not None:
        lines.append(f"**Model answer:** {rec.answer.answer or '(empty)'}")
        if rec.answer.parse_error:
            lines.append(f"**Parse error:** {rec.answer.parse_error}")
        lines += [f"⚠ {w}" for w in rec.answer.warnings]
    if rec.answer_verdict:
        v = rec.answer_verdict
        verdict = "error" if v.get("error") else runs.tri_state(v.get("correct"))
        why = v.get("raw") or v.get("error") or ""
        lines.append(f"**Answer correct:** {verdict} · **cited a gold page:** {runs.tri_state(rec.cited_gold_page)} "
                     f"(judge `{v.get('judge', '?')}`: {why})")
    if rec.retrieval:
        rank = rec.gold_rank
        lines.append(f"**Retrieval:** gold page {'at rank ' + str(rank) if rank else 'not retrieved'}; "
                     + " · ".join(f"{k} {runs.fmt_value(v)}" for k, v in (rec.retrieval.get("metrics") or {}).items()))
    if rec.error:
        lines.append(f"**Error:** {rec.error}")
    if rec.metrics:
        lines.append("**Metrics:** " + " · ".join(f"{k} {runs.fmt_value(v)}" for k, v in rec.metrics.items()
                                                  if not isinstance(v, (dict, list))))
    lines.append(f"<span style='color:rgb{GOLD_COLOR}'>■ gold boxes (green, dashed)</span> · "
                 f"<span style='color:rgb{PRED_COLOR}'>■ predicted boxes (red, numbered)</span>")
    return "\n\n".join(lines)
