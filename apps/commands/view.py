"""`docrag view`: the Gradio viewer (ask and inspect cited boxes; browse evaluation runs)."""

from __future__ import annotations

import logging
from pathlib import Path

import typer

from docrag.apps.commands.common import cite_by_option, ground_option, old_k_option, top_k_option
from docrag.apps.commands.index import RERANK_DEPTH_HELP, RERANK_HELP, rerank_options, use_store
from docrag.errors import InputError

log = logging.getLogger(__name__)

LOCAL_HOSTS = {"127.0.0.1", "localhost", "::1"}
_FROM_SETTINGS = "(default: from the settings, see 'docrag ask --help')"


def register(app: typer.Typer) -> None:
    """Add ``docrag view`` to ``app``."""

    @app.command("view")
    def view(
        corpus: Path = typer.Argument(..., help="Corpus folder written by 'docrag ingest'."),
        run: Path | None = typer.Option(None, "--run", help="Evaluation run folder to browse (from 'docrag eval')."),
        host: str = typer.Option("127.0.0.1", "--host", help="Interface to listen on (keep 127.0.0.1 unless you "
                                 "mean to share the viewer on your network)."),
        port: int = typer.Option(7860, "--port", min=0, max=65535, help="Port to listen on (0: any free port)."),
        retriever: str | None = typer.Option(None, "--retriever", "-r",
                                             help=f"Retriever preselected in the Ask tab {_FROM_SETTINGS}."),
        generator: str | None = typer.Option(None, "--generator", "-g",
                                             help=f"Generator preselected in the Ask tab {_FROM_SETTINGS}."),
        judge: str | None = typer.Option(None, "--judge",
                                         help="Citation judge preselected (default: the CLI's, as for "
                                              "'docrag eval'; none: no judging)."),
        k: int = top_k_option(f"Pages to retrieve per question {_FROM_SETTINGS}.", max=50),
        old_k: int | None = old_k_option(),
        index_dir: Path | None = typer.Option(
            None, "--index-dir", help="Folder holding one index folder per retriever (default: CORPUS/indexes)."),
        upload_dir: Path | None = typer.Option(
            None, "--upload-dir", help="Where uploaded PDFs are kept (default: CORPUS-uploads beside the corpus)."),
        max_upload_mb: float = typer.Option(50.0, "--max-upload-mb", min=0.1, help="Largest PDF accepted, in MiB."),
        no_upload: bool = typer.Option(False, "--no-upload", help="Do not offer PDF uploads."),
        store: str | None = typer.Option(None, "--store", help="Where vectors live: embedded (default) or "
                                         "qdrant:PATH (local mode, optional #NAME) / qdrant:http(s)://HOST:PORT/NAME."),
        coords: str | None = typer.Option(
            None, "--coords", help="Box convention of vision generators' replies: auto (openai: default, from the "
                                   "model name), pixel, model_pixels, norm1000, norm1000_yx."),
        ground: str | None = ground_option(),
        cite_by: str | None = cite_by_option(),
        rerank: str | None = typer.Option(None, "--rerank", help=RERANK_HELP),
        rerank_depth: int | None = typer.Option(None, "--rerank-depth", min=1, help=RERANK_DEPTH_HELP),
    ) -> None:
        """Start the viewer: ask questions, see cited pages with their boxes, browse a run."""
        use_store(store)
        from docrag.apps.viewer import build_app, serve
        from docrag.apps.viewer_upload import UploadPolicy
        from docrag.corpus import Corpus

        if coords is not None:
            from docrag.generation.conventions import check_convention

            try:
                coords = check_convention(coords, "--coords")
            except InputError as exc:
                raise typer.BadParameter(str(exc)) from exc
        if run is not None and not (run / "generations.jsonl").exists():
            raise typer.BadParameter(f"{run}: no generations.jsonl here; pass a folder written by 'docrag eval'",
                                     param_hint="--run")
        if host not in LOCAL_HOSTS:
            log.warning("listening on %s: anyone who can reach this address can use the viewer "
                        "(and upload PDFs unless --no-upload)", host)
        app = build_app(Corpus.open(corpus), run, retriever=retriever, generator=generator, judge=judge,
                        k=old_k or k,
                        index_dir=index_dir, upload_dir=upload_dir,
                        upload_policy=UploadPolicy.from_mb(max_upload_mb), allow_upload=not no_upload,
                        coords=coords, rerank=rerank_options(rerank, rerank_depth) or None, ground=ground,
                        cite_by=cite_by)
        url = serve(app, host=host, port=port, block=False)
        typer.echo(f"docrag viewer running at {url} (Ctrl+C to stop)")
        try:
            app.block_thread()
        finally:
            app.close()
