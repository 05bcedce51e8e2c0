"""Finding input files and telling PDFs, page images and everything else apart (by content)."""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

PDF_SUFFIXES = {".pdf"}
IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".tif", ".tiff"}


@dataclass(frozen=True)
class Source:
    path: Path
    kind: str  # "pdf" | "image"


@dataclass(frozen=True)
class Rejected:
    path: Path
    reason: str


def sniff(path: Path) -> str | None:
    """``"pdf"`` or ``"image"`` from the file's first bytes, None when it is neither."""
    with open(path, "rb") as fh:
        head = fh.read(1024)
    if b"%PDF-" in head:
        return "pdf"
    if head.startswith(b"\x89PNG\r\n\x1a\n") or head.startswith(b"\xff\xd8\xff") \
            or head[:4] in (b"II*\x00", b"MM\x00*"):
        return "image"
    return None


def classify(path: Path) -> Source | Rejected:
    try:
        size = path.stat().st_size
        kind = sniff(path) if size else None
    except OSError as exc:
        return Rejected(path, f"cannot read the file ({exc.strerror or exc})")
    if kind:
        return Source(path, kind)
    suffix = path.suffix.lower()
    if size == 0:
        return Rejected(path, "empty file (0 bytes)")
    if suffix in PDF_SUFFIXES:
        return Rejected(path, "not a PDF: no '%PDF-' header (corrupt or mislabelled file)")
    if suffix in IMAGE_SUFFIXES:
        return Rejected(path, f"not a valid {suffix.lstrip('.').upper()} image (unrecognised header)")
    return Rejected(path, "unsupported file type: expected a PDF or a PNG/JPEG/TIFF page image")


def resolved(p: Path) -> Path:
    """``p.resolve()``, or ``p`` made absolute when resolving fails (a symlink loop)."""
    try:
        return p.resolve()
    except (OSError, RuntimeError):   # Python < 3.13 raises RuntimeError on a symlink loop
        return Path(os.path.abspath(p))


def not_a_file(p: Path) -> str | None:
    """Why ``p`` is neither a regular file nor a folder (None when it is one of them)."""
    try:
        st = p.stat()
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "symbolic link loop; skipped"
        if os.path.islink(p):
            return "dangling symbolic link (its target does not exist); skipped"
        if exc.errno == errno.ENOENT:
            return "no such file or folder"
        return f"cannot read the file ({exc.strerror or exc}); skipped"
    if stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode):
        return None
    what = ("a FIFO (named pipe)" if stat.S_ISFIFO(st.st_mode) else "a device" if stat.S_ISCHR(st.st_mode)
            or stat.S_ISBLK(st.st_mode) else "a socket" if stat.S_ISSOCK(st.st_mode) else "not a regular file")
    return f"{what}, not a regular file; skipped"


def discover(paths: Iterable[str | Path], exclude: Path | None = None) -> tuple[list[Source], list[Rejected]]:
    """Files under ``paths`` (folders recursively, hidden entries skipped), sorted, deduplicated.

    Files inside ``exclude`` (the output corpus) are never inputs. Entries that are neither regular
    files nor folders (symlink loops, dangling links, FIFOs, devices) are rejected with the reason.
    """
    sources: list[Source] = []
    rejected: list[Rejected] = []
    seen: set[Path] = set()
    excl = resolved(exclude) if exclude is not None else None

    def visit(p: Path) -> None:
        rp = resolved(p)
        if rp in seen or (excl is not None and (rp == excl or excl in rp.parents)):
            return
        seen.add(rp)
        result = classify(p)
        (sources if isinstance(result, Source) else rejected).append(result)

    for raw in paths:
        p = Path(raw)
        why = not_a_file(p)
        if why is not None:
            rejected.append(Rejected(p, why))
        elif p.is_dir():
            for child in sorted(p.rglob("*")):
                rel = child.relative_to(p).parts
                # hidden entries and metadata sidecars (docrag.ingestion.metadata) are not inputs
                if any(part.startswith(".") for part in rel) or child.name.endswith(".meta.json"):
                    continue
                why = not_a_file(child)
                if why is not None:
                    rejected.append(Rejected(child, why))
                elif child.is_file():
                    visit(child)
        else:
            visit(p)
    return sources, rejected
