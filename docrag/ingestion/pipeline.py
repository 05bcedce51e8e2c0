"""``ingest``: PDFs and page images into a page corpus (render, text, OCR, layout blocks).

One document at a time: every page is staged (image + record) in the corpus's staging folder, then
the document becomes visible with one atomic rename. A run that is interrupted resumes from the
pages already staged; a file that fails leaves nothing behind.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from docrag.corpus import Corpus, CorpusWriter, StagedDocument
from docrag.errors import CorpusError, DocragError, FileFailed, InputError, PageFailed
from docrag.ingestion import ray_engine
from docrag.ingestion.ocr import parse_langs
from docrag.ingestion.pdfpage import PageOptions
from docrag.ingestion.render import IMAGE_FORMATS, RENDERERS
from docrag.ingestion.sources import Source, discover, resolved
from docrag.ingestion.workers import DEFAULT_PAGE_TIMEOUT, PageTarget, PageWorkers, default_workers
from docrag.io import path_bytes_b64, path_text, sha256_file
from docrag.progress import short_name
from docrag.types import Document, Page, TextSource

log = logging.getLogger(__name__)

OCR_MODES = ("auto", "always", "pages", "never")

PageHook = Callable[[Document, Page], None]


@dataclass
class IngestReport:
    """What one ``ingest`` call did. File lists hold source paths as given (resolved)."""

    added: list[str] = field(default_factory=list)      # new documents
    replaced: list[str] = field(default_factory=list)   # changed files whose old pages were replaced
    skipped: list[str] = field(default_factory=list)    # already in the corpus, unchanged
    failures: list[tuple[str, str]] = field(default_factory=list)  # (path, reason)
    n_pages: int = 0          # pages processed in this run (resumed pages included)
    n_ocr_pages: int = 0
    doc_ids: list[str] = field(default_factory=list)   # every document of this run's good files
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.failures

    def summary(self) -> str:
        return (f"{len(self.added)} added, {len(self.replaced)} replaced, {len(self.skipped)} unchanged, "
                f"{len(self.failures)} failed; {self.n_pages} page(s) ({self.n_ocr_pages} OCR) "
                f"in {self.seconds:.1f}s")


class HookInterrupt(BaseException):
    """Carries an exception raised by an ``on_page`` hook past the per-file error handling."""


def ingest(paths: Sequence[str | Path] | str | Path, out: str | Path, *, dpi: float = 144,
           renderer: str = "pymupdf", ocr: str = "auto", lang: str = "en,ch", image_format: str = "png",
           show_progress: bool = True, on_page: PageHook | None = None,
           workers: int | None = None, page_timeout: float | None = DEFAULT_PAGE_TIMEOUT,
           engine: str = "local", ray_address: str | None = None) -> IngestReport:
    """Ingest PDFs, page images and folders of them (recursively) into the corpus at ``out``.

    ``ocr``: ``auto`` OCRs pages without a usable text layer and charts drawn as pictures (image figures
    with no words inside, :mod:`~docrag.ingestion.figure_ocr`), ``pages`` only those pages, ``always``
    every page, ``never`` nothing.
    ``lang``: OCR languages, e.g. ``"en,ch"``. Page images (PNG/JPEG/TIFF) become one-page
    documents (one page per TIFF frame) whose point size is ``pixels * 72 / dpi``, ``dpi`` being the
    image's own resolution metadata or 144 when it has none. ``on_page`` is called after each page
    is staged (tests use it to interrupt a run). ``workers``: worker processes that open files and
    render and parse pages (default: the usable CPU cores, at most 4). ``page_timeout``: seconds one
    page (or opening one file) may take before its worker is killed and the file fails, naming the
    page (None or 0: no limit). ``engine="ray"``: PDF pages are processed as Ray tasks
    (``ray_address``: an existing cluster, default a local one of ``workers`` CPUs; files are still
    opened in the time-limited local workers); the corpus is the same as the local engine's. Raises
    :class:`InputError` for bad options and when no input exists (no corpus is created then);
    per-file problems are reported in ``IngestReport.failures`` and recorded in the corpus manifest.
    """
    opts = _options(dpi, renderer, ocr, lang, image_format)
    if page_timeout is not None and page_timeout < 0:
        raise InputError(f"page_timeout must be >= 0 seconds (0 = no limit), got {page_timeout}")
    if engine not in ("local", "ray"):
        raise InputError(f"unknown engine {engine!r}; choose local or ray")
    if engine == "ray" and renderer != "pymupdf":
        raise InputError("--engine ray renders with pymupdf; drop --renderer pdf2image or use the local engine")
    if isinstance(paths, (str, Path)):
        paths = [paths]
    missing = [p for p in paths if not _exists(Path(p))]
    if paths and len(missing) == len(paths):
        raise InputError(f"no such file or folder: {', '.join(path_text(p) for p in missing)}")
    t0 = time.perf_counter()
    corpus = Corpus.create(out)
    with _writer_lock(Path(out)):
        try:
            return _ingest_locked(corpus, paths, Path(out), opts, t0, show_progress, on_page, workers,
                                  page_timeout, engine, ray_address)
        finally:
            _tidy_staging(Path(out))


def _exists(p: Path) -> bool:
    return os.path.lexists(p)


def _tidy_staging(root: Path) -> None:
    """Remove staging folders of documents with no page staged yet, and ``.staging`` when empty."""
    staging = root / ".staging"
    if not staging.is_dir():
        return
    for d in staging.iterdir():
        if d.is_dir() and not (d / "pages.partial.jsonl").exists() and not d.name.startswith(".trash-"):
            images = d / "images"
            if not images.is_dir() or not any(images.iterdir()):
                shutil.rmtree(d, ignore_errors=True)
    with contextlib.suppress(OSError):
        staging.rmdir()   # only when empty


@contextlib.contextmanager
def _writer_lock(root: Path):
    """One ingest at a time per corpus (the manifest has one writer); a second one is refused.

    A POSIX record lock (``lockf``): owned by this process only, so forked page workers never hold
    it, and released by the kernel when the process dies, however it dies.
    """
    try:
        import fcntl
    except ImportError:  # not POSIX: no lock
        yield
        return
    with open(root / ".lock", "a+") as fh:
        try:
            fcntl.lockf(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise CorpusError(f"{root}: another 'docrag ingest' is writing this corpus; "
                              "wait for it to finish") from None
        try:
            yield
        finally:
            fcntl.lockf(fh.fileno(), fcntl.LOCK_UN)


def _ingest_locked(corpus: Corpus, paths: Sequence[str | Path], out: Path, opts: PageOptions, t0: float,
                   show_progress: bool, on_page: PageHook | None, workers: int | None,
                   page_timeout: float | None, engine: str = "local",
                   ray_address: str | None = None) -> IngestReport:
    writer = corpus.writer()
    sources, rejected = discover(paths, exclude=Path(out))
    report = IngestReport()
    for r in rejected:
        _fail(writer, report, r.path, r.reason)
    from tqdm.auto import tqdm

    pool = PageWorkers(default_workers() if workers is None else max(1, int(workers)), page_timeout)
    remote = None
    if engine == "ray":
        remote = ray_engine.RayPagePool(ray_address, num_cpus=workers)
        remote.plan(sources, writer, opts)
    bar = tqdm(sources, desc="ingest", unit="file", disable=not show_progress)
    try:
        for src in bar:
            bar.set_postfix_str(short_name(path_text(src.path.name), 40))
            try:
                _ingest_file(src, writer, opts, report, show_progress, on_page, pool, remote)
            except (FileFailed, DocragError) as exc:
                _fail(writer, report, src.path, str(exc))
    except HookInterrupt as stop:
        raise stop.__cause__ from None
    finally:
        bar.close()
        pool.close()
        if remote is not None:
            remote.close()
    report.seconds = time.perf_counter() - t0
    log.info("ingest into %s: %s", out, report.summary())
    return report


def _options(dpi: float, renderer: str, ocr: str, lang: str, image_format: str) -> PageOptions:
    if not (18 <= float(dpi) <= 1200):
        raise InputError(f"dpi must be between 18 and 1200, got {dpi}")
    if renderer not in RENDERERS:
        raise InputError(f"unknown renderer {renderer!r}; choose one of {', '.join(RENDERERS)}")
    if ocr not in OCR_MODES:
        raise InputError(f"unknown OCR mode {ocr!r}; choose one of {', '.join(OCR_MODES)}")
    fmt = IMAGE_FORMATS.get(image_format.lower())
    if fmt is None:
        raise InputError(f"unknown image format {image_format!r}; choose png or jpeg")
    try:
        langs = parse_langs(lang)
    except ValueError as exc:
        raise InputError(str(exc)) from None
    return PageOptions(dpi=float(dpi), renderer=renderer, ocr=ocr, langs=langs, image_ext=fmt)


def _fail(writer: CorpusWriter, report: IngestReport, path: Path, reason: str) -> None:
    spath = resolved(Path(path))
    reason = " ".join(reason.split())   # one line
    log.info("failed: %s: %s", path_text(path), reason)
    report.failures.append((path_text(path), reason))
    writer.record_failure(path_text(spath), reason, path_bytes_b64(spath))


def _ingest_file(src: Source, writer: CorpusWriter, opts: PageOptions, report: IngestReport,
                 show_progress: bool, on_page: PageHook | None, pool: PageWorkers, remote=None) -> None:
    """Ingest one file; ``remote``: a :class:`~docrag.ingestion.ray_engine.RayPagePool` for PDF pages."""
    source_path = path_text(resolved(src.path))
    sha = sha256_file(src.path)
    doc_id = sha[:16]
    previous = writer.doc_for_source(source_path)
    if writer.has_document(doc_id):
        report.skipped.append(source_path)
        report.doc_ids.append(doc_id)
        if previous is None:  # the same content under another name: remember this name too
            writer.corpus.manifest["sources"][source_path] = doc_id
            writer._save_manifest()
        return
    if src.kind == "pdf":
        _ingest_pdf(src, sha, writer, opts, report, show_progress, on_page, pool, remote)
    else:
        _ingest_image(src, sha, writer, opts, report, show_progress, on_page, pool)
    (report.replaced if previous and previous != doc_id else report.added).append(source_path)
    report.doc_ids.append(doc_id)


def _document(src: Source, sha: str, n_pages: int, opts: PageOptions, title: str = "") -> Document:
    meta = {"dpi": opts.dpi, "renderer": opts.renderer if src.kind == "pdf" else "image",
            "ocr": opts.ocr, "lang": ",".join(opts.langs), "image_format": opts.image_ext}
    raw = path_bytes_b64(resolved(src.path))
    if raw is not None:   # a file name that is not UTF-8: shown escaped, kept losslessly here
        meta["source_path_b64"] = raw
    return Document(doc_id=sha[:16], file_name=path_text(src.path.name), source_path=path_text(resolved(src.path)),
                    sha256=sha, n_pages=n_pages, kind=src.kind, title=str(title), meta=meta)


def _run_pages(staged: StagedDocument, make_pages: Callable[[list[int]], Iterator[Page]],
               report: IngestReport, show_progress: bool, on_page: PageHook | None) -> None:
    """Process the pages not staged yet (``make_pages(todo)`` yields them in order) and stage them."""
    from tqdm.auto import tqdm

    todo = [n for n in range(1, staged.document.n_pages + 1) if n not in staged.done_pages()]
    done_before = staged.document.n_pages - len(todo)
    bar = tqdm(total=staged.document.n_pages, initial=done_before, desc=short_name(staged.document.file_name),
               unit="page", leave=False, disable=not show_progress)
    for page in make_pages(todo):
        staged.add_page(page)
        bar.update(1)
        if on_page is not None:
            try:
                on_page(staged.document, page)
            except BaseException as exc:  # the caller stops the run: keep staged pages for resume
                raise HookInterrupt() from exc
    bar.close()
    for n in range(1, staged.document.n_pages + 1):
        report.n_pages += 1
        if staged.page(n).text_source is TextSource.OCR:
            report.n_ocr_pages += 1


def _ingest_pdf(src: Source, sha: str, writer: CorpusWriter, opts: PageOptions, report: IngestReport,
                show_progress: bool, on_page: PageHook | None, pool: PageWorkers, remote=None) -> None:
    path = str(src.path)
    try:
        info = pool.run_one("opening the PDF", "inspect_pdf", (path,))
    except PageFailed as exc:
        raise FileFailed(str(exc)) from None
    staged = writer.begin(_document(src, sha, int(info["n_pages"]), opts, info.get("title", "")))
    _stage_pages(staged, "pdf_page", path, opts, report, show_progress, on_page, pool, remote)


def _ingest_image(src: Source, sha: str, writer: CorpusWriter, opts: PageOptions, report: IngestReport,
                  show_progress: bool, on_page: PageHook | None, pool: PageWorkers) -> None:
    path = str(src.path)
    try:
        frames = pool.run_one("opening the image", "inspect_image", (path,))
    except PageFailed as exc:
        raise FileFailed(str(exc)) from None
    staged = writer.begin(_document(src, sha, int(frames), opts))
    _stage_pages(staged, "image_page", path, opts, report, show_progress, on_page, pool)


def _stage_pages(staged: StagedDocument, kind: str, path: str, opts: PageOptions, report: IngestReport,
                 show_progress: bool, on_page: PageHook | None, pool: PageWorkers, remote=None) -> None:
    """Process the missing pages of ``staged`` in the workers (or on Ray: ``remote``) and commit it.

    A failed page fails the file; a page that Ray could not process is done by the local workers.
    """
    target = PageTarget.of(staged)

    def local_pages(todo: list[int]) -> Iterator[Page]:
        tasks = [(f"page {n}", kind, (path, n, target, opts)) for n in todo]
        for record in pool.run(tasks):
            yield Page.from_json(record, root=staged.writer.root)

    def make_pages(todo: list[int]) -> Iterator[Page]:
        if remote is None or kind != "pdf_page":
            yield from local_pages(todo)
        else:
            yield from remote.pages(Path(path), todo, staged, opts, fallback=lambda n: next(local_pages([n])))

    try:
        _run_pages(staged, make_pages, report, show_progress, on_page)
    except PageFailed as exc:
        staged.abort()
        raise FileFailed(str(exc)) from None
    except (KeyboardInterrupt, SystemExit, HookInterrupt):
        raise  # staged pages stay for the next run to resume
    except Exception as exc:  # any other error in this file: report it, keep nothing
        staged.abort()
        log.debug("ingest of %s failed", path_text(path), exc_info=True)
        raise FileFailed(f"cannot process the file ({type(exc).__name__}: {exc})") from exc
    staged.commit()
