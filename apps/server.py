"""``docrag serve CORPUS``: a small JSON HTTP API over one corpus, with the models kept warm.

Endpoints (OpenAPI schema at ``/openapi.json``, interactive docs at ``/docs``):

- ``GET /health``: status, corpus, page count, retriever, generator, version, questions in flight and
  queued, the limits (never needs a key).
- ``POST /search`` ``{"query", "k"?, "filter"?}``: ranked pages with score, snippet and image URL.
- ``POST /ask`` ``{"question", "k"?}``: exactly the ``docrag ask --json`` record.
- ``GET /pages/{page_id}/image?boxes=x0,y0,x1,y1;...``: the page as PNG, boxes (PDF points) drawn.

The retriever's index is opened (built when missing) and the generator loaded when the app is
created, so the first request is as fast as the later ones. Requests are bounded by the ``[serve]``
limits of the settings (:class:`~docrag.config.ServeLimits`; :mod:`docrag.apps.server_limits`):
body size (413), question length, k, filter and image sizes (422), questions in flight and queued
(503 with ``Retry-After``) and a time budget per question after which the work is cancelled (504).
With an API key every endpoint but ``/health`` wants ``X-API-Key: KEY`` or ``Authorization: Bearer KEY``.
"""

from __future__ import annotations

import hmac
import io
import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fastapi import Depends, FastAPI, HTTPException, Query, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, Field

from docrag._version import __version__
from docrag.apps.commands.ask import answer_record
from docrag.apps.commands.index import search_row
from docrag.apps.server_limits import BodyLimit, Busy, ClientGone, TimedOut, WorkPool
from docrag.apps.viewer_render import annotate_page
from docrag.cancel import CancelToken
from docrag.config import ServeLimits, load_settings
from docrag.corpus import Corpus
from docrag.errors import CorpusError, DocragError

log = logging.getLogger(__name__)

LOOPBACK = {"127.0.0.1", "localhost", "::1"}


class SearchRequest(BaseModel):
    query: str = Field(..., description="The question or keywords (at most serve.max_question_chars).")
    k: int | None = Field(None, ge=1, description="How many pages to return (default 10; at most serve.max_k).")
    filter: dict[str, Any] | None = Field(
        None, description="Only pages whose FIELD equals VALUE (or is in a list of values): doc_id, file_name, "
                          "lang, page_no, or a user metadata key given at ingest (at most serve.max_filter_fields "
                          "fields, serve.max_filter_values values each).")


class AskRequest(BaseModel):
    question: str = Field(..., description="The question to answer (at most serve.max_question_chars).")
    k: int | None = Field(None, ge=1, description="Pages to retrieve (default: the settings' k; at most serve.max_k).")


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


def _over(what: str, value: int, key: str, limits: ServeLimits) -> HTTPException:
    """422 naming the limit and where it is set."""
    limit = getattr(limits, key)
    return HTTPException(status_code=422, detail=f"{what} is {value}; the limit is {limit} ({limits.where(key)})")


def check_text(text: str, what: str, limits: ServeLimits) -> None:
    """422 for a question or query longer than ``max_question_chars``."""
    if len(text) > limits.max_question_chars:
        raise _over(f"the {what} length in characters", len(text), "max_question_chars", limits)


def check_k(k: int | None, limits: ServeLimits) -> None:
    if k is not None and k > limits.max_k:
        raise _over("k", k, "max_k", limits)


def check_filter(flt: dict[str, Any] | None, limits: ServeLimits) -> None:
    """422 for a filter with too many fields, or a field with too many values."""
    if not flt:
        return
    if len(flt) > limits.max_filter_fields:
        raise _over("the number of filter fields", len(flt), "max_filter_fields", limits)
    for name, value in flt.items():
        if isinstance(value, list | tuple) and len(value) > limits.max_filter_values:
            raise _over(f"the number of values of filter field {name!r}", len(value), "max_filter_values", limits)


def create_app(corpus: Any, *, retriever: str | None = None, generator: str | None = None,
               index_dir: str | Path | None = None, api_key: str | None = None,
               retriever_options: dict[str, Any] | None = None, rag: Any = None, warm: bool = True,
               generator_options: dict[str, Any] | None = None, limits: ServeLimits | None = None):
    """The FastAPI app for ``corpus`` (a :class:`~docrag.corpus.Corpus` or folder); ``rag`` overrides
    the :class:`~docrag.pipeline.RAG` built from the other arguments (tests); ``limits`` overrides
    the settings' ``[serve]`` limits."""
    if rag is None:
        from docrag.pipeline import RAG

        rag = RAG(corpus if isinstance(corpus, Corpus) else Corpus.open(corpus), retriever=retriever,
                  generator=generator, index_dir=index_dir, show_progress=False,
                  retriever_options=retriever_options, generator_options=generator_options)
    limits = limits or getattr(getattr(rag, "settings", None), "serve", None) or load_settings().serve
    if warm:
        _ = rag.index  # open or build the index now, not on the first request
    lock = threading.Lock()  # one question at a time through the models (they are not thread-safe)
    pool = WorkPool(limits)

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
    app.add_middleware(BodyLimit, limits=limits)
    guarded = [Depends(check_key)]

    @app.exception_handler(DocragError)
    def _docrag_error(request: Request, exc: DocragError) -> JSONResponse:
        status = 404 if isinstance(exc, CorpusError) else 400
        return JSONResponse({"detail": str(exc)}, status_code=status)

    async def bounded(request: Request, work: Callable[[CancelToken], dict]) -> Any:
        """``work(token)`` through the pool, mapped to 503 / 504 / 499 when it cannot finish."""
        try:
            return await pool.run(work, request.is_disconnected)
        except Busy:
            counts = pool.counts()
            log.info("503: %(in_flight)d in flight, %(queued)d queued", counts)
            return JSONResponse(
                {"detail": f"busy: at most {limits.max_in_flight} request(s) are answered at once and "
                           f"{limits.max_queue} wait ({limits.where('max_in_flight')}; "
                           f"{limits.where('max_queue')}); now {counts['in_flight']} in flight, {counts['queued']} "
                           f"queued; retry after {limits.retry_after} s"},
                status_code=503, headers={"Retry-After": str(limits.retry_after)})
        except TimedOut as exc:
            log.info("504 on %s: %s", request.url.path, exc)
            return JSONResponse({"detail": f"no answer within the time budget of {limits.timeout:g} s "
                                           f"({limits.where('timeout')}); the work was cancelled ({exc})"},
                                status_code=504)
        except ClientGone:
            log.info("client gone on %s: its work was cancelled", request.url.path)
            return JSONResponse({"detail": "the client disconnected; the work was cancelled"}, status_code=499)

    @app.get("/health", summary="Liveness, what is loaded, the load and the limits")
    def health() -> dict:
        return {"status": "ok", "version": __version__, "corpus": str(rag.corpus.root), "pages": len(rag.corpus),
                "retriever": rag.retriever_name, "generator": getattr(rag.generator, "name", str(rag.generator)),
                "auth": bool(api_key), **pool.counts(), "limits": limits.to_json()}

    @app.post("/search", dependencies=guarded, summary="Ranked pages for a query")
    async def search(req: SearchRequest, request: Request) -> Any:
        if not req.query.strip():
            raise HTTPException(status_code=422, detail="the query is empty")
        check_text(req.query, "query", limits)
        check_k(req.k, limits)
        check_filter(req.filter, limits)
        k = req.k or min(10, limits.max_k)

        def work(token: CancelToken) -> dict:
            token.acquire(lock, "waiting for the models")
            try:
                hits = rag.index.search(req.query, k=k, filter=req.filter or None)
            finally:
                lock.release()
            rows = []
            for h in hits:
                row = search_row(rag.corpus, h, req.query)
                row.pop("image")  # a server path; clients get the URL
                row["image_url"] = f"/pages/{h.page_id}/image"
                rows.append(row)
            return {"query": req.query, "retriever": rag.retriever_name, "hits": rows}

        return await bounded(request, work)

    @app.post("/ask", dependencies=guarded, summary="Answer with citations (the 'docrag ask --json' record)")
    async def ask(req: AskRequest, request: Request) -> Any:
        check_text(req.question, "question", limits)
        check_k(req.k, limits)

        def work(token: CancelToken) -> dict:
            token.acquire(lock, "waiting for the models")
            try:
                answer = rag.ask(req.question, k=req.k, cancel=token)
            finally:
                lock.release()
            return answer_record(answer, rag.corpus)

        return await bounded(request, work)

    @app.get("/pages/{page_id}/image", dependencies=guarded, summary="A page image, boxes drawn on request",
             response_class=Response, responses={200: {"content": {"image/png": {}}}})
    def page_image(page_id: str, boxes: str | None = Query(
            None, description="Boxes to draw, in PDF points: x0,y0,x1,y1;x0,y0,x1,y1 (at most serve.max_boxes)"),
            max_side: int | None = Query(None, ge=64, description="Longest side of the returned image "
                                                                  "(default 1400; at most serve.max_image_side)"),
    ) -> Response:
        max_side = max_side or min(1400, limits.max_image_side)
        if max_side > limits.max_image_side:
            raise _over("max_side", max_side, "max_image_side", limits)
        try:
            page = rag.corpus.page(page_id)
        except ValueError as exc:  # not a page id at all
            raise HTTPException(status_code=404, detail=str(exc)) from None
        try:
            parsed = parse_boxes(boxes)
        except ValueError as exc:
            raise HTTPException(status_code=422, detail=f"boxes: {exc}") from None
        if len(parsed) > limits.max_boxes:
            raise _over("the number of boxes", len(parsed), "max_boxes", limits)
        drawn = [page.box_pt(*b) for b in parsed]
        buf = io.BytesIO()
        annotate_page(page, predicted=drawn, max_side=max_side).save(buf, format="PNG")
        return Response(buf.getvalue(), media_type="image/png")

    app.state.rag = rag
    app.state.pool = pool
    app.state.limits = limits
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
        pool = getattr(getattr(self.server.config.app, "state", None), "pool", None)
        if pool is not None:
            pool.shutdown()
