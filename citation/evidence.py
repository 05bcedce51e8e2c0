"""What a citation judge sees: cited units and the images made from them.

* page level: a unit is one cited page; the judge sees the whole page image;
* block level, ``crop`` (image-cropping, default): a unit is one cited box; the judge sees the crop of
  that box cut from the page image at the image's own resolution;
* block level, ``box`` (box-bounding): the judge sees each cited page in full with the cited boxes
  drawn as red rectangles (one image per page, all of that page's shown boxes drawn on it).

Boxes of an :class:`~docrag.types.Answer` are in each page's ``Space.POINT``; they are mapped to
pixels with :meth:`docrag.geometry.Box.to_pixels` only.
"""

from __future__ import annotations

import hashlib
import logging
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Union

from docrag.errors import InputError
from docrag.evidence import Level, Mode  # defined once in core; re-exported here
from docrag.geometry import Box, GeometryError, Space
from docrag.io import atomic_write_bytes, atomic_write_json, sha256_file
from docrag.types import Answer, Page

if TYPE_CHECKING:
    from PIL import Image

    from docrag.corpus import Corpus

log = logging.getLogger(__name__)

RED = (255, 0, 0)


PageSource = Union["Corpus", Sequence[Page], Mapping[str, Page]]


class PageLookup:
    """Find pages by id in a corpus, a list of pages or a ``{page_id: Page}`` mapping."""

    def __init__(self, source: PageSource) -> None:
        if isinstance(source, Mapping):
            self._pages: dict[str, Page] | None = dict(source)
            self._corpus = None
        elif hasattr(source, "page") and hasattr(source, "pages"):
            self._pages, self._corpus = None, source
        else:
            self._pages, self._corpus = {p.page_id: p for p in source}, None

    def get(self, pid: str) -> Page | None:
        if self._pages is not None:
            return self._pages.get(pid)
        from docrag.errors import CorpusError

        try:
            return self._corpus.page(pid)
        except (CorpusError, ValueError):
            return None


@dataclass(frozen=True)
class Unit:
    """One citation unit: a cited page (``box`` None) or one cited box on it (page POINT space)."""

    index: int                     # position in the citation set C (0-based)
    page: Page = field(compare=False, hash=False, repr=False)
    page_id: str = ""
    box: Box | None = None

    @property
    def key(self) -> str:
        """Identity of the unit's content: equal keys show the judge the same evidence (the same
        page, or the same pixel rectangle of the page image)."""
        if self.box is None:
            return self.page_id
        if self.page.image_width > 0 and self.page.image_height > 0:
            return f"{self.page_id}@px" + ",".join(map(str, pixel_rect(self.page, self.box)))
        return f"{self.page_id}@pt" + ",".join(f"{v:.2f}" for v in self.box.coords)

    def to_json(self) -> dict:
        return {"index": self.index, "page_id": self.page_id,
                "box": self.box.to_list(2) if self.box is not None else None}


@dataclass
class CitationUnits:
    """The unit set C of one answer, plus what was dropped on the way (with reasons)."""

    level: Level
    units: list[Unit]
    warnings: list[str] = field(default_factory=list)
    missing_pages: list[str] = field(default_factory=list)


def citation_units(answer: Answer, pages: PageSource | PageLookup, level: Level | str) -> CitationUnits:
    """Build C: distinct cited pages (page level) or every cited box (block level), in citation order.

    Boxes are converted into the page's POINT space, reordered and clipped; degenerate boxes are
    dropped with a warning. A citation of a page the corpus lacks is recorded in ``missing_pages``.
    """
    level = Level(level)
    lookup = pages if isinstance(pages, PageLookup) else PageLookup(pages)
    out = CitationUnits(level, [])
    seen_pages: set[str] = set()
    for cit in answer.citations:
        page = lookup.get(cit.page_id)
        if page is None:
            if cit.page_id not in out.missing_pages:
                out.missing_pages.append(cit.page_id)
            continue
        if level is Level.PAGE:
            if cit.page_id not in seen_pages:
                seen_pages.add(cit.page_id)
                out.units.append(Unit(len(out.units), page, page.page_id, None))
            continue
        for box in cit.boxes:
            pt = _page_box(page, box, out.warnings)
            if pt is not None:
                out.units.append(Unit(len(out.units), page, page.page_id, pt))
    return out


def _page_box(page: Page, box: Box, warnings: list[str]) -> Box | None:
    try:
        pt = page.to_page_points(box).ordered().clipped()
    except GeometryError as exc:
        warnings.append(f"{page.page_id}: box {box.to_list()} dropped: {exc}")
        return None
    if not pt.is_valid():
        warnings.append(f"{page.page_id}: degenerate box {box.to_list()} ({box.space.value}) dropped")
        return None
    return pt


# -- pixels -------------------------------------------------------------------------------------

def pixel_rect(page: Page, box: Box) -> tuple[int, int, int, int]:
    """The integer pixel rectangle (left, top, right, bottom; right/bottom exclusive) of a POINT box
    on the page image, rounded outwards and clipped to the image; at least one pixel."""
    if page.image_width <= 0 or page.image_height <= 0:
        raise InputError(f"page {page.page_id}: image size unknown (image_width/image_height are 0); "
                         "re-ingest the document")
    if box.space is not Space.POINT:
        box = page.to_page_points(box)
    px = box.to_pixels(page.image_width, page.image_height).ordered().clipped()
    w, h = page.image_width, page.image_height
    left = min(max(0, math.floor(px.x0 + 1e-6)), w - 1)
    top = min(max(0, math.floor(px.y0 + 1e-6)), h - 1)
    right = max(left + 1, min(w, math.ceil(px.x1 - 1e-6)))
    bottom = max(top + 1, min(h, math.ceil(px.y1 - 1e-6)))
    return left, top, right, bottom


def line_width(page: Page) -> int:
    """Red rectangle line width in pixels for box-bounding overlays (scales with the image)."""
    return max(2, round(max(page.image_width, page.image_height) / 400))


def load_page_image(page: Page) -> Image.Image:
    """The page image as RGB, checked against the size the page record states."""
    img = page.load_image()
    if img.size != (page.image_width, page.image_height):
        raise InputError(f"{page.image_path}: image is {img.size[0]}x{img.size[1]} px but the page record "
                         f"says {page.image_width}x{page.image_height}; re-ingest the document")
    return img


def crop_image(page: Page, box: Box, image: Image.Image | None = None) -> Image.Image:
    """The crop of ``box`` (page POINT space) from the page image at its own resolution."""
    img = image if image is not None else load_page_image(page)
    return img.crop(pixel_rect(page, box))


def overlay_image(page: Page, boxes: Iterable[Box], image: Image.Image | None = None,
                  color: tuple[int, int, int] = RED) -> Image.Image:
    """The full page with each box drawn as a red rectangle just *outside* the box, so the boxed
    content itself stays untouched."""
    from PIL import ImageDraw

    img = (image if image is not None else load_page_image(page)).copy()
    draw = ImageDraw.Draw(img)
    lw = line_width(page)
    for box in boxes:
        left, top, right, bottom = pixel_rect(page, box)
        draw.rectangle([left - lw, top - lw, right - 1 + lw, bottom - 1 + lw], outline=color, width=lw)
    return img


_FILE_HASHES: dict[tuple[str, int, int], str] = {}


def image_file_hash(page: Page) -> str:
    """sha256 of the page image file (memoized by path, size and mtime)."""
    path = page.image_path
    st = path.stat()
    key = (str(path), st.st_size, st.st_mtime_ns)
    if key not in _FILE_HASHES:
        _FILE_HASHES[key] = sha256_file(path)
    return _FILE_HASHES[key]


@dataclass
class EvidenceImage:
    """One image shown to the judge; rendered lazily, hashed without rendering.

    ``content_hash`` is the sha256 of (mode, page image file hash, image size, pixel rectangles):
    a deterministic function of the pixels shown, so equal hashes mean identical images.
    """

    page: Page
    mode: Mode
    boxes: tuple[Box, ...] = ()
    _image: object = field(default=None, repr=False)

    def image(self) -> Image.Image:
        if self._image is None:
            if self.mode is Mode.PAGE:
                self._image = load_page_image(self.page)
            elif self.mode is Mode.CROP:
                self._image = crop_image(self.page, self.boxes[0])
            else:
                self._image = overlay_image(self.page, self.boxes)
        return self._image  # type: ignore[return-value]

    @property
    def pixel_rects(self) -> list[tuple[int, int, int, int]]:
        return [pixel_rect(self.page, b) for b in self.boxes]

    def content_hash(self) -> str:
        spec = f"{self.mode.value}|{image_file_hash(self.page)}|{self.page.image_width}x{self.page.image_height}"
        spec += "|" + ";".join(",".join(map(str, r)) for r in self.pixel_rects)
        if self.mode is Mode.BOX:
            spec += f"|lw={line_width(self.page)}"
        return hashlib.sha256(spec.encode()).hexdigest()


def evidence_images(units: Sequence[Unit], mode: Mode | str) -> list[EvidenceImage]:
    """The images the judge sees for a set of units (units in citation order)."""
    mode = Mode(mode)
    units = sorted(units, key=lambda u: u.index)
    if mode is Mode.PAGE:
        seen: dict[str, EvidenceImage] = {}
        for u in units:
            seen.setdefault(u.page_id, EvidenceImage(u.page, Mode.PAGE))
        return list(seen.values())
    if any(u.box is None for u in units):
        raise ValueError(f"mode {mode.value!r} needs block-level units (boxes)")
    if mode is Mode.CROP:
        return [EvidenceImage(u.page, Mode.CROP, (u.box,)) for u in units]  # type: ignore[arg-type]
    by_page: dict[str, list[Unit]] = {}
    for u in units:
        by_page.setdefault(u.page_id, []).append(u)
    return [EvidenceImage(us[0].page, Mode.BOX, tuple(u.box for u in us)) for us in by_page.values()]  # type: ignore[misc]


# -- saving for the viewer -----------------------------------------------------------------------

def _png_bytes(img: Image.Image) -> bytes:
    import io

    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("_") or "q"


def save_evidence(answer: Answer, pages: PageSource, out_dir: str | Path, *, name: str | None = None) -> Path:
    """Write the evidence of one answer for the viewer and return its folder.

    Layout: ``<out_dir>/<name>/pages/NN_<page>.png`` (whole cited pages), ``crops/NN_<page>.png``
    (one per cited box, at the page image's resolution), ``overlays/NN_<page>.png`` (cited pages with
    red rectangles) and ``evidence.json`` (units, POINT boxes, pixel rectangles, file names, warnings).
    ``name`` defaults to ``answer.meta['qid']`` or a hash of the question.
    """
    lookup = PageLookup(pages)
    qname = name or str(answer.meta.get("qid") or answer.meta.get("id") or "")
    if not qname:
        qname = "q-" + hashlib.sha256(answer.question.encode()).hexdigest()[:12]
    folder = Path(out_dir) / _safe(qname)
    page_units = citation_units(answer, lookup, Level.PAGE)
    block_units = citation_units(answer, lookup, Level.BLOCK)
    record: dict = {"question": answer.question, "answer": answer.answer, "pages": [], "crops": [],
                    "overlays": [], "missing_pages": page_units.missing_pages,
                    "warnings": block_units.warnings}
    images: dict[str, Image.Image] = {}
    for i, u in enumerate(page_units.units, 1):
        img = images.setdefault(u.page_id, load_page_image(u.page))
        rel = f"pages/{i:02d}_{_safe(u.page_id)}.png"
        atomic_write_bytes(folder / rel, _png_bytes(img))
        record["pages"].append({"page_id": u.page_id, "file": rel, "size": list(img.size)})
    for u in block_units.units:
        img = images.setdefault(u.page_id, load_page_image(u.page))
        rel = f"crops/{u.index + 1:02d}_{_safe(u.page_id)}.png"
        atomic_write_bytes(folder / rel, _png_bytes(crop_image(u.page, u.box, img)))  # type: ignore[arg-type]
        record["crops"].append({**u.to_json(), "file": rel, "pixel_rect": list(pixel_rect(u.page, u.box))})  # type: ignore[arg-type]
    for i, ev in enumerate(evidence_images(block_units.units, Mode.BOX), 1):
        rel = f"overlays/{i:02d}_{_safe(ev.page.page_id)}.png"
        img = images.setdefault(ev.page.page_id, load_page_image(ev.page))
        atomic_write_bytes(folder / rel, _png_bytes(overlay_image(ev.page, ev.boxes, img)))
        record["overlays"].append({"page_id": ev.page.page_id, "file": rel,
                                   "boxes": [b.to_list(2) for b in ev.boxes],
                                   "pixel_rects": [list(r) for r in ev.pixel_rects]})
    atomic_write_json(folder / "evidence.json", record)
    log.debug("evidence for %s written to %s", qname, folder)
    return folder
