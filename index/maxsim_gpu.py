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


def maxsim_scores_resident(queries: Sequence[np.ndarray], tokens, offsets: np.ndarray) -> np.ndarray:
    """``(n_queries, n_pages)`` exact MaxSim; ``tokens`` is a torch tensor on the device, ``offsets``
    the ``n_pages + 1`` token offsets of its pages. Pages without tokens score 0."""
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
        last = first + 1
        used = lens[first]
        while last < n_pages and used + lens[last] <= budget:
            used += lens[last]
            last += 1
        lo, hi = int(offsets[first]), int(offsets[last])
        if hi > lo:
            sim = q_t @ tokens[lo:hi].T                                   # (query_tokens, chunk_tokens)
            page_of = torch.repeat_interleave(torch.arange(last - first, device=dev),
                                              torch.from_numpy(lens[first:last]).to(dev))
            per_page = torch.full((sim.shape[0], last - first), float("-inf"), device=dev, dtype=sim.dtype)
            per_page.scatter_reduce_(1, page_of.expand(sim.shape[0], -1), sim, reduce="amax")
            per_page = per_page.float()
            per_page[:, torch.from_numpy(lens[first:last] == 0).to(dev)] = 0.0
            out[:, first:last].index_add_(0, owner_t, per_page)
        first = last
    return out.cpu().numpy()
