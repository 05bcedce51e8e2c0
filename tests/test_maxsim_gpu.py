"""maxsim_scores_resident (reduction on the device) equals the float64 reference; runs on CPU tensors too;
maxsim_scores hands a CUDA tensor over to it."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import docrag.index.maxsim as maxsim
from docrag.index.maxsim import maxsim_naive, maxsim_scores, maxsim_scores_resident, pack_pages


@pytest.mark.parametrize("method", ["auto", "segment", "scatter"])
@pytest.mark.parametrize("chunk_elements", [40, 1 << 28])
def test_resident_matches_reference_with_empty_pages_and_chunks(monkeypatch, chunk_elements, method):
    rng = np.random.default_rng(3)
    pages = [rng.standard_normal((n, 16)).astype(np.float32) for n in (5, 0, 9, 3, 7, 1)]
    queries = [rng.standard_normal((4, 16)).astype(np.float32), rng.standard_normal((2, 16)).astype(np.float32)]
    tokens, offsets = pack_pages(pages, dtype=np.float32)
    monkeypatch.setattr(maxsim, "RESIDENT_CHUNK_ELEMENTS", chunk_elements)
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
    rows = np.array([2, 0])
    via = maxsim_scores(queries, torch.from_numpy(tokens).cuda(), offsets, rows, device="cuda")
    np.testing.assert_allclose(via, maxsim_naive(queries, [pages[r] for r in rows]), rtol=2e-2, atol=5e-2)


def test_resident_equal_lengths_fast_path_and_bad_method():
    rng = np.random.default_rng(5)
    pages = [rng.standard_normal((6, 8)).astype(np.float32) for _ in range(9)]
    queries = [rng.standard_normal((3, 8)).astype(np.float32)]
    tokens, offsets = pack_pages(pages, dtype=np.float32)
    got = maxsim_scores_resident(queries, torch.from_numpy(tokens), offsets)
    np.testing.assert_allclose(got, maxsim_naive(queries, pages), atol=1e-4)
    with pytest.raises(ValueError, match="unknown method"):
        maxsim_scores_resident(queries, torch.from_numpy(tokens), offsets, method="fast")


@pytest.mark.parametrize("method", ["auto", "segment"])
def test_resident_page_rows_in_given_order(method):
    rng = np.random.default_rng(6)
    pages = [rng.standard_normal((n, 8)).astype(np.float32) for n in (4, 0, 6, 2, 5)]
    queries = [rng.standard_normal((3, 8)).astype(np.float32)]
    tokens, offsets = pack_pages(pages, dtype=np.float32)
    rows = np.array([4, 1, 0, 2])
    got = maxsim_scores_resident(queries, torch.from_numpy(tokens), offsets, rows, method=method)
    np.testing.assert_allclose(got, maxsim_naive(queries, [pages[r] for r in rows]), atol=1e-4)
