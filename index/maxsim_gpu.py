"""Exact MaxSim with the whole reduction on the accelerator.

:func:`docrag.index.maxsim.maxsim_scores` multiplies on the GPU but reduces each page's maximum on the
CPU, so every similarity crosses the bus. When the token store is resident on the device
(``Segment.resident_tokens``), :func:`maxsim_scores_resident` keeps the similarities there: per chunk
of whole pages one matmul, a per-page ``amax`` scatter and a per-query sum, and only the
``(n_queries, n_pages)`` scores come back.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from docrag.index.maxsim import pack_queries

#: similarity elements per chunk (fp16: 2 bytes each)
CHUNK_ELEMENTS = 1 << 28


METHODS = ("auto", "segment", "scatter")


def maxsim_scores_resident(queries: Sequence[np.ndarray], tokens, offsets: np.ndarray,
                           method: str = "auto") -> np.ndarray:
    """``(n_queries, n_pages)`` exact MaxSim; ``tokens`` is a torch tensor on the device, ``offsets``
    the ``n_pages + 1`` token offsets of its pages. Pages without tokens score 0.

    ``method``: how each page's maximum is taken: ``segment`` (``torch.segment_reduce``), ``scatter``
    (``scatter_reduce`` amax), ``auto`` = a reshape + ``amax`` when a chunk's pages all have the same
    length (the fastest), else ``segment``."""
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; use one of {', '.join(METHODS)}")
    import torch

    q_flat, owner = pack_queries(queries)
    n_q, n_pages = len(queries), len(offsets) - 1
    if n_q == 0 or n_pages == 0 or q_flat.shape[0] == 0:
        return np.zeros((n_q, max(n_pages, 0)), dtype=np.float32)
    dev = tokens.device
    q_t = torch.from_numpy(q_flat).to(device=dev, dtype=tokens.dtype)
    owner_t = torch.from_numpy(owner.astype(np.int64)).to(dev)
    out = torch.zeros((n_q, n_pages), dtype=torch.float32, device=dev)
    lens = np.diff(offsets)
    budget = max(1, CHUNK_ELEMENTS // q_flat.shape[0])
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
