"""``colqwen3:<id or path>`` and ``colqwen3.5:<id or path>``: ColQwen3 / ColQwen3.5 late-interaction
page-image retrievers through colpali-engine 0.3.18 (``ColQwen3``/``ColQwen3Processor`` on a
Qwen3-VL backbone, ``ColQwen3_5``/``ColQwen3_5Processor`` on Qwen3.5) -- the family of the ViDoRe V3
leaders (e.g. VultronRetrieverPrime-Qwen3.5-8B loads with ``ColQwen3_5``).

Prompts, pooling and image pre-resize are colpali-engine's own (processor ``process_queries`` /
``process_images``: the processor's smart_resize with factor patch x merge = 32; left padding);
one L2-normalised 320-d vector per token (``custom_text_proj``), scored with MaxSim by the index.
Same loader and options as :mod:`docrag.index.colpali_models` (``pool_factor``, ...).
"""

from __future__ import annotations

from docrag.index.colpali_models import ColModelRetriever
from docrag.index.device import check_options
from docrag.index.registry import RETRIEVERS


def _factory(family: str):
    def make(arg: str, **opts) -> ColModelRetriever:
        check_options(family, opts, allowed=ColModelRetriever.OPTIONS)
        r = ColModelRetriever(family, arg, **opts)
        r.name = f"{family}:{arg}"
        return r

    return make


RETRIEVERS.register("colqwen3", needs_arg=True, help="ColQwen3 multi-vector page-image retriever (colpali-engine)")(
    _factory("colqwen3"))
RETRIEVERS.register("colqwen3.5", needs_arg=True,
                    help="ColQwen3.5 multi-vector page-image retriever (colpali-engine)")(_factory("colqwen3.5"))
