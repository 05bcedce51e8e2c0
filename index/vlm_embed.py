"""Single-vector page-image embedders on a Qwen-VL backbone (GME, DSE, Qwen3-VL-Embedding).

Shared machinery; each family's module (:mod:`docrag.index.gme`, :mod:`docrag.index.dse`,
:mod:`docrag.index.qwen3_vl_embed`) writes down its prompts, pooling, image pre-resize and dims in
a :class:`Recipe`. The prompt strings are built here by hand (not from the checkpoint's chat
template), so they are exactly the reference format whatever template a checkpoint ships.

Pipeline: page image -> pre-resize (qwen-vl-utils ``smart_resize``: dims a multiple of
``factor``, area within ``[min_pixels, max_pixels]``) -> processor -> the backbone's base model
(``ForConditionalGeneration.model``) -> hidden state of the last real token (``pooling``) ->
optional MRL truncation to ``dim`` -> L2 normalisation. CPU loads use eager attention.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from docrag.errors import DocragError, MissingDependencyError
from docrag.index.base import Retriever
from docrag.index.colpali_models import _revision, read_config
from docrag.index.device import dtype_name, resolve_device, resolve_dtype
from docrag.types import Page

log = logging.getLogger(__name__)

IMAGE_TOKENS = "<|vision_start|><|image_pad|><|vision_end|>"
OPTIONS = ("dim", "max_pixels", "min_pixels", "query_instruction", "trust_remote_code", "query_batch_size")


@dataclass(frozen=True)
class Recipe:
    family: str
    model_types: tuple[str, ...]        # config.json model_type values this family accepts
    system_query: str                   # system prompt for queries ("" = no system turn)
    system_page: str
    query_text: str                     # "{q}" is replaced by the query
    page_text: str                      # text that follows the page image
    suffix: str                         # appended after the assistant header
    padding_side: str                   # "left" or "right"
    query_dummy_image: int = 0          # side of a black dummy image sent with text queries (DSE: 56)
    factor: int = 28                    # smart_resize factor (patch x merge)
    min_pixels: int = 4 * 28 * 28
    max_pixels: int = 1280 * 28 * 28
    native_dim: str = ""                # documented full dimension (for docs and describe())
    punctuate: bool = False             # end an instruction without final punctuation with "." (Qwen3-VL-Embedding)


def prompt(recipe: Recipe, system: str, text: str, image: bool) -> str:
    """The exact token string fed to the processor (image tokens are expanded by the processor)."""
    sys_turn = f"<|im_start|>system\n{system}<|im_end|>\n" if system else ""
    return (f"{sys_turn}<|im_start|>user\n{IMAGE_TOKENS if image else ''}{text}<|im_end|>\n"
            f"<|im_start|>assistant\n{recipe.suffix}")


def pre_resize(image: Any, factor: int, min_pixels: int, max_pixels: int) -> Any:
    """qwen-vl-utils' ``smart_resize`` then a bicubic resize (what ``fetch_image`` does)."""
    from PIL import Image
    from qwen_vl_utils.vision_process import smart_resize

    h, w = smart_resize(image.height, image.width, factor=factor, min_pixels=min_pixels, max_pixels=max_pixels)
    return image if (w, h) == image.size else image.resize((w, h), Image.BICUBIC)


def last_token(hidden: Any, mask: Any, padding_side: str) -> Any:
    """Hidden state of each row's last real token."""
    import torch

    if padding_side == "left":
        return hidden[:, -1]
    idx = mask.long().sum(dim=1) - 1
    return hidden[torch.arange(hidden.shape[0], device=hidden.device), idx]


def load_backbone(model: str, recipe: Recipe, device: str, dtype: Any, trust_remote_code: bool) -> tuple[Any, Any]:
    """(base model, processor) of a Qwen-VL checkpoint (the language model head is not used)."""
    try:
        import transformers
    except ImportError as exc:
        raise MissingDependencyError(f"retriever {recipe.family!r} needs transformers") from exc
    cfg = read_config(model)
    mtype = cfg.get("model_type", "")
    if mtype not in recipe.model_types and not trust_remote_code:
        raise DocragError(f"model {model!r}: config.json model_type {mtype!r} is not a {recipe.family} backbone "
                          f"({', '.join(recipe.model_types)}); pass --trust-remote-code for checkpoints with "
                          "their own code")
    attn = "eager" if device in ("cpu", "mps") else "sdpa"
    kwargs: dict[str, Any] = {"torch_dtype": dtype, "attn_implementation": attn}
    if trust_remote_code:
        kwargs["trust_remote_code"] = True
    cls = {"qwen2_vl": transformers.Qwen2VLForConditionalGeneration,
           "qwen2_5_vl": transformers.Qwen2_5_VLForConditionalGeneration,
           "qwen3_vl": transformers.Qwen3VLForConditionalGeneration}.get(mtype, transformers.AutoModel)
    net = cls.from_pretrained(model, **kwargs)
    base = getattr(net, "model", net)
    processor = transformers.AutoProcessor.from_pretrained(model, **({"trust_remote_code": True}
                                                                      if trust_remote_code else {}))
    processor.tokenizer.padding_side = recipe.padding_side
    return base.to(device).eval(), processor


class VLMEmbedRetriever(Retriever):
    """One unit vector per page image (and per query) from a Qwen-VL backbone (see module docstring)."""

    kind = "dense"
    input = "image"

    def __init__(self, recipe: Recipe, model: str, device: str | None = None, dtype: str | None = None,
                 batch_size: int = 4, query_batch_size: int = 16, dim: int | None = None,
                 max_pixels: int | None = None, min_pixels: int | None = None, query_instruction: str | None = None,
                 trust_remote_code: bool = False) -> None:
        self.recipe = recipe
        self.model_name = model
        self.device = resolve_device(device)
        self.dtype = resolve_dtype(self.device, dtype)
        self.batch_size = int(batch_size)
        self.query_batch_size = int(query_batch_size)
        self.dim = int(dim) if dim else None
        self.max_pixels = int(max_pixels or recipe.max_pixels)
        self.min_pixels = int(min_pixels or recipe.min_pixels)
        instruction = recipe.system_query if query_instruction is None else query_instruction
        if recipe.punctuate and instruction and instruction.rstrip()[-1:] not in (".", "?", "!", "。", "？", "！"):
            instruction = instruction.rstrip() + "."
        self.query_instruction = instruction
        self.trust_remote_code = bool(trust_remote_code)
        self._loaded: tuple[Any, Any] | None = None

    def _load(self) -> tuple[Any, Any]:
        if self._loaded is None:
            self._loaded = load_backbone(self.model_name, self.recipe, self.device, self.dtype,
                                         self.trust_remote_code)
        return self._loaded

    def _embed(self, texts: list[str], images: list[Any] | None) -> np.ndarray:
        import torch

        net, proc = self._load()
        batch = proc(text=texts, images=images or None, padding=True, return_tensors="pt").to(self.device)
        with torch.inference_mode():
            hidden = net(**batch).last_hidden_state
        vec = last_token(hidden, batch["attention_mask"], self.recipe.padding_side).float()
        if self.dim:
            vec = vec[:, :self.dim]
        return torch.nn.functional.normalize(vec, dim=-1).cpu().numpy().astype(np.float32)

    def page_inputs(self, pages: Sequence[Page]) -> tuple[list[str], list[Any]]:
        r = self.recipe
        images = [pre_resize(p.load_image(), r.factor, self.min_pixels, self.max_pixels) for p in pages]
        return [prompt(r, r.system_page, r.page_text, True) for _ in pages], images

    def query_inputs(self, queries: Sequence[str]) -> tuple[list[str], list[Any] | None]:
        r = self.recipe
        texts = [prompt(r, self.query_instruction, r.query_text.replace("{q}", q), bool(r.query_dummy_image))
                 for q in queries]
        if not r.query_dummy_image:
            return texts, None
        from PIL import Image

        side = r.query_dummy_image
        return texts, [Image.new("RGB", (side, side), (0, 0, 0)) for _ in queries]

    def encode_pages(self, pages: Sequence[Page], show_progress: bool = True) -> list[np.ndarray]:
        from tqdm.auto import tqdm

        out: list[np.ndarray] = []
        with tqdm(total=len(pages), desc=f"encoding pages ({self.recipe.family})", unit="page",
                  disable=not show_progress) as bar:
            for i in range(0, len(pages), self.batch_size):
                chunk = pages[i:i + self.batch_size]
                out.extend(self._embed(*self.page_inputs(chunk)))
                bar.update(len(chunk))
        return out

    def encode_queries(self, queries: Sequence[str], show_progress: bool = False) -> list[np.ndarray]:
        out: list[np.ndarray] = []
        for i in range(0, len(queries), self.query_batch_size):
            out.extend(self._embed(*self.query_inputs(list(queries[i:i + self.query_batch_size]))))
        return out

    def describe(self) -> dict:
        r = self.recipe
        return {**super().describe(), "model": self.model_name, "revision": _revision(self.model_name),
                "dtype": dtype_name(self.dtype), "pooling": f"last token ({r.padding_side} padding), L2",
                "settings": {"dim": self.dim, "max_pixels": self.max_pixels, "min_pixels": self.min_pixels,
                             "query_instruction": self.query_instruction, "page_system": r.system_page,
                             "page_text": r.page_text, "query_text": r.query_text, "factor": r.factor,
                             "trust_remote_code": self.trust_remote_code}}
