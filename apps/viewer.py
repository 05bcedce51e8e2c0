"""The Gradio viewer: ask questions and inspect the cited boxes; browse evaluation runs.

The logic behind it (pipelines, asking, judging, uploads, run details) is
:mod:`docrag.apps.viewer_logic`, re-exported here.

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
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docrag.apps import viewer_runs as runs
from docrag.apps.viewer_logic import (  # noqa: F401 -- re-exported: the viewer's public names
    CITATION_HEADERS,
    HIT_HEADERS,
    NO_JUDGE,
    VERDICT_HEADERS,
    AskResult,
    Defaults,
    PipelineCache,
    RagFactory,
    Viewer,
    _default_rag_factory,
    default_choices,
    generator_choices,
    judge_choices,
    retriever_choices,
)
from docrag.apps.viewer_render import gallery_files
from docrag.apps.viewer_upload import UploadPolicy
from docrag.config import ServeLimits
from docrag.corpus import Corpus
from docrag.errors import DocragError

if TYPE_CHECKING:
    import gradio as gr

log = logging.getLogger(__name__)


# -- the Gradio app ------------------------------------------------------------------------------

CUSTOM_CSS = """
#cited-pages, #run-pages { min-height: 320px; }
/* whole pages: galleries grow with their images (no inner scroll that hides the page bottom or a
   third page), every image keeps its aspect ratio and fits the window's height */
#cited-pages .grid-wrap, #run-pages .grid-wrap, #crops .grid-wrap, #run-crops .grid-wrap {
  height: auto !important; max-height: none !important; min-height: 0 !important; overflow: visible !important; }
#cited-pages .thumbnail-item, #run-pages .thumbnail-item, #crops .thumbnail-item, #run-crops .thumbnail-item {
  aspect-ratio: auto !important; height: auto !important; }
#cited-pages .gallery-container, #run-pages .gallery-container, #crops .gallery-container,
#run-crops .gallery-container { height: auto !important; min-height: 0 !important; }
#cited-pages .grid-container, #run-pages .grid-container, #crops .grid-container, #run-crops .grid-container {
  grid-auto-rows: auto !important; height: auto !important; }
#cited-pages .gallery-item, #run-pages .gallery-item, #crops .gallery-item, #run-crops .gallery-item {
  height: auto !important; }
#cited-pages .thumbnail-item img, #run-pages .thumbnail-item img {
  width: auto !important; max-width: 100% !important; height: auto !important; max-height: 88vh !important;
  margin: 0 auto; display: block; object-fit: contain !important; }
#crops .thumbnail-item img, #run-crops .thumbnail-item img {
  width: auto !important; max-width: 100% !important; height: auto !important; max-height: 40vh !important;
  margin: 0 auto; display: block; object-fit: contain !important; }
/* tables: headers wrap between words only; wide tables scroll sideways instead of squeezing */
#run-table th, #citations th, #hits th, #verdicts th, #run-verdicts th,
#run-table th *, #citations th *, #hits th *, #verdicts th *, #run-verdicts th * {
  word-break: keep-all !important; overflow-wrap: normal !important; hyphens: none !important; }
#run-table .table-wrap { overflow-x: auto; }
"""


def build_app(corpus: Corpus | str | Path, run_dir: str | Path | None = None, *,
              retriever: str | None = None, generator: str | None = None, judge: str | None = None,
              k: int | None = None, index_dir: str | Path | None = None, rag_factory: RagFactory | None = None,
              judge_factory: Callable[[str], Any] | None = None, upload_dir: str | Path | None = None,
              upload_policy: UploadPolicy | None = None, allow_upload: bool = True,
              title: str = "docrag viewer", coords: str | None = None,
              rerank: dict | None = None, ground: str | None = None, cite_by: str | None = None,
              limits: ServeLimits | None = None) -> gr.Blocks:
    """The viewer as a :class:`gradio.Blocks` app (start it with :func:`serve`, or mount it).

    ``retriever``/``generator``/``judge``/``k`` preselect the Ask tab's controls (default: the
    user's settings from ``docrag.config``; the judge defaults to none unless one is configured).
    ``rag_factory(corpus, retriever, generator)`` builds a pipeline (default:
    ``docrag.pipeline.RAG``; ``index_dir`` holds one index folder per retriever, default: the
    settings' location, inside the corpus); pipelines are cached per (retriever, generator).
    ``run_dir`` is loaded into the Runs tab on page load. ``limits`` (default: the settings'
    ``[serve]`` table) bound question length, k, the time per question, questions answered at once
    and waiting. The :class:`Viewer` behind the app is ``app.docrag_viewer``.
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
                                        coords=coords, rerank=rerank, ground=ground, cite_by=cite_by)
    viewer = Viewer(corpus, Path(run_dir) if run_dir else None, rag_factory=rag_factory,
                    judge_factory=judge_factory, upload_dir=Path(upload_dir) if upload_dir else None,
                    upload_policy=upload_policy, allow_upload=allow_upload, k=k, limits=limits)

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
                    cited_pages = gr.Gallery(label="Cited pages, whole (cited boxes in red, numbered)", columns=1,
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
                    frame(res.citation_rows, CITATION_HEADERS), gallery_files(res.cited_pages),
                    gallery_files(res.crops), frame(res.verdict_rows, VERDICT_HEADERS),
                    frame(res.hit_rows, HIT_HEADERS), gallery_files(res.retrieved), res.raw)

        ask_inputs = [question, ret_dd, gen_dd, jdg_dd, k_num]
        ask_outputs = [answer, status, citations, cited_pages, crops, verdicts, hits, retrieved, raw]
        in_flight = {"concurrency_limit": viewer.limits.max_in_flight, "concurrency_id": "ask"}
        ask_btn.click(on_ask, ask_inputs, ask_outputs, api_name="ask", **in_flight)
        question.submit(on_ask, ask_inputs, ask_outputs, api_name=False, **in_flight)

        def on_upload(files: list[str] | None):
            return viewer.upload(files), viewer.corpus_info(), None

        upload_btn.click(on_upload, [upload], [upload_status, corpus_info, upload], api_name=False)

        _build_runs_tab(gr, pd, app, viewer, run_dir)

    # questions waiting, as for `docrag serve`: beyond them Gradio answers "queue is full"
    app.queue(max_size=viewer.limits.max_queue)
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
    return (d["markdown"], gallery_files(d["pages"]), gallery_files(d["crops"]),
            pd.DataFrame(d["verdicts"], columns=VERDICT_HEADERS), d["raw"])


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
