"""Qdrant plumbing for :mod:`docrag.index.qdrant_store`: ``--store`` parsing, clients, point ids, payloads, filters."""

from __future__ import annotations

import atexit
import hashlib
import os
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from docrag.errors import DocragError, InputError, MissingDependencyError
from docrag.types import Page

PAYLOAD_FIELDS = ("page_id", "doc_id", "page_no", "file_name", "lang", "text_source")
_ALIASES = {"doc_ids": "doc_id", "page_ids": "page_id", "file_names": "file_name", "langs": "lang",
            "pages": "page_no"}
_NAMESPACE = uuid.UUID("6f1c2a40-9d3e-4c55-8f63-2a1d0c7b9e11")
_CLIENTS: dict[str, Any] = {}   # one client per local folder per process (local mode locks the folder)


@dataclass(frozen=True)
class StoreSpec:
    """A parsed ``--store`` value."""

    location: str                  # folder (local mode) or URL
    collection: str | None = None
    remote: bool = False

    def describe(self) -> str:
        return f"qdrant:{self.location}" + (f"/{self.collection}" if self.collection else "")


def parse_store(spec: str | None) -> StoreSpec | None:
    """``None``/``""``/``embedded`` -> None (the in-house index); ``qdrant:...`` -> :class:`StoreSpec`."""
    if spec is None or not str(spec).strip() or str(spec).strip() in ("embedded", "local"):
        return None
    kind, sep, rest = str(spec).strip().partition(":")
    if kind != "qdrant" or not sep or not rest:
        raise InputError(f"--store {spec!r}: expected 'embedded', 'qdrant:PATH[#collection]' or "
                         "'qdrant:http(s)://HOST[:PORT][/collection]'")
    if rest.startswith(("http://", "https://")):
        scheme, _, hostpath = rest.partition("://")
        host, _, coll = hostpath.partition("/")
        return StoreSpec(f"{scheme}://{host}", coll.strip("/") or None, remote=True)
    path, _, coll = rest.partition("#")
    return StoreSpec(str(Path(path).expanduser()), coll or None, remote=False)


def client_for(spec: StoreSpec):
    """A qdrant-client for ``spec`` (cached: local mode allows one client per folder)."""
    try:
        from qdrant_client import QdrantClient
    except ImportError as exc:  # pragma: no cover - a declared dependency

        raise MissingDependencyError("--store qdrant needs qdrant-client: pip install qdrant-client") from exc
    key = spec.location
    if not _CLIENTS:
        atexit.register(close_clients)   # before interpreter teardown, where the client's __del__ fails
    if key not in _CLIENTS:
        if spec.remote:
            _CLIENTS[key] = QdrantClient(url=spec.location, api_key=os.environ.get("QDRANT_API_KEY") or None,
                                         timeout=120)
        else:
            Path(spec.location).mkdir(parents=True, exist_ok=True)
            _CLIENTS[key] = QdrantClient(path=spec.location)
    return _CLIENTS[key]


def close_clients() -> None:
    """Close every cached client (releases local-mode folder locks)."""
    for client in _CLIENTS.values():
        client.close()
    _CLIENTS.clear()


def point_id(page_id: str) -> str:
    """Deterministic point id of a page (re-upserting a page replaces it)."""
    return str(uuid.uuid5(_NAMESPACE, page_id))


def default_collection(corpus_root: Path, name: str) -> str:
    from docrag.index.store import slug

    tag = hashlib.sha256(str(Path(corpus_root).resolve()).encode()).hexdigest()[:8]
    return f"docrag-{slug(name)}-{tag}"


def page_payload(page: Page) -> dict[str, Any]:
    out: dict[str, Any] = {"page_id": page.page_id, "doc_id": page.doc_id, "page_no": int(page.page_no),
                           "file_name": page.file_name, "lang": page.lang,
                           "text_source": getattr(page.text_source, "value", page.text_source)}
    meta = getattr(page, "meta", None)
    if isinstance(meta, dict) and meta:
        out["meta"] = meta
    return out


def qdrant_filter(filt: dict | None):
    """A docrag filter (``{field: value or [values]}``) as a Qdrant filter on the payload."""
    if not filt:
        return None
    from qdrant_client import models as m

    must = []
    for name, value in filt.items():
        key = _ALIASES.get(name, name)
        if key not in PAYLOAD_FIELDS and not key.startswith("meta."):
            raise DocragError(f"unknown filter field {name!r} for a qdrant store; filter on "
                              f"{', '.join(PAYLOAD_FIELDS)} or meta.<key>")
        values = list(value) if isinstance(value, (list, tuple, set, frozenset)) else [value]
        values = [getattr(v, "value", v) for v in values]
        if key == "page_no":
            values = [int(v) for v in values]
        must.append(m.FieldCondition(key=key, match=m.MatchAny(any=values) if len(values) > 1
                                     else m.MatchValue(value=values[0])))
    return m.Filter(must=must)
