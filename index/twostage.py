"""Compact first stages for multi-vector search, reranked by exact MaxSim.

* **centroids**: each page's tokens clustered (spherical k-means, batched in torch) into at most
  ``n_centroids`` unit vectors; the first stage is MaxSim against the centroids (fp16: 32 x 128 x 2
  = 8 KiB per page).
* **binary**: each token reduced to its sign bits (128 dims -> 16 bytes); the first stage is MaxSim
  with Hamming similarity (``dim - 2 * popcount(q xor p)``) on the query's sign bits.

Both return approximate scores for every page; :mod:`docrag.index.store` keeps the best
``n_candidates`` and reranks them with :func:`docrag.index.maxsim.maxsim_scores`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

DEFAULT_CENTROIDS = 32
DEFAULT_CANDIDATES = 256


def page_centroids(
    tokens: np.ndarray,
    offsets: np.ndarray,
    n_centroids: int = DEFAULT_CENTROIDS,
    iterations: int = 8,
    batch_pages: int = 64,
    device: str = "cpu",
) -> tuple[np.ndarray, np.ndarray]:
    """Per-page spherical k-means centroids as a packed ``(centroids, offsets)`` pair (fp16).

    Deterministic: initial centroids are evenly spaced tokens of the page. Pages with at most
    ``n_centroids`` tokens keep their tokens.
    """
    import torch

    n_pages = len(offsets) - 1
    lengths = np.diff(offsets)
    counts = np.minimum(lengths, n_centroids)
    c_offsets = np.zeros(n_pages + 1, dtype=np.int64)
    np.cumsum(counts, out=c_offsets[1:])
    dim = tokens.shape[1] if tokens.ndim == 2 else 0
    out = np.zeros((int(c_offsets[-1]), dim), dtype=np.float16)
    for b0 in range(0, n_pages, batch_pages):
        pages = range(b0, min(b0 + batch_pages, n_pages))
        t_max = int(max((lengths[i] for i in pages), default=0))
        if t_max == 0:
            continue
        x = np.zeros((len(pages), t_max, dim), dtype=np.float32)
        mask = np.zeros((len(pages), t_max), dtype=bool)
        init = np.zeros((len(pages), n_centroids), dtype=np.int64)
        for j, i in enumerate(pages):
            n = int(lengths[i])
            x[j, :n] = tokens[offsets[i]:offsets[i + 1]]
            mask[j, :n] = True
            init[j] = np.linspace(0, max(n - 1, 0), n_centroids).round().astype(np.int64)
        xt = torch.from_numpy(x).to(device)
        mt = torch.from_numpy(mask).to(device)
        cent = torch.gather(xt, 1, torch.from_numpy(init).to(device)[:, :, None].expand(-1, -1, dim)).clone()
        for _ in range(iterations):
            sim = torch.bmm(xt, cent.transpose(1, 2))                    # (B, T, C)
            assign = sim.argmax(dim=2)
            onehot = torch.nn.functional.one_hot(assign, n_centroids).to(xt.dtype) * mt[:, :, None]
            sums = torch.bmm(onehot.transpose(1, 2), xt)                 # (B, C, d)
            filled = onehot.sum(dim=1) > 0                               # (B, C)
            new = torch.nn.functional.normalize(sums, dim=2)
            cent = torch.where(filled[:, :, None], new, cent)
        cent_np = cent.cpu().numpy()
        for j, i in enumerate(pages):
            n = int(lengths[i])
            rows = tokens[offsets[i]:offsets[i + 1]] if n <= n_centroids else cent_np[j]
            out[c_offsets[i]:c_offsets[i + 1]] = rows
    return out, c_offsets


def binarize(tokens: np.ndarray) -> np.ndarray:
    """Sign bits of each token row, packed: ``(tokens, dim / 8)`` uint8."""
    return np.packbits(np.asarray(tokens) > 0, axis=1)


def binary_maxsim(
    queries: Sequence[np.ndarray],
    bits: np.ndarray,
    offsets: np.ndarray,
    dim: int,
    chunk_tokens: int = 1 << 15,
) -> np.ndarray:
    """MaxSim with Hamming similarity on sign bits: ``(n_queries, n_pages)``."""
    n_pages = len(offsets) - 1
    out = np.zeros((len(queries), n_pages), dtype=np.float32)
    if not len(queries) or n_pages == 0 or len(bits) == 0:
        return out
    words = _as_words(bits)
    q_bits = [_as_words(binarize(np.asarray(q, dtype=np.float32))) for q in queries]
    lengths = np.diff(offsets)
    p = 0
    while p < n_pages:
        stop = p + 1
        while stop < n_pages and offsets[stop + 1] - offsets[p] <= chunk_tokens:
            stop += 1
        lens = lengths[p:stop]
        nonempty = lens > 0
        if nonempty.any():
            block = words[offsets[p]:offsets[stop]]                       # (T, w)
            local = np.zeros(int(nonempty.sum()), dtype=np.int64)
            np.cumsum(lens[nonempty][:-1], out=local[1:])
            cols = np.flatnonzero(nonempty) + p
            for qi, qw in enumerate(q_bits):
                ham = np.bitwise_count(qw[:, None, :] ^ block[None, :, :]).sum(axis=2, dtype=np.int32)
                sim = dim - 2 * ham                                        # (tq, T)
                out[qi, cols] = np.maximum.reduceat(sim, local, axis=1).sum(axis=0)
        p = stop
    return out


def _as_words(bits: np.ndarray) -> np.ndarray:
    """View packed bits as uint64 words when the row length allows (faster popcount)."""
    bits = np.ascontiguousarray(bits)
    if bits.shape[1] % 8 == 0:
        return bits.view(np.uint64)
    return bits
