"""The embedded page index: a manifest plus immutable, memory-mapped segments, searched by one scorer.

Layout of an index folder::

    manifest.json                   retriever, model, settings, corpus state, live segments
    segments/<name>/...             payload files of some pages (:mod:`docrag.index.segments`)

:class:`PageIndex` owns storage and commits; the scorer of the index's payload kind (sparse, dense
or multi-vector, :mod:`docrag.index.scorers`) is chosen once when the index opens and packs, reads
and searches the payloads. Every change writes new segment folders (under a temporary name, then
renamed) and only then rewrites ``manifest.json`` atomically, so a crash mid-update leaves the
previous index loadable; folders the manifest does not name are garbage and removed on the next
update. Deleting a document only marks its rows dead in the manifest; :meth:`PageIndex.compact`
rewrites segments.
"""

from __future__ import annotations

import hashlib
import logging
import re
import shutil
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from docrag._version import __version__
from docrag.index.base import Retriever
from docrag.index.filters import filter_mask
from docrag.index.scorers import Live, Scorer, scorer_for
from docrag.index.search import SearchIndex
from docrag.index.segments import IndexStateError, SearchOptions, Segment
from docrag.io import atomic_write_json, read_versioned_json
from docrag.types import Hit, Page, split_page_id

log = logging.getLogger(__name__)

__all__ = ["SCHEMA", "SCHEMA_VERSION", "IndexStateError", "PageIndex", "SearchOptions", "Segment", "create_index",
           "default_index_dir", "doc_batches", "slug"]

SCHEMA = "docrag.index"
SCHEMA_VERSION = 1
SEGMENT_PAGES = 512           # pages per committed segment while building (crash = lose < 1 segment)

PageSource = Callable[[str], Page]


class PageIndex(SearchIndex):
    """Search and update an index of pages for one retriever (see module docstring)."""

    def __init__(self, retriever: Retriever, directory: Path | None, manifest: dict, segments: list[Segment],
                 page_source: PageSource | None, options: SearchOptions) -> None:
        self.retriever = retriever
        self.dir = directory
        self.manifest = manifest
        self.page_source = page_source
        self.options = options
        self.scorer: Scorer = scorer_for(manifest["kind"], retriever.name, options)   # chosen once
        self._cache: dict[str, Any] = {}
        self._deferred = False   # a rebuild: the manifest (the previous index) is replaced only at the end
        self._set_segments(segments)

    # -- construction --------------------------------------------------------------------------
    @classmethod
    def in_memory(cls, retriever: Retriever, pages: list[Page], show_progress: bool = False,
                  options: SearchOptions | None = None) -> PageIndex:
        by_id = {p.page_id: p for p in pages}
        idx = cls(retriever, None, _new_manifest(retriever, options or SearchOptions()), [],
                  by_id.__getitem__, options or SearchOptions())
        idx.add(pages, show_progress=show_progress)
        return idx

    @classmethod
    def load(cls, retriever: Retriever, directory: Path, page_source: PageSource | None,
             options: SearchOptions) -> PageIndex:
        path = directory / "manifest.json"
        manifest = read_versioned_json(path, SCHEMA, SCHEMA_VERSION, IndexStateError, what="index",
                                       missing=f"{directory}: no index here (no manifest.json); build it with "
                                               f"'docrag index CORPUS --retriever {retriever.name}'")
        _check_compatible(manifest, retriever, path)
        stored = manifest.get("first_stage")
        if stored is not None:
            options.first_stage = tuple(stored)
            options.n_centroids = int(manifest.get("n_centroids", options.n_centroids))
        segs = [Segment.load(directory / "segments" / s["name"], manifest["kind"], s.get("dead", []))
                for s in manifest["segments"]]
        return cls(retriever, directory, manifest, segs, page_source, options)

    # -- properties ----------------------------------------------------------------------------
    @property
    def name(self) -> str:
        return self.retriever.name

    @property
    def kind(self) -> str:
        return self.manifest["kind"]

    @property
    def page_ids(self) -> list[str]:
        return [pid for _, _, pid in self._live()]

    @property
    def doc_ids(self) -> list[str]:
        return sorted(self.manifest["doc_ids"])

    def __len__(self) -> int:
        return sum(len(s) - len(s.dead) for s in self.segments)

    def _live(self) -> Live:
        """(segment index, row, page id) of live pages, in index order (cached)."""
        if "live" not in self._cache:
            self._cache["live"] = [(si, r, s.page_ids[r]) for si, s in enumerate(self.segments)
                                   for r in range(len(s)) if r not in s.dead]
        return self._cache["live"]

    def _set_segments(self, segments: list[Segment]) -> None:
        """The live segments from now on; the scorer forgets what it derived from the previous ones."""
        self.segments = segments
        self._cache.clear()
        self.scorer.attach(self.segments, self._live())

    # -- updates -------------------------------------------------------------------------------
    def add(self, pages: Sequence[Page], show_progress: bool = True) -> int:
        """Encode and add pages not yet indexed; commits every ~SEGMENT_PAGES pages (whole documents)."""
        have = set(self.page_ids)
        todo = [p for p in pages if p.page_id not in have]
        if not todo:
            return 0
        for batch in doc_batches(todo, SEGMENT_PAGES):
            self._add_segment(batch, show_progress)
        return len(todo)

    def _add_segment(self, pages: list[Page], show_progress: bool) -> None:
        t0 = time.perf_counter()
        payloads = self.retriever.encode_pages(pages, show_progress=show_progress)
        if len(payloads) != len(pages):
            raise RuntimeError(f"{self.name}: encode_pages returned {len(payloads)} payloads for {len(pages)} pages")
        seg = self.scorer.pack([p.page_id for p in pages], payloads)
        self._record_dims(seg)
        docs = sorted(set(self.manifest["doc_ids"]) | {p.doc_id for p in pages})
        self._commit(self.segments + [seg], new=[seg], doc_ids=docs)
        log.info("%s: indexed %d page(s) in %.1fs", self.name, len(pages), time.perf_counter() - t0)

    def delete(self, doc_id: str) -> int:
        """Remove every page of a document; returns how many pages were removed."""
        return self.delete_documents([doc_id])

    def delete_documents(self, doc_ids: Iterable[str]) -> int:
        gone = set(doc_ids)
        removed = 0
        for seg in self.segments:
            for r, pid in enumerate(seg.page_ids):
                if r not in seg.dead and split_page_id(pid)[0] in gone:
                    seg.dead.add(r)
                    removed += 1
        keep = [s for s in self.segments if len(s.dead) < len(s)]
        self._commit(keep, new=[], doc_ids=sorted(set(self.manifest["doc_ids"]) - gone))
        if self.segments and sum(len(s.dead) for s in self.segments) > sum(len(s) for s in self.segments) // 2:
            self.compact()
        return removed

    def compact(self) -> None:
        """Rewrite all segments into one without dead rows."""
        if len(self.segments) <= 1 and not any(s.dead for s in self.segments):
            return
        payloads, ids = [], []
        for seg in self.segments:
            for r in seg.live_rows():
                ids.append(seg.page_ids[r])
                payloads.append(self.scorer.payload(seg, int(r)))
        segs = [self.scorer.pack(ids, payloads)] if ids else []
        self._commit(segs, new=segs, doc_ids=self.manifest["doc_ids"])

    def sync(self, corpus, show_progress: bool = True) -> tuple[int, int]:
        """Bring the index in line with ``corpus``: drop removed documents, encode new ones."""
        want = set(corpus.doc_ids())
        have = set(self.manifest["doc_ids"])
        removed = self.delete_documents(sorted(have - want)) if have - want else 0
        added = self.add(corpus.pages(sorted(want - have)), show_progress=show_progress) if want - have else 0
        self.manifest["corpus"] = {"root": str(corpus.root), "fingerprint": corpus.fingerprint(),
                                   "n_documents": len(want)}
        self._commit(self.segments, new=[], doc_ids=sorted(want))
        return added, removed

    def finish_rebuild(self) -> None:
        """Commit a deferred rebuild: its manifest replaces the previous index's (the commit point)."""
        if self._deferred:
            self._deferred = False
            self._commit(self.segments, new=[], doc_ids=self.manifest["doc_ids"])

    def _record_dims(self, seg: Segment) -> None:
        arr = seg.vectors if seg.vectors is not None else seg.tokens
        if arr is not None and arr.ndim == 2 and arr.shape[0]:
            dims = int(arr.shape[1])
            if self.manifest.get("dims") not in (None, dims):
                raise IndexStateError(f"{self.name}: new pages have {dims} dims, the index has {self.manifest['dims']}")
            self.manifest["dims"] = dims

    def _commit(self, segments: list[Segment], new: list[Segment], doc_ids: list[str]) -> None:
        """Persist new segments, then the manifest (the commit point), then remove garbage."""
        self._set_segments(segments)
        self.manifest["doc_ids"] = list(doc_ids)
        self.manifest["segments"] = [{"name": s.name, "n_pages": len(s), "dead": sorted(s.dead)} for s in segments]
        self.manifest["page_ids"] = [pid for _, _, pid in self._live()]
        self.manifest["n_pages"] = len(self.manifest["page_ids"])
        self.manifest["updated"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        self.manifest["docrag_version"] = __version__
        if self.dir is None:
            return
        seg_root = self.dir / "segments"
        seg_root.mkdir(parents=True, exist_ok=True)
        for seg in new:
            seg.save(seg_root)
        if self._deferred:   # rebuilding: the old manifest and its segments stay until finish_rebuild()
            return
        atomic_write_json(self.dir / "manifest.json", self.manifest)
        # reload fresh segments memory-mapped so RAM holds only what searches touch
        for i, seg in enumerate(self.segments):
            if seg in new:
                self.segments[i] = Segment.load(seg_root / seg.name, self.kind, seg.dead)
        live = {s.name for s in self.segments}
        for child in seg_root.iterdir():
            if child.name not in live:
                shutil.rmtree(child, ignore_errors=True)

    # -- search --------------------------------------------------------------------------------
    def search_batch(self, queries: Sequence[str], k: int = 10, filter: dict | None = None) -> list[list[Hit]]:
        queries = list(queries)
        if not queries:
            return []
        if not self._live() or k <= 0:
            return [[] for _ in queries]
        allowed = self._filter_mask(filter) if filter else None
        return self.scorer.search(self.retriever.encode_queries(queries), k, allowed)

    @property
    def last_search(self) -> dict[str, Any]:
        """How the last multi-vector search ran (mode, approximate, first stages, pages reranked)."""
        return self.scorer.last_search

    def _filter_mask(self, filt: dict) -> np.ndarray:
        if self.page_source is None:
            raise IndexStateError("this index has no page records attached; filters need the corpus")
        key = repr(sorted(filt.items(), key=lambda kv: kv[0]))
        cached = self._cache.get("filter")
        if cached and cached[0] == key:
            return cached[1]
        mask = filter_mask([self.page_source(pid) for _, _, pid in self._live()], filt)
        self._cache["filter"] = (key, mask)
        return mask


def doc_batches(pages: Sequence[Page], size: int) -> Iterator[list[Page]]:
    """``pages`` in batches of whole documents, each closed once it holds ``size`` pages or more."""
    groups: dict[str, list[Page]] = {}
    for p in pages:
        groups.setdefault(p.doc_id, []).append(p)
    batch: list[Page] = []
    for doc_pages in groups.values():
        batch.extend(doc_pages)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def _new_manifest(retriever: Retriever, options: SearchOptions) -> dict:
    info = retriever.describe()
    m = {"schema": SCHEMA, "schema_version": SCHEMA_VERSION, "docrag_version": __version__,
         "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), **info,
         "retriever": retriever.name, "kind": retriever.kind, "input": retriever.input,
         "dims": info.get("dims"), "corpus": {}, "doc_ids": [], "segments": [], "page_ids": [], "n_pages": 0}
    m["model_dtype"] = info.get("dtype")
    if retriever.kind == "multi":
        m["first_stage"] = list(options.first_stage)
        m["n_centroids"] = options.n_centroids
        m["search"] = {"mode": options.mode, "candidates": options.candidates,
                       "n_candidates": options.n_candidates, "max_candidates": options.max_candidates,
                       "approximate": "two-stage searches (mode two-stage, or auto above max_candidates pages) "
                                      "rerank first-stage candidates; search_mode=exact scores every page"}
        m["dtype"] = "float16"
    return m


def _check_compatible(manifest: dict, retriever: Retriever, path: Path) -> None:
    info = retriever.describe()
    if manifest.get("retriever") != retriever.name:
        raise IndexStateError(f"{path}: this index was built by retriever {manifest.get('retriever')!r}, not "
                              f"{retriever.name!r}; choose another --index-dir or rebuild with --rebuild")
    for key in ("model", "revision"):
        if info.get(key) and manifest.get(key) and info[key] != manifest[key]:
            raise IndexStateError(f"{path}: built with {key} {manifest[key]!r}, the retriever now has {info[key]!r}; "
                                  "rebuild with --rebuild")
    if manifest.get("settings", {}) != info.get("settings", {}):
        raise IndexStateError(f"{path}: built with settings {manifest.get('settings')}, asked for "
                              f"{info.get('settings')}; use the same settings or rebuild with --rebuild")


def slug(name: str) -> str:
    """A folder name for a retriever name (``colqwen2:/models/x`` -> ``colqwen2-models-x``)."""
    s = re.sub(r"[^A-Za-z0-9._+-]+", "-", name).strip("-.") or "index"
    if len(s) > 80:
        s = f"{s[:60]}-{hashlib.sha256(name.encode()).hexdigest()[:12]}"
    return s


def default_index_dir(corpus_root: Path, name: str) -> Path:
    return Path(corpus_root) / "indexes" / slug(name)


def create_index(retriever: Retriever, directory: Path, page_source: PageSource | None,
                 options: SearchOptions, defer: bool = False) -> PageIndex:
    """A new empty index in ``directory`` (replaces whatever index was there atomically).

    ``defer``: a rebuild. Nothing replaces the index already there until :meth:`PageIndex.finish_rebuild`
    commits the new one, so a rebuild killed halfway leaves the previous index loadable.
    """
    directory.mkdir(parents=True, exist_ok=True)
    idx = PageIndex(retriever, directory, _new_manifest(retriever, options), [], page_source, options)
    idx._deferred = defer
    idx._commit([], new=[], doc_ids=[])
    return idx
