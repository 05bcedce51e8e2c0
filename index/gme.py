"""``gme:<id or path>``: GME-Qwen2-VL-2B/7B (FinRAGBench-V Table 4 rows GME-Qwen2-VL-2B/7B).

Source of the recipe: the hub's ``gme_inference.py`` (mirrored by mteb's ``GMEWrapper``), see
``../shared/notes/retriever-zoo.md`` §2.1. Loaded as a plain ``qwen2_vl`` checkpoint (no remote
code; the hub helper breaks on transformers >= 4.52).

* prompt: ``<|im_start|>system\\n{instruction}<|im_end|>\\n<|im_start|>user\\n[image]{text}<|im_end|>\\n
  <|im_start|>assistant\\n<|endoftext|>``; pages use the default instruction
  ``You are a helpful assistant.`` with the image and no text; queries use the task instruction
  ``Find a screenshot that relevant to the user's question.`` (mteb's ViDoRe task text).
* pooling: right padding, hidden state of the last real token (the ``<|endoftext|>``), L2.
* image pre-resize: smart_resize factor 28, 4*28^2 .. 1280*28^2 pixels.
* dims: 1536 (2B), 3584 (7B); no MRL (``dim`` truncates anyway when given).
"""

from __future__ import annotations

from docrag.index.device import check_options
from docrag.index.registry import RETRIEVERS
from docrag.index.vlm_embed import OPTIONS, Recipe, VLMEmbedRetriever

GME = Recipe(family="gme", model_types=("qwen2_vl",), system_query="Find a screenshot that relevant to the user's "
             "question.", system_page="You are a helpful assistant.", query_text="{q}", page_text="",
             suffix="<|endoftext|>", padding_side="right", factor=28, min_pixels=4 * 28 * 28,
             max_pixels=1280 * 28 * 28, native_dim="1536 (2B) / 3584 (7B)")


@RETRIEVERS.register("gme", needs_arg=True, help="GME-Qwen2-VL single-vector page-image embedder")
def make_gme(arg: str, **opts) -> VLMEmbedRetriever:
    check_options("gme", opts, allowed=OPTIONS)
    return VLMEmbedRetriever(GME, arg, **opts)
