"""Option checking shared by the retrievers; device and dtype choice live in :mod:`docrag.devices`
(re-exported here for the retriever modules)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from docrag.devices import dtype_name, resolve_device, resolve_dtype
from docrag.errors import DocragError

__all__ = ["COMMON_OPTIONS", "check_options", "dtype_name", "resolve_device", "resolve_dtype"]

# options every retriever accepts (model-free ones ignore them), so hybrids can pass them to both parts
COMMON_OPTIONS = ("device", "dtype", "batch_size")


def check_options(name: str, opts: dict[str, Any], allowed: Iterable[str]) -> None:
    """Raise a clear error for options the retriever ``name`` does not understand."""
    valid = set(allowed) | set(COMMON_OPTIONS)
    unknown = sorted(set(opts) - valid)
    if unknown:
        raise DocragError(f"retriever {name!r} does not take option(s) {', '.join(unknown)}; "
                          f"valid: {', '.join(sorted(valid))}")
