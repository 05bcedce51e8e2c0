"""Synthetic ColQwen2-shaped page embeddings with planted relevance (benchmarks and tests).

A page is built from a few "concept" directions drawn from a shared pool plus page-background
directions common to all pages (blank margins look alike in real pages); each token is a noisy
copy of one of them, unit-normalised. A query is drawn from some of one target page's concepts
(plus a few generic tokens), so the planted page is the right answer; the noise levels are tuned
so that exhaustive MaxSim finds it for >= 95% of queries.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class SyntheticSpec:
    dim: int = 128
    tokens_per_page: int = 750
    token_jitter: int = 50            # page length varies in [tokens - jitter, tokens]
    n_concepts: int = 4096
    concepts_per_page: int = 8
    n_background: int = 16
    background_share: float = 0.3     # fraction of page tokens that are background
    page_noise: float = 2.0           # noise norm relative to the concept (per token)
    query_tokens: int = 20
    query_concepts: int = 3
    query_generic: int = 4            # query tokens drawn from background directions
    query_noise: float = 2.0
    seed: int = 0


def _unit(x: np.ndarray) -> np.ndarray:
    return (x / np.linalg.norm(x, axis=-1, keepdims=True)).astype(np.float32, copy=False)


class SyntheticCorpus:
    """Deterministic generator: page ``i`` is always the same, whatever order pages are made in."""

    def __init__(self, spec: SyntheticSpec = SyntheticSpec()) -> None:
        self.spec = spec
        rng = np.random.default_rng(spec.seed)
        self.concepts = _unit(rng.standard_normal((spec.n_concepts, spec.dim)).astype(np.float32))
        self.background = _unit(rng.standard_normal((spec.n_background, spec.dim)).astype(np.float32))

    def _rng(self, stream: int, *key: int) -> np.random.Generator:
        return np.random.default_rng([self.spec.seed, stream, *key])

    def page_concepts(self, i: int) -> np.ndarray:
        return self._rng(1, i).choice(self.spec.n_concepts, self.spec.concepts_per_page, replace=False)

    def page_length(self, i: int) -> int:
        return self.spec.tokens_per_page - int(self._rng(4, i).integers(0, self.spec.token_jitter + 1))

    def page(self, i: int) -> np.ndarray:
        """Token matrix of page ``i`` (float32, unit rows)."""
        s = self.spec
        rng = self._rng(5, i)
        n = self.page_length(i)
        n_bg = int(round(n * s.background_share))
        base = np.concatenate([self.concepts[rng.choice(self.page_concepts(i), n - n_bg)],
                               self.background[rng.integers(0, s.n_background, n_bg)]])
        noise = rng.standard_normal((n, s.dim), dtype=np.float32) * np.float32(s.page_noise / np.sqrt(s.dim))
        return _unit(base + noise)

    def pages(self, start: int, stop: int) -> Iterator[np.ndarray]:
        for i in range(start, stop):
            yield self.page(i)

    def query(self, target: int, q: int) -> np.ndarray:
        """Query ``q`` aimed at page ``target``."""
        s = self.spec
        rng = self._rng(2, target, q)
        concepts = rng.choice(self.page_concepts(target), s.query_concepts, replace=False)
        n_c = s.query_tokens - s.query_generic
        base = np.concatenate([self.concepts[concepts[np.arange(n_c) % s.query_concepts]],
                               self.background[rng.integers(0, s.n_background, s.query_generic)]])
        noise = (rng.standard_normal((s.query_tokens, s.dim), dtype=np.float32)
                 * np.float32(s.query_noise / np.sqrt(s.dim)))
        return _unit(base + noise)

    def queries(self, n_pages: int, n_queries: int) -> tuple[list[np.ndarray], np.ndarray]:
        """``n_queries`` queries with distinct random target pages among the first ``n_pages``."""
        rng = self._rng(3, n_pages)
        targets = rng.choice(n_pages, n_queries, replace=n_queries > n_pages)
        return [self.query(int(t), j) for j, t in enumerate(targets)], targets


class ResampledCorpus:
    """Scales a real multi-vector corpus to any size while keeping its token distribution.

    A codebook (:func:`docrag.index.firststage.train_codebook`, ``n_coarse`` x ``n_fine`` codes) is
    fitted on the real tokens. Pages ``0 .. n_real-1`` are the real pages. Page ``i >= n_real``
    splices the code sequence of a prefix of one real page with a suffix of another (so topics
    co-occur as in real pages, in new combinations), and every token becomes its code's centroid
    plus the residual of a random real token with the same code, unit-normalised. Deterministic:
    page ``i`` is the same whatever order pages are made in.
    """

    def __init__(self, tokens: np.ndarray, offsets: np.ndarray, n_coarse: int = 64, n_fine: int = 64,
                 seed: int = 0) -> None:
        from docrag.index.firststage import assign_codes, train_codebook

        self.tokens = np.asarray(tokens)
        self.offsets = np.asarray(offsets, dtype=np.int64)
        self.n_real = len(self.offsets) - 1
        self.seed = seed
        self.codebook = train_codebook(self.tokens, n_coarse, n_fine).astype(np.float32)
        self.codes = assign_codes(self.tokens, self.codebook, n_fine).astype(np.int64)
        self.residuals = self.tokens.astype(np.float32) - self.codebook[self.codes]
        self.by_code = np.argsort(self.codes, kind="stable")
        self.code_ptr = np.searchsorted(self.codes[self.by_code], np.arange(len(self.codebook) + 1))

    def page(self, i: int) -> np.ndarray:
        """Token matrix of page ``i`` (float32, unit rows)."""
        if i < self.n_real:
            return self.tokens[self.offsets[i]:self.offsets[i + 1]].astype(np.float32)
        rng = np.random.default_rng([self.seed, 7, i])
        a, b = rng.integers(0, self.n_real, 2)
        ca = self.codes[self.offsets[a]:self.offsets[a + 1]]
        cb = self.codes[self.offsets[b]:self.offsets[b + 1]]
        cut_a = int(rng.integers(1, len(ca) + 1)) if len(ca) else 0
        cut_b = int(rng.integers(0, len(cb))) if len(cb) else 0
        codes = np.concatenate([ca[:cut_a], cb[cut_b:]])[:max(len(ca), len(cb))]
        lo, hi = self.code_ptr[codes], self.code_ptr[codes + 1]
        donors = self.by_code[lo + (rng.random(len(codes)) * (hi - lo)).astype(np.int64)]
        x = self.codebook[codes] + self.residuals[donors]
        return (x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-6)).astype(np.float32)

    def page_length(self, i: int) -> int:
        return len(self.page(i)) if i >= self.n_real else int(self.offsets[i + 1] - self.offsets[i])

    def pages(self, start: int, stop: int) -> Iterator[np.ndarray]:
        for i in range(start, stop):
            yield self.page(i)
