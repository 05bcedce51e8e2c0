"""maxsim_scores_resident (reduction on the device) equals the float64 reference; runs on CPU tensors too."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import docrag.index.maxsim_gpu as maxsim_gpu
from docrag.index.maxsim import maxsim_naive, pack_pages
from docrag.index.maxsim_gpu import maxsim_scores_resident


@pytest.mark.parametrize("method", ["auto", "segment", "scatter"])
@pytest.mark.parametrize("chunk_elements", [40, 1 << 28])
def test_resident_matches_reference_with_empty_pages_and_chunks(monkeypatch, chunk_elements, method):
    rng = np.random.default_rng(3)
    pages = [rng.standard_normal((n, 16)).astype(np.float32) for n in (5, 0, 9, 3, 7, 1)]
    queries = [rng.standard_normal((4, 16)).astype(np.float32), rng.standard_normal((2, 16)).astype(np.float32)]
    tokens, offsets = pack_pages(pages, dtype=np.float32)
    monkeypatch.setattr(maxsim_gpu, "CHUNK_ELEMENTS", chunk_elements)
    got = maxsim_scores_resident(queries, torch.from_numpy(tokens), offsets, method=method)
    assert got.shape == (2, 6)
    np.testing.assert_allclose(got, maxsim_naive(queries, pages), atol=1e-4)
    assert (got[:, 1] == 0).all()


def test_resident_no_queries():
    tokens, offsets = pack_pages([np.ones((2, 4), np.float32)], dtype=np.float32)
    assert maxsim_scores_resident([], torch.from_numpy(tokens), offsets).shape == (0, 1)


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_resident_on_cuda_matches_reference():
    rng = np.random.default_rng(4)
    pages = [rng.standard_normal((n, 32)).astype(np.float32) for n in (50, 7, 130)]
    queries = [rng.standard_normal((20, 32)).astype(np.float32)]
    tokens, offsets = pack_pages(pages, dtype=np.float16)
    got = maxsim_scores_resident(queries, torch.from_numpy(tokens).cuda(), offsets)
    np.testing.assert_allclose(got, maxsim_naive(queries, pages), rtol=2e-2, atol=5e-2)


def test_resident_equal_lengths_fast_path_and_bad_method():
    rng = np.random.default_rng(5)
    pages = [rng.standard_normal((6, 8)).astype(np.float32) for _ in range(9)]
    queries = [rng.standard_normal((3, 8)).astype(np.float32)]
    tokens, offsets = pack_pages(pages, dtype=np.float32)
    got = maxsim_scores_resident(queries, torch.from_numpy(tokens), offsets)
    np.testing.assert_allclose(got, maxsim_naive(queries, pages), atol=1e-4)
    with pytest.raises(ValueError, match="unknown method"):
        maxsim_scores_resident(queries, torch.from_numpy(tokens), offsets, method="fast")
