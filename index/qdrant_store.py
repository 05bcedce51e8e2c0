"""Qdrant as the page store: ``--store qdrant:PATH[#collection]`` or ``qdrant:http(s)://HOST[:PORT][/collection]``.

A :class:`~docrag.index.search.SearchIndex`, like the embedded
:class:`docrag.index.store.PageIndex`. Multi-vector retrievers become multivector points compared
with ``MAX_SIM`` (dot product, exactly the in-house MaxSim), single-vector ones cosine points. Token
matrices are stored fp16-rounded, as the in-house index stores them, so both engines score the same
vectors. Each point carries the page fields that filters use (``page_id``, ``doc_id``, ``page_no``,
``file_name``, ``lang``, ``text_source`` and the page's user ``meta`` when present).

Options: ``binarize`` adds binary quantization (searched with rescoring and oversampling);
multi-vector collections also hold a ``pooled`` multivector (per-page k-means centroids, the
in-house first stage), and ``search_mode="two-stage"`` (or ``auto`` above a size) runs it as a
Qdrant prefetch whose candidates are re-scored with the full ``MAX_SIM``.

``PATH`` opens qdrant-client's embedded local mode (exact brute-force search, one process per
folder); a URL talks to a server or cluster, with the API key from ``$QDRANT_API_KEY``. The store's
state (documents held, corpus fingerprint) is a small manifest beside the corpus; opening a store
that lags the corpus updates it (``build=True``) or says so (:class:`IndexStateError`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from docrag._version import __version__
from docrag.errors import DocragError, InputError
from docrag.index.base import Retriever
from docrag.index.qdrant_spec import (  # noqa: F401  (re-exported)
    PAYLOAD_FIELDS,
    StoreSpec,
    client_for,
    close_clients,
    default_collection,
    page_payload,
    parse_store,
    point_id,
    qdrant_filter,
)
from docrag.index.search import SearchIndex
from docrag.index.segments import IndexStateError
from docrag.index.store import default_index_dir, doc_batches
from docrag.io import atomic_write_json, read_json
from docrag.types import Hit, Page

log = logging.getLogger(__name__)

SCHEMA = "docrag.qdrant"
SCHEMA_VERSION = 1
UPSERT_POINTS = 32            # points per upsert request
ENCODE_PAGES = 512            # pages encoded between manifest commits (whole documents)


@dataclass
class QdrantOptions:
    binarize: bool = False
    n_centroids: int = 32
    n_candidates: int = 256
    mode: str = "auto"       # auto | exact | two-stage (multi-vector only)
    min_two_stage: int = 20000   # auto on a server: pages from which the pooled prefetch is used (docs/scale.md)
    oversampling: float = 2.0


class QdrantIndex(SearchIndex):
    """A retriever's pages in one Qdrant collection (see module docstring)."""

    def __init__(self, retriever: Retriever, spec: StoreSpec, collection: str, manifest_path: Path,
                 options: QdrantOptions | None = None) -> None:
        self.retriever = retriever
        self.spec = spec
        self.collection = collection
        self.manifest_path = Path(manifest_path)
        self.options = options or QdrantOptions()
        self.client = client_for(spec)
        self.dir = self.manifest_path.parent
        self.manifest = self._read_manifest()

    # -- properties ----------------------------------------------------------------------------
    @property
    def name(self) -> str:
        return self.retriever.name

    @property
    def kind(self) -> str:
        return self.retriever.kind

    @property
    def doc_ids(self) -> list[str]:
        return sorted(self.manifest["doc_ids"])

    def __len__(self) -> int:
        if not self.client.collection_exists(self.collection):
            return 0
        return int(self.client.count(self.collection, exact=True).count)

    @property
    def page_ids(self) -> list[str]:
        """Page ids held by the collection (scrolled from the payload), in corpus order."""
        out: list[str] = []
        if not self.client.collection_exists(self.collection):
            return out
        offset = None
        while True:
            points, offset = self.client.scroll(self.collection, limit=1024, offset=offset,
                                                with_payload=["page_id"], with_vectors=False)
            out.extend(p.payload["page_id"] for p in points)
            if offset is None:
                break
        return sorted(out, key=_page_order)

    # -- manifest ------------------------------------------------------------------------------
    def _read_manifest(self) -> dict:
        if self.manifest_path.exists():
            m = read_json(self.manifest_path)
            if m.get("schema") != SCHEMA or int(m.get("schema_version", 0)) > SCHEMA_VERSION:
                raise IndexStateError(f"{self.manifest_path}: not a docrag qdrant manifest of a known version")
            return m
        info = self.retriever.describe()
        return {"schema": SCHEMA, "schema_version": SCHEMA_VERSION, "docrag_version": __version__, **info,
                "retriever": self.retriever.name, "kind": self.retriever.kind, "store": self.spec.describe(),
                "collection": self.collection, "dims": info.get("dims"), "binarize": self.options.binarize,
                "n_centroids": self.options.n_centroids, "corpus": {}, "doc_ids": [], "n_pages": 0}

    def _save(self) -> None:
        self.manifest["updated"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        self.manifest_path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_json(self.manifest_path, self.manifest)

    def check_compatible(self) -> None:
        info = self.retriever.describe()
        if self.manifest.get("retriever") != self.retriever.name:
            raise IndexStateError(f"{self.manifest_path}: this store holds retriever "
                                  f"{self.manifest.get('retriever')!r}, not {self.retriever.name!r}; name another "
                                  "collection or rebuild with --rebuild")
        if self.manifest.get("settings", {}) != info.get("settings", {}):
            raise IndexStateError(f"{self.manifest_path}: built with settings {self.manifest.get('settings')}, asked "
                                  f"for {info.get('settings')}; use the same settings or rebuild with --rebuild")

    # -- collection ----------------------------------------------------------------------------
    def reset(self) -> None:
        """Drop the collection and forget every document (``--rebuild``)."""
        if self.client.collection_exists(self.collection):
            self.client.delete_collection(self.collection)
        self.manifest.update(doc_ids=[], n_pages=0, dims=None, corpus={})
        self._save()

    def _ensure_collection(self, dims: int) -> None:
        if self.client.collection_exists(self.collection):
            return
        from qdrant_client import models as m

        quant = (m.BinaryQuantization(binary=m.BinaryQuantizationConfig(always_ram=True))
                 if self.options.binarize else None)
        if self.kind == "multi":
            maxsim = m.MultiVectorConfig(comparator=m.MultiVectorComparator.MAX_SIM)
            # tokens: exact MaxSim (one stage) or rescoring only, so no HNSW graph (m=0), kept on disk;
            # pooled: the small first stage, HNSW-indexed on a server
            vectors = {"tokens": m.VectorParams(size=dims, distance=m.Distance.DOT, multivector_config=maxsim,
                                                datatype=m.Datatype.FLOAT16, on_disk=True,
                                                hnsw_config=m.HnswConfigDiff(m=0)),
                       "pooled": m.VectorParams(size=dims, distance=m.Distance.DOT, multivector_config=maxsim,
                                                datatype=m.Datatype.FLOAT16)}
        elif self.kind == "dense":
            vectors = {"dense": m.VectorParams(size=dims, distance=m.Distance.COSINE)}
        else:
            raise DocragError(f"{self.name}: a qdrant store holds dense and multi-vector retrievers, not "
                              f"{self.kind!r} ones (keep bm25 in the embedded index)")
        self.client.create_collection(self.collection, vectors_config=vectors, quantization_config=quant)
        if self.spec.remote:  # local mode has no payload indexes
            for key, schema in (("doc_id", m.PayloadSchemaType.KEYWORD), ("file_name", m.PayloadSchemaType.KEYWORD),
                                ("lang", m.PayloadSchemaType.KEYWORD), ("page_no", m.PayloadSchemaType.INTEGER)):
                self.client.create_payload_index(self.collection, key, field_schema=schema)
        self.manifest["dims"] = dims

    # -- updates -------------------------------------------------------------------------------
    def add(self, pages: Sequence[Page], show_progress: bool = True) -> int:
        """Encode and upsert the pages of documents not held yet; the manifest commits whole documents."""
        have = set(self.manifest["doc_ids"])
        todo = [p for p in pages if p.doc_id not in have]
        for batch in doc_batches(todo, ENCODE_PAGES):
            self._add_batch(batch, show_progress)
        return len(todo)

    def _add_batch(self, pages: list[Page], show_progress: bool) -> None:
        from qdrant_client import models as m

        payloads = self.retriever.encode_pages(pages, show_progress=show_progress)
        if len(payloads) != len(pages):
            raise RuntimeError(f"{self.name}: encode_pages returned {len(payloads)} payloads for {len(pages)} pages")
        dims = next((int(np.asarray(p).shape[-1]) for p in payloads if np.asarray(p).size), 0)
        self._ensure_collection(dims)
        n_points = 0
        for i in range(0, len(pages), UPSERT_POINTS):   # lists of floats are built one request at a time
            points = [m.PointStruct(id=point_id(p.page_id), vector=v, payload=page_payload(p))
                      for p, v in ((p, self._vectors(x)) for p, x in zip(pages[i:i + UPSERT_POINTS],
                                                                           payloads[i:i + UPSERT_POINTS], strict=True))
                      if v]
            if points:
                self.client.upsert(self.collection, points, wait=True)
            n_points += len(points)
        self.manifest["doc_ids"] = sorted(set(self.manifest["doc_ids"]) | {p.doc_id for p in pages})
        self.manifest["n_pages"] = int(self.manifest.get("n_pages", 0)) + n_points
        self._save()

    def _vectors(self, payload: Any) -> dict[str, Any]:
        """Named vectors of one page (empty for a page without tokens)."""
        if self.kind == "dense":
            return {"dense": np.asarray(payload, np.float32).tolist()}
        from docrag.index.twostage import page_centroids

        arr = np.asarray(payload, np.float32)
        arr = arr[np.any(arr != 0, axis=1)].astype(np.float16)   # as the in-house index stores them
        if not len(arr):
            return {}
        cent, _ = page_centroids(arr, np.array([0, len(arr)], np.int64), self.options.n_centroids)
        return {"tokens": arr.astype(np.float32).tolist(), "pooled": cent.astype(np.float32).tolist()}

    def delete_documents(self, doc_ids: Sequence[str]) -> int:
        """Delete every point of ``doc_ids``; returns how many pages went."""
        from qdrant_client import models as m

        gone = sorted(set(doc_ids))
        if not gone or not self.client.collection_exists(self.collection):
            return 0
        flt = m.Filter(must=[m.FieldCondition(key="doc_id", match=m.MatchAny(any=gone))])
        n = int(self.client.count(self.collection, count_filter=flt, exact=True).count)
        self.client.delete(self.collection, points_selector=m.FilterSelector(filter=flt), wait=True)
        self.manifest["doc_ids"] = sorted(set(self.manifest["doc_ids"]) - set(gone))
        self.manifest["n_pages"] = max(0, int(self.manifest.get("n_pages", 0)) - n)
        self._save()
        return n

    def lag(self, corpus) -> str | None:
        """Why this store is behind ``corpus`` (one line), or None when it is in step."""
        want, have = set(corpus.doc_ids()), set(self.manifest["doc_ids"])
        held = len(self)
        if want != have:
            return (f"{len(want - have)} document(s) of the corpus not in the store, {len(have - want)} "
                    "removed from the corpus still in it")
        if held != int(self.manifest.get("n_pages", 0)):
            return f"the collection holds {held} point(s), its manifest {self.manifest.get('n_pages')}"
        return None

    def sync(self, corpus, show_progress: bool = True) -> tuple[int, int]:
        """Bring the collection in step with ``corpus``: delete removed documents, add new ones."""
        want = set(corpus.doc_ids())
        if not self.client.collection_exists(self.collection):
            if self.manifest["doc_ids"]:
                log.warning("%s: collection %s is gone; uploading every page again", self.name, self.collection)
            self.manifest.update(doc_ids=[], n_pages=0)
        elif len(self) != int(self.manifest.get("n_pages", 0)):
            log.warning("%s: collection %s holds %d point(s), the manifest %s; re-checking every document",
                        self.name, self.collection, len(self), self.manifest.get("n_pages"))
            self._recount()
        removed = self.delete_documents(sorted(set(self.manifest["doc_ids"]) - want))
        added = self.add(corpus.pages(sorted(want - set(self.manifest["doc_ids"]))), show_progress=show_progress)
        self.manifest["corpus"] = {"root": str(corpus.root), "fingerprint": corpus.fingerprint(),
                                   "n_documents": len(want)}
        self._save()
        return added, removed

    def _recount(self) -> None:
        """Rebuild the manifest's document list from the points actually stored (after outside changes)."""
        counts: dict[str, int] = {}
        offset = None
        while True:
            points, offset = self.client.scroll(self.collection, limit=1024, offset=offset,
                                                with_payload=["doc_id"], with_vectors=False)
            for p in points:
                counts[p.payload["doc_id"]] = counts.get(p.payload["doc_id"], 0) + 1
            if offset is None:
                break
        self.manifest["doc_ids"] = sorted(counts)
        self.manifest["n_pages"] = sum(counts.values())

    # -- search --------------------------------------------------------------------------------
    def search_batch(self, queries: Sequence[str], k: int = 10, filter: dict | None = None) -> list[list[Hit]]:
        queries = list(queries)
        if not queries:
            return []
        if k <= 0 or not self.client.collection_exists(self.collection):
            return [[] for _ in queries]
        from qdrant_client import models as m

        flt = qdrant_filter(filter)
        encoded = self.retriever.encode_queries(queries)
        params = (m.SearchParams(quantization=m.QuantizationSearchParams(
            rescore=True, oversampling=self.options.oversampling)) if self.options.binarize and self.spec.remote
            else None)
        requests = [self._request(q, k, flt, params) for q in encoded]
        results = self.client.query_batch_points(self.collection, requests)
        return [[Hit(page_id=p.payload["page_id"], score=float(p.score), rank=r + 1, retriever=self.name)
                 for r, p in enumerate(res.points)] for res in results]

    def two_stage(self, k: int) -> bool:
        if self.kind != "multi" or self.options.mode == "exact":
            return False
        if self.options.mode == "two-stage":
            return True
        # local mode scans everything in Python: the pooled stage pays as soon as it prunes (as in-house);
        # a server scans native code, so one exact stage is kept up to min_two_stage pages
        floor = self.options.min_two_stage if self.spec.remote else 0
        return int(self.manifest.get("n_pages", 0)) > max(floor, 2 * max(self.options.n_candidates, k))

    def _request(self, q: Any, k: int, flt, params):
        from qdrant_client import models as m

        if self.kind == "dense":
            return m.QueryRequest(query=np.asarray(q, np.float32).tolist(), using="dense", limit=k, filter=flt,
                                  params=params, with_payload=["page_id"])
        vec = np.asarray(q, np.float32).tolist()
        prefetch = None
        if self.two_stage(k):
            prefetch = m.Prefetch(query=vec, using="pooled", limit=max(self.options.n_candidates, k), filter=flt,
                                  params=params)
        return m.QueryRequest(query=vec, using="tokens", prefetch=prefetch, limit=k, filter=flt, params=params,
                              with_payload=["page_id"])


def _page_order(pid: str) -> tuple[str, int]:
    from docrag.types import split_page_id

    doc, no = split_page_id(pid)
    return doc, int(no)


def open_qdrant(corpus, name: str, retriever: Retriever, spec: StoreSpec, index_dir: str | Path | None,
                index_opts: dict[str, Any], build: bool, show_progress: bool) -> QdrantIndex:
    """The Qdrant store of ``corpus`` for ``retriever``, brought in step when ``build`` (see module docstring)."""
    if retriever.kind == "sparse":
        raise InputError(f"--store qdrant holds dense and multi-vector retrievers; {name} is sparse "
                         "(keep it embedded, or use a hybrid: its sparse part stays embedded)")
    collection = spec.collection or default_collection(corpus.root, name)
    base = Path(index_dir) if index_dir is not None else default_index_dir(corpus.root, name)
    opts = QdrantOptions(binarize=bool(index_opts.get("binarize")),
                         mode=str(index_opts.get("search_mode", "auto")))
    for key in ("n_centroids", "n_candidates"):
        if key in index_opts:
            setattr(opts, key, int(index_opts[key]))
    idx = QdrantIndex(retriever, spec, collection, base / "qdrant" / f"{collection}.json", opts)
    if index_opts.get("rebuild") and build:
        idx.reset()
    if idx.manifest_path.exists():
        idx.check_compatible()
        idx.options.binarize = bool(idx.manifest.get("binarize", idx.options.binarize))
        idx.options.n_centroids = int(idx.manifest.get("n_centroids", idx.options.n_centroids))
    lag = idx.lag(corpus)
    stale = lag is not None or idx.manifest.get("corpus", {}).get("fingerprint") != corpus.fingerprint()
    if stale and not build:
        raise IndexStateError(f"{spec.describe()} collection {collection}: the store lags corpus {corpus.root} "
                              f"({lag or 'fingerprint changed'}); update it with 'docrag index {corpus.root} "
                              f"--retriever {name} --store {spec.describe()}'")
    if stale:
        added, removed = idx.sync(corpus, show_progress=show_progress)
        log.info("%s qdrant store %s: %d page(s) added, %d removed", name, collection, added, removed)
    return idx
