"""``open_index``: the index of a corpus for a retriever, built or updated when needed."""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from docrag.config import load_settings
from docrag.corpus import Corpus
from docrag.errors import InputError
from docrag.index.ray_encode import RayRetriever
from docrag.index.registry import get_retriever
from docrag.index.rerank import DEFAULT_DEPTH, RerankedIndex, get_reranker
from docrag.index.search import ComposedRetriever, SearchIndex
from docrag.index.store import IndexStateError, PageIndex, SearchOptions, create_index, default_index_dir, slug
from docrag.io import read_json

log = logging.getLogger(__name__)

# retriever settings an existing index supplies when the caller does not give them
ADOPTED_SETTINGS = ("pool_factor", "chunk_words", "chunk_overlap", "query_prompt", "page_prompt", "dim",
                    "max_pixels", "min_pixels", "query_instruction", "query_length", "document_length")
# options that configure the index rather than the retriever
INDEX_OPTIONS = ("rebuild", "first_stage", "binarize", "n_centroids", "n_candidates", "max_candidates",
                 "candidates", "search_mode")


def split_options(opts: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(retriever options, index options)."""
    return ({k: v for k, v in opts.items() if k not in INDEX_OPTIONS},
            {k: v for k, v in opts.items() if k in INDEX_OPTIONS})


def search_options(index_opts: dict[str, Any], device: str | None) -> SearchOptions:
    first = index_opts.get("first_stage", SearchOptions.first_stage)
    first = tuple([first] if isinstance(first, str) else first or ())
    if index_opts.get("binarize") and "binary" not in first:
        first = (*first, "binary")
    opts = SearchOptions(first_stage=first, mode=index_opts.get("search_mode", "auto"))
    if "n_centroids" in index_opts:
        opts.n_centroids = int(index_opts["n_centroids"])
    if "n_candidates" in index_opts:
        opts.n_candidates = int(index_opts["n_candidates"])
    if "max_candidates" in index_opts:
        opts.max_candidates = int(index_opts["max_candidates"])
    if "candidates" in index_opts:
        opts.candidates = str(index_opts["candidates"])
    if device:
        opts.device = device
    return opts


def open_index(corpus: Corpus | str | Path, name: str, index_dir: str | Path | None = None, build: bool = True,
               show_progress: bool = True, store: str | None = None, engine: str | None = None,
               ray_address: str | None = None, ray_actors: int | None = None, **opts: Any) -> SearchIndex:
    """Open the index of ``corpus`` for retriever ``name`` (default folder ``<corpus>/indexes/<slug>``).

    With ``build=True`` a missing index is built and a stale one updated (only new documents are
    encoded, removed ones dropped). With ``build=False`` a missing or stale index raises
    :class:`IndexStateError`. Index options: ``rebuild`` (start over), ``first_stage``
    (``"centroids"`` (default), ``"codes"``, ``"binary"``, ``"muvera"``; several fuse by rank; multi-vector
    only), ``binarize``, ``n_centroids``,
    ``n_candidates``, ``max_candidates``, ``candidates`` (``adaptive``/``fixed``), ``search_mode``
    (``auto``/``exact``/``two-stage``; two-stage hits carry ``approximate=True``); ``rerank`` (a reranker
    name, :mod:`docrag.index.rerank`) and ``rerank_depth`` wrap the index in a rerank stage; other
    options go to the retriever (``device``, ``dtype``, ``batch_size``, ``pool_factor``, ...).

    ``store``: ``embedded`` (default: the config file's ``store``, else the in-house index) or
    ``qdrant:PATH[#collection]`` / ``qdrant:http(s)://HOST[/collection]`` (dense and multi-vector
    retrievers; sparse ones stay embedded). ``engine="ray"`` encodes new pages on a Ray actor pool
    (``ray_address``: an existing cluster, default a local one; ``ray_actors``: pool size, default
    one per GPU, else 2 CPU actors). A composed retriever (``hybrid:a+b``) gets each part's index opened
    the same way (folder ``<index_dir>/<slug of part>`` when ``index_dir`` is given).
    """
    if not isinstance(corpus, Corpus):
        corpus = Corpus.open(corpus)
    rerank, depth = opts.pop("rerank", None), opts.pop("rerank_depth", None)
    idx = _open_first_stage(corpus, name, index_dir, build, show_progress, store=store, engine=engine,
                            ray_address=ray_address, ray_actors=ray_actors, **opts)
    if not rerank:
        return idx

    device = opts.get("device")
    reranker = get_reranker(rerank, **({"device": device} if device else {}))
    return RerankedIndex(idx, reranker, corpus.page, depth=int(depth or DEFAULT_DEPTH), show_progress=show_progress)


def _open_first_stage(corpus: Corpus, name: str, index_dir: str | Path | None, build: bool, show_progress: bool,
                      store: str | None = None, engine: str | None = None, ray_address: str | None = None,
                      ray_actors: int | None = None, **opts: Any) -> SearchIndex:
    retriever_opts, index_opts = split_options(opts)
    spec = _store_spec(store)
    directory = Path(index_dir) if index_dir is not None else default_index_dir(corpus.root, name)
    if not index_opts.get("rebuild"):
        retriever_opts = {**_stored_settings(directory, name), **retriever_opts}
    retriever = get_retriever(name, **retriever_opts)
    if engine not in (None, "local", "ray"):
        raise InputError(f"unknown engine {engine!r}; choose local or ray")
    if isinstance(retriever, ComposedRetriever):   # hybrid:a+b: an index made of its parts' indexes

        def open_part(part: str, **part_opts: Any) -> SearchIndex:
            return _open_first_stage(corpus, part, None if index_dir is None else Path(index_dir) / slug(part),
                                     build, show_progress, store=store, engine=engine, ray_address=ray_address,
                                     ray_actors=ray_actors, **index_opts, **part_opts)

        return retriever.compose(open_part)
    if engine == "ray" and build:
        retriever = RayRetriever(retriever, name, retriever_opts, address=ray_address, actors=ray_actors)
    if spec is not None and retriever.kind == "sparse":
        log.info("%s is sparse: it stays in the embedded index (%s holds dense and multi-vector ones)",
                 name, spec.describe())
    elif spec is not None:
        from docrag.index.qdrant_store import open_qdrant

        if build:
            with _writer_lock(directory):
                return open_qdrant(corpus, name, retriever, spec, index_dir, index_opts, build, show_progress)
        return open_qdrant(corpus, name, retriever, spec, index_dir, index_opts, build, show_progress)
    options = search_options(index_opts, getattr(retriever, "device", None))
    if build:
        with _writer_lock(directory):
            return _open_or_update(corpus, name, retriever, directory, options, index_opts, build, show_progress)
    return _open_or_update(corpus, name, retriever, directory, options, index_opts, build, show_progress)


def _store_spec(store: str | None):
    """The parsed store: the argument, else the config's ``store`` (``DOCRAG_STORE``), else embedded."""
    from docrag.index.qdrant_store import parse_store

    if store is None:
        store = load_settings().store
    return parse_store(store)


def _stored_settings(directory: Path, name: str) -> dict[str, Any]:
    """Index-time settings of an existing index of ``name`` (token pooling, chunking, prompts), so
    searching it needs no repeat of the options it was built with; explicit options still win."""
    path = directory / "manifest.json"
    if not path.exists():
        return {}
    manifest = read_json(path)
    if manifest.get("retriever") != name:
        return {}
    return {k: v for k, v in manifest.get("settings", {}).items() if k in ADOPTED_SETTINGS}


def _outdated_sparse(directory: Path, name: str, retriever) -> bool:
    """The index in ``directory`` is this sparse retriever's, built with other settings (an older tokenizer)."""
    if retriever.kind != "sparse":
        return False
    manifest = read_json(directory / "manifest.json")
    settings = retriever.describe().get("settings", {})
    return manifest.get("retriever") == name and manifest.get("settings", {}) != settings


@contextmanager
def _writer_lock(directory: Path) -> Iterator[None]:
    """One writer per index folder at a time (another ``docrag index`` waits); readers never block."""
    directory.mkdir(parents=True, exist_ok=True)
    try:
        import fcntl
    except ImportError:  # not POSIX: no inter-process lock
        yield
        return
    with open(directory / ".lock", "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def announce_build(name: str, corpus: Corpus, have: set[str], directory: Path, show_progress: bool) -> str:
    """Say, before any model loads, that an index is being built (first run) or updated, and for how
    many pages: the one message a user sees before a long first build. Returned for tests."""
    new = [d for d in corpus.doc_ids() if d not in have]
    pages = sum(corpus.document(d).n_pages for d in new)
    if not have:
        msg = f"building the {name} index for {pages} page(s), once (saved in {directory}; later runs reuse it)"
    else:
        msg = f"updating the {name} index: {pages} new page(s) in {len(new)} document(s)"
    if show_progress:
        from tqdm import tqdm

        tqdm.write(msg, file=sys.stderr)
    else:  # no bars (a log, a pipe): still say why the first answer takes a while
        log.warning(msg)
    return msg


def _open_or_update(corpus: Corpus, name: str, retriever, directory: Path, options: SearchOptions,
                    index_opts: dict[str, Any], build: bool, show_progress: bool) -> PageIndex:
    page_source = corpus.page
    exists = (directory / "manifest.json").exists()
    if index_opts.get("rebuild") and build:
        idx = create_index(retriever, directory, page_source, options, defer=True)
    elif exists and build and _outdated_sparse(directory, name, retriever):
        # a sparse index holds nothing but the pages' terms: rebuilt from the corpus in seconds
        log.warning("%s: the %s index was built with settings %s, the retriever now uses %s; rebuilding it",
                    directory, name, read_json(directory / "manifest.json").get("settings"),
                    retriever.describe().get("settings"))
        idx = create_index(retriever, directory, page_source, options, defer=True)
    elif exists:
        idx = PageIndex.load(retriever, directory, page_source, options)
    elif build:
        idx = create_index(retriever, directory, page_source, options)
    else:
        raise IndexStateError(f"{directory}: no {name} index for corpus {corpus.root}; build it with "
                              f"'docrag index {corpus.root} --retriever {name}'")
    stale = set(idx.manifest["doc_ids"]) != set(corpus.doc_ids()) or \
        idx.manifest.get("corpus", {}).get("fingerprint") != corpus.fingerprint()
    if stale and build:
        announce_build(name, corpus, set(idx.manifest["doc_ids"]), directory, show_progress)
    if stale:
        if not build:
            have, want = set(idx.manifest["doc_ids"]), set(corpus.doc_ids())
            raise IndexStateError(
                f"{directory}: the {name} index belongs to another state of corpus {corpus.root} "
                f"(index fingerprint {idx.manifest.get('corpus', {}).get('fingerprint')}, corpus "
                f"{corpus.fingerprint()}: {len(want - have)} document(s) not indexed, {len(have - want)} removed); "
                f"update it with 'docrag index {corpus.root} --retriever {name}'")
        added, removed = idx.sync(corpus, show_progress=show_progress)
        log.info("%s index %s: %d page(s) added, %d removed", name, directory, added, removed)
    idx.finish_rebuild()
    return idx
