"""Search filters of the embedded index: ``{"doc_id": ["a", "b"], "lang": "zh", "meta.year": 2011}``.

A filter name is a page field (``doc_id``, ``page_id``, ``file_name``, ``lang``, ``page_no``, ...,
plural aliases accepted) or a metadata key given at ingest (``meta.KEY`` or a bare ``KEY`` that is
no page field). A list value matches any of its items; metadata values compare as text.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from docrag.errors import DocragError
from docrag.types import Page

_FILTER_ALIASES = {"doc_ids": "doc_id", "page_ids": "page_id", "file_names": "file_name", "langs": "lang",
                   "pages": "page_no"}
PAGE_FIELDS = sorted({*Page.__dataclass_fields__, "page_id"} - {"root", "meta"})


def filter_mask(pages: Sequence[Page], filt: dict) -> np.ndarray:
    """One bool per page: whether it passes every test of ``filt``."""
    tests = [_field_test(name, value) for name, value in filt.items()]
    _check_meta_keys(tests, pages)
    return np.array([all(t(p) for t in tests) for p in pages], dtype=bool)


def _field_test(name: str, value: Any) -> Callable[[Page], bool]:
    attr = _FILTER_ALIASES.get(name, name)
    if attr.startswith("meta.") or attr not in PAGE_FIELDS:
        return _meta_test(attr.removeprefix("meta."), name, value)
    if isinstance(value, (list, tuple, set, frozenset)):
        wanted = set(value)

        def test(page: Page) -> bool:
            got = getattr(page, attr)
            return (got.value if hasattr(got, "value") else got) in wanted
    else:
        def test(page: Page) -> bool:
            got = getattr(page, attr)
            return (got.value if hasattr(got, "value") else got) == value
    return test


def _meta_test(key: str, name: str, value: Any) -> Callable[[Page], bool]:
    """A filter on user metadata given at ingest; values compare as text (``--filter year=2011``
    matches a sidecar's number 2011)."""
    wanted = {str(v) for v in value} if isinstance(value, (list, tuple, set, frozenset)) else {str(value)}

    def test(page: Page) -> bool:
        return key in page.meta and str(page.meta[key]) in wanted

    test.meta_key = key  # type: ignore[attr-defined]
    test.field_name = name  # type: ignore[attr-defined]
    return test


def _check_meta_keys(tests: list[Callable[[Page], bool]], pages: Sequence[Page]) -> None:
    """A filter name that is neither a page field nor a metadata key of any page is a typo: say so."""
    for t in tests:
        key = getattr(t, "meta_key", None)
        if key is None or any(key in p.meta for p in pages):
            continue
        keys = sorted({k for p in pages for k in p.meta})
        raise DocragError(f"unknown filter field {t.field_name!r}; filter on page fields: {', '.join(PAGE_FIELDS)}"
                          + (f"; or on metadata given at ingest: {', '.join(keys)}" if keys else
                             " (no page has metadata; add it at ingest with --meta KEY=VALUE or a sidecar "
                             "FILE.meta.json)"))
