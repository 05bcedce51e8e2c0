"""``docrag.RAG``: retrieve pages for a question, then answer with visual citations.

    rag = docrag.RAG("corpus/", retriever="bm25", generator="extractive")
    answer = rag.ask("What was the total revenue in 2011?", k=10)
    for c in answer.citations:
        print(c.page_id, [b.to_list() for b in c.boxes])   # boxes in the page's PDF points

The retriever and generator default to the user's settings (:mod:`docrag.config`), i.e. the best
offline choices unless the config file or ``DOCRAG_*`` variables say otherwise. The index the
retriever needs is built on first use (with a progress bar unless ``show_progress=False``).

This module is the facade layer above core and index (``tests/test_layering.py``): it may import
``docrag.index``; core modules may not.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from docrag.cancel import CancelToken, cancel_scope, checkpoint
from docrag.config import Settings, load_settings
from docrag.corpus import Corpus
from docrag.doc_names import DocumentNames
from docrag.errors import InputError
from docrag.generation.base import Generator, generate_many, get_generator
from docrag.index import SearchIndex, open_index  # the facade layer: RAG opens the index (test_layering)
from docrag.types import Answer, Hit, Page

log = logging.getLogger(__name__)


class RAG:
    """A corpus, a retriever index over it and a generator."""

    def __init__(self, corpus: Corpus | str | Path, retriever: str | None = None,
                 generator: str | Generator | None = None, *, index_dir: str | Path | None = None,
                 build: bool = True, show_progress: bool = True, settings: Settings | None = None,
                 retriever_options: dict[str, Any] | None = None,
                 generator_options: dict[str, Any] | None = None) -> None:
        self.corpus = corpus if isinstance(corpus, Corpus) else Corpus.open(corpus)
        self.settings = settings or load_settings()
        self.retriever_name = retriever or self.settings.retriever
        self.index_dir = index_dir if index_dir is not None else self.settings.index_dir
        self.build = build
        self.show_progress = show_progress
        self._retriever_options = dict(retriever_options or {})
        if "rerank" not in self._retriever_options and self.settings.rerank not in ("", "none"):
            self._retriever_options.update(rerank=self.settings.rerank, rerank_depth=self.settings.rerank_depth)
        self._index: SearchIndex | None = None
        self._names: tuple[str, DocumentNames] | None = None   # (corpus fingerprint, its document names)
        if generator is None or isinstance(generator, str):
            name = generator or self.settings.generator
            opts = {**self.settings.generator_options(name), **(generator_options or {})}
            self.generator: Generator = get_generator(name, **opts)
        else:
            self.generator = generator
        self.default_k = self.settings.k

    @property
    def index(self) -> SearchIndex:
        """The retriever's index (a :class:`~docrag.index.search.SearchIndex`), opened (or built) on first use."""
        if self._index is None:
            self._index = open_index(self.corpus, self.retriever_name, index_dir=self.index_dir,
                                     build=self.build, show_progress=self.show_progress,
                                     **self._retriever_options)
        return self._index

    def retrieve(self, question: str, k: int | None = None) -> list[Hit]:
        """The top ``k`` pages; of the documents the question names, when it names some (:meth:`named`)."""
        return self._search_scoped([question], k or self.default_k, [self.named(question)])[0]

    def _search_scoped(self, questions: list[str], k: int, scopes: Sequence[set[str]]) -> list[list[Hit]]:
        """One batched search per scope (the documents each question names, :meth:`named`): the questions naming
        no document together, and those naming the same documents together, over those documents only (all of
        them again when that finds nothing)."""
        groups: dict[tuple[str, ...], list[int]] = {}
        for i, scope in enumerate(scopes):
            groups.setdefault(tuple(sorted(scope)), []).append(i)
        out: list[list[Hit]] = [[] for _ in questions]
        for scope, idx in groups.items():
            found = self.index.search_batch([questions[i] for i in idx], k=k,
                                            filter={"doc_id": list(scope)} if scope else None)
            for i, hits in zip(idx, found, strict=True):
                out[i] = hits
        empty = [i for i, hits in enumerate(out) if not hits]
        if empty:
            for i, hits in zip(empty, self.index.search_batch([questions[i] for i in empty], k=k), strict=True):
                out[i] = hits
        return out

    def named(self, question: str) -> set[str]:
        """The ids of the documents ``question`` names (:mod:`docrag.doc_names`); none when the ``scope``
        setting is ``off``."""
        return self._named_all([question])[0]

    def _named_all(self, questions: Sequence[str]) -> list[set[str]]:
        """:meth:`named` for each question, the corpus's document names read (or checked current) once."""
        if self.settings.scope == "off":
            return [set() for _ in questions]
        fingerprint = self.corpus.fingerprint()
        if self._names is None or self._names[0] != fingerprint:
            self._names = (fingerprint, DocumentNames.of_corpus(self.corpus))
        out = [self._names[1].named(q) for q in questions]
        for named in filter(None, out):
            log.debug("the question names %d document(s): %s", len(named), sorted(named))
        return out

    def pages_for(self, hits: Sequence[Hit]) -> list[Page]:
        return [self.corpus.page(h.page_id) for h in hits]

    def answer(self, question: str, hits: Sequence[Hit], retrieval_s: float = 0.0) -> Answer:
        """Generate from already retrieved ``hits`` (rank order)."""
        return self._answer(question, hits, retrieval_s, self.named(question))

    def _answer(self, question: str, hits: Sequence[Hit], retrieval_s: float, named: set[str]) -> Answer:
        checkpoint("generation")
        answer = self.generator.generate(question, self.pages_for(hits))
        checkpoint("the finished answer")
        return self._finish(answer, hits, retrieval_s, named)

    def _finish(self, answer: Answer, hits: Sequence[Hit], retrieval_s: float, named: set[str]) -> Answer:
        """``named``: the documents the question names (the search's scope when every hit is in them)."""
        answer.hits = list(hits)
        answer.retriever = self.retriever_name
        if named and {h.doc_id for h in hits} <= named:   # the search was scoped: say to which documents
            answer.meta["named_documents"] = sorted(self.corpus.document(d).file_name for d in named)
        answer.meta.setdefault("retrieval_s", round(retrieval_s, 4))
        return answer

    def ask(self, question: str, k: int | None = None, *, cancel: CancelToken | None = None) -> Answer:
        """Retrieve the top ``k`` pages and answer from them; the hits are on the answer.

        ``cancel`` bounds the work (:mod:`docrag.cancel`): it is checked before retrieval, before
        generation and inside the generator and grounding, and :class:`~docrag.cancel.Cancelled`
        is raised at the first check after it was cancelled or its deadline passed."""
        if not question or not question.strip():
            raise InputError("the question is empty")
        with cancel_scope(cancel):
            checkpoint("retrieval")
            t0 = time.perf_counter()
            named = self.named(question)
            hits = self._search_scoped([question], k or self.default_k, [named])[0]
            return self._answer(question, hits, time.perf_counter() - t0, named)

    def ask_many(self, questions: Sequence[str], k: int | None = None, concurrency: int | None = None) -> list[Answer]:
        """Answers to many questions (batched retrieval; generation ``concurrency`` at a time)."""
        questions = list(questions)
        if not questions:
            return []
        t0 = time.perf_counter()
        scopes = self._named_all(questions)
        all_hits = self._search_scoped(questions, k or self.default_k, scopes)
        per_q = (time.perf_counter() - t0) / len(questions)
        items = [(q, self.pages_for(h)) for q, h in zip(questions, all_hits, strict=True)]
        workers = concurrency if concurrency is not None else getattr(self.generator, "concurrency", 1)
        answers = generate_many(self.generator, items, workers)
        return [self._finish(a, h, per_q, scope) for a, h, scope in zip(answers, all_hits, scopes, strict=True)]
