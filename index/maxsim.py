"""Exact multi-vector (late-interaction) scoring: MaxSim over variable-length token matrices.

The page tokens of a segment are one ``(total_tokens, dim)`` matrix (fp16, usually memory-mapped)
plus ``offsets`` (``n_pages + 1``; page ``i`` owns rows ``offsets[i]:offsets[i+1]``).
``score(q, p) = sum_over_query_tokens max_over_page_tokens <q_t, p_s>``.

:func:`maxsim_scores` streams the token matrix in chunks of whole pages, multiplies all query tokens
against a chunk in one matmul (torch; GPU when given a cuda device) and takes per-page maxima
with ``maximum.reduceat``, so memory stays bounded whatever the index size. When the tokens are a
torch tensor already on a CUDA device (``Segment.resident``), it hands over to
:func:`maxsim_scores_resident`, which keeps the similarities there: per chunk of whole pages one
matmul, a per-page max and a per-query sum, and only the ``(n_queries, n_pages)`` scores come back.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Sequence

import numpy as np

DEFAULT_CHUNK_TOKENS = 1 << 18   # page tokens per matmul (256k x 128 x fp32 = 128 MiB)
MAX_SIM_ELEMENTS = 1 << 25       # bound on query-tokens x page-tokens per matmul (128 MiB of fp32)


def _tensor(arr: np.ndarray):
    """A torch view of a (possibly read-only, memory-mapped) array; callers never write to it."""
    import torch

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="The given NumPy array is not writable")
        return torch.from_numpy(np.ascontiguousarray(arr))


def pack_queries(queries: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Stack query token matrices into ``(sum_tokens, dim)`` float32 and owner ids per row."""
    if not queries:
        return np.zeros((0, 0), np.float32), np.zeros(0, np.int64)
    mats = [np.asarray(q, dtype=np.float32).reshape(-1, np.shape(q)[-1]) for q in queries]
    owner = np.concatenate([np.full(len(m), i, np.int64) for i, m in enumerate(mats)])
    return np.concatenate(mats, axis=0), owner


def pack_pages(pages: Sequence[np.ndarray], dtype=np.float16) -> tuple[np.ndarray, np.ndarray]:
    """Concatenate page token matrices into ``(tokens, offsets)``."""
    lengths = np.array([len(p) for p in pages], dtype=np.int64)
    offsets = np.zeros(len(pages) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    if not pages:
        return np.zeros((0, 0), dtype), offsets
    return np.concatenate([np.asarray(p, dtype=dtype) for p in pages], axis=0), offsets


def maxsim_naive(queries: Sequence[np.ndarray], pages: Sequence[np.ndarray]) -> np.ndarray:
    """Reference implementation (float64 loops): ``(n_queries, n_pages)`` scores."""
    out = np.zeros((len(queries), len(pages)), dtype=np.float64)
    for i, q in enumerate(queries):
        q64 = np.asarray(q, dtype=np.float64)
        for j, p in enumerate(pages):
            p64 = np.asarray(p, dtype=np.float64)
            if len(p64) == 0 or len(q64) == 0:
                continue
            out[i, j] = (q64 @ p64.T).max(axis=1).sum()
    return out


def _sum_by_owner(per_token: np.ndarray, owner: np.ndarray, n_queries: int) -> np.ndarray:
    """Sum rows of ``per_token`` (query_tokens, pages) that belong to the same query (``owner`` sorted)."""
    starts = np.searchsorted(owner, np.arange(n_queries))
    out = np.add.reduceat(per_token, starts, axis=0)
    empty = np.bincount(owner, minlength=n_queries) == 0   # reduceat copies a row for empty queries
    out[empty] = 0.0
    return out


def maxsim_scores(
    queries: Sequence[np.ndarray],
    tokens: np.ndarray,
    offsets: np.ndarray,
    page_rows: np.ndarray | None = None,
    device: str = "cpu",
    chunk_tokens: int = DEFAULT_CHUNK_TOKENS,
) -> np.ndarray:
    """Exact MaxSim of every query against pages of one packed segment: ``(n_queries, n_pages)``.

    ``tokens`` is a numpy array (fp16, possibly memory-mapped) or a torch tensor already in the
    matmul dtype on ``device`` (no per-query conversion); a tensor on a CUDA device is scored by
    :func:`maxsim_scores_resident` (the whole reduction on the device).

    ``page_rows`` restricts scoring to those page indices (the result then has one column per
    listed page, in that order); pages with no tokens score 0. Listed pages are scored in file
    order (sorted, adjacent pages copied as one run) into a reused fp32 buffer: on CPU a fresh
    buffer per chunk costs more in page faults than the matmul itself.
    """
    import torch

    if isinstance(tokens, torch.Tensor) and tokens.is_cuda:
        return maxsim_scores_resident(queries, tokens, offsets, page_rows)
    q_flat, owner = pack_queries(queries)
    n_q = len(queries)
    all_pages = np.arange(len(offsets) - 1) if page_rows is None else np.asarray(page_rows, dtype=np.int64)
    out = np.zeros((n_q, len(all_pages)), dtype=np.float32)
    if n_q == 0 or len(all_pages) == 0 or q_flat.shape[0] == 0:
        return out
    order = None
    if page_rows is not None:
        order = np.argsort(all_pages, kind="stable")
        all_pages = all_pages[order]
    on_gpu = device.startswith("cuda")
    mm_dtype = torch.float16 if on_gpu else torch.float32
    q_t = torch.from_numpy(q_flat).to(device=device, dtype=mm_dtype)
    starts, ends = offsets[all_pages], offsets[all_pages + 1]
    chunk_tokens = max(1, min(chunk_tokens, MAX_SIM_ELEMENTS // max(1, q_flat.shape[0])))
    resident = isinstance(tokens, torch.Tensor)   # a resident copy (see Segment.resident)
    total = int((ends - starts).sum())
    col = 0
    while col < len(all_pages):
        # a chunk of whole pages, ~chunk_tokens tokens (at least one page)
        stop = col + 1
        budget = ends[col] - starts[col]
        while stop < len(all_pages) and budget + (ends[stop] - starts[stop]) <= chunk_tokens:
            budget += ends[stop] - starts[stop]
            stop += 1
        sel = slice(col, stop)
        lens = ends[sel] - starts[sel]
        nonempty = lens > 0
        if nonempty.any():
            runs = _runs(starts[sel], ends[sel])
            n_tok = int(lens.sum())
            if len(runs) == 1 and (resident or on_gpu):
                b_t = (tokens[runs[0][0]:runs[0][1]] if resident else
                       _tensor(tokens[runs[0][0]:runs[0][1]])).to(device=device, dtype=mm_dtype)
            elif on_gpu and not resident:
                b_t = _tensor(np.concatenate([tokens[s:e] for s, e in runs], axis=0)).to(device=device,
                                                                                         dtype=mm_dtype)
            else:
                b_t = _scratch(max(n_tok, min(chunk_tokens, total)), int(q_flat.shape[1]), device, mm_dtype)[:n_tok]
                pos = 0
                for s, e in runs:
                    src = tokens[s:e] if resident else _tensor(tokens[s:e])
                    b_t[pos:pos + e - s].copy_(src)
                    pos += e - s
            sim = (q_t @ b_t.T).float().cpu().numpy()           # (query_tokens, block_tokens)
            local = np.zeros(int(nonempty.sum()), dtype=np.int64)
            np.cumsum(lens[nonempty][:-1], out=local[1:])
            per_page = np.maximum.reduceat(sim, local, axis=1)  # (query_tokens, nonempty pages)
            cols = np.flatnonzero(nonempty) + col
            out[:, cols] = _sum_by_owner(per_page, owner, n_q)
        col = stop
    if order is not None:
        unsorted = np.empty_like(out)
        unsorted[:, order] = out
        return unsorted
    return out


def _runs(starts: np.ndarray, ends: np.ndarray) -> list[tuple[int, int]]:
    """Maximal contiguous token ranges covering pages ``starts[i]:ends[i]`` (in file order)."""
    keep = ends > starts
    s, e = starts[keep], ends[keep]
    if not len(s):
        return []
    brk = np.flatnonzero(s[1:] != e[:-1]) + 1
    first = np.concatenate([[0], brk])
    last = np.concatenate([brk - 1, [len(s) - 1]])
    return list(zip(s[first].tolist(), e[last].tolist(), strict=True))


_SCRATCH = threading.local()


def _scratch(rows: int, dim: int, device: str, dtype):
    """A reused ``(>= rows, dim)`` buffer of this thread for ``device``/``dtype`` (grows, freed with
    the thread)."""
    import torch

    bufs = _SCRATCH.__dict__.setdefault("bufs", {})
    buf = bufs.get((device, dtype, dim))
    if buf is None or buf.shape[0] < rows:
        buf = torch.empty((rows, dim), dtype=dtype, device=device)
        bufs[(device, dtype, dim)] = buf
    return buf


#: similarity elements per chunk of the resident (GPU) reduction (fp16: 2 bytes each)
RESIDENT_CHUNK_ELEMENTS = 1 << 28


RESIDENT_METHODS = ("auto", "segment", "scatter")


def maxsim_scores_resident(queries: Sequence[np.ndarray], tokens, offsets: np.ndarray,
                           page_rows: np.ndarray | None = None, method: str = "auto") -> np.ndarray:
    """``(n_queries, n_pages)`` exact MaxSim; ``tokens`` is a torch tensor on the device, ``offsets``
    the ``n_pages + 1`` token offsets of its pages. Pages without tokens score 0. ``page_rows``
    restricts scoring to those pages (one column each, in that order), gathered on the device.

    ``method``: how each page's maximum is taken: ``segment`` (``torch.segment_reduce``), ``scatter``
    (``scatter_reduce`` amax), ``auto`` = a reshape + ``amax`` when a chunk's pages all have the same
    length (the fastest), else ``segment``."""
    if method not in RESIDENT_METHODS:
        raise ValueError(f"unknown method {method!r}; use one of {', '.join(RESIDENT_METHODS)}")
    import torch

    if page_rows is not None:
        tokens, offsets = _gather(tokens, offsets, np.asarray(page_rows, dtype=np.int64))
    q_flat, owner = pack_queries(queries)
    n_q, n_pages = len(queries), len(offsets) - 1
    if n_q == 0 or n_pages == 0 or q_flat.shape[0] == 0:
        return np.zeros((n_q, max(n_pages, 0)), dtype=np.float32)
    dev = tokens.device
    q_t = torch.from_numpy(q_flat).to(device=dev, dtype=tokens.dtype)
    owner_t = torch.from_numpy(owner.astype(np.int64)).to(dev)
    out = torch.zeros((n_q, n_pages), dtype=torch.float32, device=dev)
    lens = np.diff(offsets)
    budget = max(1, RESIDENT_CHUNK_ELEMENTS // q_flat.shape[0])
    first = 0
    while first < n_pages:
        # whole pages whose tokens fit the budget (at least one page)
        last = max(first + 1, int(np.searchsorted(offsets, offsets[first] + budget, side="right")) - 1)
        last = min(last, n_pages)
        lo, hi = int(offsets[first]), int(offsets[last])
        if hi > lo:
            sim = q_t @ tokens[lo:hi].T                                   # (query_tokens, chunk_tokens)
            chunk_lens = lens[first:last]
            per_page = _page_max(sim, chunk_lens, method)
            per_page = per_page.float()
            per_page[:, torch.from_numpy(chunk_lens == 0).to(dev)] = 0.0
            out[:, first:last].index_add_(0, owner_t, per_page)
        first = last
    return out.cpu().numpy()


def _page_max(sim, lens: np.ndarray, method: str):
    """Each page's maximum over its (contiguous) columns of ``sim``: ``(query_tokens, pages)``."""
    import torch

    dev, n = sim.device, len(lens)
    if method == "auto" and lens.min() == lens.max():
        return sim.view(sim.shape[0], n, int(lens[0])).amax(dim=-1)
    lens_t = torch.from_numpy(lens.astype(np.int64)).to(dev)
    if method == "scatter":
        page_of = torch.repeat_interleave(torch.arange(n, device=dev), lens_t)
        out = torch.full((sim.shape[0], n), float("-inf"), device=dev, dtype=sim.dtype)
        return out.scatter_reduce_(1, page_of.expand(sim.shape[0], -1), sim, reduce="amax")
    return torch.segment_reduce(sim, "max", lengths=lens_t.expand(sim.shape[0], -1), axis=1, unsafe=True)


def _gather(tokens, offsets: np.ndarray, rows: np.ndarray):
    """The tokens of ``rows`` (in that order) as one device tensor, with their offsets."""
    import torch

    starts, lens = offsets[rows], offsets[rows + 1] - offsets[rows]
    sub = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum(lens, out=sub[1:])
    idx = np.arange(sub[-1], dtype=np.int64) - np.repeat(sub[:-1] - starts, lens)
    return tokens.index_select(0, torch.from_numpy(idx).to(tokens.device)), sub
