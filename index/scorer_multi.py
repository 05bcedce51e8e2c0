"""The multi-vector scorer: MaxSim of query tokens against page tokens, exact or two-stage.

Exact search scores every allowed page with :func:`docrag.index.maxsim.maxsim_scores`. Two-stage
search (``mode="two-stage"``, or ``auto`` once more pages are allowed than one search reranks)
ranks pages by the segments' first stages (:meth:`MultiVectorScorer.first_stage`: codes, centroids,
sign bits, MUVERA, fused by rank when several), then reranks the best of them with exact MaxSim in
rounds (:func:`docrag.index.firststage.rerank_rounds`); its hits say ``approximate=True``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from docrag.index.scorers import Scorer
from docrag.index.segments import IndexStateError, Segment
from docrag.types import Hit


class MultiVectorScorer(Scorer):
    """MaxSim over ``(tokens, dim)`` page matrices (see module docstring)."""

    kind = "multi"

    # -- payloads <-> segments -----------------------------------------------------------------
    def pack(self, page_ids: list[str], payloads: Sequence[Any]) -> Segment:
        """New pages are encoded with the index's ``codes`` codebook; a rewrite of pages already in the
        index (a compaction) trains a new one."""
        from docrag.index.firststage import shared_codebook
        from docrag.index.maxsim import pack_pages

        seg = Segment.new(page_ids)
        seg.tokens, seg.offsets = pack_pages([_strip_zero_rows(p) for p in payloads])
        rewrite = not {pid for _, _, pid in self.live}.isdisjoint(page_ids)
        seg.build_first_stages(self.options, codebook=None if rewrite else shared_codebook(self.segments))
        return seg

    def payload(self, seg: Segment, row: int) -> np.ndarray:
        return np.asarray(seg.tokens[seg.offsets[row]:seg.offsets[row + 1]], np.float32)  # type: ignore[index]

    # -- search --------------------------------------------------------------------------------
    def search(self, encoded: list[Any], k: int, allowed: np.ndarray | None) -> list[list[Hit]]:
        scores = self.scores(encoded, allowed, k)
        approx = bool(self.last_search.get("approximate", False))
        return [self.topk(row, k, allowed, approximate=approx) for row in scores]

    def scores(self, encoded: list[Any], allowed: np.ndarray | None, k: int) -> np.ndarray:
        out = np.full((len(encoded), len(self.live)), np.nan, dtype=np.float32)
        per_seg = self._rows_per_segment(allowed)
        n_allowed = sum(len(v[0]) for v in per_seg.values())
        o = self.options
        has_stage = all(s.first_stages() for s in self.segments)
        cap = max(o.max_candidates if o.candidates == "adaptive" else o.n_candidates, k)
        # on a GPU holding every segment's tokens, exact search is fast enough: auto stays exact there
        on_gpu = o.device.startswith("cuda") and all(getattr(self._resident(s), "is_cuda", False)
                                                     for s in self.segments)
        two_stage = has_stage and (o.mode == "two-stage" or (o.mode == "auto" and n_allowed > cap and not on_gpu))
        if o.mode == "two-stage" and not has_stage:
            raise IndexStateError("two-stage search needs first-stage data; rebuild the index with a first stage "
                                  "(default centroids, or --binarize)")
        self.last_search = {"mode": "two-stage" if two_stage else "exact", "approximate": two_stage}
        if two_stage:
            return self._two_stage(encoded, per_seg, out, k)
        for si, (rows, poss) in per_seg.items():
            seg = self.segments[si]
            full = len(rows) == len(seg)
            out[:, poss] = self._exact(encoded, seg, None if full else np.array(rows))
        return out

    def _two_stage(self, encoded: list[Any], per_seg: dict, out: np.ndarray, k: int) -> np.ndarray:
        """First-stage scores, then exact MaxSim of the best pages in rounds (see
        :func:`docrag.index.firststage.rerank_rounds`); pages never reranked stay NaN (not hits)."""
        from docrag.index.firststage import rerank_rounds

        live = self.live
        first = np.full(out.shape, -np.inf, dtype=np.float32)
        for si, (rows, poss) in per_seg.items():
            first[:, poss] = self.first_stage(encoded, self.segments[si], np.array(rows))
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
                    res[sel] = self._exact([q], seg, rows)[0]
                return res

            pos, scores, _ = rerank_rounds(first[qi], exact, k, n_min, n_min, n_max, patience=o.patience)
            out[qi, pos] = scores
            reranked.append(len(pos))
        self.last_search.update(first_stage=sorted({n for s in self.segments for n in s.first_stages()}),
                                candidates=o.candidates, reranked=reranked)
        return out

    def first_stage(self, encoded: list[Any], seg: Segment, rows: np.ndarray) -> np.ndarray:
        """Approximate scores of ``rows`` of ``seg``: each first stage the segment holds, fused by rank
        when there are several (so every stage contributes its best candidates)."""
        from docrag.index.twostage import binary_maxsim

        stages = []
        if seg.page_codes is not None:
            from docrag.index.firststage import segment_code_scores

            stages.append(segment_code_scores(encoded, seg, rows))
        if seg.centroids is not None:
            stages.append(self._exact(encoded, seg, rows, "centroids", seg.centroid_offsets))
        if seg.fde is not None:
            from docrag.index.firststage import Muvera

            q_fde = Muvera(int(seg.tokens.shape[1])).queries(encoded)  # type: ignore[union-attr]
            stages.append(q_fde @ _fde_matrix(seg)[rows].T)
        if seg.bits is not None:
            full = binary_maxsim(encoded, seg.bits, seg.offsets, dim=int(seg.tokens.shape[1]))  # type: ignore[union-attr]
            stages.append(full[:, rows])
        from docrag.index.firststage import fuse_ranks

        return fuse_ranks(stages)

    def _exact(self, encoded: list[Any], seg: Segment, rows: np.ndarray | None, attr: str = "tokens",
               offsets: np.ndarray | None = None) -> np.ndarray:
        """Exact MaxSim of ``rows`` of ``seg`` (None: all) against its ``attr`` vectors (page tokens or
        centroids), resident in (GPU) memory when they fit."""
        from docrag.index.maxsim import maxsim_scores

        return maxsim_scores(encoded, self._resident(seg, attr), seg.offsets if offsets is None else offsets,
                             rows, device=self.options.device)

    def _resident(self, seg: Segment, attr: str = "tokens") -> Any:
        return seg.resident(attr, self.options.device, self.options.resident_bytes)

    def _rows_per_segment(self, allowed: np.ndarray | None) -> dict[int, tuple[np.ndarray, np.ndarray]]:
        """Per segment: rows that may be scored and their positions in the live list."""
        if allowed is None and "per_seg" in self.cache:
            return self.cache["per_seg"]
        seg_idx = np.array([si for si, _, _ in self.live], dtype=np.int64)
        rows = np.array([r for _, r, _ in self.live], dtype=np.int64)
        keep = np.ones(len(self.live), dtype=bool) if allowed is None else allowed
        out = {}
        for si in range(len(self.segments)):
            pos = np.flatnonzero((seg_idx == si) & keep)
            if len(pos):
                out[si] = (rows[pos], pos)
        if allowed is None:
            self.cache["per_seg"] = out
        return out


def _fde_matrix(seg: Segment) -> np.ndarray:
    """The segment's MUVERA encodings as fp32 (kept per segment)."""
    cache = seg.__dict__.setdefault("_resident", {})
    if "fde32" not in cache:
        cache["fde32"] = np.asarray(seg.fde, dtype=np.float32)
    return cache["fde32"]


def _strip_zero_rows(mat: Any) -> np.ndarray:
    """Drop all-zero token rows (padding that colpali models return as zero vectors)."""
    arr = np.asarray(mat, dtype=np.float32)
    if arr.ndim != 2:
        raise ValueError(f"multi-vector payload must be (tokens, dim), got shape {arr.shape}")
    return arr[np.any(arr != 0, axis=1)]
