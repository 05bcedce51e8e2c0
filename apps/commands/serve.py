"""``docrag serve CORPUS``: the JSON HTTP API (``/search``, ``/ask``, ``/pages/{id}/image``, ``/health``)."""

from __future__ import annotations

from pathlib import Path

import typer

from docrag.apps.commands.common import (
    check_retrievers,
    cite_by_generator_options,
    cite_by_option,
    encoding_options,
    ground_option,
)
from docrag.config import load_settings
from docrag.errors import DocragError


def register(app: typer.Typer) -> None:
    """Add ``serve`` to ``app``."""

    @app.command("serve")
    def serve_cmd(
        corpus: Path = typer.Argument(..., help="Corpus folder (made by 'docrag ingest')."),
        host: str = typer.Option("127.0.0.1", "--host", help="Interface to listen on (loopback by default; any "
                                                             "other needs --api-key)."),
        port: int = typer.Option(8000, "--port", min=0, max=65535, help="Port (0: any free port)."),
        api_key: str | None = typer.Option(None, "--api-key", envvar="DOCRAG_API_KEY", show_envvar=True,
                                           help="Require this key (X-API-Key or Authorization: Bearer)."),
        retriever: str | None = typer.Option(None, "--retriever", "-r", help="Retriever (default: as for 'ask')."),
        generator: str | None = typer.Option(None, "--generator", "-g", help="Generator (default: as for 'ask')."),
        ground: str | None = ground_option(),
        cite_by: str | None = cite_by_option(),
        index_dir: Path | None = typer.Option(None, "--index-dir", help="Index folder (default: inside the corpus)."),
        batch_size: int | None = typer.Option(None, "--batch-size", min=1, help="Encoding batch of the retriever."),
        device: str | None = typer.Option(None, "--device", help="cuda, mps or cpu (default: best available)."),
    ) -> None:
        """Serve CORPUS over HTTP with the models kept warm (OpenAPI schema at /docs and /openapi.json).

        POST /ask returns exactly the 'docrag ask --json' record. Request sizes, questions in flight and
        queued, and the time per request are bounded by the [serve] table of the config (DOCRAG_SERVE_*
        variables; docs/serving.md): 413/422 beyond a size, 503 with Retry-After when full, 504 past the
        time budget (the work is cancelled).
        """
        from docrag.apps.server import ServerThread, check_binding, create_app
        from docrag.corpus import Corpus

        try:
            check_binding(host, api_key)
        except DocragError as exc:
            raise typer.BadParameter(str(exc), param_hint="--host") from None
        if retriever:
            check_retrievers([retriever])
        gen_opts = {**({"ground": ground} if ground else {}),
                    **cite_by_generator_options(cite_by, generator or load_settings().generator)}
        api = create_app(Corpus.open(corpus), retriever=retriever, generator=generator, index_dir=index_dir,
                         api_key=api_key, retriever_options=encoding_options(batch_size, device),
                         generator_options=gen_opts or None)
        server = ServerThread(api, host=host, port=port)
        url = server.start()
        lim = api.state.limits
        typer.echo(f"docrag API at {url} (docs at {url}/docs; Ctrl+C to stop)")
        typer.echo(f"limits: {lim.max_in_flight} in flight + {lim.max_queue} queued, {lim.timeout:g} s per request, "
                   f"bodies up to {lim.max_body_bytes} bytes ([serve] in the config, DOCRAG_SERVE_*)")
        try:
            server.thread.join()
        except KeyboardInterrupt:
            typer.echo("stopping", err=True)
        finally:
            server.stop()
