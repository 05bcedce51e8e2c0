"""Page-image rerankers that read a VLM's yes/no logits: ``qwen3-vl-rerank:<path>`` and ``monoqwen:<path>``.

Both build their prompt by hand (exact reference strings, left padding) and score a (query, page
image) pair from the next-token logits at the last position:

* **Qwen3-VL-Reranker-2B/8B** (QwenLM/Qwen3-VL-Embedding ``src/models/qwen3_vl_reranker.py``;
  ``../shared/notes/retriever-zoo.md`` §2.2): system ``Judge whether the Document meets the
  requirements based on the Query and the Instruct provided. Note that the answer can only be "yes"
  or "no".``; user ``<Instruct>: {instruction}<Query>:{query}\\n<Document>:[image]``; score =
  sigmoid(logit("yes") - logit("no")). Image pre-resize: factor 32, up to ``max_pixels``.
* **MonoQwen2-VL-v0.1** (lightonai card; a LoRA adapter on Qwen2-VL-2B-Instruct loaded through
  peft): stock Qwen2-VL chat (system ``You are a helpful assistant.``), user = image + ``Assert the
  relevance of the previous image document to the following query, answer True or False. The query
  is: {query}``; score = softmax over [True, False] = sigmoid(logit("True") - logit("False")).
  Image pre-resize: factor 28, up to ``max_pixels``. The processor comes from the adapter folder
  when it holds one, else from ``processor`` (default: the adapter's base model).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from docrag.errors import DocragError
from docrag.index.device import check_options, resolve_device, resolve_dtype
from docrag.index.rerank import RERANKERS, Reranker
from docrag.index.vlm_embed import IMAGE_TOKENS, pre_resize
from docrag.types import Page

QWEN3_SYSTEM = ('Judge whether the Document meets the requirements based on the Query and the Instruct provided. '
                'Note that the answer can only be "yes" or "no".')
QWEN3_INSTRUCTION = "Given a search query, retrieve relevant candidates that answer the query."
MONO_PROMPT = ("Assert the relevance of the previous image document to the following query, answer True or False. "
               "The query is: {q}")


@dataclass(frozen=True)
class YesNoRecipe:
    family: str
    model_type: str
    yes: str
    no: str
    factor: int
    max_pixels: int


QWEN3_RERANK = YesNoRecipe("qwen3-vl-rerank", "qwen3_vl", "yes", "no", 32, 1280 * 32 * 32)
MONOQWEN = YesNoRecipe("monoqwen", "qwen2_vl", "True", "False", 28, 1280 * 28 * 28)


def yes_no_prompt(recipe: YesNoRecipe, query: str, instruction: str = QWEN3_INSTRUCTION) -> str:
    if recipe.family == "qwen3-vl-rerank":
        return (f"<|im_start|>system\n{QWEN3_SYSTEM}<|im_end|>\n<|im_start|>user\n<Instruct>: {instruction}"
                f"<Query>:{query}\n<Document>:{IMAGE_TOKENS}<|im_end|>\n<|im_start|>assistant\n")
    return ("<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\n"
            f"{IMAGE_TOKENS}{MONO_PROMPT.format(q=query)}<|im_end|>\n<|im_start|>assistant\n")


class YesNoReranker(Reranker):
    input = "image"

    def __init__(self, recipe: YesNoRecipe, model: str, device: str | None = None, dtype: str | None = None,
                 batch_size: int = 4, max_pixels: int | None = None, instruction: str = QWEN3_INSTRUCTION,
                 processor: str | None = None) -> None:
        self.recipe = recipe
        self.model_name = model
        self.device = resolve_device(device)
        self.dtype = resolve_dtype(self.device, dtype)
        self.batch_size = int(batch_size)
        self.max_pixels = int(max_pixels or recipe.max_pixels)
        self.instruction = instruction
        self.processor_name = processor
        self._loaded: tuple[Any, Any, int, int] | None = None

    def _load(self) -> tuple[Any, Any, int, int]:
        if self._loaded is None:
            import transformers

            from docrag.index.colpali_models import read_config

            cfg = read_config(self.model_name)
            if cfg.get("model_type") != self.recipe.model_type:
                raise DocragError(f"{self.recipe.family}:{self.model_name}: config model_type "
                                  f"{cfg.get('model_type')!r}, expected {self.recipe.model_type!r}")
            cls = (transformers.Qwen3VLForConditionalGeneration if self.recipe.model_type == "qwen3_vl"
                   else transformers.Qwen2VLForConditionalGeneration)
            attn = "eager" if self.device in ("cpu", "mps") else "sdpa"
            net = cls.from_pretrained(self.model_name, torch_dtype=self.dtype, attn_implementation=attn)
            proc = transformers.AutoProcessor.from_pretrained(self._processor_source())
            proc.tokenizer.padding_side = "left"
            ids = [proc.tokenizer.convert_tokens_to_ids(t) for t in (self.recipe.yes, self.recipe.no)]
            if any(i is None or i == proc.tokenizer.unk_token_id for i in ids):
                raise DocragError(f"{self.recipe.family}:{self.model_name}: the tokenizer has no single token "
                                  f"for {self.recipe.yes!r}/{self.recipe.no!r}")
            self._loaded = (net.to(self.device).eval(), proc, ids[0], ids[1])
        return self._loaded

    def _processor_source(self) -> str:
        if self.processor_name:
            return self.processor_name
        path = Path(self.model_name)
        if path.is_dir() and not (path / "preprocessor_config.json").exists() and \
                not (path / "processor_config.json").exists() and (path / "adapter_config.json").exists():
            return json.loads((path / "adapter_config.json").read_text())["base_model_name_or_path"]
        return self.model_name

    def score(self, query: str, pages: Sequence[Page], show_progress: bool = False) -> list[float]:
        import torch
        from tqdm.auto import tqdm

        net, proc, yes, no = self._load()
        out: list[float] = []
        text = yes_no_prompt(self.recipe, query, self.instruction)
        for i in tqdm(range(0, len(pages), self.batch_size), desc=f"reranking ({self.recipe.family})",
                      disable=not show_progress):
            chunk = pages[i:i + self.batch_size]
            images = [pre_resize(p.load_image(), self.recipe.factor, 4 * self.recipe.factor ** 2, self.max_pixels)
                      for p in chunk]
            batch = proc(text=[text] * len(chunk), images=images, padding=True, return_tensors="pt").to(self.device)
            with torch.inference_mode():
                logits = net(**batch).logits[:, -1, :].float()
            out.extend(torch.sigmoid(logits[:, yes] - logits[:, no]).cpu().tolist())
        return out

    def describe(self) -> dict:
        return {**super().describe(), "model": self.model_name, "score": f"sigmoid(logit {self.recipe.yes!r} - "
                f"logit {self.recipe.no!r})", "max_pixels": self.max_pixels}


@RERANKERS.register("qwen3-vl-rerank", needs_arg=True, help="Qwen3-VL-Reranker over page images (yes/no logits)")
def make_qwen3_vl_rerank(arg: str, **opts) -> YesNoReranker:
    check_options("qwen3-vl-rerank", opts, allowed=("max_pixels", "instruction"))
    return YesNoReranker(QWEN3_RERANK, arg, **opts)


@RERANKERS.register("monoqwen", needs_arg=True, help="MonoQwen2-VL (LoRA) over page images (True/False logits)")
def make_monoqwen(arg: str, **opts) -> YesNoReranker:
    check_options("monoqwen", opts, allowed=("max_pixels", "processor"))
    return YesNoReranker(MONOQWEN, arg, **opts)
