"""``docrag index --engine ray``: pages are encoded on a Ray actor pool, batches stream back to the writer.

:class:`RayRetriever` wraps a retriever: ``encode_pages`` splits the pages into batches, sends
them to a pool of actors (one model replica per GPU of the cluster, else ``actors`` CPU actors)
and returns the payloads in page order as the batches come back; everything else (queries, the
manifest's description) is the wrapped retriever's, so the index writer, its atomic commits and
its resume are unchanged. Actors load the same retriever by name and options, so their vectors
equal local encoding (up to floating-point differences between devices). Page images are read by
the actors from the corpus folder: on a multi-node cluster it must be on shared storage (see
docs/scale.md). An actor that dies is restarted and its batch retried by Ray.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Sequence
from typing import Any

from docrag.index.base import Retriever
from docrag.index.registry import get_retriever
from docrag.raycluster import cluster_cpus, cluster_gpus, ensure_ray
from docrag.types import Page

log = logging.getLogger(__name__)

BATCH_PAGES = 16   # pages per task sent to an actor


MODELS_PER_ACTOR = 2   # retrievers an actor keeps loaded (hybrid parts, successive indexes)
_POOLS: dict[tuple, list[Any]] = {}   # (address, actors, GPUs) -> live actors, shared by every RayRetriever


class _Encoder:
    """Actor body: encodes batches of pages with retrievers made by name (the last few kept loaded)."""

    def __init__(self) -> None:
        self.models: dict[str, Retriever] = {}

    def encode(self, name: str, opts: dict[str, Any], pages: list[Page]) -> list[Any]:
        key = f"{name} {sorted(opts.items())!r}"
        if key not in self.models:
            while len(self.models) >= MODELS_PER_ACTOR:
                self.models.pop(next(iter(self.models)))
            self.models[key] = get_retriever(name, **opts)
        return self.models[key].encode_pages(pages, show_progress=False)


class RayRetriever(Retriever):
    """A retriever whose page encoding runs on a Ray actor pool (see module docstring)."""

    def __init__(self, base: Retriever, name: str, opts: dict[str, Any], address: str | None = None,
                 actors: int | None = None, batch_pages: int = BATCH_PAGES) -> None:
        self.base = base
        self.name = name
        self.kind = base.kind
        self.input = base.input
        self.opts = dict(opts)
        self.address = address
        self.n_actors = actors
        self.batch_pages = max(1, int(batch_pages))
        self._actors: list[Any] = []
        self._key: tuple = ()

    def __getattr__(self, attr: str) -> Any:   # device, dtype, ... of the wrapped retriever
        if attr == "base":
            raise AttributeError(attr)
        return getattr(self.base, attr)

    def describe(self) -> dict[str, Any]:
        return self.base.describe()

    def encode_queries(self, queries: Sequence[str], show_progress: bool = False) -> list[Any]:
        return self.base.encode_queries(queries, show_progress=show_progress)

    def _pool(self):
        ray = ensure_ray(self.address)
        if not self._actors:
            gpus = cluster_gpus(ray)
            n = self.n_actors or gpus or min(2, cluster_cpus(ray))
            if not gpus and "device" not in self.opts:
                self.opts["device"] = "cpu"
            self._key = (self.address, n, gpus)
            if self._key not in _POOLS:
                per = {"num_gpus": 1} if gpus else {"num_cpus": 1}
                actor = ray.remote(max_restarts=2, max_task_retries=2, **per)(_Encoder)
                _POOLS[self._key] = [actor.remote() for _ in range(n)]
                log.info("encoding on %d Ray actor(s) (%s)", n, "1 GPU each" if gpus else "1 CPU each")
            self._actors = _POOLS[self._key]
        return ray

    def encode_pages(self, pages: Sequence[Page], show_progress: bool = True) -> list[Any]:
        pages = list(pages)
        if not pages:
            return []
        ray = self._pool()
        from tqdm.auto import tqdm

        batches = [pages[i:i + self.batch_pages] for i in range(0, len(pages), self.batch_pages)]
        out: list[list[Any] | None] = [None] * len(batches)
        window = 2 * len(self._actors)
        todo = deque(enumerate(batches))
        running: dict[Any, int] = {}
        bar = tqdm(total=len(pages), desc=f"encode {self.name} (ray)", unit="page", disable=not show_progress)
        try:
            while todo or running:
                while todo and len(running) < window:
                    bi, batch = todo.popleft()
                    actor = self._actors[bi % len(self._actors)]
                    running[actor.encode.remote(self.name, self.opts, batch)] = bi
                done, _ = ray.wait(list(running), num_returns=1)
                for ref in done:
                    bi = running.pop(ref)
                    out[bi] = ray.get(ref)
                    if len(out[bi]) != len(batches[bi]):
                        raise RuntimeError(f"{self.name}: an actor returned {len(out[bi])} payloads for "
                                           f"{len(batches[bi])} pages")
                    bar.update(len(batches[bi]))
        finally:
            bar.close()
            for ref in running:
                ray.cancel(ref)
        return [p for batch in out for p in batch]  # type: ignore[union-attr]

    def shutdown(self) -> None:
        """Stop this retriever's actor pool (shared with other RayRetrievers; the cluster stays)."""
        if self._actors:
            ray = ensure_ray(self.address)
            for a in _POOLS.pop(self._key, self._actors):
                ray.kill(a)
            self._actors = []
