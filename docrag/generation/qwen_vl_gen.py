"""``qwen-vl:<model id or path>`` generator: a local Qwen-VL checkpoint sees the page images.

The reply convention follows the checkpoint's family (read from its config.json): Qwen2.5-VL
answers in absolute pixels of its own smart-resized input, Qwen2-VL / Qwen3-VL on a 0-1000 grid.
Pages are resized by the policy (default fit 1024x768) and then to the model's own input size
(multiples of its patch grid, inside its pixel budget) *before* sending, so the size stated in the
prompt is the size the model sees; the backend reports that size back and the parser uses it.

Options: ``max_width`` / ``max_height`` / ``max_pixels`` (resize policy), ``max_pages``,
``max_tokens``, ``temperature``, ``snap``, ``ground``, ``cite_by`` (``regions`` by default: region
marks are drawn on the image at the model's own input size), ``coords`` (override the family's convention);
``device``, ``dtype``, ``attn_implementation``,
``min_pixels`` / ``max_model_pixels`` (the model's pixel budget) go to the backend.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PIL import Image

from docrag.backends import get_backend
from docrag.generation.base import GENERATORS, VLMGenerator, resize_policy_from
from docrag.generation.images import SentImage
from docrag.types import Page

_GENERATOR_KEYS = ("max_pages", "max_tokens", "temperature", "snap", "ground", "cite_by")


class QwenVLGenerator(VLMGenerator):
    """Sends images already at the model's own input size (see module docstring)."""

    def prepare(self, pages: Sequence[Page]) -> list[SentImage]:
        from qwen_vl_utils import smart_resize

        backend = self.backend
        factor = backend.patch_size * 2  # spatial merge of 2x2 patches
        out = []
        for img in super().prepare(pages):
            w, h = img.image.size
            nh, nw = smart_resize(h, w, factor=factor, min_pixels=backend.min_pixels,
                                  max_pixels=backend.max_pixels)
            image = img.image if (nw, nh) == (w, h) else img.image.resize((nw, nh), Image.Resampling.BICUBIC)
            out.append(SentImage(img.index, img.page, image))
        return out


@GENERATORS.register("qwen-vl", needs_arg=True, help="local Qwen2-VL / Qwen2.5-VL / Qwen3-VL checkpoint")
def make_qwen_vl_generator(path: str, **options: Any) -> QwenVLGenerator:
    resize = resize_policy_from(options)
    gen_opts = {k: options.pop(k) for k in _GENERATOR_KEYS if k in options}
    gen_opts = {k: v for k, v in gen_opts.items() if v is not None}
    if "max_model_pixels" in options:
        options["max_pixels"] = options.pop("max_model_pixels")
    coords = options.pop("coords", None)  # an explicit override; by default (or "auto") the family's convention
    coords = None if coords == "auto" else coords
    backend = options.pop("backend", None) or get_backend(f"qwen-vl:{path}", **options)
    return QwenVLGenerator(backend, coords=coords or backend.coords, resize=resize, concurrency=1, **gen_opts)
