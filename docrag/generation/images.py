"""Page-image resize policy: what pixel size each page is sent to a vision-language model at.

The default follows the FinRAGBench-V reference pipeline: fit inside 1024 x 768 with the aspect
ratio kept (never upscaled). ``max_pixels`` adds an area budget on top. The prompt states the size
of the image *as sent*, and the reply's boxes are read back in that size.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from PIL import Image

from docrag.cancel import checkpoint
from docrag.errors import CorpusError, InputError
from docrag.geometry import fit_within
from docrag.regions import Region
from docrag.types import Page


@dataclass(frozen=True)
class ResizePolicy:
    """Fit within ``max_width`` x ``max_height`` and at most ``max_pixels`` pixels (aspect kept)."""

    max_width: int = 1024
    max_height: int = 768
    max_pixels: int | None = None

    def __post_init__(self) -> None:
        if self.max_width <= 0 or self.max_height <= 0 or (self.max_pixels is not None and self.max_pixels <= 0):
            raise InputError(f"image size limits must be positive, got {self}")

    def target_size(self, width: int, height: int) -> tuple[int, int]:
        """Pixel size a ``width`` x ``height`` image is sent at."""
        w, h = fit_within(width, height, self.max_width, self.max_height)
        if self.max_pixels is not None and w * h > self.max_pixels:
            scale = math.sqrt(self.max_pixels / (w * h))
            w, h = max(1, math.floor(w * scale)), max(1, math.floor(h * scale))
        return w, h

    def apply(self, image: Image.Image) -> Image.Image:
        size = self.target_size(*image.size)
        return image if size == image.size else image.resize(size, Image.Resampling.LANCZOS)


@dataclass
class SentImage:
    """One page image as sent to the model (1-based ``index`` in the prompt); ``regions`` are the
    page regions numbered on it (``cite_by="regions"``, :mod:`docrag.generation.marks`)."""

    index: int
    page: Page
    image: Image.Image
    regions: tuple[Region, ...] = ()

    @property
    def size(self) -> tuple[int, int]:
        return self.image.size


def load_page_image(page: Page) -> Image.Image:
    """The page's rendered image, or a :class:`CorpusError` naming the missing/broken file."""
    try:
        return page.load_image()
    except (OSError, ValueError) as exc:
        where = page.image_path if page.root is not None else page.image
        raise CorpusError(f"{where}: cannot read the image of page {page.page_id} ({exc}); "
                          "re-run 'docrag ingest' for this document") from exc


def prepare_images(pages: list[Page], policy: ResizePolicy) -> list[SentImage]:
    """Load and resize each page image; ``index`` follows the page order (rank order)."""
    out = []
    for i, page in enumerate(pages, start=1):
        checkpoint(f"preparing page image {i} of {len(pages)}")
        out.append(SentImage(i, page, policy.apply(load_page_image(page))))
    return out
