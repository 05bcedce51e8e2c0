"""Page work in worker processes that are killed when a page exceeds its time limit.

Every PDF is opened and checked, and every page rendered and parsed, in a worker process (small
files too): a page that renders forever (MuPDF holds the GIL) or crashes the process fails its file
with a reason naming the page, and the worker is replaced. The main process keeps writing the staged
records (one writer, page order preserved); workers write page images straight into the staging
folder (atomically). Workers are forked (cheap) unless torch is loaded, whose threads make ``fork``
unsafe; then they are spawned. Workers exit when the ingesting process dies.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from multiprocessing.connection import wait
from pathlib import Path
from typing import Any

from docrag.errors import FileFailed, PageFailed
from docrag.ingestion.images import image_frames, process_image_page
from docrag.ingestion.pdfpage import open_pdf, process_pdf_page
from docrag.ingestion.render import effective_dpi, render_pdf2image

log = logging.getLogger(__name__)

DEFAULT_PAGE_TIMEOUT = 60.0   # seconds to render and parse one page (and to open one file)
STARTUP_TIMEOUT = 300.0       # seconds a new worker may take to import its modules
WORKER_EXTRA_MEMORY = 4 << 30  # address space a worker may add to what it starts with (image bombs)


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


# -- worker side ------------------------------------------------------------------------------------

_open: dict[str, Any] = {}


def _doc(pdf_path: str):
    doc = _open.get(pdf_path)
    if doc is None:
        for old in _open.values():
            old.close()
        _open.clear()
        doc = _open[pdf_path] = open_pdf(Path(pdf_path))
    return doc


def _task(kind: str, args: tuple) -> Any:
    """Run one task in the worker: ``inspect_pdf``, ``pdf_page``, ``inspect_image``, ``image_page``."""
    if kind == "inspect_pdf":
        (path,) = args
        _open.pop(path, None)
        doc = _doc(path)
        return {"n_pages": doc.page_count, "title": (doc.metadata or {}).get("title", "") or ""}
    if kind == "pdf_page":
        path, page_no, target, opts = args
        doc = _doc(path)
        rendered = None
        if opts.renderer == "pdf2image":
            rect = doc[page_no - 1].rect
            out = target.staged_image_path(page_no, opts.image_ext)
            rendered = render_pdf2image(Path(path), [page_no], effective_dpi(rect.width, rect.height, opts.dpi),
                                        {page_no: out}, opts.image_ext)[page_no]
        return process_pdf_page(doc, page_no, target, opts, rendered).to_json()
    if kind == "inspect_image":
        return image_frames(Path(args[0]))
    if kind == "image_page":
        path, page_no, target, opts = args
        return process_image_page(Path(path), page_no, target, opts).to_json()
    raise ValueError(f"unknown task {kind!r}")


def _worker_main(conn, parent: int) -> None:
    """Serve tasks from ``conn`` until told to stop (None) or the parent is gone."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)   # Ctrl-C is the parent's to handle

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, name="docrag-parent-watch", daemon=True).start()
    import pymupdf  # noqa: F401 -- imported before the first task's clock starts (and before the cap)

    _limit_memory()
    try:
        conn.send(("ready", None))
    except (OSError, ValueError):
        return

    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            return
        if msg is None:
            return
        kind, args = msg
        try:
            reply = ("ok", _task(kind, args))
        except FileFailed as exc:
            reply = ("fail", str(exc))
        except Exception as exc:  # noqa: BLE001 -- any error of a hostile file fails that file, named
            log.debug("task %s failed", kind, exc_info=True)
            reply = ("error", f"{type(exc).__name__}: {exc}"[:500])
        try:
            conn.send(reply)
        except (OSError, ValueError):
            return


def _limit_memory() -> None:
    """Cap the worker's address space: a decompression bomb fails its page instead of the machine."""
    try:
        import resource

        with open("/proc/self/status", encoding="ascii") as fh:
            vm = next(int(line.split()[1]) * 1024 for line in fh if line.startswith("VmSize:"))
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        want = vm + WORKER_EXTRA_MEMORY
        if hard == resource.RLIM_INFINITY or want <= hard:
            resource.setrlimit(resource.RLIMIT_AS, (want, hard))
    except (ImportError, OSError, StopIteration, ValueError) as exc:   # not Linux: no cap
        log.debug("worker memory cap not set: %s", exc)


# -- main side --------------------------------------------------------------------------------------

class _Worker:
    def __init__(self, ctx) -> None:
        parent_conn, child_conn = ctx.Pipe()
        self.proc = ctx.Process(target=_worker_main, args=(child_conn, os.getpid()), daemon=True,
                                name="docrag-ingest-worker")
        self.proc.start()
        child_conn.close()
        self.conn = parent_conn
        self.job: tuple[int, str, float] | None = None   # (task index, what, deadline)
        # Start-up (imports) is not charged to the first page's time limit.
        ready = self.conn.poll(STARTUP_TIMEOUT)
        try:
            msg = self.conn.recv() if ready else None
        except (EOFError, OSError):
            msg = None
        if msg != ("ready", None):
            self.proc.join(timeout=5)
            code = self.proc.exitcode
            self.kill()
            raise PageFailed(f"an ingest worker process did not start (exit code {code}); with spawned workers "
                             "(torch loaded) a script must call ingest under 'if __name__ == \"__main__\":'")

    def send(self, idx: int, what: str, kind: str, args: tuple, timeout: float | None) -> None:
        self.conn.send((kind, args))
        self.job = (idx, what, time.monotonic() + timeout if timeout else float("inf"))

    def kill(self) -> None:
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join(timeout=5)
        self.conn.close()


class PageWorkers:
    """Up to ``workers`` processes shared by all files of one ``ingest`` call (started lazily).

    ``timeout``: seconds per task (opening a file, or rendering and parsing one page); None or 0 =
    no limit.
    """

    def __init__(self, workers: int, timeout: float | None = DEFAULT_PAGE_TIMEOUT) -> None:
        self.workers = max(1, int(workers))
        self.timeout = float(timeout) if timeout else None
        self._pool: list[_Worker] = []
        self._ctx = None

    def _context(self):
        if self._ctx is None:
            method = "fork" if sys.platform.startswith("linux") and "torch" not in sys.modules else "spawn"
            if method == "fork":
                import pymupdf  # noqa: F401 -- once here, so that every forked worker starts at once
            log.info("starting up to %d ingest worker processes (%s)", self.workers, method)
            self._ctx = multiprocessing.get_context(method)
        return self._ctx

    def _idle(self, wanted: int) -> list[_Worker]:
        """Idle workers, starting new ones (up to ``workers``) until ``wanted`` are idle."""
        self._pool = [w for w in self._pool if w.proc.is_alive() or w.job is not None]
        idle = [w for w in self._pool if w.job is None]
        while len(self._pool) < self.workers and len(idle) < wanted:
            w = _Worker(self._context())
            self._pool.append(w)
            idle.append(w)
        return idle

    def run(self, tasks: list[tuple[str, str, tuple]], window: int | None = None) -> Iterator[Any]:
        """Results of ``tasks`` (``(what, kind, args)``; ``what`` names it in errors, e.g. "page 3"),
        in order. Raises :class:`PageFailed` for the first task that fails or runs out of time; the
        other tasks in flight are then abandoned (their workers killed)."""
        window = window or 2 * self.workers
        results: dict[int, Any] = {}
        sent = done = 0
        ok = False
        try:
            while done < len(tasks):
                for w in self._idle(min(len(tasks) - sent, window - (sent - done))):
                    if sent >= len(tasks) or sent - done >= window:
                        break
                    what, kind, args = tasks[sent]
                    w.send(sent, what, kind, args, self.timeout)
                    sent += 1
                if done in results:   # yield what is ready, then send more before waiting again
                    while done in results:
                        yield results.pop(done)
                        done += 1
                    continue
                self._wait(results)
            ok = True
        finally:
            if not ok:   # failed, or the caller stopped early: abandon what is in flight
                for w in self._pool:
                    if w.job is not None:
                        w.kill()
                        w.job = None

    def run_one(self, what: str, kind: str, args: tuple) -> Any:
        (result,) = list(self.run([(what, kind, args)], window=1))
        return result

    def _wait(self, results: dict[int, Any]) -> None:
        busy = [w for w in self._pool if w.job is not None]
        deadline = min(w.job[2] for w in busy)
        timeout = None if deadline == float("inf") else max(0.0, deadline - time.monotonic())
        handles = [w.conn for w in busy] + [w.proc.sentinel for w in busy]
        ready = set(wait(handles, timeout=timeout))
        now = time.monotonic()
        for w in busy:
            idx, what, dl = w.job
            if w.conn in ready:
                try:
                    status, payload = w.conn.recv()
                except (EOFError, OSError):
                    status, payload = "died", None
                if status == "ok":
                    w.job = None
                    results[idx] = payload
                    continue
                w.job = None
                if status == "fail":
                    raise PageFailed(f"{what}: {payload}" if what.startswith("page") else payload)
                if status == "error":
                    raise PageFailed(f"{what}: cannot be processed ({payload})")
            if w.proc.sentinel in ready or not w.proc.is_alive():
                w.proc.join(timeout=1)
                code = w.proc.exitcode
                w.job = None
                w.kill()
                how = f"signal {-code}" if code is not None and code < 0 else f"exit code {code}"
                raise PageFailed(f"{what}: the worker process processing it died ({how})")
            if now >= dl:
                w.job = None
                w.kill()
                doing = "rendering and parsing" if what.startswith("page") else "it"
                raise PageFailed(f"{what}: {doing} took longer than {self.timeout:g} s "
                                 "(the page time limit, --page-timeout); the file was skipped")

    def close(self) -> None:
        for w in self._pool:
            if w.job is None and w.proc.is_alive():
                try:
                    w.conn.send(None)
                except (OSError, ValueError):
                    pass
        for w in self._pool:
            w.proc.join(timeout=2)
            w.kill()
        self._pool = []
