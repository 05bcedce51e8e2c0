"""Immutable segments of a page index: the payloads of some pages, saved as files and memory-mapped.

Files of one segment (``<index>/segments/<name>/``)::

    pages.json                      page ids of the segment, in row order
    terms.jsonl                     sparse: terms of each page
    vectors.npy                     dense: (pages, dim) float32
    tokens.npy, offsets.npy         multi: (tokens, dim) float16; rows of page i are offsets[i]:offsets[i+1]
    centroids.npy, centroid_offsets.npy, bits.npy, fde.npy   multi: optional first stages
    codebook.npy, page_codes.npy, code_offsets.npy           multi: the "codes" first stage (the
                                    index's codebook, trained on its first segment, kept with each segment)

Which payload files a segment has follows from the index's kind; the scorer of that kind
(:mod:`docrag.index.scorers`) packs payloads into segments and reads them back. First-stage data
is built by :meth:`Segment.build_first_stages` alone and loaded with the other arrays.
"""

from __future__ import annotations

import shutil
import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from docrag.errors import DocragError
from docrag.io import atomic_write_json, read_json, read_jsonl, write_jsonl

#: first-stage arrays of multi-vector segments (all optional)
FIRST_STAGE_ARRAYS = ("centroids", "centroid_offsets", "bits", "fde", "codebook", "page_codes", "code_offsets")
#: first stages a multi-vector index can build (``SearchOptions.first_stage``)
FIRST_STAGES = ("codes", "centroids", "binary", "muvera")
#: every array a segment may hold, saved as ``<name>.npy``
ARRAYS = ("vectors", "tokens", "offsets", *FIRST_STAGE_ARRAYS)


class IndexStateError(DocragError):
    """An index folder is missing, damaged, stale or made by another retriever."""


@dataclass
class SearchOptions:
    """How multi-vector indexes are searched and what first stages they build."""

    first_stage: tuple[str, ...] = ("centroids",)   # any of FIRST_STAGES; several fuse by rank
    n_centroids: int = 32
    n_candidates: int = 256     # pages reranked exactly per round (and at least)
    max_candidates: int = 2048  # adaptive rounds stop here at the latest
    candidates: str = "adaptive"   # "adaptive" (rounds until the top-k settles) or "fixed" (n_candidates)
    patience: int = 2           # adaptive: stop after this many rounds in a row leave the top-k unchanged
    mode: str = "auto"          # "auto" (two-stage when the corpus exceeds max_candidates), "exact", "two-stage"
    device: str = "cpu"
    resident_bytes: int = 4 << 30   # keep token matrices up to this size converted in (GPU) memory


@dataclass
class Segment:
    """Immutable payloads of some pages (arrays may be memory-mapped)."""

    name: str
    page_ids: list[str]
    terms: list[list[str]] | None = None
    vectors: np.ndarray | None = None
    tokens: np.ndarray | None = None
    offsets: np.ndarray | None = None
    centroids: np.ndarray | None = None
    centroid_offsets: np.ndarray | None = None
    bits: np.ndarray | None = None
    fde: np.ndarray | None = None
    codebook: np.ndarray | None = None
    page_codes: np.ndarray | None = None
    code_offsets: np.ndarray | None = None
    dead: set[int] = field(default_factory=set)   # rows of deleted pages

    def __len__(self) -> int:
        return len(self.page_ids)

    @classmethod
    def new(cls, page_ids: list[str]) -> Segment:
        """An empty segment with a fresh, time-ordered name."""
        return cls(name=f"{time.strftime('%Y%m%d%H%M%S')}-{uuid.uuid4().hex[:8]}", page_ids=list(page_ids))

    def build_first_stages(self, opts: SearchOptions, codebook: np.ndarray | None = None) -> None:
        """Build the first stages ``opts.first_stage`` names from the segment's tokens (multi-vector).
        ``codebook``: the index's ``codes`` codebook (None: train one on this segment)."""
        from docrag.index.twostage import binarize, page_centroids

        assert self.tokens is not None and self.offsets is not None
        unknown = sorted(set(opts.first_stage) - set(FIRST_STAGES))
        if unknown:
            raise ValueError(f"unknown first stage {', '.join(unknown)}; choose from {', '.join(FIRST_STAGES)}")
        if "codes" in opts.first_stage:
            from docrag.index.firststage import build_code_stage

            self.codebook, self.page_codes, self.code_offsets = build_code_stage(self.tokens, self.offsets, codebook)
        if "centroids" in opts.first_stage:
            self.centroids, self.centroid_offsets = page_centroids(self.tokens, self.offsets, opts.n_centroids,
                                                                   device=opts.device)
        if "binary" in opts.first_stage:
            self.bits = binarize(self.tokens)
        if "muvera" in opts.first_stage:
            from docrag.index.firststage import Muvera

            self.fde = Muvera(int(self.tokens.shape[1])).pages(self.tokens, self.offsets).astype(np.float16)

    def first_stages(self) -> list[str]:
        """Names of the first stages this segment holds."""
        return [n for n, a in (("codes", self.page_codes), ("centroids", self.centroids), ("binary", self.bits),
                               ("muvera", self.fde)) if a is not None]

    def save(self, seg_root: Path) -> None:
        """Write into ``seg_root/<name>`` via a temporary folder and one rename."""
        tmp = seg_root / f".tmp-{self.name}"
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        atomic_write_json(tmp / "pages.json", self.page_ids, indent=None)
        if self.terms is not None:
            write_jsonl(tmp / "terms.jsonl", self.terms)
        for attr in ARRAYS:
            arr = getattr(self, attr)
            if arr is not None:
                np.save(tmp / f"{attr}.npy", np.ascontiguousarray(arr))
        tmp.rename(seg_root / self.name)

    @classmethod
    def load(cls, seg_dir: Path, kind: str, dead: Iterable[int] = ()) -> Segment:
        """The segment in ``seg_dir`` of an index of ``kind``, its arrays memory-mapped."""
        if not (seg_dir / "pages.json").exists():
            raise IndexStateError(f"{seg_dir}: segment files missing; the index is damaged, rebuild it "
                                  "with 'docrag index CORPUS --retriever NAME --rebuild'")
        seg = cls(name=seg_dir.name, page_ids=read_json(seg_dir / "pages.json"), dead=set(dead))
        if kind == "sparse":
            seg.terms = list(read_jsonl(seg_dir / "terms.jsonl"))
        for attr in ARRAYS:
            path = seg_dir / f"{attr}.npy"
            if path.exists():
                setattr(seg, attr, np.load(path, mmap_mode="r"))
        return seg

    def resident(self, attr: str, device: str, budget: int) -> Any:
        """``tokens`` or ``centroids`` as a torch tensor in the matmul dtype on ``device`` (fp32 on
        CPU, fp16 on GPU), kept after the first call when it fits ``budget`` bytes; else the raw
        (memory-mapped) array, converted chunk by chunk at search time."""
        arr = getattr(self, attr)
        if arr is None or not len(arr):
            return arr
        cache = self.__dict__.setdefault("_resident", {})
        if (attr, device) in cache:
            return cache[(attr, device)]
        import torch

        from docrag.index.maxsim import _tensor

        dtype = torch.float16 if device.startswith("cuda") else torch.float32
        if arr.shape[0] * arr.shape[1] * (2 if dtype == torch.float16 else 4) > budget:
            return arr
        cache[(attr, device)] = _tensor(arr).to(device=device, dtype=dtype)
        return cache[(attr, device)]

    def live_rows(self) -> np.ndarray:
        return np.array([i for i in range(len(self.page_ids)) if i not in self.dead], dtype=np.int64)
