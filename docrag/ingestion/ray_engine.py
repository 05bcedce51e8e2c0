"""``ingest --engine ray``: the pages of each PDF fan out to Ray tasks; this process stays the one writer.

:class:`RayPagePool` processes the PDF pages; files are still opened (and page images ingested)
by the time-limited local :class:`docrag.ingestion.workers.PageWorkers`, and the ingest pipeline
(staging, resume, one atomic commit per document) is unchanged. Nothing is shared
but the object store: the PDF's bytes are put there once per file, each task renders its page into
a temporary folder on its own node and returns the page record plus the image bytes, and the
writer stages them (atomically) in page order. Records are the same as the local engine's, so the
corpus (and its fingerprint) is the same. A task whose worker dies is retried by Ray
(``max_retries``); a page that still fails is processed by the local ``fallback``.
"""

from __future__ import annotations

import logging
import tempfile
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from docrag.ingestion.pdfpage import open_pdf, process_pdf_page
from docrag.ingestion.workers import PageTarget, _Document
from docrag.io import atomic_write_bytes, sha256_file
from docrag.raycluster import cluster_cpus, ensure_ray
from docrag.types import Page

log = logging.getLogger(__name__)

_open: dict[str, Any] = {}   # worker side: the last opened PDF (by content hash)


def process_page(pdf_bytes: bytes, key: str, doc_id: str, file_name: str, page_no: int, opts) -> tuple[dict, bytes]:
    """Worker side: one page -> (its record, its image bytes). Renders into a private temp folder."""
    with tempfile.TemporaryDirectory(prefix="docrag-ray-") as tmp:
        doc = _open.get(key)
        if doc is None:
            for old in _open.values():
                old.close()
            _open.clear()
            pdf_path = Path(tmp) / "doc.pdf"
            pdf_path.write_bytes(pdf_bytes)
            doc = _open[key] = open_pdf(pdf_path)   # pymupdf has read it: the temp file may go
        target = PageTarget(_Document(doc_id, file_name), Path(tmp) / "images")
        target.images_dir.mkdir(parents=True, exist_ok=True)
        page = process_pdf_page(doc, page_no, target, opts)
        image = target.staged_image_path(page_no, opts.image_ext).read_bytes()
    return page.to_json(), image


@dataclass
class _Planned:
    """A file whose pages may be submitted before the pipeline reaches it."""

    path: Path
    doc_id: str = ""
    n_pages: int = 0
    next_page: int = 1
    pdf_ref: Any = None
    key: str = ""


class RayPagePool:
    """Pages processed as Ray tasks, at most ``2 * workers`` in flight (see module docstring).

    :meth:`plan` tells the pool which files come next, so pages of the following PDFs start while
    the current one is written (files fan out as well as pages). ``process`` replaces the task
    function (tests use it to kill a worker mid-page).
    """

    def __init__(self, address: str | None = None, num_cpus: int | None = None, max_retries: int = 3,
                 process: Callable[..., tuple[dict, bytes]] | None = None) -> None:
        self.address = address
        self.num_cpus = num_cpus
        self.max_retries = max_retries
        self._fn = process or process_page
        self._task = None
        self.workers = 0
        self._plan: deque[_Planned] = deque()
        self._inflight: dict[tuple[str, int], Any] = {}   # (source path, page no) -> ObjectRef
        self._writer = None
        self._opts = None

    def _start(self):
        ray = ensure_ray(self.address, self.num_cpus)
        if self._task is None:
            self._task = ray.remote(num_cpus=1, max_retries=self.max_retries, retry_exceptions=False)(self._fn)
            self.workers = cluster_cpus(ray)
            log.info("ingest on Ray: %d CPU(s) in the cluster", self.workers)
        return ray

    def usable(self, n_pages: int) -> bool:
        return n_pages > 0

    def plan(self, sources, writer, opts) -> None:
        """The PDFs the pipeline will ingest, in order (pages of later ones are prefetched)."""
        self._plan = deque(_Planned(Path(src.path)) for src in sources if src.kind == "pdf")
        self._writer, self._opts = writer, opts

    def _submit(self, ray, state: _Planned, n: int, opts) -> None:
        if state.pdf_ref is None:
            state.pdf_ref = ray.put(state.path.read_bytes())
        self._inflight[(str(state.path), n)] = self._task.remote(state.pdf_ref, state.key, state.doc_id,
                                                                  state.path.name, n, opts)

    def _prefetch(self, ray, window: int) -> None:
        """Submit pages of the planned files while fewer than ``window`` tasks are in flight."""
        for state in self._plan:
            if len(self._inflight) >= window:
                return
            if not state.key:
                try:
                    state.key = sha256_file(state.path)
                    state.doc_id = state.key[:16]
                    if self._writer is not None and self._writer.has_document(state.doc_id):
                        continue   # unchanged: the pipeline skips it
                    import pymupdf

                    with pymupdf.open(state.path, filetype="pdf") as doc:
                        state.n_pages = doc.page_count
                except Exception as exc:  # the pipeline reports the file when it gets there
                    log.debug("not prefetching %s: %s", state.path, exc)
                    state.n_pages = 0
            while state.next_page <= state.n_pages and len(self._inflight) < window:
                self._submit(ray, state, state.next_page, self._opts)
                state.next_page += 1

    def pages(self, pdf_path: Path, page_nos: list[int], staged, opts,
              fallback: Callable[[int], Page]) -> Iterator[Page]:
        """Processed pages in ``page_nos`` order; each image is staged before its page is yielded."""
        ray = self._start()
        path = Path(pdf_path)
        while self._plan and self._plan[0].path != path:
            self._plan.popleft()
        state = self._plan.popleft() if self._plan else _Planned(path)
        if not state.key:
            state.key = sha256_file(path)
        state.doc_id = staged.document.doc_id
        window = 2 * self.workers
        todo = deque(page_nos)
        try:
            for n in page_nos:
                while todo and (len(self._inflight) < window or todo[0] == n):
                    m = todo.popleft()
                    if (str(path), m) not in self._inflight:
                        self._submit(ray, state, m, opts)
                self._prefetch(ray, window)
                ref = self._inflight.pop((str(path), n))
                try:
                    record, image = ray.get(ref)
                except (ray.exceptions.WorkerCrashedError, ray.exceptions.RayTaskError,
                        ray.exceptions.TaskUnschedulableError, ray.exceptions.ObjectLostError) as exc:
                    log.warning("%s p.%d failed on Ray after %d retries (%s); processing it here",
                                path.name, n, self.max_retries, type(exc).__name__)
                    yield fallback(n)
                    continue
                page = Page.from_json(record, root=staged.writer.root)
                image_path = staged.staged_image_path(n, opts.image_ext)
                image_path.parent.mkdir(parents=True, exist_ok=True)
                atomic_write_bytes(image_path, image)
                yield page
        finally:
            for k in [k for k in self._inflight if k[0] == str(path)]:
                ray.cancel(self._inflight.pop(k))

    def close(self) -> None:
        """Cancel prefetched pages; a cluster this engine started lives until the process exits."""
        if self._inflight:
            ray = self._start()
            for ref in self._inflight.values():
                ray.cancel(ref)
            self._inflight.clear()
