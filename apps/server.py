"""``docrag serve CORPUS``: a small JSON HTTP API over one corpus, with the models kept warm.

Endpoints (OpenAPI schema at ``/openapi.json``, interactive docs at ``/docs``):

- ``GET /health``: status, corpus, page count, retriever, generator, version (never needs a key).
- ``POST /search`` ``{"query", "k"?, "filter"?}``: ranked pages with score, snippet and image URL.
- ``POST /ask`` ``{"question", "k"?}``: exactly the ``docrag ask --json`` record.
- ``GET /pages/{page_id}/image?boxes=x0,y0,x1,y1;...``: the page as PNG, boxes (PDF points) drawn.

The retriever's index is opened (built when missing) and the generator loaded when the app is
created, so the first request is as fast as the later ones. With an API key every endpoint but
``/health`` wants ``X-API-Key: KEY`` or ``Authorization: Bearer KEY``.
"""

from __future__ import annotations

import hmac
import io
import logging
import threading
import time
from pathlib import Path
from typing import Any

from fastapi import Depends, FastAPI, HTTPException, Query, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, Field

from docrag._version import __version__
from docrag.apps.commands.ask import answer_record
from docrag.apps.commands.index import search_row
from docrag.apps.viewer_render import annotate_page
from docrag.corpus import Corpus
from docrag.errors import CorpusError, DocragError

log = logging.getLogger(__name__)

LOOPBACK = {"127.0.0.1", "localhost", "::1"}


class SearchRequest(BaseModel):
    query: str = Field(..., description="The question or keywords.")
    k: int = Field(10, ge=1, le=100, description="How many pages to return.")
    filter: dict[str, Any] | None = Field(
        None, description="Only pages whose FIELD equals VALUE (or is in a list of values): doc_id, file_name, "
                          "lang, page_no, or a user metadata key given at ingest.")


class AskRequest(BaseModel):
    question: str = Field(..., description="The question to answer.")
    k: int | None = Field(None, ge=1, le=100, description="Pages to retrieve (default: the settings' k).")


def parse_boxes(value: str | None) -> list[tuple[float, float, float, float]]:
    """``"x0,y0,x1,y1;x0,y0,x1,y1"`` -> boxes (PDF points); a malformed value raises ValueError."""
    if not value:
        return []
    out = []
    for part in value.split(";"):
        if not part.strip():
            continue
        nums = [float(v) for v in part.split(",")]
        if len(nums) != 4:
            raise ValueError(f"box {part!r}: expected x0,y0,x1,y1 (four numbers in PDF points)")
        out.append((nums[0], nums[1], nums[2], nums[3]))
    return out


def create_app(corpus: Any, *, retriever: str | None = None, generator: str | None = None,
               index_dir: str | Path | None = None, api_key: str | None = None,
               retriever_options: dict[str, Any] | None = None, rag: Any = None, warm: bool = True,
               generator_options: dict[str, Any] | None = None):
    """The FastAPI app for ``corpus`` (a :class:`~docrag.corpus.Corpus` or folder); ``rag`` overrides
    the :class:`~docrag.pipeline.RAG` built from the other arguments (tests)."""
    if rag is None:
        from docrag.pipeline import RAG

        rag = RAG(corpus if isinstance(corpus, Corpus) else Corpus.open(corpus), retriever=retriever,
                  generator=generator, index_dir=index_dir, show_progress=False,
                  retriever_options=retriever_options, generator_options=generator_options)
    if warm:
        _ = rag.index  # open or build the index now, not on the first request
    lock = threading.Lock()  # one question at a time through the models (they are not thread-safe)

    def check_key(request: Request) -> None:
        if not api_key:
            return
        given = request.headers.get("x-api-key") or ""
        auth = request.headers.get("authorization") or ""
        if auth.lower().startswith("bearer "):
            given = given or auth[7:].strip()
        if not hmac.compare_digest(given.encode(), api_key.encode()):
            raise HTTPException(status_code=401, detail="missing or wrong API key (send X-API-Key: KEY)")

    app = FastAPI(title="docrag", version=__version__,
                  description="Retrieval-augmented generation over page images with visual citations.")
    guarded = [Depends(check_key)]

    @app.exception_handler(DocragError)
    def _docrag_error(request: Request, exc: DocragError) -> JSONResponse:
        status = 404 if isinstance(exc, CorpusError) else 400
        return JSONResponse({"detail": str(exc)}, status_code=status)

    @app.get("/health", summary="Liveness and what is loaded")
    def health() -> dict:
        return {"status": "ok", "version": __version__, "corpus": str(rag.corpus.root), "pages": len(rag.corpus),
                "retriever": rag.retriever_name, "generator": getattr(rag.generator, "name", str(rag.generator)),
                "auth": bool(api_key)}

    @app.post("/search", dependencies=guarded, summary="Ranked pages for a query")
    def search(req: SearchRequest) -> dict:
        if not req.query.strip():
            raise HTTPException(status_code=422, detail="the query is empty")
        with lock:
            hits = rag.index.search(req.query, k=req.k, filter=req.filter or None)
        rows = []
        for h in hits:
            row = search_row(rag.corpus, h, req.query)
            row.pop("image")  # a server path; clients get the URL
            row["image_url"] = f"/pages/{h.page_id}/image"
            rows.append(row)
        return {"query": req.query, "retriever": rag.retriever_name, "hits": rows}

    @app.post("/ask", dependencies=guarded, summary="Answer with citations (the 'docrag ask --json' record)")
    def ask(req: AskRequest) -> dict:
        with lock:
            answer = rag.ask(req.question, k=req.k)
        return answer_record(answer, rag.corpus)

    @app.get("/pages/{page_id}/image", dependencies=guarded, summary="A page image, boxes drawn on request",
             response_class=Response, responses={200: {"content": {"image/png": {}}}})
    def page_image(page_id: str, boxes: str | None = Query(
            None, description="Boxes to draw, in PDF points: x0,y0,x1,y1;x0,y0,x1,y1"),
            max_side: int = Query(1400, ge=64, le=8000, description="Longest side of the returned image")) -> Response:
        try:
            page = rag.corpus.page(page_id)
        except ValueError as exc:  # not a page id at all
            raise HTTPException(status_code=404, detail=str(exc)) from None
        try:
            drawn = [page.box_pt(*b) for b in parse_boxes(boxes)]
        except ValueError as exc:
            raise HTTPException(status_code=422, detail=f"boxes: {exc}") from None
        buf = io.BytesIO()
        annotate_page(page, predicted=drawn, max_side=max_side).save(buf, format="PNG")
        return Response(buf.getvalue(), media_type="image/png")

    app.state.rag = rag
    return app


def check_binding(host: str, api_key: str | None) -> None:
    """Loopback needs no key; any other interface does (raises :class:`DocragError`)."""
    if host not in LOOPBACK and not api_key:
        raise DocragError(f"--host {host} exposes the API beyond this machine: give --api-key KEY (or set "
                          "DOCRAG_API_KEY), or keep the default --host 127.0.0.1")


class ServerThread:
    """Uvicorn serving ``app`` in a background thread (tests, notebooks); ``url`` once started."""

    def __init__(self, app: Any, host: str = "127.0.0.1", port: int = 0) -> None:
        import uvicorn

        self.server = uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning",
                                                    lifespan="off"))
        self.thread = threading.Thread(target=self.server.run, name="docrag-serve", daemon=True)
        self.host = host

    def start(self, timeout: float = 30.0) -> str:
        self.thread.start()
        t0 = time.monotonic()
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() - t0 > timeout:
                raise RuntimeError("the HTTP server did not start")
            time.sleep(0.02)
        port = self.server.servers[0].sockets[0].getsockname()[1]
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{port}"

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)
