"""Parallel page processing: a pool of worker processes, each with its own open PDF.

PyMuPDF releases no GIL-free work to threads, so pages of one PDF are spread over processes. The
main process keeps writing the staged records (one writer, page order preserved); workers write
page images straight into the staging folder (atomically). Workers are forked (cheap, and they do
not re-import the caller's ``__main__``) unless torch is loaded, whose threads make ``fork`` unsafe;
then they are spawned. A pool that breaks (a worker killed) is shut down and the remaining pages
are processed in this process.
"""

from __future__ import annotations

import logging
import os
import sys
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from docrag.types import Page

log = logging.getLogger(__name__)

MIN_PAGES_FOR_POOL = 8     # fewer pages than this are not worth starting worker processes for


def default_workers() -> int:
    try:
        n = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        n = os.cpu_count() or 1
    return max(1, min(n, 4))


@dataclass(frozen=True)
class _Document:
    doc_id: str
    file_name: str


@dataclass(frozen=True)
class PageTarget:
    """The part of a staged document a worker needs: ids and where page images go."""

    document: _Document
    images_dir: Path

    def staged_image_path(self, page_no: int, ext: str) -> Path:
        return self.images_dir / f"p{page_no:04d}.{ext}"

    def image_relpath(self, page_no: int, ext: str) -> str:
        return f"docs/{self.document.doc_id}/images/p{page_no:04d}.{ext}"

    @classmethod
    def of(cls, staged) -> PageTarget:
        return cls(_Document(staged.document.doc_id, staged.document.file_name), staged.images_dir)


_open: dict[str, object] = {}


def _watch_parent(parent: int) -> None:
    """Worker initializer: exit when the ingesting process is gone (killed with SIGKILL, say).

    Otherwise workers of a killed run would wait forever on their task queue.
    """
    import threading

    def watch() -> None:
        import time

        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, name="docrag-parent-watch", daemon=True).start()


def _process(pdf_path: str, page_no: int, target: PageTarget, opts) -> dict:
    """Worker side: one page of ``pdf_path`` -> its record (the image is written by the worker)."""
    from docrag.ingestion.pdfpage import open_pdf, process_pdf_page

    doc = _open.get(pdf_path)
    if doc is None:
        for old in _open.values():
            old.close()
        _open.clear()
        doc = _open[pdf_path] = open_pdf(Path(pdf_path))
    return process_pdf_page(doc, page_no, target, opts).to_json()


class PagePool:
    """A lazily started process pool shared by all files of one ``ingest`` call."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self._executor = None

    def usable(self, n_pages: int) -> bool:
        return self.workers > 1 and (self._executor is not None or n_pages >= MIN_PAGES_FOR_POOL)

    def pages(self, pdf_path: Path, page_nos: list[int], staged, opts,
              fallback: Callable[[int], Page]) -> Iterator[Page]:
        """Processed pages in ``page_nos`` order, at most ``2 * workers`` in flight.

        When the pool breaks, the pages not yielded yet are made by ``fallback`` in this process.
        """
        from concurrent.futures.process import BrokenProcessPool

        if self._executor is None:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            method = "fork" if sys.platform.startswith("linux") and "torch" not in sys.modules else "spawn"
            log.info("starting %d ingest worker processes (%s)", self.workers, method)
            self._executor = ProcessPoolExecutor(max_workers=self.workers,
                                                 mp_context=multiprocessing.get_context(method),
                                                 initializer=_watch_parent, initargs=(os.getpid(),))
        target = PageTarget.of(staged)
        pending: deque = deque()
        todo = iter(page_nos)
        try:
            for n in todo:
                pending.append(self._executor.submit(_process, str(pdf_path), n, target, opts))
                if len(pending) >= 2 * self.workers:
                    break
            while pending:
                try:
                    record = pending.popleft().result()
                except BrokenProcessPool:
                    log.warning("ingest worker processes died; continuing in this process")
                    rest = [n for n in page_nos if n not in staged.done_pages()]
                    pending.clear()
                    self.close()
                    self.workers = 1
                    yield from (fallback(n) for n in rest)
                    return
                nxt = next(todo, None)
                if nxt is not None:
                    pending.append(self._executor.submit(_process, str(pdf_path), nxt, target, opts))
                yield Page.from_json(record, root=staged.writer.root)
        finally:
            for f in pending:
                f.cancel()
            for f in pending:  # let running pages finish writing before the caller moves on
                if not f.cancelled():
                    f.exception()

    def close(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)  # also after a broken pool
            self._executor = None
