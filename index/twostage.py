"""Compact first stages for multi-vector search, reranked by exact MaxSim.

* **centroids**: each page's tokens clustered (spherical k-means, batched in torch) into at most
  ``n_centroids`` unit vectors; the first stage is MaxSim against the centroids (fp16: 32 x 128 x 2
  = 8 KiB per page).
* **binary**: each token reduced to its sign bits (128 dims -> 16 bytes); the first stage is MaxSim
  with Hamming similarity (``dim - 2 * popcount(q xor p)``) on the query's sign bits.

Both return approximate scores for every page; :mod:`docrag.index.scorer_multi` keeps the best
``n_candidates`` and reranks them with :func:`docrag.index.maxsim.maxsim_scores`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

DEFAULT_CENTROIDS = 32


def page_centroids(
    tokens: np.ndarray,
    offsets: np.ndarray,
    n_centroids: int = DEFAULT_CENTROIDS,
    iterations: int = 6,
    sample_tokens: int = 256,
    batch_pages: int = 64,
    device: str = "cpu",
) -> tuple[np.ndarray, np.ndarray]:
    """Per-page spherical k-means centroids as a packed ``(centroids, offsets)`` pair (fp16).

    ``iterations`` Lloyd steps run on ``sample_tokens`` evenly spaced tokens of each page, then one
    final step assigns every token. Deterministic (initial centroids are evenly spaced tokens).
    Pages with at most ``n_centroids`` tokens keep their tokens.
    """
    import torch

    from docrag.index.maxsim import _tensor

    n_pages = len(offsets) - 1
    lengths = np.diff(offsets)
    counts = np.minimum(lengths, n_centroids)
    c_offsets = np.zeros(n_pages + 1, dtype=np.int64)
    np.cumsum(counts, out=c_offsets[1:])
    dim = tokens.shape[1] if tokens.ndim == 2 else 0
    out = np.zeros((int(c_offsets[-1]), dim), dtype=np.float16)
    for b0 in range(0, n_pages, batch_pages):
        pages = np.arange(b0, min(b0 + batch_pages, n_pages))
        big = pages[lengths[pages] > n_centroids]
        for i in pages[lengths[pages] <= n_centroids]:
            out[c_offsets[i]:c_offsets[i + 1]] = tokens[offsets[i]:offsets[i + 1]]
        if len(big) == 0:
            continue
        t_max = int(lengths[big].max())
        x = torch.zeros((len(big), t_max, dim), dtype=torch.float32, device=device)
        for j, i in enumerate(big):
            x[j, :lengths[i]] = _tensor(tokens[offsets[i]:offsets[i + 1]]).to(device=device, dtype=torch.float32)
        n = torch.from_numpy(lengths[big]).to(device)
        valid = torch.arange(t_max, device=device)[None, :] < n[:, None]
        cent = _gather_rows(x, _spaced(n, n_centroids))
        sample = _gather_rows(x, _spaced(n, sample_tokens))
        for _ in range(iterations):
            cent = _lloyd_step(sample, None, cent)
        cent = _lloyd_step(x, valid, cent)
        cent_np = cent.cpu().numpy().astype(np.float16)
        for j, i in enumerate(big):
            out[c_offsets[i]:c_offsets[i + 1]] = cent_np[j]
    return out, c_offsets


def _spaced(lengths, k: int):
    """(pages, k) evenly spaced row indices within each page's length."""
    import torch

    steps = torch.linspace(0, 1, k, device=lengths.device)[None, :]
    return ((lengths[:, None] - 1).float() * steps).round().long()


def _gather_rows(x, idx):
    import torch

    return torch.gather(x, 1, idx[:, :, None].expand(-1, -1, x.shape[2]))


def _lloyd_step(x, valid, cent):
    """One spherical k-means step over (B, T, d) tokens (``valid`` masks padding)."""
    import torch

    b, _, d = x.shape
    c = cent.shape[1]
    assign = torch.bmm(x, cent.transpose(1, 2)).argmax(dim=2)          # (B, T)
    if valid is not None:
        assign = torch.where(valid, assign, torch.full_like(assign, c))  # padding -> spare cluster
    onehot = torch.zeros((b, x.shape[1], c + 1), dtype=x.dtype, device=x.device)
    onehot.scatter_(2, assign[:, :, None], 1.0)
    sums = torch.bmm(onehot.transpose(1, 2), x)                          # (B, C+1, d)
    filled = onehot.sum(dim=1)
    new = torch.nn.functional.normalize(sums[:, :c], dim=2)
    return torch.where(filled[:, :c, None] > 0, new, cent)


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
