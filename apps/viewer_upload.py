"""Adding uploaded PDFs to a corpus from the viewer: limits, safe names, validation, ingest.

A file is checked completely *before* anything touches the corpus (type, size, PDF header, that
PyMuPDF can open it and that it has pages and no password). Accepted files are copied under a
sanitised name into the upload folder and ingested; a file the ingester still rejects is removed
from the upload folder again, and the corpus keeps only whole documents (the corpus writer
commits each document atomically). The ingest runs in a child process (:class:`ChildProcessIngest`):
a PDF that takes long to render, or MuPDF holding the GIL, never freezes the viewer's other requests.
"""

from __future__ import annotations

import importlib
import logging
import multiprocessing
import re
import shutil
import threading
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from docrag.corpus import Corpus
from docrag.errors import DocragError
from docrag.io import sha256_file

log = logging.getLogger(__name__)

DEFAULT_MAX_MB = 50.0
PDF_MAGIC = b"%PDF-"
MAX_NAME_CHARS = 120

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass(frozen=True)
class UploadPolicy:
    """What the viewer accepts: file types, the size of one file, files per upload, pages per file."""

    max_bytes: int = int(DEFAULT_MAX_MB * 1024 * 1024)
    max_files: int = 10
    max_pages: int = 500
    suffixes: tuple[str, ...] = (".pdf",)

    @classmethod
    def from_mb(cls, max_mb: float, **kw: Any) -> UploadPolicy:
        return cls(max_bytes=int(max_mb * 1024 * 1024), **kw)


@dataclass
class UploadResult:
    added: list[str] = field(default_factory=list)                  # safe file names ingested
    rejected: list[tuple[str, str]] = field(default_factory=list)   # (original name, reason)
    already: list[str] = field(default_factory=list)                # same content already there

    def message(self) -> str:
        lines = [f"added {name}" for name in self.added]
        lines += [f"{name}: already in the corpus" for name in self.already]
        lines += [f"rejected {name}: {reason}" for name, reason in self.rejected]
        return "\n".join(lines) if lines else "no files uploaded"


def safe_file_name(name: str) -> str:
    """A file name safe to create anywhere: no folders, no leading dots, ASCII ``[A-Za-z0-9._-]``.

    The suffix is lower-cased; an empty stem becomes ``upload``.
    """
    base = unicodedata.normalize("NFKD", Path(name.replace("\\", "/")).name)
    base = base.encode("ascii", "ignore").decode("ascii")
    stem, dot, suffix = base.rpartition(".")
    if not dot:
        stem, suffix = base, ""
    stem = _UNSAFE.sub("_", stem).strip("._-") or "upload"
    suffix = _UNSAFE.sub("", suffix).lower()
    stem = stem[: MAX_NAME_CHARS - len(suffix) - 1]
    return f"{stem}.{suffix}" if suffix else stem


def check_upload(path: Path, original_name: str, policy: UploadPolicy) -> str | None:
    """Why the file at ``path`` cannot be added (None when it can)."""
    suffix = Path(original_name).suffix.lower()
    if suffix not in policy.suffixes:
        return f"type {suffix or '(none)'} not accepted; upload {', '.join(policy.suffixes)} files"
    try:
        size = path.stat().st_size
    except OSError as exc:
        return f"cannot read the uploaded file ({exc.strerror})"
    if size == 0:
        return "file is empty"
    if size > policy.max_bytes:
        return f"file is {size / 2**20:.1f} MiB; the limit is {policy.max_bytes / 2**20:.1f} MiB"
    with open(path, "rb") as fh:
        head = fh.read(1024)
    if PDF_MAGIC not in head:
        return "not a PDF (no %PDF- header)"
    return _check_pdf_opens(path, policy)


def _check_pdf_opens(path: Path, policy: UploadPolicy) -> str | None:
    import pymupdf

    try:
        with pymupdf.open(path) as doc:
            if doc.needs_pass:
                return "PDF is password-protected; remove the password and upload it again"
            if doc.page_count == 0:
                return "PDF has no pages"
            if doc.page_count > policy.max_pages:
                return f"PDF has {doc.page_count} pages; the limit is {policy.max_pages}"
            doc.load_page(0)
    except (RuntimeError, ValueError) as exc:  # fitz raises FileDataError (a RuntimeError) on damage
        return f"PDF cannot be read ({exc})"
    return None


def _unique_target(folder: Path, name: str, source: Path) -> Path:
    """``folder/name``, or ``name-2``, ``name-3``... when a *different* file already has the name."""
    target = folder / name
    stem, suffix = Path(name).stem, Path(name).suffix
    n = 2
    while target.exists() and sha256_file(target) != sha256_file(source):
        target = folder / f"{stem}-{n}{suffix}"
        n += 1
    return target


def _failure_reasons(report: Any) -> dict[str, str]:
    """``{path: reason}`` from an ingest report's failures (records or ``(path, reason)`` pairs)."""
    out: dict[str, str] = {}
    for f in getattr(report, "failures", None) or []:
        if isinstance(f, dict):
            out[str(f.get("path", ""))] = str(f.get("reason", "ingest failed"))
        elif isinstance(f, (tuple, list)) and len(f) == 2:
            out[str(f[0])] = str(f[1])
        else:
            out[str(getattr(f, "path", ""))] = str(getattr(f, "reason", f))
    return out


Ingest = Callable[..., Any]


def default_upload_dir(corpus: Corpus) -> Path:
    """``<corpus>-uploads`` beside the corpus (the ingester never reads files inside a corpus)."""
    root = corpus.root.resolve()
    return root.parent / f"{root.name}-uploads"


@dataclass
class ChildReport:
    """What the viewer needs of an ingest report that was made in a child process."""

    failures: list[tuple[str, str]] = field(default_factory=list)


def _child_main(conn, target: str, paths: list[str], out: str) -> None:
    module, _, name = target.partition(":")
    try:
        report = getattr(importlib.import_module(module), name)(paths, out=out, show_progress=False)
        conn.send(("ok", [(str(p), str(r)) for p, r in report.failures]))
    except DocragError as exc:
        conn.send(("error", str(exc)))
    except Exception as exc:  # noqa: BLE001 -- reported to the viewer as a failed ingest, with its type
        conn.send(("error", f"{type(exc).__name__}: {exc}"))
    finally:
        conn.close()


class ChildProcessIngest:
    """``ingest(paths, out)`` run in a fresh (spawned) child process; the calling thread waits
    without holding the GIL, so the viewer keeps answering other requests meanwhile.

    ``target``: ``"module:function"`` called as ``function(paths, out=..., show_progress=False)``.
    """

    def __init__(self, target: str = "docrag.ingestion:ingest") -> None:
        self.target = target

    def __call__(self, paths: Sequence[Path], out: Path) -> ChildReport:
        ctx = multiprocessing.get_context("spawn")   # the viewer has torch threads: never fork it
        receiver, sender = ctx.Pipe(duplex=False)
        proc = ctx.Process(target=_child_main, args=(sender, self.target, [str(p) for p in paths], str(out)),
                           name="docrag-upload-ingest")
        proc.start()
        sender.close()
        try:
            status, payload = receiver.recv()
        except EOFError:
            proc.join()
            raise DocragError(f"the ingest process died (exit code {proc.exitcode})") from None
        finally:
            receiver.close()
        proc.join()
        if status != "ok":
            raise DocragError(payload)
        return ChildReport([(p, r) for p, r in payload])


_default_ingest = ChildProcessIngest()


class Uploader:
    """Validates uploaded files and ingests the good ones into ``corpus`` (one upload at a time)."""

    def __init__(self, corpus: Corpus, upload_dir: Path | None = None,
                 policy: UploadPolicy | None = None, ingest: Ingest | None = None) -> None:
        self.corpus = corpus
        self.upload_dir = Path(upload_dir) if upload_dir else default_upload_dir(corpus)
        self.policy = policy or UploadPolicy()
        self._ingest = ingest or _default_ingest
        self._lock = threading.Lock()

    def add(self, files: Sequence[tuple[Path, str]]) -> UploadResult:
        """Add ``(temp path, original name)`` pairs; returns what was added and what was rejected."""
        result = UploadResult()
        if len(files) > self.policy.max_files:
            result.rejected = [(name, f"too many files in one upload (limit {self.policy.max_files})")
                               for _, name in files]
            return result
        accepted: list[tuple[Path, str]] = []
        present = {d.sha256 for d in self.corpus.documents()}
        for path, name in files:
            reason = check_upload(Path(path), name, self.policy)
            if reason:
                log.info("upload %s rejected: %s", name, reason)
                result.rejected.append((name, reason))
            elif sha256_file(Path(path)) in present:
                result.already.append(name)
            else:
                accepted.append((Path(path), name))
        if not accepted:
            return result
        with self._lock:
            self.upload_dir.mkdir(parents=True, exist_ok=True)
            copies: list[tuple[Path, str]] = []
            for path, name in accepted:
                target = _unique_target(self.upload_dir, safe_file_name(name), path)
                if not target.exists():
                    tmp = target.with_name(f".{target.name}.part")
                    shutil.copyfile(path, tmp)
                    tmp.replace(target)
                copies.append((target, name))
            try:
                report = self._ingest([c for c, _ in copies], self.corpus.root)
            except DocragError as exc:
                self.corpus.refresh()
                known = set(self.corpus.manifest["sources"])
                for target, name in copies:
                    if str(target) not in known and str(target.resolve()) not in known:
                        target.unlink(missing_ok=True)
                        result.rejected.append((name, f"ingest failed: {exc}"))
                    else:
                        result.added.append(target.name)
                return result
            failed = _failure_reasons(report)
            self.corpus.refresh()
            for target, name in copies:
                reason = failed.get(str(target)) or failed.get(str(target.resolve()))
                if reason:
                    result.rejected.append((name, f"ingest failed: {reason}"))
                    target.unlink(missing_ok=True)
                else:
                    result.added.append(target.name)
        return result
