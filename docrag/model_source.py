"""Where a model comes from (a local folder or a Hugging Face hub id), checked before it loads so a
wrong path or an uncached hub id is one clear line, not a library traceback."""

from __future__ import annotations

import os
import re
from pathlib import Path

from docrag.errors import DocragError

# huggingface_hub's repo-id rule: "name" or "owner/name", letters, digits, - _ . (no -- or .. , max 96)
_HUB_ID = re.compile(r"^(?:[A-Za-z0-9][A-Za-z0-9_.-]{0,95}/)?[A-Za-z0-9][A-Za-z0-9_.-]{0,95}$")


def offline() -> bool:
    return os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in ("1", "true", "yes", "on")


def looks_like_path(source: str) -> bool:
    """True for what can only be a file-system path (absolute, ``./``, ``~``, more than one ``/``)."""
    return (source.startswith(("/", "./", "../", "~", "\\")) or source.count("/") > 1 or "\\" in source
            or bool(re.match(r"^[A-Za-z]:[\\/]", source)))


def check_model_source(source: str, what: str) -> None:
    """Raise :class:`DocragError` when ``source`` (for ``what``, e.g. ``"retriever 'colqwen2'"``) is a
    missing local folder, not a valid hub id, or a hub id absent from the cache while offline."""
    if not source or not source.strip():
        raise DocragError(f"{what}: no model given; pass a local model folder or a hub id (owner/name)")
    path = Path(source).expanduser()
    if path.exists():
        return
    if looks_like_path(source) or not _HUB_ID.match(source) or "--" in source or ".." in source:
        raise DocragError(f"{what}: model folder {source!r} not found (and it is not a hub id like "
                          "'owner/name'); pass an existing local checkpoint folder")
    if offline() and not _in_hub_cache(source):
        raise DocragError(f"{what}: model {source!r} is not in the local Hugging Face cache and HF_HUB_OFFLINE=1 "
                          "blocks downloads; set HF_HUB_OFFLINE=0 to download it once, or pass a local folder")


def _in_hub_cache(repo_id: str) -> bool:
    """True when the hub cache holds any snapshot of ``repo_id`` (config or adapter config)."""
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:  # no hub client: nothing can be cached
        return False
    for name in ("config.json", "adapter_config.json", "modules.json"):
        found = try_to_load_from_cache(repo_id, name)
        if isinstance(found, str):
            return True
    return False
