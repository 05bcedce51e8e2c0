"""``qwen3-vl-embed:<id or path>``: Qwen3-VL-Embedding-2B/8B (ViDoRe V3 single-vector row, 57.8).

Source: QwenLM/Qwen3-VL-Embedding ``src/models/qwen3_vl_embedding.py`` (read through a verbatim
copy; ``../shared/notes/retriever-zoo.md`` §2.2). Plain ``qwen3_vl`` checkpoint, no remote code.

* prompt: system = instruction (pages: the default ``Represent the user's input.``; queries:
  ``Retrieve images or text relevant to the user's query.``, an option -- the model card leaves
  the task text to the user; like the official code, an instruction without final punctuation
  gets a ``.``), user = ``[image][text]``, then the assistant header
  (``add_generation_prompt``) and nothing after it.
* pooling: right padding, hidden state of the last real token, L2; **MRL: truncate to ``dim``
  then L2** (2048 for 2B, 4096 for 8B).
* image pre-resize: smart_resize factor 32 (patch 16 x merge 2), 4*32^2 .. 1800*32^2 pixels.
"""

from __future__ import annotations

from docrag.index.device import check_options
from docrag.index.registry import RETRIEVERS
from docrag.index.vlm_embed import OPTIONS, Recipe, VLMEmbedRetriever

QWEN3_VL_EMBED = Recipe(family="qwen3-vl-embed", model_types=("qwen3_vl",),
                        system_query="Retrieve images or text relevant to the user's query.",
                        system_page="Represent the user's input.", query_text="{q}", page_text="", suffix="",
                        padding_side="right", factor=32, min_pixels=4 * 32 * 32, max_pixels=1800 * 32 * 32,
                        native_dim="2048 (2B) / 4096 (8B), MRL", punctuate=True)


@RETRIEVERS.register("qwen3-vl-embed", needs_arg=True, help="Qwen3-VL-Embedding single-vector page-image embedder")
def make_qwen3_vl_embed(arg: str, **opts) -> VLMEmbedRetriever:
    check_options("qwen3-vl-embed", opts, allowed=OPTIONS)
    return VLMEmbedRetriever(QWEN3_VL_EMBED, arg, **opts)
