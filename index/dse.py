"""``dse:<id or path>``: DSE-Qwen2-2b-MRL-V1 (FinRAGBench-V Table 4 row DSE-Qwen2-2b-MRL-V1).

Source: the hub card MrLight/dse-qwen2-2b-mrl-v1 and vLLM's ``template_dse_qwen2_vl.jinja``
(``../shared/notes/retriever-zoo.md`` §2.1). Plain ``qwen2_vl`` checkpoint, no remote code.

* prompt: the stock Qwen2-VL chat format with system ``You are a helpful assistant.``, then
  ``<|endoftext|>`` after the assistant header; query = a black 56x56 dummy image +
  ``Query: {q}`` (qwen-vl-utils' own 4*28^2 minimum turns the card's 1x1 dummy into 56x56);
  page = image + ``What is shown in this image?``.
* pooling: left padding, hidden state at the last position; **MRL: truncate to ``dim`` then L2**.
* image pre-resize: smart_resize factor 28, 4*28^2 .. 2560*28^2 pixels.
* dims: 1536 native; the card suggests e.g. ``dim=512`` (option ``dim``, stored in the index).
"""

from __future__ import annotations

from docrag.index.device import check_options
from docrag.index.registry import RETRIEVERS
from docrag.index.vlm_embed import OPTIONS, Recipe, VLMEmbedRetriever

DSE = Recipe(family="dse", model_types=("qwen2_vl",), system_query="You are a helpful assistant.",
             system_page="You are a helpful assistant.", query_text="Query: {q}",
             page_text="What is shown in this image?", suffix="<|endoftext|>", padding_side="left",
             query_dummy_image=56, factor=28, min_pixels=4 * 28 * 28, max_pixels=2560 * 28 * 28,
             native_dim="1536 (MRL)")


@RETRIEVERS.register("dse", needs_arg=True, help="DSE-Qwen2 MRL single-vector page-image embedder")
def make_dse(arg: str, **opts) -> VLMEmbedRetriever:
    check_options("dse", opts, allowed=OPTIONS)
    return VLMEmbedRetriever(DSE, arg, **opts)
