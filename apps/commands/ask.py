"""``docrag ask CORPUS "question"``: retrieve, answer and cite (document, page, box in PDF points).

``--json`` prints one record::

    {"question": str, "answer": str, "confidence": float | null (the generator's own, in [0, 1]),
     "citations": [{"doc": "<pdf file name>", "page": <1-based>, "boxes_pt": [[x0, y0, x1, y1], ...]}],
     "hits": [{"doc": str, "page": int, "rank": int, "score": float}],
     "warnings": [str], "parse_error": str | null, "retriever": str, "generator": str}

Boxes are in PDF points of the displayed page (top-left origin, rotation applied), as PyMuPDF
reports page coordinates. The index the retriever needs is built when missing.

``--questions FILE --out answers.jsonl`` answers a whole file in one process (models loaded once,
batched retrieval, resumable): one such record per line, with the question's ``id`` first (see
:mod:`docrag.apps.batch`).
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import typer

from docrag.apps.commands.common import (
    check_retrievers,
    cite_by_generator_options,
    cite_by_option,
    encoding_options,
    ground_option,
    old_k_option,
    show_progress,
    top_k_option,
)
from docrag.apps.commands.index import RERANK_DEPTH_HELP, RERANK_HELP, TRUST_HELP, rerank_options, use_store
from docrag.config import load_settings
from docrag.errors import InputError


def _doc_name(corpus, doc_id: str, cache: dict[str, str]) -> str:
    if doc_id not in cache:
        cache[doc_id] = corpus.document(doc_id).file_name or doc_id
    return cache[doc_id]


def answer_record(answer, corpus) -> dict:
    """The documented ``--json`` record of an answer."""
    names: dict[str, str] = {}
    return {
        "question": answer.question,
        "answer": answer.answer,
        "confidence": answer.confidence,
        "citations": [_citation_record(c, corpus, names) for c in answer.citations],
        "hits": [{"doc": _doc_name(corpus, h.doc_id, names), "page": h.page_no, "rank": h.rank,
                  "score": round(float(h.score), 6),
                  **({"reranker": h.reranker, "first_stage_score": round(float(h.first_stage_score), 6),
                      "first_stage_rank": h.first_stage_rank} if h.reranker else {})} for h in answer.hits],
        "warnings": list(answer.warnings),
        "parse_error": answer.parse_error,
        "retriever": answer.retriever,
        "generator": answer.generator,
        **_model_citations(answer, corpus, names),
        **({"named_documents": answer.meta["named_documents"]} if answer.meta.get("named_documents") else {}),
    }


def _citation_record(c, corpus, names: dict[str, str]) -> dict:
    """One citation: the region boxes a person would draw, and (grounded answers) the focus boxes
    inside them with the evidence they quote; all in PDF points."""
    rec = {"doc": _doc_name(corpus, c.doc_id, names), "page": c.page_no, "boxes_pt": [b.to_list(2) for b in c.boxes]}
    if c.regions:
        rec["regions"] = list(c.regions)
    if c.focus or c.quotes:
        rec.update(focus_pt=[b.to_list(2) for b in c.focus], quotes=list(c.quotes))
    return rec


def _model_citations(answer, corpus, names: dict[str, str]) -> dict:
    """``model_citations``: the generator's own citations before grounding (boxes in PDF points)."""
    from docrag.types import Citation

    raw = answer.meta.get("model_citations")
    if raw is None:
        return {}
    out = []
    for d in raw:
        c = Citation.from_json(d)
        page = corpus.page(c.page_id)
        out.append({"doc": _doc_name(corpus, c.doc_id, names), "page": c.page_no,
                    "boxes_pt": [page.to_page_points(b).to_list(2) for b in c.boxes],
                    **({"regions": list(c.regions)} if c.regions else {})})
    return {"model_citations": out, "grounding": answer.meta.get("grounding")}


def save_crops(answer, corpus, folder: Path) -> list[Path]:
    """Write the crop of every cited box (cut from the page image at its own resolution)."""
    from docrag.citation.evidence import crop_image, load_page_image
    from docrag.io import atomic_write_bytes

    written: list[Path] = []
    for ci, cit in enumerate(answer.citations, start=1):
        page = corpus.page(cit.page_id)
        if not cit.boxes:
            continue
        image = load_page_image(page)
        stem = re.sub(r"[^A-Za-z0-9._-]+", "_", Path(page.file_name or page.doc_id).stem)[:60]
        for bi, box in enumerate(cit.boxes, start=1):
            crop = crop_image(page, box, image)
            path = folder / f"{ci:02d}_{stem}_p{page.page_no}_box{bi}.png"
            buf = io.BytesIO()
            crop.save(buf, format="PNG")
            atomic_write_bytes(path, buf.getvalue())
            written.append(path)
    return written


def save_overlays(answer, corpus, folder: Path) -> list[Path]:
    """Write each cited page whole, with its cited boxes drawn (red, numbered), as a PNG."""
    from docrag.apps.viewer_render import annotate_page
    from docrag.io import atomic_write_bytes

    written: list[Path] = []
    for ci, cit in enumerate(answer.citations, start=1):
        page = corpus.page(cit.page_id)
        stem = re.sub(r"[^A-Za-z0-9._-]+", "_", Path(page.file_name or page.doc_id).stem)[:60]
        image = annotate_page(page, predicted=cit.boxes, max_side=max(page.image_width, page.image_height, 1))
        buf = io.BytesIO()
        image.save(buf, format="PNG")
        path = folder / f"{ci:02d}_{stem}_p{page.page_no}.png"
        atomic_write_bytes(path, buf.getvalue())
        written.append(path)
    return written


def print_answer(rec: dict, max_hits: int = 5) -> None:
    """The human-readable form of an ``ask --json`` record (answer, citations, best hits)."""
    typer.echo(f"Answer: {rec['answer']}")
    if not rec["citations"]:
        typer.echo("Citations: none")
    for c in rec["citations"]:
        typer.echo(f"  [{c['doc']} p.{c['page']}]")
        for b in c["boxes_pt"]:
            typer.echo(f"      box (pt): {b}")
        for q in dict.fromkeys(c.get("quotes", [])):
            typer.echo(f"      > {q if len(q) <= 160 else q[:157] + '...'}")
    if rec.get("named_documents"):
        named = ", ".join(rec["named_documents"])
        typer.echo(f"Searched only {named}: the question names it (scope = off searches every document)")
    if rec["hits"]:
        typer.echo(f"Retrieved ({rec['retriever']}, best {min(max_hits, len(rec['hits']))} of {len(rec['hits'])}):")
        for h in rec["hits"][:max_hits]:
            typer.echo(f"  {h['rank']:>3}  {h['score']:>9.4f}  {h['doc']}  p.{h['page']}")
    if rec["parse_error"]:
        typer.echo(f"Parse error: {rec['parse_error']}", err=True)
    for w in rec["warnings"]:
        typer.echo(f"Warning: {w}", err=True)


def generator_options(gen_name: str, snap: bool, coords: str | None, ground: str | None = None,
                      cite_by: str | None = None) -> dict:
    """Options ``--snap``/``--coords``/``--ground``/``--cite-by`` give the generator (usage errors for
    text generators)."""
    from docrag.generation.registry import takes_option

    if snap and not takes_option(gen_name, "snap"):
        raise typer.BadParameter(f"--snap applies to vision generators (openai:, qwen-vl:), not {gen_name!r}")
    opts: dict = {"snap": True} if snap else {}
    if ground is not None:
        if not takes_option(gen_name, "ground"):
            raise typer.BadParameter(f"--ground does not apply to {gen_name!r}")
        opts["ground"] = ground
    opts.update(cite_by_generator_options(cite_by, gen_name))
    if coords is not None:
        if not takes_option(gen_name, "coords"):
            raise typer.BadParameter(f"--coords applies to vision generators, not {gen_name!r}")
        from docrag.generation.conventions import coords_options

        try:
            opts.update(coords_options(coords, gen_name))
        except InputError as exc:
            raise typer.BadParameter(str(exc)) from exc
    return opts


def register(app: typer.Typer) -> None:
    """Add ``ask`` to ``app``."""

    @app.command("ask")
    def ask(
        corpus: Path = typer.Argument(..., help="Corpus folder (made by 'docrag ingest')."),
        question: str | None = typer.Argument(None, help="The question to answer (or --questions FILE)."),
        questions: Path | None = typer.Option(
            None, "--questions", "-q",
            help="Answer every question of this file (.jsonl with 'question' [+ 'id'], or one question a line) "
                 "in one process; needs --out."),
        out: Path | None = typer.Option(
            None, "--out", "-o", help="With --questions: answers JSONL, one 'ask --json' record (+ id) a line; "
                                      "resumed when it exists."),
        retriever: str | None = typer.Option(
            None, "--retriever", "-r",
            help="Retriever name (default: config file / DOCRAG_RETRIEVER / bm25)."),
        generator: str | None = typer.Option(
            None, "--generator", "-g",
            help="Generator: extractive, openai:<model>, qwen-vl:<path> (default: config / DOCRAG_GENERATOR / "
                 "extractive)."),
        k: int = top_k_option(),
        old_k: int | None = old_k_option(),
        as_json: bool = typer.Option(False, "--json", help="Print one JSON record instead of text."),
        save_crops_dir: Path | None = typer.Option(
            None, "--save-crops", help="Write a PNG crop of each cited box into this folder."),
        save_overlays_dir: Path | None = typer.Option(
            None, "--save-overlays", help="Write each cited page whole, cited boxes drawn, into this folder."),
        snap: bool = typer.Option(False, "--snap", help="Snap predicted boxes to layout blocks (vision generators)."),
        ground: str | None = ground_option(),
        cite_by: str | None = cite_by_option(),
        coords: str | None = typer.Option(
            None, "--coords", help="Box convention of a vision generator's replies: auto (openai: default, from "
                                   "the model name), pixel, model_pixels, norm1000, norm1000_yx."),
        index_dir: Path | None = typer.Option(None, "--index-dir", help="Index folder (default: inside the corpus)."),
        batch_size: int | None = typer.Option(None, "--batch-size", min=1,
                                              help="Texts/pages per encoding batch of the retriever's model."),
        device: str | None = typer.Option(None, "--device", help="cuda, mps or cpu (default: best available)."),
        store: str | None = typer.Option(None, "--store", help="Where vectors live: embedded (default) or "
                                         "qdrant:PATH (local mode, optional #NAME) / qdrant:http(s)://HOST:PORT/NAME."),
        progress: bool | None = typer.Option(
            None, "--progress/--no-progress",
            help="Show progress bars (index build, batch answering); default: when stderr is a terminal."),
        rerank: str | None = typer.Option(None, "--rerank", help=RERANK_HELP),
        rerank_depth: int | None = typer.Option(None, "--rerank-depth", min=1, help=RERANK_DEPTH_HELP),
        trust_remote_code: bool = typer.Option(False, "--trust-remote-code", help=TRUST_HELP),
    ) -> None:
        """Answer a question over a corpus with page- and box-level citations.

        Builds the retriever's index when it is missing.

        --json prints one record: question, answer, citations (doc, page, boxes_pt),
        hits (doc, page, rank, score), warnings, parse_error, retriever, generator.

        doc is the PDF's file name, page is 1-based, boxes are x0 y0 x1 y1 in PDF points (top-left origin).

        --questions FILE --out answers.jsonl answers many questions in one process (models loaded once,
        batched retrieval); rerun the same command to resume an interrupted file.
        """
        use_store(store)
        from docrag.corpus import Corpus
        from docrag.pipeline import RAG

        if (question is None) == (questions is None):
            raise typer.BadParameter("give either a QUESTION or --questions FILE (not both)")
        if questions is not None and out is None:
            raise typer.BadParameter("--questions needs --out answers.jsonl", param_hint="--out")
        if questions is not None and as_json:
            raise typer.BadParameter("--questions writes JSON records to --out; drop --json", param_hint="--json")
        if questions is None and out is not None:
            raise typer.BadParameter("--out goes with --questions (use --json for one question)", param_hint="--out")
        settings = load_settings()
        k = old_k or k
        if retriever:
            check_retrievers([retriever])
        gen_name = generator or settings.generator
        gen_opts = generator_options(gen_name, snap, coords, ground, cite_by)   # usage errors before the corpus is read
        corpus_obj = Corpus.open(corpus)
        bars = show_progress(progress)
        rag = RAG(corpus_obj, retriever=retriever, generator=generator, index_dir=index_dir,
                  show_progress=bars, settings=settings, generator_options=gen_opts,
                  retriever_options={**encoding_options(batch_size, device), **rerank_options(rerank, rerank_depth),
                                     **({"trust_remote_code": True} if trust_remote_code else {})})
        if questions is not None:
            _ask_file(rag, corpus_obj, questions, out, k, bars, save_crops_dir, save_overlays_dir)
            return
        answer = rag.ask(question, k=k)
        written = []
        if save_crops_dir is not None:
            written.append(f"{len(save_crops(answer, corpus_obj, save_crops_dir))} crop(s) written to {save_crops_dir}")
        if save_overlays_dir is not None:
            n = len(save_overlays(answer, corpus_obj, save_overlays_dir))
            written.append(f"{n} page overlay(s) written to {save_overlays_dir}")
        rec = answer_record(answer, corpus_obj)
        if as_json:
            from docrag.io import dumps_safe

            typer.echo(dumps_safe(rec))
        else:
            print_answer(rec)
        for line in written:
            typer.echo(line, err=True)


def _ask_file(rag, corpus, questions: Path, out: Path, k: int | None, bars: bool,
              crops_dir: Path | None, overlays_dir: Path | None) -> None:
    from docrag.apps.batch import answer_file, read_questions

    qs = read_questions(questions)

    def side_files(q, answer) -> None:
        sub = re.sub(r"[^A-Za-z0-9._-]+", "_", q.id)[:80] or "q"
        if crops_dir is not None:
            save_crops(answer, corpus, crops_dir / sub)
        if overlays_dir is not None:
            save_overlays(answer, corpus, overlays_dir / sub)

    hook = side_files if crops_dir is not None or overlays_dir is not None else None
    counts = answer_file(rag, qs, out, k=k, show_progress=bars, on_answer=hook)
    typer.echo(f"{out}: {counts['answered']} answered, {counts['skipped']} already done, "
               f"{counts['failed']} failed (of {len(qs)})")
    if counts["failed"]:
        typer.echo("rerun the same command to retry the failed questions", err=True)
        raise typer.Exit(1)
