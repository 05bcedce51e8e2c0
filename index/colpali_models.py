"""Multimodal retrievers over page images through colpali-engine.

Multi-vector (late interaction): ``colqwen2:<id or path>``, ``colqwen2.5:...``, ``colpali:...``,
``colsmol:...``. Single-vector (``bi:<id or path>``, see :mod:`docrag.index.single_vector`) uses the
same loader. The model and processor classes come from the checkpoint's ``config.json``
(``architectures``, else ``model_type``), never from its name; a checkpoint of another family than
the one asked for is an error that names the right family.

On CPU models load with ``attn_implementation="eager"`` (SDPA with left padding gives NaN).
Options: ``device``, ``dtype``, ``batch_size`` (pages per forward pass), ``pool_factor``
(hierarchical token pooling of page embeddings at index time, colpali-engine's pooler),
``query_batch_size``.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from docrag.errors import DocragError, MissingDependencyError
from docrag.index.base import Retriever
from docrag.index.device import check_options, dtype_name, resolve_device, resolve_dtype
from docrag.index.registry import RETRIEVERS
from docrag.model_source import check_model_source
from docrag.progress import quiet_model_loading
from docrag.types import Page

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ModelClasses:
    model: str        # class name in colpali_engine.models
    processor: str
    family: str       # registry family that serves it
    multi_vector: bool


ARCHITECTURES: dict[str, ModelClasses] = {
    "ColQwen2": ModelClasses("ColQwen2", "ColQwen2Processor", "colqwen2", True),
    "ColQwen2_5": ModelClasses("ColQwen2_5", "ColQwen2_5_Processor", "colqwen2.5", True),
    "ColPali": ModelClasses("ColPali", "ColPaliProcessor", "colpali", True),
    "ColIdefics3": ModelClasses("ColIdefics3", "ColIdefics3Processor", "colsmol", True),
    "ColQwen3": ModelClasses("ColQwen3", "ColQwen3Processor", "colqwen3", True),
    "ColQwen3_5": ModelClasses("ColQwen3_5", "ColQwen3_5Processor", "colqwen3.5", True),
    "BiQwen2": ModelClasses("BiQwen2", "BiQwen2Processor", "bi", False),
    "BiQwen3": ModelClasses("BiQwen3", "BiQwen3Processor", "bi", False),
    "BiQwen3_5": ModelClasses("BiQwen3_5", "BiQwen3_5Processor", "bi", False),
    "BiQwen2_5": ModelClasses("BiQwen2_5", "BiQwen2_5_Processor", "bi", False),
    "BiPali": ModelClasses("BiPali", "BiPaliProcessor", "bi", False),
    "BiIdefics3": ModelClasses("BiIdefics3", "BiIdefics3Processor", "bi", False),
}
# checkpoints whose config names only the base model (model_type), per wanted family
MODEL_TYPES: dict[tuple[str, str], str] = {
    ("colqwen2", "qwen2_vl"): "ColQwen2", ("colqwen2.5", "qwen2_5_vl"): "ColQwen2_5",
    ("colpali", "paligemma"): "ColPali", ("colsmol", "idefics3"): "ColIdefics3",
    ("bi", "qwen2_vl"): "BiQwen2", ("bi", "qwen2_5_vl"): "BiQwen2_5", ("bi", "paligemma"): "BiPali",
    ("bi", "idefics3"): "BiIdefics3", ("colqwen3", "qwen3_vl"): "ColQwen3", ("colqwen3.5", "qwen3_5"): "ColQwen3_5",
}


def read_config(model: str) -> dict:
    """``config.json`` of a local folder or a hub id (hub cache only when offline); for a PEFT
    adapter, the config of its base model."""
    check_model_source(model, "model")
    path = Path(model)
    if path.is_dir():
        cfg = path / "config.json"
        if cfg.exists():
            return json.loads(cfg.read_text(encoding="utf-8"))
        adapter = path / "adapter_config.json"
        if adapter.exists():
            base = json.loads(adapter.read_text(encoding="utf-8")).get("base_model_name_or_path")
            if base:
                return read_config(base)
        raise DocragError(f"{path}: no config.json (nor adapter_config.json); not a model folder")
    from huggingface_hub import hf_hub_download
    from huggingface_hub.errors import EntryNotFoundError

    try:
        try:
            return json.loads(Path(hf_hub_download(model, "config.json")).read_text(encoding="utf-8"))
        except EntryNotFoundError:  # a PEFT adapter repository (e.g. vidore/colqwen2-v1.0)
            adapter = json.loads(Path(hf_hub_download(model, "adapter_config.json")).read_text(encoding="utf-8"))
            return read_config(adapter["base_model_name_or_path"])
    except (OSError, ValueError, KeyError) as exc:  # offline cache miss, bad id, broken adapter config
        raise DocragError(f"cannot read config.json of model {model!r} ({type(exc).__name__}: {exc}); "
                          "pass a local model folder or make the model available in the Hugging Face cache") from exc


def classes_for(family: str, model: str, config: dict) -> ModelClasses:
    """Pick the colpali-engine classes for a checkpoint from its config (architectures, then model_type)."""
    for arch in config.get("architectures") or []:
        if arch in ARCHITECTURES:
            found = ARCHITECTURES[arch]
            if found.family != family:
                raise DocragError(f"model {model!r} is a {arch} checkpoint (config.json architectures); "
                                  f"use the retriever '{found.family}:{model}' instead of '{family}:{model}'")
            return found
    mtype = config.get("model_type", "")
    if (family, mtype) in MODEL_TYPES:
        return ARCHITECTURES[MODEL_TYPES[(family, mtype)]]
    fams = sorted({c.family for c in ARCHITECTURES.values()})
    raise DocragError(f"model {model!r}: config.json architectures {config.get('architectures')} / model_type "
                      f"{mtype!r} is not a supported {family} checkpoint; supported families: {', '.join(fams)}")


def load_model(family: str, model: str, device: str, dtype: Any) -> tuple[Any, Any, ModelClasses]:
    try:
        import colpali_engine.models as cm
    except ImportError as exc:
        raise MissingDependencyError(f"retriever {family!r} needs colpali-engine: pip install colpali-engine") from exc
    classes = classes_for(family, model, read_config(model))
    attn = "eager" if device == "cpu" or device == "mps" else "sdpa"
    model_cls, proc_cls = getattr(cm, classes.model), getattr(cm, classes.processor)
    kwargs: dict[str, Any] = {}
    if not classes.multi_vector:
        # colpali-engine 0.3.18's Bi* from_pretrained reads a mapping transformers 5 no longer has
        kwargs["key_mapping"] = dict(getattr(model_cls, "_checkpoint_conversion_mapping", None) or {})

    with quiet_model_loading():
        net = model_cls.from_pretrained(model, torch_dtype=dtype, attn_implementation=attn, **kwargs)
        _materialize_tied(net, model)
        net = net.to(device).eval()
        processor = proc_cls.from_pretrained(model)
    return net, processor, classes


def _materialize_tied(net: Any, model: str) -> None:
    """Some checkpoints leave a tied, unused head (PaliGemma's ``lm_head``) on the meta device:
    re-tie it; any other missing weight is an error."""
    def meta() -> list[str]:
        return [n for n, p in net.named_parameters() if p.is_meta]

    if meta():
        net.tie_weights()
    for name in meta():
        module_name, _, attr = name.rpartition(".")
        if not module_name.endswith("lm_head"):
            raise DocragError(f"model {model!r}: weight {name} missing from the checkpoint; re-save the model")
        mod = net.get_submodule(module_name)
        emb = net.get_input_embeddings()
        if getattr(mod, attr).shape != emb.weight.shape:
            raise DocragError(f"model {model!r}: weight {name} missing from the checkpoint; re-save the model")
        setattr(mod, attr, emb.weight)   # the head is tied to the input embeddings


class ColModelRetriever(Retriever):
    """A colpali-engine model over page images (multi-vector, or single-vector for Bi* models)."""

    input = "image"
    OPTIONS = ("pool_factor", "query_batch_size", "loader_workers")

    def __init__(self, family: str, model: str, device: str | None = None, dtype: str | None = None,
                 batch_size: int = 4, pool_factor: int = 1, query_batch_size: int = 32,
                 loader_workers: int | None = None) -> None:
        self.family = family
        self.model_name = model
        self.device = resolve_device(device)
        self.dtype = resolve_dtype(self.device, dtype)
        self.batch_size = int(batch_size)
        self.query_batch_size = int(query_batch_size)
        self.pool_factor = int(pool_factor or 1)
        # image loading + preprocessing in DataLoader workers (pinned memory on CUDA) overlaps the forward pass
        self.loader_workers = (2 if self.device.startswith("cuda") else 0) if loader_workers is None \
            else int(loader_workers)
        self.classes = classes_for(family, model, read_config(model))
        self.kind = "multi" if self.classes.multi_vector else "dense"
        if self.pool_factor > 1 and not self.classes.multi_vector:
            raise DocragError(f"--pool-factor applies to multi-vector models only, not {self.classes.model}")
        self._loaded: tuple[Any, Any] | None = None

    @property
    def net(self) -> Any:
        return self._load()[0]

    @property
    def processor(self) -> Any:
        return self._load()[1]

    def _load(self) -> tuple[Any, Any]:
        if self._loaded is None:
            net, proc, _ = load_model(self.family, self.model_name, self.device, self.dtype)
            self._loaded = (net, proc)
        return self._loaded

    def _forward(self, batch: Any) -> tuple[Any, Any]:
        import torch

        if hasattr(batch, "to"):
            batch = batch.to(self.device)
        else:   # a plain dict from a DataLoader worker (maybe pinned): copy without blocking the host
            batch = {k: v.to(self.device, non_blocking=True) if hasattr(v, "to") else v for k, v in batch.items()}
        with torch.inference_mode():
            out = self.net(**batch)
        return out, batch.get("attention_mask")

    def encode_pages(self, pages: Sequence[Page], show_progress: bool = True) -> list[np.ndarray]:
        from tqdm.auto import tqdm

        out: list[np.ndarray] = []
        bar = tqdm(total=len(pages), desc=f"encoding pages ({self.family})", unit="page", disable=not show_progress)
        for n, batch in self._page_batches(pages):
            emb, mask = self._forward(batch)
            out.extend(self._to_numpy(emb, mask, pool=True))
            bar.update(n)
        bar.close()
        return out

    def _page_batches(self, pages: Sequence[Page]):
        """(pages in batch, processed batch) in order; with ``loader_workers`` > 0 the images are
        loaded and preprocessed in DataLoader worker processes (pinned memory on CUDA)."""
        chunks = [list(pages[i:i + self.batch_size]) for i in range(0, len(pages), self.batch_size)]
        if self.loader_workers <= 0 or len(chunks) <= 1:
            for chunk in chunks:
                yield len(chunk), self.processor.process_images([p.load_image() for p in chunk])
            return
        from torch.utils.data import DataLoader

        loader = DataLoader(_PageBatches(chunks, self.processor), batch_size=None,
                            num_workers=min(self.loader_workers, len(chunks)),
                            pin_memory=self.device.startswith("cuda"), prefetch_factor=2)
        for chunk, batch in zip(chunks, loader, strict=True):
            yield len(chunk), batch

    def encode_queries(self, queries: Sequence[str], show_progress: bool = False) -> list[np.ndarray]:
        out: list[np.ndarray] = []
        for i in range(0, len(queries), self.query_batch_size):
            emb, mask = self._forward(self.processor.process_queries(list(queries[i:i + self.query_batch_size])))
            out.extend(self._to_numpy(emb, mask, pool=False))
        return out

    def _to_numpy(self, emb: Any, mask: Any, pool: bool) -> list[np.ndarray]:
        import torch

        emb = emb.float()
        if not self.classes.multi_vector:
            return list(torch.nn.functional.normalize(emb, dim=-1).cpu().numpy())
        rows = list(emb) if mask is None else [e[m.bool()] for e, m in zip(emb, mask, strict=True)]
        rows = [r[r.abs().sum(dim=1) > 0] for r in rows]      # image-only masking zeroes text tokens
        if pool and self.pool_factor > 1:
            from colpali_engine.compression.token_pooling import HierarchicalTokenPooler

            pooler = HierarchicalTokenPooler()
            rows = [pooler.pool_embeddings([r], pool_factor=self.pool_factor)[0] if len(r) > 1 else r for r in rows]
            rows = [torch.nn.functional.normalize(r, dim=-1) for r in rows]
        return [r.cpu().numpy().astype(np.float32) for r in rows]

    def describe(self) -> dict:
        cfg = read_config(self.model_name)
        return {**super().describe(), "model": self.model_name, "revision": _revision(self.model_name),
                "architecture": self.classes.model, "model_type": cfg.get("model_type"),
                "dtype": dtype_name(self.dtype),
                "pooling": f"hierarchical x{self.pool_factor}" if self.pool_factor > 1 else "none",
                "settings": {"pool_factor": self.pool_factor, "architecture": self.classes.model}}


class _PageBatches:
    """Map-style dataset: item ``i`` = the processed images of page chunk ``i`` as a plain dict."""

    def __init__(self, chunks: list[list[Page]], processor: Any) -> None:
        self.chunks, self.processor = chunks, processor

    def __len__(self) -> int:
        return len(self.chunks)

    def __getitem__(self, i: int) -> dict:
        return dict(self.processor.process_images([p.load_image() for p in self.chunks[i]]))


def _revision(model: str) -> str:
    """Hash of the weights' files' sizes and mtimes for a local folder (changes when they change)."""
    path = Path(model)
    if not path.is_dir():
        return ""
    h = hashlib.sha256()
    for f in sorted(path.glob("*.safetensors")) + sorted(path.glob("*.bin")):
        st = f.stat()
        h.update(f"{f.name}:{st.st_size}:{int(st.st_mtime)}".encode())
    return h.hexdigest()[:16]


def _factory(family: str):
    def make(arg: str, **opts) -> ColModelRetriever:
        check_options(family, opts, allowed=ColModelRetriever.OPTIONS)
        check_model_source(arg, f"retriever '{family}:{arg}'")  # before any index folder is made
        r = ColModelRetriever(family, arg, **opts)
        r.name = f"{family}:{arg}"
        return r

    return make


for _fam, _help in (("colqwen2", "ColQwen2 multi-vector page-image retriever (colpali-engine)"),
                    ("colqwen2.5", "ColQwen2.5 multi-vector page-image retriever (colpali-engine)"),
                    ("colpali", "ColPali (PaliGemma) multi-vector page-image retriever"),
                    ("colsmol", "ColSmol / ColIdefics3 multi-vector page-image retriever")):
    RETRIEVERS.register(_fam, needs_arg=True, help=_help)(_factory(_fam))
