"""Local ViDoRe / BEIR-format retrieval datasets, as vidore-benchmark reads them, in eval and compare.

Two layouts of a local folder (a Hugging Face dataset saved to disk, or files written by hand):

- **beir** (ViDoRe v2 and BEIR-style sets): ``corpus``, ``queries`` and ``qrels`` tables, each a file
  (``corpus.jsonl``, ``queries.parquet``, ``qrels/test.tsv`` ...) or a folder of parquet/jsonl shards
  (``corpus/test-00000-of-00001.parquet``). Corpus rows: ``corpus-id`` (or ``_id``/``id``) and an
  ``image`` (``{"bytes", "path"}`` as datasets writes it, or a path relative to the folder); queries:
  ``query-id`` (or ``_id``) and ``query`` (or ``text``), optional ``answer``; qrels: ``query-id``,
  ``corpus-id``, ``score`` (> 0 is relevant).
- **qa** (ViDoRe v1): one table, one row per (query, page image): ``query``, ``image``,
  ``image_filename`` (the page's identity), optional ``answer``; rows without a query are corpus only.

:func:`import_dataset` writes the page images into a docrag corpus (one one-page document per
corpus id, named ``<corpus id>.<ext>``); :func:`load_dataset_items` turns the queries and qrels into
:class:`~docrag.eval.data.QAItem` over that corpus, so ``docrag eval/compare CORPUS --qa DIR`` work.
Tables are read by :func:`read_table` (jsonl, json, csv, tsv, parquet), reusable by other loaders.
"""

from __future__ import annotations

import base64
import binascii
import csv
import json
import logging
import re
import shutil
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from docrag.errors import InputError, MissingDependencyError
from docrag.eval.qa_item import QAItem, detect_lang
from docrag.ingestion import ingest
from docrag.types import page_id

log = logging.getLogger(__name__)

TABLE_SUFFIXES = (".jsonl", ".json", ".parquet", ".csv", ".tsv")
CORPUS_ID_KEYS = ("corpus-id", "corpus_id", "_id", "id", "docid")
QUERY_ID_KEYS = ("query-id", "query_id", "_id", "id", "qid")
QUERY_TEXT_KEYS = ("query", "text", "question")


# -- tables ----------------------------------------------------------------------------------------

def read_table(path: str | Path) -> list[dict[str, Any]]:
    """Rows of a table file, or of every table shard in a folder (sorted by name)."""
    path = Path(path)
    if path.is_dir():
        files = sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in TABLE_SUFFIXES)
        if not files:
            raise InputError(f"{path}: no table files ({', '.join(TABLE_SUFFIXES)}) in this folder")
        return [row for f in files for row in read_table(f)]
    suffix = path.suffix.lower()
    if suffix == ".parquet":
        try:
            import pyarrow.parquet as pq
        except ImportError as exc:
            raise MissingDependencyError(f"{path}: reading parquet needs pyarrow: pip install 'docrag[datasets]'") \
                from exc
        return pq.read_table(path).to_pylist()
    if suffix == ".jsonl":
        rows = []
        with open(path, encoding="utf-8") as fh:
            for n, line in enumerate(fh, start=1):
                if line.strip():
                    try:
                        rows.append(json.loads(line))
                    except json.JSONDecodeError as exc:
                        raise InputError(f"{path}:{n}: not JSON ({exc.msg})") from None
        return rows
    if suffix == ".json":
        data = json.loads(path.read_text(encoding="utf-8"))
        return data if isinstance(data, list) else [data]
    if suffix in (".csv", ".tsv"):
        with open(path, encoding="utf-8", newline="") as fh:
            return list(csv.DictReader(fh, delimiter="\t" if suffix == ".tsv" else ","))
    raise InputError(f"{path}: unsupported table format; use {', '.join(TABLE_SUFFIXES)}")


def _find(root: Path, name: str) -> Path | None:
    """``root/name`` as a folder of shards or a table file (``name.jsonl`` ...), if present."""
    if (root / name).is_dir():
        return root / name
    for suffix in TABLE_SUFFIXES:
        if (root / f"{name}{suffix}").is_file():
            return root / f"{name}{suffix}"
    return None


def _first(row: dict, keys: tuple[str, ...], where: str, what: str) -> Any:
    for k in keys:
        if row.get(k) not in (None, ""):
            return row[k]
    raise InputError(f"{where}: no {what} (looked for {', '.join(keys)}); columns: {', '.join(sorted(row))}")


# -- the dataset -----------------------------------------------------------------------------------

@dataclass
class Dataset:
    """A retrieval dataset: page images by corpus id, queries, and relevant corpus ids per query."""

    root: Path
    layout: str                                       # "beir" or "qa"
    images: dict[str, Any] = field(default_factory=dict)     # corpus id -> bytes | Path
    queries: dict[str, str] = field(default_factory=dict)    # query id -> text
    answers: dict[str, str] = field(default_factory=dict)
    qrels: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))


def detect_layout(root: Path) -> str:
    if _find(root, "corpus") and _find(root, "queries") and _find(root, "qrels"):
        return "beir"
    if any(p.suffix.lower() in TABLE_SUFFIXES for p in root.rglob("*") if p.is_file()):
        return "qa"
    raise InputError(f"{root}: not a ViDoRe/BEIR dataset folder (no corpus/queries/qrels tables, and no table "
                     "files for the qa layout)")


def read_dataset(root: str | Path) -> Dataset:
    root = Path(root)
    if not root.is_dir():
        raise InputError(f"{root}: not a folder; give the dataset's folder (corpus/queries/qrels, or a qa table)")
    layout = detect_layout(root)
    return _read_beir(root) if layout == "beir" else _read_qa(root)


def _image_of(row: dict, root: Path, where: str) -> Any:
    img = row.get("image")
    if isinstance(img, dict):
        if isinstance(img.get("bytes"), str):  # JSON copies carry the bytes base64-encoded
            try:
                return base64.b64decode(img["bytes"], validate=True)
            except (binascii.Error, ValueError):
                raise InputError(f"{where}: image bytes are a string but not base64") from None
        if img.get("bytes"):
            return bytes(img["bytes"])
        if img.get("path"):
            return _local(root, img["path"], where)
    if isinstance(img, (bytes, bytearray)):
        return bytes(img)
    if isinstance(img, str) and img:
        return _local(root, img, where)
    for key in ("image_path", "file_name", "image_filename"):
        if isinstance(row.get(key), str) and (root / row[key]).is_file():
            return root / row[key]
    raise InputError(f"{where}: no page image (an 'image' with bytes or a path inside {root})")


def _local(root: Path, rel: str, where: str) -> Path:
    path = (root / rel).resolve()
    if root.resolve() not in path.parents or not path.is_file():
        raise InputError(f"{where}: image {rel!r} is not a file inside {root}")
    return path


def _read_beir(root: Path) -> Dataset:
    ds = Dataset(root, "beir")
    corpus_path = _find(root, "corpus")
    for n, row in enumerate(read_table(corpus_path), start=1):
        where = f"{corpus_path} row {n}"
        ds.images[str(_first(row, CORPUS_ID_KEYS, where, "corpus id"))] = _image_of(row, root, where)
    queries_path = _find(root, "queries")
    for n, row in enumerate(read_table(queries_path), start=1):
        where = f"{queries_path} row {n}"
        qid = str(_first(row, QUERY_ID_KEYS, where, "query id"))
        ds.queries[qid] = str(_first(row, QUERY_TEXT_KEYS, where, "query text"))
        if row.get("answer"):
            ds.answers[qid] = str(row["answer"])
    qrels_path = _find(root, "qrels")
    for n, row in enumerate(read_table(qrels_path), start=1):
        where = f"{qrels_path} row {n}"
        qid = str(_first(row, ("query-id", "query_id", "qid"), where, "query id"))
        cid = str(_first(row, ("corpus-id", "corpus_id", "docid"), where, "corpus id"))
        if float(row.get("score", 1) or 0) > 0:
            ds.qrels[qid].add(cid)
    return ds


def _read_qa(root: Path) -> Dataset:
    ds = Dataset(root, "qa")
    for n, row in enumerate(read_table(root), start=1):
        where = f"{root} row {n}"
        cid = str(_first(row, ("image_filename", "corpus-id", "docid"), where, "page identity (image_filename)"))
        if cid not in ds.images:
            ds.images[cid] = _image_of(row, root, where)
        query = row.get("query")
        if not query:
            continue
        qid = str(row.get("query-id") or row.get("query_id") or f"q{len(ds.queries) + 1}")
        if qid in ds.queries and ds.queries[qid] != query:
            qid = f"{qid}-{n}"
        ds.queries[qid] = str(query)
        if row.get("answer"):
            ds.answers[qid] = str(row["answer"])
        ds.qrels[qid].add(cid)
    return ds


# -- into a docrag corpus --------------------------------------------------------------------------

def page_file_name(corpus_id: str, data: Any) -> str:
    """The file name a corpus id's page image gets (the identity the loader maps back)."""
    ext = Path(str(data)).suffix.lower() if isinstance(data, Path) else _sniff_ext(data)
    stem = re.sub(r"[^A-Za-z0-9._-]+", "_", corpus_id).strip("._") or "page"
    if stem.lower().endswith(ext):
        return stem
    return f"{stem}{ext}"


def _sniff_ext(data: bytes) -> str:
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return ".png"
    if data[:3] == b"\xff\xd8\xff":
        return ".jpg"
    if data[:4] in (b"II*\x00", b"MM\x00*"):
        return ".tif"
    return ".png"


def iter_page_files(ds: Dataset, folder: Path) -> Iterator[Path]:
    """Write (or link) each page image into ``folder`` under :func:`page_file_name`."""
    folder.mkdir(parents=True, exist_ok=True)
    for cid, data in ds.images.items():
        target = folder / page_file_name(cid, data)
        if not target.exists():
            if isinstance(data, Path):
                shutil.copyfile(data, target)
            else:
                target.write_bytes(data)
        yield target


def import_dataset(root: str | Path, out: str | Path, *, show_progress: bool = False, **ingest_opts: Any):
    """Ingest the dataset's page images into the corpus at ``out`` (resumable: ingest skips pages it
    has); images are kept in ``<out>/../<out name>-dataset-pages``. Returns the ingest report."""
    ds = read_dataset(root)
    out = Path(out)
    folder = out.parent / f"{out.name}-dataset-pages"
    files = list(iter_page_files(ds, folder))
    log.info("%s (%s layout): %d page images, %d queries", root, ds.layout, len(files), len(ds.queries))
    return ingest([folder], out=out, show_progress=show_progress, **ingest_opts)


def load_dataset_items(root: str | Path, corpus: Any, limit: int | None = None) -> list:
    """The dataset's queries as :class:`~docrag.eval.data.QAItem` over a corpus made by
    :func:`import_dataset` (gold pages: the qrels' corpus ids, matched by file name)."""
    ds = read_dataset(root)
    by_name = {d.file_name: d.doc_id for d in corpus.documents()}
    missing = [cid for cid in ds.images if page_file_name(cid, ds.images[cid]) not in by_name]
    if missing:
        raise InputError(f"{root}: {len(missing)} page image(s) of this dataset are not in corpus {corpus.root} "
                         f"(e.g. {missing[0]!r}); import it first: 'docrag dataset import {root} --out {corpus.root}'")
    items = []
    for qid, text in ds.queries.items():
        gold = sorted(page_id(by_name[page_file_name(c, ds.images[c])], 1) for c in ds.qrels.get(qid, ())
                      if c in ds.images)
        if not gold:
            log.info("%s: query %s has no relevant page in the corpus; skipped", root, qid)
            continue
        items.append(QAItem(qid=qid, question=text, answer=ds.answers.get(qid, ""), category=ds.layout,
                            lang=detect_lang(text), gold_pages=gold, source={"dataset": str(root)}))
        if limit and len(items) >= limit:
            break
    if not items:
        raise InputError(f"{root}: no query with a relevant page")
    return items


def imported_into(root: str | Path, corpus: Any) -> bool:
    """True when ``root`` reads as a qa/beir-layout dataset whose page images are all documents of
    ``corpus`` (made by :func:`import_dataset`); other folders (e.g. a ViDoRe V3 copy) are left to
    their own loaders."""
    try:
        ds = read_dataset(root)
    except (InputError, ValueError, TypeError) as exc:  # another layout: its loader reports its own errors
        log.debug("%s is not a qa/beir-layout dataset: %s", root, exc)
        return False
    names = {d.file_name for d in corpus.documents()}
    return bool(ds.images) and all(page_file_name(c, d) in names for c, d in ds.images.items())
