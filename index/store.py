"""Persistent page indexes: a manifest plus immutable, memory-mapped segments.

Layout of an index folder::

    manifest.json                   retriever, model, settings, corpus state, live segments
    segments/<name>/pages.json      page ids of the segment, in row order
    segments/<name>/terms.jsonl     sparse: terms of each page
    segments/<name>/vectors.npy     dense: (pages, dim) float32
    segments/<name>/tokens.npy      multi: (tokens, dim) float16, rows of page i are offsets[i]:offsets[i+1]
    segments/<name>/offsets.npy
    segments/<name>/centroids.npy, centroid_offsets.npy, bits.npy, fde.npy   optional first stages
    segments/<name>/codebook.npy, page_codes.npy, code_offsets.npy          "codes" first stage (the
                                    index's codebook, trained on its first segment, kept with every segment)

Every change writes new segment folders (under a temporary name, then renamed) and only then
rewrites ``manifest.json`` atomically, so a crash mid-update leaves the previous index loadable;
folders the manifest does not name are garbage and removed on the next update. Deleting a
document only marks its rows dead in the manifest; :meth:`PageIndex.compact` rewrites segments.
"""

from __future__ import annotations

import hashlib
import logging
import re
import shutil
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from docrag._version import __version__
from docrag.errors import DocragError
from docrag.index.base import Retriever
from docrag.io import atomic_write_json, read_json, read_jsonl, read_versioned_json, write_jsonl
from docrag.types import Hit, Page, split_page_id

log = logging.getLogger(__name__)

SCHEMA = "docrag.index"
SCHEMA_VERSION = 1
SEGMENT_PAGES = 512           # pages per committed segment while building (crash = lose < 1 segment)


FIRST_STAGES = ("codes", "centroids", "binary", "muvera")
_ARRAYS = ("vectors", "tokens", "offsets", "centroids", "centroid_offsets", "bits", "fde", "codebook", "page_codes",
           "code_offsets")


class IndexStateError(DocragError):
    """An index folder is missing, damaged, stale or made by another retriever."""


@dataclass
class SearchOptions:
    """How multi-vector indexes are searched and what first stages they build."""

    first_stage: tuple[str, ...] = ("codes",)   # any of "codes", "centroids", "binary", "muvera"
    n_centroids: int = 32
    n_candidates: int = 256     # pages reranked exactly per round (and at least)
    max_candidates: int = 2048  # adaptive rounds stop here at the latest
    candidates: str = "adaptive"   # "adaptive" (rounds until the top-k settles) or "fixed" (n_candidates)
    patience: int = 2           # adaptive: stop after this many rounds in a row leave the top-k unchanged
    mode: str = "auto"          # "auto" (two-stage when the corpus exceeds max_candidates), "exact", "two-stage"
    device: str = "cpu"
    resident_bytes: int = 4 << 30   # keep token matrices up to this size converted in (GPU) memory


# ---------------------------------------------------------------------------------------------
# segments
# ---------------------------------------------------------------------------------------------
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
    def from_payloads(cls, kind: str, page_ids: list[str], payloads: list[Any], opts: SearchOptions,
                      codebook: np.ndarray | None = None) -> Segment:
        from docrag.index.maxsim import pack_pages

        seg = cls(name=f"{time.strftime('%Y%m%d%H%M%S')}-{uuid.uuid4().hex[:8]}", page_ids=list(page_ids))
        if kind == "sparse":
            seg.terms = [list(map(str, t)) for t in payloads]
        elif kind == "dense":
            seg.vectors = (np.stack([np.asarray(v, np.float32) for v in payloads]) if payloads
                           else np.zeros((0, 0), np.float32))
        elif kind == "multi":
            seg.tokens, seg.offsets = pack_pages([_strip_zero_rows(p) for p in payloads])
            seg.build_first_stages(opts, codebook)
        else:
            raise ValueError(f"unknown payload kind {kind!r}")
        return seg

    def build_first_stages(self, opts: SearchOptions, codebook: np.ndarray | None = None) -> None:
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

    def save(self, seg_root: Path) -> None:
        """Write into ``seg_root/<name>`` via a temporary folder and one rename."""
        tmp = seg_root / f".tmp-{self.name}"
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        atomic_write_json(tmp / "pages.json", self.page_ids, indent=None)
        if self.terms is not None:
            write_jsonl(tmp / "terms.jsonl", self.terms)
        for attr in _ARRAYS:
            arr = getattr(self, attr)
            if arr is not None:
                np.save(tmp / f"{attr}.npy", np.ascontiguousarray(arr))
        tmp.rename(seg_root / self.name)

    @classmethod
    def load(cls, seg_dir: Path, kind: str, dead: Iterable[int] = ()) -> Segment:
        if not (seg_dir / "pages.json").exists():
            raise IndexStateError(f"{seg_dir}: segment files missing; the index is damaged, rebuild it "
                                  "with 'docrag index CORPUS --retriever NAME --rebuild'")
        seg = cls(name=seg_dir.name, page_ids=read_json(seg_dir / "pages.json"), dead=set(dead))
        if kind == "sparse":
            seg.terms = list(read_jsonl(seg_dir / "terms.jsonl"))
        for attr in _ARRAYS:
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


def _strip_zero_rows(mat: Any) -> np.ndarray:
    """Drop all-zero token rows (padding that colpali models return as zero vectors)."""
    arr = np.asarray(mat, dtype=np.float32)
    if arr.ndim != 2:
        raise ValueError(f"multi-vector payload must be (tokens, dim), got shape {arr.shape}")
    return arr[np.any(arr != 0, axis=1)]


# ---------------------------------------------------------------------------------------------
# the index
# ---------------------------------------------------------------------------------------------
PageSource = Callable[[str], Page]


class PageIndex:
    """Search and update an index of pages for one retriever (see module docstring)."""

    def __init__(self, retriever: Retriever, directory: Path | None, manifest: dict, segments: list[Segment],
                 page_source: PageSource | None, options: SearchOptions) -> None:
        self.retriever = retriever
        self.dir = directory
        self.manifest = manifest
        self.segments = segments
        self.page_source = page_source
        self.options = options
        self._cache: dict[str, Any] = {}
        self._deferred = False   # a rebuild: the manifest (the previous index) is replaced only at the end
        self.last_search: dict[str, Any] = {}   # how the last multi-vector search ran (mode, approximate, ...)

    # -- construction --------------------------------------------------------------------------
    @classmethod
    def in_memory(cls, retriever: Retriever, pages: list[Page], show_progress: bool = False,
                  options: SearchOptions | None = None) -> PageIndex:
        by_id = {p.page_id: p for p in pages}
        idx = cls(retriever, None, _new_manifest(retriever, options or SearchOptions()), [],
                  by_id.__getitem__, options or SearchOptions())
        idx.add(pages, show_progress=show_progress)
        return idx

    @classmethod
    def load(cls, retriever: Retriever, directory: Path, page_source: PageSource | None,
             options: SearchOptions) -> PageIndex:
        path = directory / "manifest.json"
        manifest = read_versioned_json(path, SCHEMA, SCHEMA_VERSION, IndexStateError, what="index",
                                       missing=f"{directory}: no index here (no manifest.json); build it with "
                                               f"'docrag index CORPUS --retriever {retriever.name}'")
        _check_compatible(manifest, retriever, path)
        stored = manifest.get("first_stage")
        if stored is not None:
            options.first_stage = tuple(stored)
            options.n_centroids = int(manifest.get("n_centroids", options.n_centroids))
        segs = [Segment.load(directory / "segments" / s["name"], manifest["kind"], s.get("dead", []))
                for s in manifest["segments"]]
        return cls(retriever, directory, manifest, segs, page_source, options)

    # -- properties ----------------------------------------------------------------------------
    @property
    def name(self) -> str:
        return self.retriever.name

    @property
    def kind(self) -> str:
        return self.manifest["kind"]

    @property
    def page_ids(self) -> list[str]:
        return [pid for _, _, pid in self._live()]

    @property
    def doc_ids(self) -> list[str]:
        return sorted(self.manifest["doc_ids"])

    def __len__(self) -> int:
        return sum(len(s) - len(s.dead) for s in self.segments)

    def _live(self) -> list[tuple[int, int, str]]:
        """(segment index, row, page id) of live pages, in index order (cached)."""
        if "live" not in self._cache:
            self._cache["live"] = [(si, r, s.page_ids[r]) for si, s in enumerate(self.segments)
                                   for r in range(len(s)) if r not in s.dead]
        return self._cache["live"]

    # -- updates -------------------------------------------------------------------------------
    def add(self, pages: Sequence[Page], show_progress: bool = True) -> int:
        """Encode and add pages not yet indexed; commits every ~SEGMENT_PAGES pages (whole documents)."""
        have = set(self.page_ids)
        todo = [p for p in pages if p.page_id not in have]
        if not todo:
            return 0
        for batch in doc_batches(todo, SEGMENT_PAGES):
            self._add_segment(batch, show_progress)
        return len(todo)

    def _add_segment(self, pages: list[Page], show_progress: bool) -> None:
        t0 = time.perf_counter()
        payloads = self.retriever.encode_pages(pages, show_progress=show_progress)
        if len(payloads) != len(pages):
            raise RuntimeError(f"{self.name}: encode_pages returned {len(payloads)} payloads for {len(pages)} pages")
        from docrag.index.firststage import shared_codebook

        seg = Segment.from_payloads(self.kind, [p.page_id for p in pages], payloads, self.options,
                                    codebook=shared_codebook(self.segments))
        self._record_dims(seg)
        docs = sorted(set(self.manifest["doc_ids"]) | {p.doc_id for p in pages})
        self._commit(self.segments + [seg], new=[seg], doc_ids=docs)
        log.info("%s: indexed %d page(s) in %.1fs", self.name, len(pages), time.perf_counter() - t0)

    def delete(self, doc_id: str) -> int:
        """Remove every page of a document; returns how many pages were removed."""
        return self.delete_documents([doc_id])

    def delete_documents(self, doc_ids: Iterable[str]) -> int:
        gone = set(doc_ids)
        removed = 0
        for seg in self.segments:
            for r, pid in enumerate(seg.page_ids):
                if r not in seg.dead and split_page_id(pid)[0] in gone:
                    seg.dead.add(r)
                    removed += 1
        keep = [s for s in self.segments if len(s.dead) < len(s)]
        self._commit(keep, new=[], doc_ids=sorted(set(self.manifest["doc_ids"]) - gone))
        if self.segments and sum(len(s.dead) for s in self.segments) > sum(len(s) for s in self.segments) // 2:
            self.compact()
        return removed

    def compact(self) -> None:
        """Rewrite all segments into one without dead rows."""
        if len(self.segments) <= 1 and not any(s.dead for s in self.segments):
            return
        payloads, ids = [], []
        for seg in self.segments:
            for r in seg.live_rows():
                ids.append(seg.page_ids[r])
                payloads.append(_row_payload(self.kind, seg, int(r)))
        segs = [Segment.from_payloads(self.kind, ids, payloads, self.options)] if ids else []
        self._commit(segs, new=segs, doc_ids=self.manifest["doc_ids"])

    def sync(self, corpus, show_progress: bool = True) -> tuple[int, int]:
        """Bring the index in line with ``corpus``: drop removed documents, encode new ones."""
        want = set(corpus.doc_ids())
        have = set(self.manifest["doc_ids"])
        removed = self.delete_documents(sorted(have - want)) if have - want else 0
        added = self.add(corpus.pages(sorted(want - have)), show_progress=show_progress) if want - have else 0
        self.manifest["corpus"] = {"root": str(corpus.root), "fingerprint": corpus.fingerprint(),
                                   "n_documents": len(want)}
        self._commit(self.segments, new=[], doc_ids=sorted(want))
        return added, removed

    def finish_rebuild(self) -> None:
        """Commit a deferred rebuild: its manifest replaces the previous index's (the commit point)."""
        if self._deferred:
            self._deferred = False
            self._commit(self.segments, new=[], doc_ids=self.manifest["doc_ids"])

    def _record_dims(self, seg: Segment) -> None:
        arr = seg.vectors if seg.vectors is not None else seg.tokens
        if arr is not None and arr.ndim == 2 and arr.shape[0]:
            dims = int(arr.shape[1])
            if self.manifest.get("dims") not in (None, dims):
                raise IndexStateError(f"{self.name}: new pages have {dims} dims, the index has {self.manifest['dims']}")
            self.manifest["dims"] = dims

    def _commit(self, segments: list[Segment], new: list[Segment], doc_ids: list[str]) -> None:
        """Persist new segments, then the manifest (the commit point), then remove garbage."""
        self.segments = segments
        self._cache.clear()
        self.manifest["doc_ids"] = list(doc_ids)
        self.manifest["segments"] = [{"name": s.name, "n_pages": len(s), "dead": sorted(s.dead)} for s in segments]
        self.manifest["page_ids"] = [pid for _, _, pid in self._live()]
        self.manifest["n_pages"] = len(self.manifest["page_ids"])
        self.manifest["updated"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        self.manifest["docrag_version"] = __version__
        if self.dir is None:
            return
        seg_root = self.dir / "segments"
        seg_root.mkdir(parents=True, exist_ok=True)
        for seg in new:
            seg.save(seg_root)
        if self._deferred:   # rebuilding: the old manifest and its segments stay until finish_rebuild()
            return
        atomic_write_json(self.dir / "manifest.json", self.manifest)
        # reload fresh segments memory-mapped so RAM holds only what searches touch
        for i, seg in enumerate(self.segments):
            if seg in new:
                self.segments[i] = Segment.load(seg_root / seg.name, self.kind, seg.dead)
        live = {s.name for s in self.segments}
        for child in seg_root.iterdir():
            if child.name not in live:
                shutil.rmtree(child, ignore_errors=True)

    # -- search --------------------------------------------------------------------------------
    def search(self, query: str, k: int = 10, filter: dict | None = None) -> list[Hit]:
        return self.search_batch([query], k=k, filter=filter)[0]

    def search_batch(self, queries: Sequence[str], k: int = 10, filter: dict | None = None) -> list[list[Hit]]:
        queries = list(queries)
        if not queries:
            return []
        live = self._live()
        if not live or k <= 0:
            return [[] for _ in queries]
        allowed = self._filter_mask(filter) if filter else None
        encoded = self.retriever.encode_queries(queries)
        if self.kind == "multi":
            scores = self._multi_scores(encoded, allowed, k)
            approx = self.last_search.get("approximate", False)
            return [self._topk(row, k, allowed, approximate=approx) for row in scores]
        if self.kind == "sparse":  # pages sharing no term with the query are not hits
            scores = self._sparse_scores(encoded)
            return [self._topk(row, k, row > 0 if allowed is None else allowed & (row > 0)) for row in scores]
        if allowed is None and self._faiss() is not None:
            return self._faiss_search(encoded, k)
        return [self._topk(row, k, allowed) for row in self._dense_scores(encoded)]

    def _topk(self, scores: np.ndarray, k: int, allowed: np.ndarray | None, approximate: bool = False) -> list[Hit]:
        scores = np.asarray(scores, dtype=np.float64).copy()
        valid = ~np.isnan(scores)
        if allowed is not None:
            valid &= allowed
        idx = np.flatnonzero(valid)
        order = idx[np.argsort(-scores[idx], kind="stable")][:k]
        live = self._live()
        return [Hit(page_id=live[i][2], score=float(scores[i]), rank=r + 1, retriever=self.name,
                    approximate=approximate) for r, i in enumerate(order)]

    def _sparse_scores(self, encoded: list[list[str]]) -> np.ndarray:
        if "bm25" not in self._cache:
            import bm25s

            corpus_terms = [self.segments[si].terms[r] for si, r, _ in self._live()]  # type: ignore[index]
            model = bm25s.BM25()
            model.index(corpus_terms, show_progress=False)
            self._cache["bm25"] = model
        model = self._cache["bm25"]
        n = len(self._live())
        out = np.zeros((len(encoded), n), dtype=np.float32)
        for i, terms in enumerate(encoded):
            ids = [model.vocab_dict[t] for t in terms if t in model.vocab_dict and t != ""]
            if ids:
                out[i] = model.get_scores(ids)[:n]
        return out

    def _dense_matrix(self) -> np.ndarray:
        if "dense" not in self._cache:
            rows = [np.asarray(self.segments[si].vectors[r], np.float32) for si, r, _ in self._live()]  # type: ignore[index]
            self._cache["dense"] = np.stack(rows) if rows else np.zeros((0, 0), np.float32)
        return self._cache["dense"]

    def _dense_scores(self, encoded: list[np.ndarray]) -> np.ndarray:
        mat = self._dense_matrix()
        q = np.stack([np.asarray(e, np.float32) for e in encoded])
        return q @ mat.T

    def _faiss(self) -> Any:
        """An exact inner-product FAISS index over the live vectors (GPU when faiss-gpu and CUDA are
        there), or None when faiss is not installed."""
        if "faiss" not in self._cache:
            try:
                import faiss
            except ImportError:
                log.info("faiss not installed: dense search uses numpy")
                self._cache["faiss"] = None
                return None
            mat = np.ascontiguousarray(self._dense_matrix(), dtype=np.float32)
            index = faiss.IndexFlatIP(mat.shape[1])
            if self.options.device.startswith("cuda") and getattr(faiss, "get_num_gpus", lambda: 0)() > 0:
                index = faiss.index_cpu_to_all_gpus(index)
            index.add(mat)
            self._cache["faiss"] = index
        return self._cache["faiss"]

    def _faiss_search(self, encoded: list[np.ndarray], k: int) -> list[list[Hit]]:
        live = self._live()
        q = np.ascontiguousarray(np.stack([np.asarray(e, np.float32) for e in encoded]))
        scores, ids = self._faiss().search(q, min(k, len(live)))
        return [[Hit(page_id=live[int(i)][2], score=float(sc), rank=r + 1, retriever=self.name)
                 for r, (sc, i) in enumerate(zip(srow, irow, strict=True)) if i >= 0]
                for srow, irow in zip(scores, ids, strict=True)]

    def _multi_scores(self, encoded: list[np.ndarray], allowed: np.ndarray | None, k: int) -> np.ndarray:
        from docrag.index.maxsim import maxsim_scores

        live = self._live()
        n = len(live)
        out = np.full((len(encoded), n), np.nan, dtype=np.float32)
        per_seg = self._rows_per_segment(allowed)
        n_allowed = sum(len(v[0]) for v in per_seg.values())
        has_stage = all(_stages_of(s) for s in self.segments)
        mode = self.options.mode
        o = self.options
        cap = max(o.max_candidates if o.candidates == "adaptive" else o.n_candidates, k)
        two_stage = has_stage and (mode == "two-stage" or (mode == "auto" and n_allowed > cap))
        if mode == "two-stage" and not has_stage:
            raise IndexStateError(f"{self.dir}: two-stage search needs first-stage data; rebuild the index "
                                  "with a first stage (default centroids, or --binarize)")
        dev = self.options.device
        self.last_search = {"mode": "two-stage" if two_stage else "exact", "approximate": two_stage}
        if not two_stage:
            for si, (rows, poss) in per_seg.items():
                seg = self.segments[si]
                full = len(rows) == len(seg)
                out[:, poss] = maxsim_scores(encoded, self._tokens(seg), seg.offsets,
                                             None if full else np.array(rows), device=dev)
            return out
        return self._two_stage(encoded, per_seg, out, k)

    def _two_stage(self, encoded: list[np.ndarray], per_seg: dict, out: np.ndarray, k: int) -> np.ndarray:
        """First-stage scores, then exact MaxSim of the best pages in rounds (see
        :func:`docrag.index.firststage.rerank_rounds`); pages never reranked stay NaN (not hits)."""
        from docrag.index.firststage import rerank_rounds
        from docrag.index.maxsim import maxsim_scores

        live = self._live()
        first = np.full(out.shape, -np.inf, dtype=np.float32)
        for si, (rows, poss) in per_seg.items():
            first[:, poss] = self._first_stage(encoded, self.segments[si], np.array(rows))
        o = self.options
        n_min = max(o.n_candidates, k)
        n_max = max(o.max_candidates, n_min) if o.candidates == "adaptive" else n_min
        reranked = []
        for qi, q in enumerate(encoded):
            def exact(positions: np.ndarray, q: np.ndarray = q) -> np.ndarray:
                res = np.empty(len(positions), dtype=np.float32)
                seg_of = np.array([live[p][0] for p in positions])
                for si in np.unique(seg_of):
                    sel = np.flatnonzero(seg_of == si)
                    seg = self.segments[int(si)]
                    rows = np.array([live[positions[j]][1] for j in sel])
                    res[sel] = maxsim_scores([q], self._tokens(seg), seg.offsets, rows, device=o.device)[0]
                return res

            pos, scores, _ = rerank_rounds(first[qi], exact, k, n_min, n_min, n_max, patience=o.patience)
            out[qi, pos] = scores
            reranked.append(len(pos))
        self.last_search.update(first_stage=sorted({n for s in self.segments for n in _stages_of(s)}),
                                candidates=o.candidates, reranked=reranked)
        return out

    def _tokens(self, seg: Segment, attr: str = "tokens") -> Any:
        return seg.resident(attr, self.options.device, self.options.resident_bytes)

    def _rows_per_segment(self, allowed: np.ndarray | None) -> dict[int, tuple[np.ndarray, np.ndarray]]:
        """Per segment: rows that may be scored and their positions in the live list."""
        if allowed is None and "per_seg" in self._cache:
            return self._cache["per_seg"]
        live = self._live()
        seg_idx = np.array([si for si, _, _ in live], dtype=np.int64)
        rows = np.array([r for _, r, _ in live], dtype=np.int64)
        keep = np.ones(len(live), dtype=bool) if allowed is None else allowed
        out = {}
        for si in range(len(self.segments)):
            pos = np.flatnonzero((seg_idx == si) & keep)
            if len(pos):
                out[si] = (rows[pos], pos)
        if allowed is None:
            self._cache["per_seg"] = out
        return out

    def _first_stage(self, encoded: list[np.ndarray], seg: Segment, rows: np.ndarray) -> np.ndarray:
        """Approximate scores of ``rows``: best rank from each available first stage (as a score)."""
        from docrag.index.maxsim import maxsim_scores
        from docrag.index.twostage import binary_maxsim

        stages = []
        if seg.page_codes is not None:
            from docrag.index.firststage import segment_code_scores

            stages.append(segment_code_scores(encoded, seg, rows))
        if seg.centroids is not None:
            stages.append(maxsim_scores(encoded, self._tokens(seg, "centroids"), seg.centroid_offsets, rows,
                                        device=self.options.device))
        if seg.fde is not None:
            from docrag.index.firststage import Muvera

            q_fde = Muvera(int(seg.tokens.shape[1])).queries(encoded)
            stages.append(q_fde @ self._fde_matrix(seg)[rows].T)
        if seg.bits is not None:
            sub_off = seg.offsets
            full = binary_maxsim(encoded, seg.bits, sub_off, dim=int(seg.tokens.shape[1]))
            stages.append(full[:, rows])
        from docrag.index.firststage import fuse_ranks

        return fuse_ranks(stages)   # several stages: each contributes its best candidates

    def _fde_matrix(self, seg: Segment) -> np.ndarray:
        """The segment's MUVERA encodings as fp32 (kept per segment)."""
        cache = seg.__dict__.setdefault("_resident", {})
        if "fde32" not in cache:
            cache["fde32"] = np.asarray(seg.fde, dtype=np.float32)
        return cache["fde32"]

    # -- filters -------------------------------------------------------------------------------
    def _filter_mask(self, filt: dict) -> np.ndarray:
        if self.page_source is None:
            raise IndexStateError("this index has no page records attached; filters need the corpus")
        key = repr(sorted(filt.items(), key=lambda kv: kv[0]))
        cached = self._cache.get("filter")
        if cached and cached[0] == key:
            return cached[1]
        tests = [_field_test(name, value) for name, value in filt.items()]
        pages = [self.page_source(pid) for _, _, pid in self._live()]
        _check_meta_keys(tests, pages)
        mask = np.array([all(t(p) for t in tests) for p in pages], dtype=bool)
        self._cache["filter"] = (key, mask)
        return mask


_FILTER_ALIASES = {"doc_ids": "doc_id", "page_ids": "page_id", "file_names": "file_name", "langs": "lang",
                   "pages": "page_no"}
_PAGE_FIELDS = sorted({*Page.__dataclass_fields__, "page_id"} - {"root", "meta"})


def _field_test(name: str, value: Any) -> Callable[[Page], bool]:
    attr = _FILTER_ALIASES.get(name, name)
    if attr.startswith("meta.") or attr not in _PAGE_FIELDS:
        return _meta_test(attr.removeprefix("meta."), name, value)
    if isinstance(value, (list, tuple, set, frozenset)):
        wanted = set(value)

        def test(page: Page) -> bool:
            got = getattr(page, attr)
            return (got.value if hasattr(got, "value") else got) in wanted
    else:
        def test(page: Page) -> bool:
            got = getattr(page, attr)
            return (got.value if hasattr(got, "value") else got) == value
    return test


def _stages_of(seg: Segment) -> list[str]:
    return [n for n, a in (("codes", seg.page_codes), ("centroids", seg.centroids), ("binary", seg.bits),
                           ("muvera", seg.fde)) if a is not None]


def _meta_test(key: str, name: str, value: Any) -> Callable[[Page], bool]:
    """A filter on user metadata given at ingest; values compare as text (``--filter year=2011``
    matches a sidecar's number 2011)."""
    wanted = {str(v) for v in value} if isinstance(value, (list, tuple, set, frozenset)) else {str(value)}

    def test(page: Page) -> bool:
        return key in page.meta and str(page.meta[key]) in wanted

    test.meta_key = key  # type: ignore[attr-defined]
    test.field_name = name  # type: ignore[attr-defined]
    return test


def _check_meta_keys(tests: list[Callable[[Page], bool]], pages: list[Page]) -> None:
    """A filter name that is neither a page field nor a metadata key of any page is a typo: say so."""
    for t in tests:
        key = getattr(t, "meta_key", None)
        if key is None or any(key in p.meta for p in pages):
            continue
        keys = sorted({k for p in pages for k in p.meta})
        raise DocragError(f"unknown filter field {t.field_name!r}; filter on page fields: {', '.join(_PAGE_FIELDS)}"
                          + (f"; or on metadata given at ingest: {', '.join(keys)}" if keys else
                             " (no page has metadata; add it at ingest with --meta KEY=VALUE or a sidecar "
                             "FILE.meta.json)"))


def _row_payload(kind: str, seg: Segment, r: int) -> Any:
    if kind == "sparse":
        return seg.terms[r]  # type: ignore[index]
    if kind == "dense":
        return np.asarray(seg.vectors[r])  # type: ignore[index]
    return np.asarray(seg.tokens[seg.offsets[r]:seg.offsets[r + 1]], np.float32)  # type: ignore[index]


def doc_batches(pages: Sequence[Page], size: int) -> Iterator[list[Page]]:
    """``pages`` in batches of whole documents, each closed once it holds ``size`` pages or more."""
    groups: dict[str, list[Page]] = {}
    for p in pages:
        groups.setdefault(p.doc_id, []).append(p)
    batch: list[Page] = []
    for doc_pages in groups.values():
        batch.extend(doc_pages)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def _new_manifest(retriever: Retriever, options: SearchOptions) -> dict:
    info = retriever.describe()
    m = {"schema": SCHEMA, "schema_version": SCHEMA_VERSION, "docrag_version": __version__,
         "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), **info,
         "retriever": retriever.name, "kind": retriever.kind, "input": retriever.input,
         "dims": info.get("dims"), "corpus": {}, "doc_ids": [], "segments": [], "page_ids": [], "n_pages": 0}
    m["model_dtype"] = info.get("dtype")
    if retriever.kind == "multi":
        m["first_stage"] = list(options.first_stage)
        m["n_centroids"] = options.n_centroids
        m["search"] = {"mode": options.mode, "candidates": options.candidates,
                       "n_candidates": options.n_candidates, "max_candidates": options.max_candidates,
                       "approximate": "two-stage searches (mode two-stage, or auto above max_candidates pages) "
                                      "rerank first-stage candidates; search_mode=exact scores every page"}
        m["dtype"] = "float16"
    return m


def _check_compatible(manifest: dict, retriever: Retriever, path: Path) -> None:
    info = retriever.describe()
    if manifest.get("retriever") != retriever.name:
        raise IndexStateError(f"{path}: this index was built by retriever {manifest.get('retriever')!r}, not "
                              f"{retriever.name!r}; choose another --index-dir or rebuild with --rebuild")
    for key in ("model", "revision"):
        if info.get(key) and manifest.get(key) and info[key] != manifest[key]:
            raise IndexStateError(f"{path}: built with {key} {manifest[key]!r}, the retriever now has {info[key]!r}; "
                                  "rebuild with --rebuild")
    if manifest.get("settings", {}) != info.get("settings", {}):
        raise IndexStateError(f"{path}: built with settings {manifest.get('settings')}, asked for "
                              f"{info.get('settings')}; use the same settings or rebuild with --rebuild")


def slug(name: str) -> str:
    """A folder name for a retriever name (``colqwen2:/models/x`` -> ``colqwen2-models-x``)."""
    s = re.sub(r"[^A-Za-z0-9._+-]+", "-", name).strip("-.") or "index"
    if len(s) > 80:
        s = f"{s[:60]}-{hashlib.sha256(name.encode()).hexdigest()[:12]}"
    return s


def default_index_dir(corpus_root: Path, name: str) -> Path:
    return Path(corpus_root) / "indexes" / slug(name)


def create_index(retriever: Retriever, directory: Path, page_source: PageSource | None,
                 options: SearchOptions, defer: bool = False) -> PageIndex:
    """A new empty index in ``directory`` (replaces whatever index was there atomically).

    ``defer``: a rebuild. Nothing replaces the index already there until :meth:`PageIndex.finish_rebuild`
    commits the new one, so a rebuild killed halfway leaves the previous index loadable.
    """
    directory.mkdir(parents=True, exist_ok=True)
    idx = PageIndex(retriever, directory, _new_manifest(retriever, options), [], page_source, options)
    idx._deferred = defer
    idx._commit([], new=[], doc_ids=[])
    return idx
