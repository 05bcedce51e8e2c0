"""The Gradio viewer: ask questions and inspect the cited boxes; browse evaluation runs.

``build_app(corpus, run_dir=None, ...)`` returns the :class:`gradio.Blocks` app (mount it, test it,
or start it with :func:`serve`). Everything runs offline: analytics are switched off and the page
loads only from the local server.

Stable element ids (used by the browser tests): ``#question``, ``#ask``, ``#answer``,
``#citations``, ``#cited-pages``, ``#crops``, ``#hits``, ``#verdicts``, ``#raw``, ``#ask-status``,
``#upload``, ``#upload-button``, ``#upload-status``, ``#corpus-info``; runs tab: ``#run-dir``,
``#load-run``, ``#run-summary``, ``#run-table``, ``#run-question``, ``#run-detail``,
``#run-pages``, ``#run-crops``, ``#run-verdicts``, ``#run-raw`` and the filters ``#filter-*``
(see ``docs/viewer.md``).
"""

from __future__ import annotations

import functools
import logging
import os
import socket
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docrag.apps import viewer_runs as runs
from docrag.apps.viewer_render import GOLD_COLOR, PRED_COLOR, annotate_page, page_crops, thumbnail
from docrag.apps.viewer_upload import Uploader, UploadPolicy
from docrag.corpus import Corpus
from docrag.errors import CorpusError, DocragError
from docrag.types import Answer, split_page_id

if TYPE_CHECKING:
    import gradio as gr

log = logging.getLogger(__name__)

NO_JUDGE = "none"
CITATION_HEADERS = ["#", "file", "page", "boxes (pt)", "verdict", "page id"]
HIT_HEADERS = ["rank", "score", "file", "page", "cited", "page id"]
VERDICT_HEADERS = ["unit", "verdict", "detail"]

RagFactory = Callable[[Corpus, str, str], Any]


# -- registries and defaults (read lazily so the viewer works while modules are optional) --------

# Names a dropdown offers up front: offline and argument-free (families like ``colqwen2:<path>``
# need the user's model path; the dropdowns accept any typed name).
OFFLINE_RETRIEVERS = ("bm25", "minilm", "e5", "dummy", "hybrid:bm25+minilm", "lang-hybrid:bm25+minilm")
OFFLINE_GENERATORS = ("extractive",)
OFFLINE_JUDGES = ("grounding",)


def _offered(registry_path: str, attr: str, offline: Sequence[str]) -> list[str]:
    """``offline`` names whose family the registry knows (without importing any family module)."""
    import importlib

    try:
        families = set(getattr(importlib.import_module(registry_path), attr).families())
    except (ImportError, AttributeError) as exc:
        log.debug("%s.%s not available: %s", registry_path, attr, exc)
        return list(offline)
    return [n for n in offline if n.partition(":")[0] in families]


def retriever_choices() -> list[str]:
    return _offered("docrag.index.registry", "RETRIEVERS", OFFLINE_RETRIEVERS)


def generator_choices() -> list[str]:
    return _offered("docrag.generation.base", "GENERATORS", OFFLINE_GENERATORS)


def judge_choices() -> list[str]:
    return [NO_JUDGE, *_offered("docrag.citation.judge", "JUDGES", OFFLINE_JUDGES)]


def _settings() -> Any:
    from docrag.config import load_settings

    return load_settings()


@dataclass(frozen=True)
class Defaults:
    retriever: str
    generator: str
    judge: str
    k: int


def default_choices() -> Defaults:
    """Preselected names: the user's settings (config file, ``DOCRAG_*``) over the offline defaults.

    The judge is preselected only when the user configured one (judging costs calls)."""
    s = _settings()
    judge = s.judge if s.source.get("judge", "default") != "default" else NO_JUDGE
    return Defaults(s.retriever, s.generator, judge, int(s.k))


def _default_rag_factory(corpus: Corpus, retriever: str, generator: str, indexes_root: Path | None = None,
                         coords: str | None = None, rerank: dict | None = None) -> Any:
    """``docrag.pipeline.RAG``; with ``indexes_root``, each retriever's index lives in its own
    sub-folder there (``<root>/<retriever slug>``), else where the settings put it. ``coords``: the
    box convention of vision generators (``--coords``); ``rerank``: ``{"rerank": name,
    "rerank_depth": n}`` adds a rerank stage."""
    from docrag.generation.conventions import coords_options
    from docrag.pipeline import RAG

    index_dir = None
    if indexes_root is not None:
        from docrag.index.store import slug

        index_dir = Path(indexes_root) / slug(retriever)
    return RAG(corpus, retriever=retriever, generator=generator, index_dir=index_dir, show_progress=False,
               generator_options=coords_options(coords, generator) or None,
               retriever_options=dict(rerank or {}))


def _default_judge_factory(name: str) -> Any:
    from docrag.citation import get_judge

    return get_judge(name, **_settings().backend_options(name))


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
                self._pipelines[key] = self.factory(self.corpus, retriever, generator)
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
                 allow_upload: bool = True, k: int = 10) -> None:
        self.corpus = corpus
        self.run_dir = run_dir
        self.pipelines = PipelineCache(corpus, rag_factory)
        self.judge_factory = judge_factory or _default_judge_factory
        self._judges: dict[str, Any] = {}
        self.uploader = Uploader(corpus, upload_dir, upload_policy) if allow_upload else None
        self.k = k
        self._runs: dict[str, tuple[float, runs.Run]] = {}

    # -- corpus ----------------------------------------------------------------------------------
    def corpus_info(self) -> str:
        docs = self.corpus.documents()
        names = ", ".join(sorted(d.file_name for d in docs)[:20])
        more = f" (+{len(docs) - 20} more)" if len(docs) > 20 else ""
        return f"**Corpus** `{self.corpus.root}` — {len(docs)} document(s), {len(self.corpus)} page(s): {names}{more}"

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
        try:
            rag, lock = self.pipelines.get(retriever, generator)
            t0 = time.perf_counter()
            with lock:
                answer = rag.ask(question, k=k)
            elapsed = time.perf_counter() - t0
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
            res.cited_pages.append((annotate_page(page, predicted=cit.boxes), caption))
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
    from docrag.citation import evaluate

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
        lines.append(f"**Answer correct:** {verdict} (judge `{v.get('judge', '?')}`: {why})")
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


# -- the Gradio app ------------------------------------------------------------------------------

CUSTOM_CSS = """
#cited-pages, #run-pages { min-height: 320px; }
"""


def build_app(corpus: Corpus | str | Path, run_dir: str | Path | None = None, *,
              retriever: str | None = None, generator: str | None = None, judge: str | None = None,
              k: int | None = None, index_dir: str | Path | None = None, rag_factory: RagFactory | None = None,
              judge_factory: Callable[[str], Any] | None = None, upload_dir: str | Path | None = None,
              upload_policy: UploadPolicy | None = None, allow_upload: bool = True,
              title: str = "docrag viewer", coords: str | None = None,
              rerank: dict | None = None) -> gr.Blocks:
    """The viewer as a :class:`gradio.Blocks` app (start it with :func:`serve`, or mount it).

    ``retriever``/``generator``/``judge``/``k`` preselect the Ask tab's controls (default: the
    user's settings from ``docrag.config``; the judge defaults to none unless one is configured).
    ``rag_factory(corpus, retriever, generator)`` builds a pipeline (default:
    ``docrag.pipeline.RAG``; ``index_dir`` holds one index folder per retriever, default: the
    settings' location, inside the corpus); pipelines are cached per (retriever, generator).
    ``run_dir`` is loaded into the Runs tab on page load. The :class:`Viewer` behind the app is
    ``app.docrag_viewer``.
    """
    os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
    import gradio as gr
    import pandas as pd

    if not isinstance(corpus, Corpus):
        corpus = Corpus.open(corpus)
    defaults = default_choices()
    retriever, generator = retriever or defaults.retriever, generator or defaults.generator
    judge, k = judge or defaults.judge, int(k or defaults.k)
    if rag_factory is None:
        rag_factory = functools.partial(_default_rag_factory, indexes_root=Path(index_dir) if index_dir else None,
                                        coords=coords, rerank=rerank)
    viewer = Viewer(corpus, Path(run_dir) if run_dir else None, rag_factory=rag_factory,
                    judge_factory=judge_factory, upload_dir=Path(upload_dir) if upload_dir else None,
                    upload_policy=upload_policy, allow_upload=allow_upload, k=k)

    def frame(rows: list[list[Any]], headers: list[str]) -> pd.DataFrame:
        return pd.DataFrame(rows, columns=headers)

    with gr.Blocks(title=title, analytics_enabled=False) as app:
        gr.Markdown(f"# {title}")
        with gr.Tab("Ask", id="ask-tab"):
            corpus_info = gr.Markdown(viewer.corpus_info(), elem_id="corpus-info")
            with gr.Row():
                ret_dd = gr.Dropdown(_with(retriever_choices(), retriever), value=retriever, label="Retriever",
                                     allow_custom_value=True, elem_id="retriever")
                gen_dd = gr.Dropdown(_with(generator_choices(), generator), value=generator, label="Generator",
                                     allow_custom_value=True, elem_id="generator")
                jdg_dd = gr.Dropdown(_with(judge_choices(), judge), value=judge, label="Citation judge",
                                     allow_custom_value=True, elem_id="judge")
                k_num = gr.Slider(1, 20, value=min(k, 20), step=1, label="Pages to retrieve (k)", elem_id="k")
            with gr.Row():
                question = gr.Textbox(label="Question", lines=2, elem_id="question", scale=5,
                                      placeholder="Ask something the documents answer…")
                ask_btn = gr.Button("Ask", variant="primary", elem_id="ask", scale=1)
            status = gr.Markdown("", elem_id="ask-status")
            with gr.Row():
                with gr.Column(scale=1):
                    answer = gr.Textbox(label="Answer", lines=3, interactive=False, elem_id="answer")
                    citations = gr.Dataframe(frame([], CITATION_HEADERS), label="Citations", interactive=False,
                                             wrap=True, elem_id="citations",
                                             column_widths=["6%", "34%", "8%", "26%", "12%", "14%"])
                    verdicts = gr.Dataframe(frame([], VERDICT_HEADERS), label="Judge verdicts",
                                            interactive=False, wrap=True, elem_id="verdicts")
                    hits = gr.Dataframe(frame([], HIT_HEADERS), label="Retrieved pages", interactive=False,
                                        wrap=True, elem_id="hits",
                                        column_widths=["8%", "12%", "44%", "8%", "10%", "18%"])
                with gr.Column(scale=1):
                    cited_pages = gr.Gallery(label="Cited pages (cited boxes in red, numbered)", columns=1,
                                             height="auto", object_fit="contain", format="png",
                                             elem_id="cited-pages")
                    crops = gr.Gallery(label="Crops of the cited boxes", columns=3, height="auto",
                                       object_fit="contain", format="png", elem_id="crops")
            retrieved = gr.Gallery(label="Retrieved pages (rank, score)", columns=6, height="auto",
                                   object_fit="contain", elem_id="retrieved-pages")
            with gr.Accordion("Raw model reply", open=False):
                raw = gr.Textbox(label="Raw reply", lines=6, interactive=False, elem_id="raw")
            with gr.Accordion("Add PDFs to the corpus", open=False, visible=allow_upload, elem_id="upload-panel"):
                policy = viewer.uploader.policy if viewer.uploader else UploadPolicy()
                gr.Markdown(f"PDF only, at most {policy.max_bytes / 2**20:.0f} MiB and {policy.max_pages} "
                            f"pages per file, {policy.max_files} files per upload.")
                upload = gr.File(label="PDF files", file_count="multiple", file_types=[".pdf"],
                                 elem_id="upload")
                upload_btn = gr.Button("Add to corpus", elem_id="upload-button")
                upload_status = gr.Textbox(label="Upload result", interactive=False, lines=2,
                                           elem_id="upload-status")

        def on_ask(q: str, r: str, g: str, j: str, kk: float):
            res = viewer.ask(q, r, g, j, int(kk))
            return (res.answer.answer if res.answer else "", res.status,
                    frame(res.citation_rows, CITATION_HEADERS), res.cited_pages, res.crops,
                    frame(res.verdict_rows, VERDICT_HEADERS), frame(res.hit_rows, HIT_HEADERS),
                    res.retrieved, res.raw)

        ask_inputs = [question, ret_dd, gen_dd, jdg_dd, k_num]
        ask_outputs = [answer, status, citations, cited_pages, crops, verdicts, hits, retrieved, raw]
        ask_btn.click(on_ask, ask_inputs, ask_outputs, api_name="ask")
        question.submit(on_ask, ask_inputs, ask_outputs, api_name=False)

        def on_upload(files: list[str] | None):
            return viewer.upload(files), viewer.corpus_info(), None

        upload_btn.click(on_upload, [upload], [upload_status, corpus_info, upload], api_name=False)

        _build_runs_tab(gr, pd, app, viewer, run_dir)

    app.docrag_viewer = viewer
    return app


def _with(choices: list[str], value: str) -> list[str]:
    return choices if value in choices else [value, *choices]


def _build_runs_tab(gr: Any, pd: Any, app: Any, viewer: Viewer, run_dir: str | Path | None) -> None:
    tri = [runs.ANY, runs.YES, runs.NO, runs.UNKNOWN]
    cite_filters: dict[str, tuple[float, float] | None] = {
        runs.ANY: None, "= 1": (1.0, 1.0), "< 1": (0.0, 1.0 - 1e-9), "= 0": (0.0, 0.0)}

    with gr.Tab("Runs", id="runs-tab"):
        with gr.Row():
            run_box = gr.Textbox(value=str(run_dir or ""), label="Run directory (written by docrag eval)",
                                 elem_id="run-dir", scale=4)
            load_btn = gr.Button("Load run", elem_id="load-run", scale=1)
        summary = gr.Markdown("", elem_id="run-summary")
        with gr.Row():
            f_cat = gr.Dropdown([runs.ANY], value=runs.ANY, label="Category", elem_id="filter-category")
            f_lang = gr.Dropdown([runs.ANY], value=runs.ANY, label="Language", elem_id="filter-lang")
            f_ok = gr.Dropdown(tri, value=runs.ANY, label="Answer correct", elem_id="filter-correct")
            f_miss = gr.Dropdown(tri, value=runs.ANY, label="Retrieval miss", elem_id="filter-miss")
            f_rec = gr.Dropdown(list(cite_filters), value=runs.ANY, label="Citation recall",
                                elem_id="filter-citation-recall")
            f_prec = gr.Dropdown(list(cite_filters), value=runs.ANY, label="Citation precision",
                                 elem_id="filter-citation-precision")
            f_stage = gr.Dropdown([runs.ANY], value=runs.ANY, label="Stage", elem_id="filter-stage")
            f_text = gr.Textbox(label="Search", elem_id="filter-text")
        table = gr.Dataframe(pd.DataFrame([], columns=runs.TABLE_HEADERS), interactive=False, wrap=True,
                             label="Questions", elem_id="run-table")
        pick = gr.Dropdown([], label="Question", elem_id="run-question", allow_custom_value=False)
        detail = gr.Markdown("", elem_id="run-detail")
        pages = gr.Gallery(label="Pages (gold boxes green & dashed, predicted boxes red & numbered)",
                           columns=2, height="auto", object_fit="contain", format="png", elem_id="run-pages")
        crops = gr.Gallery(label="Crops (cited and gold)", columns=4, height="auto", object_fit="contain",
                           format="png", elem_id="run-crops")
        verdicts = gr.Dataframe(pd.DataFrame([], columns=VERDICT_HEADERS), label="Judge verdicts",
                                interactive=False, wrap=True, elem_id="run-verdicts")
        raw = gr.Textbox(label="Raw model reply", lines=6, interactive=False, elem_id="run-raw")

        def empty_detail(message: str = ""):
            return (message, [], [], pd.DataFrame([], columns=VERDICT_HEADERS), "")

        def filtered(path: str, cat: str, lang: str, ok: str, miss: str, rec: str, prec: str, stage: str,
                     text: str):
            run = viewer.load_run(path)
            return run, runs.filter_records(run.records, cat, lang, ok, miss, cite_filters.get(rec),
                                            cite_filters.get(prec), stage, text)

        def reset(values: list[str] | None = None):
            return gr.update(choices=[runs.ANY, *(values or [])], value=runs.ANY)

        def on_load(path: str):
            empty_table = pd.DataFrame([], columns=runs.TABLE_HEADERS)
            if not str(path).strip():
                return ("Enter a run directory.", reset(), reset(), reset(), empty_table,
                        gr.update(choices=[], value=None), *empty_detail())
            try:
                run = viewer.load_run(path)
            except DocragError as exc:
                return (f"**Error:** {exc}", reset(), reset(), reset(), empty_table,
                        gr.update(choices=[], value=None), *empty_detail())
            ids = [r.qid for r in run.records]
            first = ids[0] if ids else None
            det = _detail_outputs(viewer, run, first) if first else empty_detail()
            return (runs.summary_markdown(run), reset(run.values("category")), reset(run.values("lang")),
                    reset(run.values("stage")),
                    pd.DataFrame(runs.table_rows(run.records), columns=runs.TABLE_HEADERS),
                    gr.update(choices=ids, value=first), *det)

        def on_filter(path, cat, lang, ok, miss, rec, prec, stage, text):
            try:
                _, recs = filtered(path, cat, lang, ok, miss, rec, prec, stage, text)
            except DocragError as exc:
                return pd.DataFrame([], columns=runs.TABLE_HEADERS), gr.update(choices=[], value=None), \
                    *empty_detail(f"**Error:** {exc}")
            ids = [r.qid for r in recs]
            run = viewer.load_run(path)
            det = _detail_outputs(viewer, run, ids[0]) if ids else empty_detail("No question matches the filters.")
            return (pd.DataFrame(runs.table_rows(recs), columns=runs.TABLE_HEADERS),
                    gr.update(choices=ids, value=ids[0] if ids else None), *det)

        def on_pick(path: str, qid: str | None):
            if not qid:
                return empty_detail()
            try:
                return _detail_outputs(viewer, viewer.load_run(path), qid)
            except DocragError as exc:
                return empty_detail(f"**Error:** {exc}")

        def on_select(path: str, evt):
            row = evt.row_value if evt is not None else None
            if not row:
                return gr.update(), *empty_detail()
            return gr.update(value=str(row[0])), *on_pick(path, str(row[0]))

        on_select.__annotations__["evt"] = gr.SelectData  # gradio injects the event by annotation

        detail_outputs = [detail, pages, crops, verdicts, raw]
        filters = [run_box, f_cat, f_lang, f_ok, f_miss, f_rec, f_prec, f_stage, f_text]
        load_outputs = [summary, f_cat, f_lang, f_stage, table, pick, *detail_outputs]
        load_btn.click(on_load, [run_box], load_outputs, api_name=False)
        run_box.submit(on_load, [run_box], load_outputs, api_name=False)
        for dd in (f_cat, f_lang, f_ok, f_miss, f_rec, f_prec, f_stage):
            dd.input(on_filter, filters, [table, pick, *detail_outputs], api_name=False)
        f_text.submit(on_filter, filters, [table, pick, *detail_outputs], api_name=False)
        pick.input(on_pick, [run_box, pick], detail_outputs, api_name=False)
        table.select(on_select, [run_box], [pick, *detail_outputs], api_name=False)
        if run_dir:
            app.load(on_load, [run_box], load_outputs, api_name=False)


def _detail_outputs(viewer: Viewer, run: runs.Run, qid: str) -> tuple:
    import pandas as pd

    d = viewer.run_detail(run, qid)
    return (d["markdown"], d["pages"], d["crops"], pd.DataFrame(d["verdicts"], columns=VERDICT_HEADERS), d["raw"])


# -- serving -------------------------------------------------------------------------------------

def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port that is free on ``host`` right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def serve(app: gr.Blocks, host: str = "127.0.0.1", port: int = 7860, *, block: bool = True,
          quiet: bool = True) -> str:
    """Start ``app`` on ``host:port`` (port 0: any free port); returns the local URL.

    With ``block=False`` the server runs in the background: call ``app.close()`` to stop it.
    """
    os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"
    port = port or free_port(host)
    viewer: Viewer | None = getattr(app, "docrag_viewer", None)
    max_size = viewer.uploader.policy.max_bytes if viewer and viewer.uploader else None
    _, url, _ = app.launch(server_name=host, server_port=port, prevent_thread_lock=True,
                           quiet=quiet, show_error=True, max_file_size=max_size,
                           css=CUSTOM_CSS, footer_links=[], ssr_mode=False, pwa=False, mcp_server=False)
    log.info("viewer running at %s", url)
    if block:
        app.block_thread()
    return url
