"""More first stages for multi-vector search (see :mod:`docrag.index.twostage` for centroids and sign bits).

* **codes** (PLAID-style centroid interaction): a two-level codebook (``n_coarse`` x ``n_fine``
  spherical k-means centroids, trained on a sample of the segment's tokens) gives every token a
  16-bit code; a page keeps only the set of codes its tokens use (~2 bytes per distinct code).
  A query token probes its ``nprobe`` best codes through inverted lists (code -> pages); a page's
  approximate score is ``sum_t max(best probed code it holds, the nprobe-th code score)``, an
  upper-bound-leaning estimate of MaxSim with each token replaced by its centroid.
* **muvera** (MUVERA fixed-dimensional encodings): per repetition, SimHash buckets the tokens and
  a random projection shrinks them; a page's FDE is the per-bucket mean (empty buckets take the
  page mean), a query's the per-bucket sum, so ``<fde(q), fde(p)>`` approximates MaxSim; the FDEs
  are searched with FAISS inner product.
* :func:`adaptive_candidates`: how many first-stage candidates to rerank, from the score gap.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

DEFAULT_COARSE = 64
DEFAULT_FINE = 64
DEFAULT_NPROBE = 32
TRAIN_SAMPLE = 32768


# ---------------------------------------------------------------------------------------------
# codes: two-level codebook + inverted lists
# ---------------------------------------------------------------------------------------------
def _kmeans(x: np.ndarray, k: int, iters: int, seed: int) -> np.ndarray:
    """Spherical k-means of unit rows ``x`` (fp32) -> (k, d) unit centroids. numpy, not torch: these
    small ops slow down many-fold when torch's OpenMP threads compete for a loaded CPU."""
    import torch

    n = x.shape[0]
    if n <= k:
        cent = np.zeros((k, x.shape[1]), dtype=x.dtype)
        cent[:n] = x
        return cent
    g = torch.Generator().manual_seed(seed)
    cent = x[torch.randperm(n, generator=g)[:k].numpy()].copy()
    for _ in range(iters):
        sums = _cluster_sums(x, (x @ cent.T).argmax(axis=1), k)
        norms = np.linalg.norm(sums, axis=1, keepdims=True)
        cent = np.where(norms > 0, sums / np.maximum(norms, 1e-12), cent)
    return cent


def _cluster_sums(x: np.ndarray, assign: np.ndarray, k: int) -> np.ndarray:
    """Per-cluster sums of rows by sorting (torch's ``index_add_`` slows down ~30x when its OpenMP
    threads compete for a loaded CPU)."""
    order = np.argsort(assign, kind="stable")
    counts = np.bincount(assign, minlength=k)
    out = np.zeros((k, x.shape[1]), dtype=x.dtype)
    filled = np.flatnonzero(counts)
    if len(filled):
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]])[filled]
        out[filled] = np.add.reduceat(x[order], starts, axis=0)
    return out


def train_codebook(tokens: np.ndarray, n_coarse: int = DEFAULT_COARSE, n_fine: int = DEFAULT_FINE,
                   sample: int = TRAIN_SAMPLE, iters: int = 8, seed: int = 0) -> np.ndarray:
    """A two-level codebook as one ``(n_coarse * n_fine, d)`` fp16 matrix; code ``c`` belongs to
    coarse cluster ``c // n_fine``. Trained on ``sample`` evenly spaced tokens (deterministic)."""
    if n_coarse * n_fine > 1 << 16:
        raise ValueError("codes are 16-bit: n_coarse * n_fine must be <= 65536")
    from threadpoolctl import threadpool_limits

    # one BLAS thread: many small matmuls, which OpenBLAS threads slow down ~8x on a loaded CPU
    with threadpool_limits(limits=1, user_api="blas"):
        return _train_codebook(tokens, n_coarse, n_fine, sample, iters, seed)


def _train_codebook(tokens: np.ndarray, n_coarse: int, n_fine: int, sample: int, iters: int,
                    seed: int) -> np.ndarray:
    n = len(tokens)
    rows = np.unique(np.linspace(0, max(n - 1, 0), min(sample, n)).round().astype(np.int64))
    x = np.asarray(tokens[rows], dtype=np.float32)
    x /= np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12)
    coarse = _kmeans(x, n_coarse, iters, seed)
    assign = (x @ coarse.T).argmax(axis=1)
    fine = np.zeros((n_coarse, n_fine, x.shape[1]), dtype=np.float32)
    for c in range(n_coarse):
        members = x[assign == c]
        fine[c] = _kmeans(members, n_fine, iters, seed + c + 1) if len(members) else coarse[c]
        if 0 < len(members) < n_fine:   # pad tiny clusters with the coarse centroid
            fine[c, len(members):] = coarse[c]
    return fine.reshape(n_coarse * n_fine, -1).astype(np.float16)


def assign_codes(tokens: np.ndarray, codebook: np.ndarray, n_fine: int = DEFAULT_FINE,
                 chunk: int = 1 << 16) -> np.ndarray:
    """Nearest code of every token (coarse cluster by its mean direction, then the best fine code in
    it): ``(tokens,)`` uint16. Costs ``(n_coarse + n_fine)`` dot products per token."""
    import torch

    from docrag.index.maxsim import _tensor

    book = _tensor(codebook).float()
    n_coarse = book.shape[0] // n_fine
    fine = book.reshape(n_coarse, n_fine, -1)
    coarse = torch.nn.functional.normalize(fine.mean(dim=1), dim=1)
    out = np.zeros(len(tokens), dtype=np.uint16)
    for s in range(0, len(tokens), chunk):
        x = _tensor(np.asarray(tokens[s:s + chunk])).float()
        c = (x @ coarse.T).argmax(dim=1)
        order = torch.argsort(c)
        counts = torch.bincount(c, minlength=n_coarse).tolist()
        codes = torch.empty(len(x), dtype=torch.int64)
        start = 0
        for ci, cnt in enumerate(counts):
            if cnt:
                rows = order[start:start + cnt]
                codes[rows] = ci * n_fine + (x[rows] @ fine[ci].T).argmax(dim=1)
                start += cnt
        out[s:s + len(x)] = codes.numpy().astype(np.uint16)
    return out


def page_code_sets(codes: np.ndarray, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct codes of each page, packed: ``(page_codes uint16, code_offsets int64)``."""
    n_pages = len(offsets) - 1
    page_of = np.repeat(np.arange(n_pages, dtype=np.int64), np.diff(offsets))
    key = np.unique(page_of * (1 << 16) + codes.astype(np.int64))
    page = key >> 16
    c_off = np.searchsorted(page, np.arange(n_pages + 1)).astype(np.int64)
    return (key & 0xFFFF).astype(np.uint16), c_off


def build_codes(tokens: np.ndarray, offsets: np.ndarray, n_coarse: int = DEFAULT_COARSE,
                n_fine: int = DEFAULT_FINE) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(codebook, page_codes, code_offsets) of a packed segment."""
    book = train_codebook(tokens, n_coarse, n_fine)
    codes = assign_codes(tokens, book, n_fine) if len(tokens) else np.zeros(0, np.uint16)
    page_codes, c_off = page_code_sets(codes, offsets)
    return book, page_codes, c_off


class InvertedCodes:
    """Inverted lists code -> pages over a segment's page code sets (built once, ~4 bytes per entry)."""

    def __init__(self, page_codes: np.ndarray, code_offsets: np.ndarray, n_codes: int) -> None:
        self.n_pages = len(code_offsets) - 1
        page_of = np.repeat(np.arange(self.n_pages, dtype=np.int32), np.diff(code_offsets))
        order = np.argsort(page_codes, kind="stable")
        self.pages = page_of[order]
        self.ptr = np.searchsorted(np.asarray(page_codes)[order], np.arange(n_codes + 1)).astype(np.int64)

    def scores(self, queries: Sequence[np.ndarray], codebook: np.ndarray, nprobe: int = DEFAULT_NPROBE,
               rows: np.ndarray | None = None) -> np.ndarray:
        """Approximate MaxSim ``(n_queries, n_pages or len(rows))`` by centroid interaction."""
        book = np.asarray(codebook, dtype=np.float32)
        nprobe = min(nprobe, len(book))
        out = np.zeros((len(queries), self.n_pages), dtype=np.float32)
        for qi, q in enumerate(queries):
            q = np.asarray(q, dtype=np.float32)
            if not len(q):
                continue
            sim = q @ book.T                                                   # (tq, n_codes)
            top = np.argpartition(-sim, nprobe - 1, axis=1)[:, :nprobe]        # (tq, nprobe)
            vals = np.take_along_axis(sim, top, axis=1)
            floor = vals.min(axis=1)                                           # nprobe-th best per token
            best = np.repeat(floor[:, None], self.n_pages, axis=1)            # (tq, n_pages)
            starts, ends = self.ptr[top.ravel()], self.ptr[top.ravel() + 1]
            lens = ends - starts
            idx = np.repeat(starts - np.concatenate([[0], np.cumsum(lens)[:-1]]), lens) + np.arange(lens.sum())
            tok = np.repeat(np.repeat(np.arange(len(q)), nprobe), lens)
            np.maximum.at(best.reshape(-1), tok * self.n_pages + self.pages[idx], np.repeat(vals.ravel(), lens))
            out[qi] = best.sum(axis=0)
        return out if rows is None else out[:, rows]


def build_code_stage(tokens: np.ndarray, offsets: np.ndarray, codebook: np.ndarray | None = None,
                     n_coarse: int = DEFAULT_COARSE,
                     n_fine: int = DEFAULT_FINE) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The ``codes`` first stage of a segment: ``(codebook, page_codes, code_offsets)``. With
    ``codebook`` (the index's, from its first segment) the tokens are only encoded; without, a
    codebook is trained on this segment (first build, rebuild, compaction)."""
    if codebook is None:
        codebook = train_codebook(tokens, n_coarse, n_fine)
    n_fine = min(n_fine, len(codebook))
    codes = assign_codes(tokens, codebook, n_fine) if len(tokens) else np.zeros(0, np.uint16)
    page_codes, c_off = page_code_sets(codes, offsets)
    return np.asarray(codebook, dtype=np.float16), page_codes, c_off


def shared_codebook(segments: Sequence) -> np.ndarray | None:
    """The codebook new segments are encoded with: the one stored with the index's segments."""
    return next((s.codebook for s in segments if getattr(s, "codebook", None) is not None), None)


def segment_code_scores(queries: Sequence[np.ndarray], seg, rows: np.ndarray,
                        nprobe: int = DEFAULT_NPROBE) -> np.ndarray:
    """``codes`` first-stage scores of ``rows`` of a segment (inverted lists kept on the segment)."""
    cache = seg.__dict__.setdefault("_resident", {})
    if "codes" not in cache:
        book = np.asarray(seg.codebook, dtype=np.float32)
        cache["codes"] = (InvertedCodes(np.asarray(seg.page_codes), np.asarray(seg.code_offsets), len(book)), book)
    inv, book = cache["codes"]
    return inv.scores(queries, book, nprobe, rows=rows)


# ---------------------------------------------------------------------------------------------
# MUVERA fixed-dimensional encodings
# ---------------------------------------------------------------------------------------------
class Muvera:
    """MUVERA FDEs: ``reps`` x ``2**k_sim`` buckets x ``d_proj`` dims (fp32 here, stored as fp16)."""

    def __init__(self, dim: int, reps: int = 10, k_sim: int = 4, d_proj: int = 16, seed: int = 0) -> None:
        rng = np.random.default_rng(seed)
        self.reps, self.k_sim, self.d_proj = reps, k_sim, d_proj
        self.planes = rng.standard_normal((reps, dim, k_sim)).astype(np.float32)
        self.proj = (rng.choice([-1.0, 1.0], (reps, dim, d_proj)) / np.sqrt(d_proj)).astype(np.float32)
        self.n_buckets = 1 << k_sim

    @property
    def dims(self) -> int:
        return self.reps * self.n_buckets * self.d_proj

    def _buckets(self, x: np.ndarray, r: int) -> np.ndarray:
        bits = (x @ self.planes[r]) > 0
        return (bits * (1 << np.arange(self.k_sim))).sum(axis=1)

    def pages(self, tokens: np.ndarray, offsets: np.ndarray, chunk_pages: int = 2048) -> np.ndarray:
        """``(n_pages, dims)`` float32 page encodings (bucket means; empty buckets = page mean)."""
        import torch

        from docrag.index.maxsim import _tensor

        n_pages = len(offsets) - 1
        out = np.zeros((n_pages, self.dims), dtype=np.float32)
        B, P, R = self.n_buckets, self.d_proj, self.reps
        planes = torch.from_numpy(self.planes.transpose(1, 0, 2).reshape(self.planes.shape[1], -1))
        proj = torch.from_numpy(self.proj.transpose(1, 0, 2).reshape(self.proj.shape[1], -1))
        weights = torch.tensor([1 << i for i in range(self.k_sim)])
        for p0 in range(0, n_pages, chunk_pages):
            p1 = min(p0 + chunk_pages, n_pages)
            n = p1 - p0
            x = _tensor(np.asarray(tokens[offsets[p0]:offsets[p1]])).float()
            page = torch.from_numpy(np.repeat(np.arange(n), np.diff(offsets[p0:p1 + 1])))
            bucket = (((x @ planes) > 0).reshape(len(x), R, self.k_sim).long() * weights).sum(dim=2)  # (T, R)
            y = (x @ proj).reshape(len(x), R, P)
            key = (page[:, None] * R + torch.arange(R)[None, :]) * B + bucket                       # (T, R)
            sums = torch.zeros((n * R * B, P)).index_add_(0, key.reshape(-1), y.reshape(-1, P))
            cnt = torch.bincount(key.reshape(-1), minlength=n * R * B).float()[:, None]
            mean = torch.zeros((n, R * P)).index_add_(0, page, y.reshape(len(x), R * P))
            mean /= torch.bincount(page, minlength=n).clamp_min(1).float()[:, None]
            mean = mean.reshape(n, R, 1, P).expand(n, R, B, P).reshape(-1, P)
            fde = torch.where(cnt > 0, sums / cnt.clamp_min(1), mean)
            out[p0:p1] = fde.reshape(n, R * B * P).numpy()
        return out

    def queries(self, queries: Sequence[np.ndarray]) -> np.ndarray:
        B, P = self.n_buckets, self.d_proj
        out = np.zeros((len(queries), self.dims), dtype=np.float32)
        for i, q in enumerate(queries):
            q = np.asarray(q, dtype=np.float32)
            for r in range(self.reps):
                sums = np.zeros((B, P), np.float32)
                np.add.at(sums, self._buckets(q, r), q @ self.proj[r])
                out[i, r * B * P:(r + 1) * B * P] = sums.ravel()
        return out


def fuse_ranks(stages: Sequence[np.ndarray], k: float = 60.0) -> np.ndarray:
    """Reciprocal-rank fusion of several first stages' ``(n_queries, n_pages)`` scores, so that each
    contributes its best candidates."""
    if len(stages) == 1:
        return stages[0]
    fused = np.zeros(np.shape(stages[0]), dtype=np.float32)
    for s in stages:
        ranks = np.argsort(np.argsort(-np.asarray(s), axis=-1, kind="stable"), axis=-1)
        fused += 1.0 / (k + ranks)
    return fused


# ---------------------------------------------------------------------------------------------
# candidate counts
# ---------------------------------------------------------------------------------------------
def adaptive_candidates(scores: np.ndarray, k: int, n_min: int, n_max: int, margin: float) -> np.ndarray:
    """Indices of the pages to rerank: every page whose first-stage score is within ``margin`` x
    (spread of the top scores) of the k-th best, at least ``n_min`` and at most ``n_max`` of them,
    best first. The spread is ``s[0] - s[n_min]``, so flat score profiles get more candidates."""
    scores = np.asarray(scores, dtype=np.float32)
    n = len(scores)
    finite = np.isfinite(scores)
    if finite.sum() <= n_min:
        idx = np.flatnonzero(finite)
        return idx[np.argsort(-scores[idx], kind="stable")]
    top_n = min(n_max, int(finite.sum()))
    top = np.argpartition(-np.where(finite, scores, -np.inf), top_n - 1)[:top_n] if top_n < n else np.arange(n)
    top = top[np.argsort(-scores[top], kind="stable")]
    s = scores[top]
    kth = s[min(k, len(s)) - 1]
    spread = s[0] - s[min(n_min, len(s) - 1)]
    keep = max(n_min, int(np.searchsorted(-s, -(kth - margin * spread), side="right")))
    return top[:keep]


def rerank_rounds(first: np.ndarray, exact, k: int, round_size: int, n_min: int, n_max: int,
                  patience: int = 1) -> tuple[np.ndarray, np.ndarray, int]:
    """Rerank first-stage candidates (best first) exactly in rounds of ``round_size`` until
    ``patience`` rounds in a row bring no page into the exact top-``k`` (after at least ``n_min``
    pages, at most ``n_max``). ``exact(positions) -> scores``. Returns (positions, exact scores,
    rounds); flat first-stage profiles (no page stands out) thus get more candidates."""
    first = np.asarray(first, dtype=np.float32)
    valid = np.flatnonzero(np.isfinite(first))
    n_max = min(n_max, len(valid))
    order = valid[np.argpartition(-first[valid], n_max - 1)[:n_max]] if n_max < len(valid) else valid
    order = order[np.argsort(-first[order], kind="stable")]
    pos_parts, score_parts = [], []
    top: set[int] = set()
    quiet, done, rounds = 0, 0, 0
    while done < len(order):
        step = max(round_size, n_min - done) if done < n_min else round_size
        batch = order[done:done + step]
        scores = np.asarray(exact(batch), dtype=np.float32)
        pos_parts.append(batch)
        score_parts.append(scores)
        done += len(batch)
        rounds += 1
        pos, sc = np.concatenate(pos_parts), np.concatenate(score_parts)
        new_top = set(pos[np.argsort(-sc, kind="stable")[:k]].tolist())
        quiet = quiet + 1 if (new_top == top and done > n_min) else 0
        top = new_top
        if done >= n_min and quiet >= patience:
            break
    return np.concatenate(pos_parts), np.concatenate(score_parts), rounds
