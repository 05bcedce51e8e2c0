"""The on-disk page corpus: documents, page records and rendered page images.

Layout of a corpus directory::

    corpus.json                 schema name + version, docrag version, creation time
    manifest.json               one record per document (pages, source path, hash), failures
    docs/<doc_id>/document.json
    docs/<doc_id>/pages.jsonl   one record per page (geometry, text, words, blocks)
    docs/<doc_id>/images/p0001.png
    .staging/<doc_id>/          a document being ingested (resumable, never visible to readers)

A document becomes visible by one atomic rename of its staging folder into ``docs/``; the manifest
is rewritten atomically after every change and rebuilt from ``docs/`` if it lags behind.
"""

from __future__ import annotations

import hashlib
import logging
import shutil
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from docrag._version import __version__
from docrag.errors import CorpusError
from docrag.ingestion.break_captions import link_break_captions
from docrag.ingestion.continued_tables import link_continued_tables
from docrag.ingestion.furniture import mark_furniture
from docrag.io import append_jsonl, atomic_write_json, read_json, read_jsonl, read_versioned_json, write_jsonl
from docrag.types import Document, Page, split_page_id

log = logging.getLogger(__name__)

SCHEMA = "docrag.corpus"
SCHEMA_VERSION = 1


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


class Corpus:
    """Read access to a corpus directory (see module docstring for the layout)."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self._pages: dict[str, list[Page]] = {}
        self._manifest: dict | None = None

    # -- opening -------------------------------------------------------------------------------
    @classmethod
    def open(cls, path: str | Path) -> Corpus:
        root = Path(path)
        read_versioned_json(root / "corpus.json", SCHEMA, SCHEMA_VERSION, CorpusError,
                            missing=f"{root}: not a docrag corpus (no corpus.json); create one with "
                                    f"'docrag ingest PDF... --out {root}'", what="corpus")
        return cls(root)

    @classmethod
    def create(cls, path: str | Path) -> Corpus:
        """Open ``path`` as a corpus, creating an empty one when the folder is new or empty."""
        root = Path(path)
        cls.check_creatable(root)
        if (root / "corpus.json").exists():
            return cls.open(root)
        (root / "docs").mkdir(parents=True, exist_ok=True)
        atomic_write_json(root / "corpus.json", {"schema": SCHEMA, "schema_version": SCHEMA_VERSION,
                                                 "docrag_version": __version__, "created": _now()})
        atomic_write_json(root / "manifest.json", _empty_manifest())
        return cls(root)

    @staticmethod
    def check_creatable(root: Path) -> None:
        """Raise :class:`CorpusError` unless ``root`` is a corpus, an empty folder or does not exist yet."""
        root = Path(root)
        if root.exists() and not root.is_dir():
            raise CorpusError(f"{root}: exists and is a file, not a folder; choose a new or empty folder for --out")
        if (root / "corpus.json").exists():
            return
        if root.exists() and any(root.iterdir()):
            raise CorpusError(f"{root}: folder exists, is not empty and is not a docrag corpus; "
                              "choose an empty or new folder for --out")

    # -- manifest ------------------------------------------------------------------------------
    @property
    def manifest(self) -> dict:
        if self._manifest is None:
            path = self.root / "manifest.json"
            self._manifest = read_json(path) if path.exists() else _empty_manifest()
            docs = self.root / "docs"
            on_disk = {p.name for p in docs.iterdir() if p.is_dir()} if docs.exists() else set()
            if set(self._manifest["documents"]) != on_disk:
                self._manifest = self._rebuilt_manifest(self._manifest, on_disk)
        return self._manifest

    def _rebuilt_manifest(self, old: dict, on_disk: set[str]) -> dict:
        docs = {}
        for doc_id in sorted(on_disk):
            doc_file = self.root / "docs" / doc_id / "document.json"
            if doc_file.exists():
                docs[doc_id] = read_json(doc_file)
        sources = {src: d for src, d in old.get("sources", {}).items() if d in docs}
        for doc_id, rec in docs.items():
            sources.setdefault(rec["source_path"], doc_id)
        return {**old, "documents": docs, "sources": sources}

    def refresh(self) -> None:
        """Forget cached manifest and pages (after another process changed the corpus)."""
        self._manifest = None
        self._pages.clear()

    # -- documents and pages -------------------------------------------------------------------
    def documents(self) -> list[Document]:
        return [Document.from_json(d) for d in self.manifest["documents"].values()]

    def document(self, doc_id: str) -> Document:
        try:
            return Document.from_json(self.manifest["documents"][doc_id])
        except KeyError:
            raise CorpusError(f"{self.root}: no document with id {doc_id!r}") from None

    def doc_ids(self) -> list[str]:
        return sorted(self.manifest["documents"])

    def find_documents(self, file_name: str) -> list[Document]:
        """Documents whose source file name equals ``file_name`` exactly (or whose id does)."""
        return [d for d in self.documents() if d.file_name == file_name or d.doc_id == file_name]

    def pages(self, doc_ids: Iterable[str] | None = None) -> list[Page]:
        """Pages in a stable order: by document id, then page number."""
        ids = sorted(doc_ids) if doc_ids is not None else self.doc_ids()
        out: list[Page] = []
        for doc_id in ids:
            out.extend(self._doc_pages(doc_id))
        return out

    def _doc_pages(self, doc_id: str) -> list[Page]:
        if doc_id not in self._pages:
            path = self.root / "docs" / doc_id / "pages.jsonl"
            if not path.exists():
                raise CorpusError(f"{path}: missing; the corpus is damaged, re-run 'docrag ingest'")
            pages = [Page.from_json(r, root=self.root) for r in read_jsonl(path)]
            user = (self.manifest["documents"].get(doc_id, {}).get("meta") or {}).get("user") or {}
            for p in pages:  # user metadata given at ingest, on every page of the document
                p.meta = dict(user)
            self._pages[doc_id] = sorted(pages, key=lambda p: p.page_no)
        return self._pages[doc_id]

    def page(self, pid: str) -> Page:
        doc_id, page_no = split_page_id(pid)
        if doc_id not in self.manifest["documents"]:
            raise CorpusError(f"{self.root}: no document {doc_id!r} (page {pid})")
        for p in self._doc_pages(doc_id):
            if p.page_no == page_no:
                return p
        raise CorpusError(f"{self.root}: document {doc_id} has no page {page_no}")

    def page_ids(self) -> list[str]:
        return [p.page_id for p in self.pages()]

    def __len__(self) -> int:
        return sum(int(d["n_pages"]) for d in self.manifest["documents"].values())

    def fingerprint(self) -> str:
        """Hash of the set of documents: changes whenever a document is added, replaced or removed."""
        h = hashlib.sha256()
        for doc_id in self.doc_ids():
            h.update(doc_id.encode())
            h.update(b"\n")
        return h.hexdigest()[:16]

    def failures(self) -> list[dict]:
        return list(self.manifest.get("failures", []))

    def writer(self) -> CorpusWriter:
        return CorpusWriter(self)


def _empty_manifest() -> dict:
    return {"schema_version": SCHEMA_VERSION, "documents": {}, "sources": {}, "failures": []}


@dataclass
class StagedDocument:
    """A document being written in ``.staging/<doc_id>``; pages already there survive a crash."""

    writer: CorpusWriter
    document: Document
    dir: Path
    _pages: dict[int, Page] = field(default_factory=dict)

    @property
    def images_dir(self) -> Path:
        return self.dir / "images"

    def done_pages(self) -> set[int]:
        return set(self._pages)

    def page(self, page_no: int) -> Page:
        return self._pages[page_no]

    def image_relpath(self, page_no: int, ext: str) -> str:
        """Path of a page image relative to the corpus root once the document is committed."""
        return f"docs/{self.document.doc_id}/images/p{page_no:04d}.{ext}"

    def staged_image_path(self, page_no: int, ext: str) -> Path:
        return self.images_dir / f"p{page_no:04d}.{ext}"

    def add_page(self, page: Page) -> None:
        """Record a finished page (its image must already be written to ``staged_image_path``)."""
        self._pages[page.page_no] = page
        # One appended, fsynced line per page (a torn last line from a crash is ignored on resume);
        # rewriting the whole file per page would cost O(pages^2) on long documents.
        append_jsonl(self.dir / "pages.partial.jsonl", page.to_json())

    def _sorted(self) -> list[Page]:
        return [self._pages[k] for k in sorted(self._pages)]

    def commit(self) -> None:
        self.writer._commit(self)

    def abort(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)


class CorpusWriter:
    """Adds, replaces and removes documents atomically."""

    def __init__(self, corpus: Corpus) -> None:
        self.corpus = corpus
        self.root = corpus.root
        (self.root / ".staging").mkdir(parents=True, exist_ok=True)

    def has_document(self, doc_id: str) -> bool:
        return doc_id in self.corpus.manifest["documents"]

    def doc_for_source(self, source_path: str) -> str | None:
        return self.corpus.manifest["sources"].get(source_path)

    def begin(self, document: Document) -> StagedDocument:
        """Stage ``document``; resumes pages staged by an interrupted earlier run of the same file."""
        sdir = self.root / ".staging" / document.doc_id
        staged = StagedDocument(self, document, sdir)
        partial = sdir / "pages.partial.jsonl"
        if partial.exists():
            for rec in read_jsonl(partial):
                page = Page.from_json(rec, root=self.root)
                ext = Path(page.image).suffix.lstrip(".")
                if staged.staged_image_path(page.page_no, ext).exists():
                    staged._pages[page.page_no] = page
            if staged._pages:
                log.info("resuming %s: %d page(s) already staged", document.file_name, len(staged._pages))
        staged.images_dir.mkdir(parents=True, exist_ok=True)
        for tmp in staged.images_dir.glob(".*.tmp"):  # atomic writes cut short by a killed process
            tmp.unlink(missing_ok=True)
        return staged

    def _commit(self, staged: StagedDocument) -> None:
        doc = staged.document
        pages = staged._sorted()
        if [p.page_no for p in pages] != list(range(1, doc.n_pages + 1)):
            raise CorpusError(f"{doc.file_name}: cannot commit, staged pages "
                              f"{[p.page_no for p in pages]} != 1..{doc.n_pages}")

        mark_furniture(pages)  # running headers, page numbers...: needs all pages of the document
        link_continued_tables(pages)  # a table's rows on the next page get its header
        link_break_captions(pages)  # a chart opening a page gets the caption ending the page before
        write_jsonl(staged.dir / "pages.jsonl", [p.to_json() for p in pages])
        atomic_write_json(staged.dir / "document.json", doc.to_json())
        (staged.dir / "pages.partial.jsonl").unlink(missing_ok=True)
        final = self.root / "docs" / doc.doc_id
        if final.exists():  # identical content committed meanwhile: keep the existing copy
            shutil.rmtree(staged.dir)
        else:
            final.parent.mkdir(parents=True, exist_ok=True)
            staged.dir.rename(final)  # the commit point
        m = self.corpus.manifest
        m["documents"][doc.doc_id] = doc.to_json()
        old = m["sources"].get(doc.source_path)
        m["sources"][doc.source_path] = doc.doc_id
        m["failures"] = [f for f in m.get("failures", []) if f.get("path") != doc.source_path]
        self._save_manifest()
        if old and old != doc.doc_id and old not in m["sources"].values():
            log.info("%s changed: replacing document %s with %s", doc.file_name, old, doc.doc_id)
            self.remove(old)
        self.corpus._pages.pop(doc.doc_id, None)

    def remove(self, doc_id: str) -> None:
        """Remove a document (manifest first, then its files, so readers never see half of it)."""
        m = self.corpus.manifest
        m["documents"].pop(doc_id, None)
        m["sources"] = {s: d for s, d in m["sources"].items() if d != doc_id}
        self._save_manifest()
        target = self.root / "docs" / doc_id
        if target.exists():
            trash = self.root / ".staging" / f".trash-{doc_id}-{time.time_ns()}"
            target.rename(trash)
            shutil.rmtree(trash, ignore_errors=True)
        self.corpus._pages.pop(doc_id, None)

    def set_user_meta(self, doc_id: str, meta: dict) -> None:
        """Replace the user metadata of a committed document (document.json first, then the manifest)."""
        m = self.corpus.manifest
        if doc_id not in m["documents"]:
            raise CorpusError(f"{self.root}: no document with id {doc_id!r}")
        rec = dict(m["documents"][doc_id])
        rec["meta"] = {**(rec.get("meta") or {}), "user": dict(meta)}
        doc_file = self.root / "docs" / doc_id / "document.json"
        if doc_file.exists():
            atomic_write_json(doc_file, rec)
        m["documents"][doc_id] = rec
        self._save_manifest()
        self.corpus._pages.pop(doc_id, None)

    def record_failure(self, path: str, reason: str, path_b64: str | None = None) -> None:
        """Record why ``path`` failed; ``path_b64``: the raw bytes of a name that is not UTF-8."""
        m = self.corpus.manifest
        fails = [f for f in m.get("failures", []) if f.get("path") != path]
        fails.append({"path": path, "reason": reason, "at": _now(), **({"path_b64": path_b64} if path_b64 else {})})
        m["failures"] = fails
        self._save_manifest()

    def _save_manifest(self) -> None:
        atomic_write_json(self.root / "manifest.json", self.corpus.manifest)
