"""Finding input files and telling PDFs, page images and everything else apart (by content)."""

from __future__ import annotations

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


def discover(paths: Iterable[str | Path], exclude: Path | None = None) -> tuple[list[Source], list[Rejected]]:
    """Files under ``paths`` (folders recursively, hidden entries skipped), sorted, deduplicated.

    Files inside ``exclude`` (the output corpus) are never inputs.
    """
    sources: list[Source] = []
    rejected: list[Rejected] = []
    seen: set[Path] = set()
    excl = exclude.resolve() if exclude is not None else None

    def visit(p: Path) -> None:
        rp = p.resolve()
        if rp in seen or (excl is not None and (rp == excl or excl in rp.parents)):
            return
        seen.add(rp)
        result = classify(p)
        (sources if isinstance(result, Source) else rejected).append(result)

    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            for child in sorted(p.rglob("*")):
                rel = child.relative_to(p).parts
                # hidden entries and metadata sidecars (docrag.ingestion.metadata) are not inputs
                if child.is_file() and not any(part.startswith(".") for part in rel) \
                        and not child.name.endswith(".meta.json"):
                    visit(child)
        elif p.is_file():
            visit(p)
        else:
            rejected.append(Rejected(p, "no such file or folder"))
    return sources, rejected
