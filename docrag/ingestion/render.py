"""Rendering PDF pages to image files: PyMuPDF (default) or pdf2image/poppler."""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from docrag import sysdeps
from docrag.errors import MissingDependencyError
from docrag.io import atomic_write_bytes

log = logging.getLogger(__name__)

RENDERERS = ("pymupdf", "pdf2image")
IMAGE_FORMATS = {"png": "png", "jpeg": "jpg", "jpg": "jpg"}
MAX_PIXELS = 40_000_000   # a page rendered larger than this gets a lower DPI (recorded on the page)
JPEG_QUALITY = 90


@dataclass
class Rendered:
    width: int
    height: int
    dpi: float


def effective_dpi(width_pt: float, height_pt: float, dpi: float) -> float:
    """``dpi``, lowered so that the page image stays under :data:`MAX_PIXELS`."""
    px = (width_pt * dpi / 72.0) * (height_pt * dpi / 72.0)
    if px <= MAX_PIXELS:
        return float(dpi)
    return float(int(dpi * (MAX_PIXELS / px) ** 0.5))


def render_pymupdf(page, dpi: float, out: Path, fmt: str) -> Rendered:
    """Render ``page`` (rotation applied) at ``dpi`` and write it atomically to ``out``."""
    import pymupdf

    zoom = dpi / 72.0
    pix = page.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), alpha=False)
    data = pix.tobytes("jpeg", jpg_quality=JPEG_QUALITY) if fmt == "jpg" else pix.tobytes("png")
    atomic_write_bytes(out, data)
    return Rendered(pix.width, pix.height, dpi)


def pdf2image_available() -> bool:
    try:
        import pdf2image  # noqa: F401
    except ImportError:
        return False
    return shutil.which("pdftoppm") is not None


def render_pdf2image(pdf: Path, page_nos: list[int], dpi: float, outs: dict[int, Path],
                     fmt: str) -> dict[int, Rendered]:
    """Render the 1-based ``page_nos`` of ``pdf`` with poppler's pdftoppm; one call per run of pages."""
    if not pdf2image_available():
        try:
            import pdf2image  # noqa: F401
        except ImportError:
            raise MissingDependencyError("--renderer pdf2image needs the pdf2image package: pip install pdf2image; "
                                         "or use --renderer pymupdf") from None
        sysdeps.require("poppler-utils", "--renderer pdf2image (or use --renderer pymupdf)")
    from pdf2image import convert_from_path
    from PIL import Image

    results: dict[int, Rendered] = {}
    for first, last in _runs(sorted(page_nos)):
        with tempfile.TemporaryDirectory(dir=next(iter(outs.values())).parent) as tmp:
            paths = convert_from_path(str(pdf), dpi=dpi, first_page=first, last_page=last,
                                      fmt="jpeg" if fmt == "jpg" else "png", output_folder=tmp,
                                      paths_only=True, thread_count=1)
            if len(paths) != last - first + 1:
                raise RuntimeError(f"pdftoppm rendered {len(paths)} page(s) of {first}..{last}")
            for page_no, path in zip(range(first, last + 1), sorted(paths), strict=False):
                with Image.open(path) as im:
                    size = im.size
                os.replace(path, outs[page_no])
                results[page_no] = Rendered(size[0], size[1], dpi)
    return results


def _runs(nums: list[int]) -> list[tuple[int, int]]:
    runs: list[tuple[int, int]] = []
    for n in nums:
        if runs and runs[-1][1] == n - 1:
            runs[-1] = (runs[-1][0], n)
        else:
            runs.append((n, n))
    return runs
