"""Boxes that always know their coordinate space, and every conversion between spaces.

Three spaces, all with a top-left origin and y growing downwards:

* ``Space.POINT``  -- PDF points on the page *as displayed* (page rotation applied), the frame
  PyMuPDF reports for ``page.rect``; extent = page width/height in points.
* ``Space.PIXEL``  -- pixels of one image of a known size; extent = image width/height.
* ``Space.NORM``   -- fractions of the page, 0..1 on both axes; extent = (1, 1).

A :class:`Box` carries its space *and* the extent of that space, so converting never guesses.
Anything that converts between spaces lives in this module.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Protocol, TypeVar


class Space(str, Enum):
    """Coordinate space of a :class:`Box`."""

    POINT = "pt"
    PIXEL = "px"
    NORM = "norm"


class GeometryError(ValueError):
    """Raised for boxes that cannot be interpreted (wrong space, zero extent, NaN)."""


@dataclass(frozen=True)
class Box:
    """An axis-aligned box ``(x0, y0, x1, y1)`` in ``space`` whose full extent is ``extent`` (w, h)."""

    x0: float
    y0: float
    x1: float
    y1: float
    space: Space
    extent: tuple[float, float]

    def __post_init__(self) -> None:
        vals = (self.x0, self.y0, self.x1, self.y1, *self.extent)
        if any(not math.isfinite(float(v)) for v in vals):
            raise GeometryError(f"box has a non-finite coordinate: {vals}")
        if self.extent[0] <= 0 or self.extent[1] <= 0:
            raise GeometryError(f"box extent must be positive, got {self.extent}")
        if not isinstance(self.space, Space):
            object.__setattr__(self, "space", Space(self.space))

    # -- constructors -------------------------------------------------------------------------
    @classmethod
    def points(cls, x0: float, y0: float, x1: float, y1: float, page_w: float, page_h: float) -> Box:
        return cls(x0, y0, x1, y1, Space.POINT, (float(page_w), float(page_h)))

    @classmethod
    def pixels(cls, x0: float, y0: float, x1: float, y1: float, img_w: float, img_h: float) -> Box:
        return cls(x0, y0, x1, y1, Space.PIXEL, (float(img_w), float(img_h)))

    @classmethod
    def norm(cls, x0: float, y0: float, x1: float, y1: float) -> Box:
        return cls(x0, y0, x1, y1, Space.NORM, (1.0, 1.0))

    @classmethod
    def from_grid(cls, coords: Sequence[float], grid: float = 1000.0, order: str = "xyxy") -> Box:
        """A box given on a ``grid`` x ``grid`` normalized lattice (Qwen2-VL / Qwen3-VL / InternVL use
        0..1000, ``order="xyxy"``; Gemini uses ``[ymin, xmin, ymax, xmax]``, ``order="yxyx"``)."""
        if order not in ("xyxy", "yxyx"):
            raise GeometryError(f"grid box order must be 'xyxy' or 'yxyx', got {order!r}")
        vals = yxyx_to_xyxy(coords) if order == "yxyx" else list(coords)
        x0, y0, x1, y1 = (float(c) / grid for c in vals)
        return cls.norm(x0, y0, x1, y1)

    # -- basic properties ---------------------------------------------------------------------
    @property
    def coords(self) -> tuple[float, float, float, float]:
        return (self.x0, self.y0, self.x1, self.y1)

    @property
    def width(self) -> float:
        return self.x1 - self.x0

    @property
    def height(self) -> float:
        return self.y1 - self.y0

    @property
    def area(self) -> float:
        return max(0.0, self.width) * max(0.0, self.height)

    def is_valid(self) -> bool:
        """True when the box has positive width and height."""
        return self.x1 > self.x0 and self.y1 > self.y0

    # -- conversions --------------------------------------------------------------------------
    def to_norm(self) -> Box:
        w, h = self.extent
        return Box.norm(self.x0 / w, self.y0 / h, self.x1 / w, self.y1 / h)

    def _scaled(self, space: Space, w: float, h: float) -> Box:
        n = self.to_norm()
        return Box(n.x0 * w, n.y0 * h, n.x1 * w, n.y1 * h, space, (float(w), float(h)))

    def to_points(self, page_w: float, page_h: float) -> Box:
        """Convert to PDF points of a (displayed) page of ``page_w`` x ``page_h`` points."""
        if self.space is Space.POINT:
            _check_same_extent(self.extent, (page_w, page_h), "page")
        return self._scaled(Space.POINT, page_w, page_h)

    def to_pixels(self, img_w: float, img_h: float) -> Box:
        """Convert to pixels of an image of ``img_w`` x ``img_h`` showing the whole page."""
        return self._scaled(Space.PIXEL, img_w, img_h)

    def to_space(self, space: Space, extent: tuple[float, float] | None = None) -> Box:
        if space is Space.NORM:
            return self.to_norm()
        if extent is None:
            raise GeometryError(f"converting to {space.value} needs the target extent")
        return self.to_points(*extent) if space is Space.POINT else self.to_pixels(*extent)

    # -- operations (within one space) -------------------------------------------------------
    def ordered(self) -> Box:
        """The same box with corners reordered so that x0 <= x1 and y0 <= y1."""
        return Box(min(self.x0, self.x1), min(self.y0, self.y1), max(self.x0, self.x1),
                   max(self.y0, self.y1), self.space, self.extent)

    def clipped(self) -> Box:
        """The box clipped to its space's extent."""
        w, h = self.extent
        return Box(_clamp(self.x0, 0, w), _clamp(self.y0, 0, h), _clamp(self.x1, 0, w),
                   _clamp(self.y1, 0, h), self.space, self.extent)

    def is_inside_extent(self, tol: float = 1e-6) -> bool:
        w, h = self.extent
        return (self.x0 >= -tol and self.y0 >= -tol and self.x1 <= w + tol and self.y1 <= h + tol)

    def expanded(self, margin: float) -> Box:
        return Box(self.x0 - margin, self.y0 - margin, self.x1 + margin, self.y1 + margin,
                   self.space, self.extent)

    def intersection_area(self, other: Box) -> float:
        other = self._same_space(other)
        ix = min(self.x1, other.x1) - max(self.x0, other.x0)
        iy = min(self.y1, other.y1) - max(self.y0, other.y0)
        return ix * iy if ix > 0 and iy > 0 else 0.0

    def x_overlap(self, other: Box) -> float:
        """The width this box shares with ``other`` (0 when they stand apart side by side)."""
        other = self._same_space(other)
        return max(0.0, min(self.x1, other.x1) - max(self.x0, other.x0))

    def iou(self, other: Box) -> float:
        other = self._same_space(other)
        inter = self.intersection_area(other)
        union = self.area + other.area - inter
        return inter / union if union > 0 else 0.0

    def coverage_of(self, other: Box) -> float:
        """Fraction of ``other``'s area that lies inside this box (0..1)."""
        other = self._same_space(other)
        return self.intersection_area(other) / other.area if other.area > 0 else 0.0

    def contains(self, other: Box, tol: float = 1e-6) -> bool:
        other = self._same_space(other)
        return (other.x0 >= self.x0 - tol and other.y0 >= self.y0 - tol
                and other.x1 <= self.x1 + tol and other.y1 <= self.y1 + tol)

    def contains_point(self, x: float, y: float) -> bool:
        return self.x0 <= x <= self.x1 and self.y0 <= y <= self.y1

    def _same_space(self, other: Box) -> Box:
        if other.space is not self.space:
            if self.space is Space.NORM or other.space is Space.NORM:
                return other.to_space(self.space, self.extent)
            raise GeometryError(
                f"cannot compare a {self.space.value} box with a {other.space.value} box without "
                "a page size: convert one of them first")
        if other.space is not Space.NORM and not _close_extent(self.extent, other.extent):
            # Same kind of space but a different image/page: compare through the normalized frame.
            return other.to_norm().to_space(self.space, self.extent)
        return other

    # -- serialisation -------------------------------------------------------------------------
    def to_list(self, ndigits: int = 2) -> list[float]:
        return [round(float(v), ndigits) for v in self.coords]

    def to_dict(self) -> dict:
        return {"bbox": [float(v) for v in self.coords], "space": self.space.value,
                "extent": [float(v) for v in self.extent]}

    @classmethod
    def from_dict(cls, d: dict) -> Box:
        try:
            x0, y0, x1, y1 = d["bbox"]
            space = Space(d["space"])
            ew, eh = d["extent"]
        except (KeyError, ValueError, TypeError) as exc:
            raise GeometryError(f"not a box record (need bbox, space, extent): {d!r}") from exc
        return cls(float(x0), float(y0), float(x1), float(y1), space, (float(ew), float(eh)))


def union(boxes: Iterable[Box]) -> Box:
    """The smallest box containing all ``boxes`` (all converted into the first box's space)."""
    boxes = list(boxes)
    if not boxes:
        raise GeometryError("union of no boxes")
    first = boxes[0]
    rest = [first._same_space(b) for b in boxes[1:]]
    allb = [first, *rest]
    return Box(min(b.x0 for b in allb), min(b.y0 for b in allb), max(b.x1 for b in allb),
               max(b.y1 for b in allb), first.space, first.extent)


class HasBox(Protocol):
    @property
    def box(self) -> Box: ...


Boxed = TypeVar("Boxed", bound=HasBox)


def in_rows(items: Iterable[Boxed]) -> list[list[Boxed]]:
    """``items`` (words, blocks) grouped into rows top to bottom: an item whose vertical middle falls within the
    height of a row's first item joins that row."""
    rows: list[list[Boxed]] = []
    for item in sorted(items, key=lambda o: (o.box.y0 + o.box.y1) / 2):
        mid = (item.box.y0 + item.box.y1) / 2
        if rows and rows[-1][0].box.y0 <= mid <= rows[-1][0].box.y1:
            rows[-1].append(item)
        else:
            rows.append([item])
    return rows


def best_match_iou(pred: Sequence[Box], gold: Sequence[Box]) -> float:
    """Mean over gold boxes of the best IoU with any predicted box (0 when ``pred`` is empty)."""
    if not gold:
        return 0.0
    return sum(max((g.iou(p) for p in pred), default=0.0) for g in gold) / len(gold)


# -- page rotation --------------------------------------------------------------------------

def rotate_point(x: float, y: float, rotation: int, unrot_w: float, unrot_h: float) -> tuple[float, float]:
    """Map a point of the *unrotated* page (top-left origin) to the displayed page.

    ``rotation`` is the PDF /Rotate value (0, 90, 180, 270; clockwise). ``unrot_w``/``unrot_h``
    are the unrotated page's width and height in points (PyMuPDF ``page.mediabox``-based size).
    """
    r = rotation % 360
    if r == 0:
        return x, y
    if r == 90:
        return unrot_h - y, x
    if r == 180:
        return unrot_w - x, unrot_h - y
    if r == 270:
        return y, unrot_w - x
    raise GeometryError(f"page rotation must be a multiple of 90, got {rotation}")


def rotate_box(box: Box, rotation: int, unrot_w: float, unrot_h: float) -> Box:
    """Map a POINT box of the unrotated page into the displayed page's POINT space."""
    if box.space is not Space.POINT:
        raise GeometryError("rotate_box takes boxes in PDF points of the unrotated page")
    xa, ya = rotate_point(box.x0, box.y0, rotation, unrot_w, unrot_h)
    xb, yb = rotate_point(box.x1, box.y1, rotation, unrot_w, unrot_h)
    w, h = (unrot_h, unrot_w) if rotation % 180 == 90 else (unrot_w, unrot_h)
    return Box(xa, ya, xb, yb, Space.POINT, (w, h)).ordered()


def fit_within(width: int, height: int, max_w: int, max_h: int) -> tuple[int, int]:
    """Size of a ``width`` x ``height`` image scaled down (never up) to fit ``max_w`` x ``max_h``."""
    scale = min(max_w / width, max_h / height, 1.0)
    return max(1, round(width * scale)), max(1, round(height * scale))


def yxyx_to_xyxy(coords: Sequence[float]) -> list[float]:
    """``[ymin, xmin, ymax, xmax]`` (Gemini's order) -> ``[xmin, ymin, xmax, ymax]``."""
    if len(coords) != 4:
        raise GeometryError(f"a box needs 4 numbers, got {len(coords)}")
    y0, x0, y1, x1 = coords
    return [x0, y0, x1, y1]


#: Qwen2-VL / Qwen2.5-VL image processor defaults (``preprocessor_config.json`` of the released
#: Qwen2.5-VL checkpoints): 28-pixel factor (14-pixel patches merged 2x2), 56x56 .. 12,845,056 pixels.
QWEN_FACTOR, QWEN_MIN_PIXELS, QWEN_MAX_PIXELS = 28, 56 * 56, 12_845_056


def smart_resize(width: int, height: int, factor: int = QWEN_FACTOR, min_pixels: int = QWEN_MIN_PIXELS,
                 max_pixels: int = QWEN_MAX_PIXELS) -> tuple[int, int]:
    """The ``(width, height)`` a Qwen2-VL-family processor resizes a ``width`` x ``height`` image to:
    both sides rounded to multiples of ``factor``, the area kept within ``[min_pixels, max_pixels]``
    and the aspect ratio nearly kept (same algorithm as ``qwen_vl_utils.smart_resize``, which takes
    and returns height first)."""
    if width <= 0 or height <= 0:
        raise GeometryError(f"image size must be positive, got {width}x{height}")
    if min_pixels > max_pixels:
        raise GeometryError(f"min_pixels ({min_pixels}) is larger than max_pixels ({max_pixels})")
    h_bar = max(factor, round(height / factor) * factor)
    w_bar = max(factor, round(width / factor) * factor)
    if h_bar * w_bar > max_pixels:
        beta = math.sqrt((height * width) / max_pixels)
        h_bar = max(factor, math.floor(height / beta / factor) * factor)
        w_bar = max(factor, math.floor(width / beta / factor) * factor)
    elif h_bar * w_bar < min_pixels:
        beta = math.sqrt(min_pixels / (height * width))
        h_bar = math.ceil(height * beta / factor) * factor
        w_bar = math.ceil(width * beta / factor) * factor
    return int(w_bar), int(h_bar)


def _clamp(v: float, lo: float, hi: float) -> float:
    return max(lo, min(hi, v))


def _close_extent(a: tuple[float, float], b: tuple[float, float], rel: float = 1e-6) -> bool:
    return all(abs(x - y) <= rel * max(1.0, abs(x), abs(y)) for x, y in zip(a, b, strict=True))


def _check_same_extent(a: tuple[float, float], b: tuple[float, float], what: str) -> None:
    if not _close_extent(a, b, rel=1e-3):
        raise GeometryError(f"box is in points of a {a[0]:.1f}x{a[1]:.1f} {what}, "
                            f"not of the {b[0]:.1f}x{b[1]:.1f} {what} asked for")


def unrotate_box(box: Box, rotation: int) -> Box:
    """Map a POINT box of the displayed page back into the unrotated page frame (inverse of :func:`rotate_box`)."""
    if box.space is not Space.POINT:
        raise GeometryError("unrotate_box takes boxes in PDF points of the displayed page")
    r = rotation % 360
    if r == 0:
        return box
    w, h = box.extent
    return rotate_box(box, (360 - r) % 360, w, h)
