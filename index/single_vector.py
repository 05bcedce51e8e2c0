"""``bi:<id or path>``: single-vector page-screenshot embedders (colpali-engine Bi* models).

One unit vector per page image; the index searches them with FAISS (inner product; faiss-gpu's
index when present, faiss-cpu otherwise). Model classes come from the checkpoint's config.json.
"""

from __future__ import annotations

from docrag.index.colpali_models import ColModelRetriever
from docrag.index.device import check_options
from docrag.index.registry import RETRIEVERS


@RETRIEVERS.register("bi", needs_arg=True, help="single-vector page-image embedder (colpali-engine Bi* models)")
def make_bi(arg: str, **opts) -> ColModelRetriever:
    check_options("bi", opts, allowed=("query_batch_size",))
    r = ColModelRetriever("bi", arg, **opts)
    r.name = f"bi:{arg}"
    return r
