"""Question sets for evaluation: our QA JSONL and FinRAGBench-V, mapped onto an ingested corpus.

Our QA JSONL (``../shared/corpus/qa.jsonl``): one object per line with ``id``, ``question``,
``answer``, ``category``, ``doc`` (the PDF's file name, or a list of names), ``pages`` (1-based;
``"<file name>:<page>"`` strings when a question spans documents), ``boxes`` (``{page, bbox}`` in
PDF points, top-left origin; ``doc`` added when several documents are named), ``answer_type``;
optional ``lang`` (``en``/``zh``, detected from the question when absent).

FinRAGBench-V (local copy; nothing is downloaded). Place the files like this::

    finragbench/
      queries_en.json     JSON array (or JSONL) of {query-id, query, answer, category,
      queries_ch.json         answer_type, from_pages}
      qrels_en.tsv        TSV with a header line: query-id <TAB> corpus-id <TAB> score
      qrels_ch.tsv
      corpus_en/*.png     the page images, named by corpus-id (e.g. ``LSE_HWDN_2023_95.png``)
      corpus_ch/*.png

Ingest the page images (``docrag ingest finragbench/corpus_en --out CORPUS``: every PNG becomes a
one-page document whose file name is its corpus-id), then evaluate with
``docrag eval CORPUS --qa finragbench/queries_en.json --qrels finragbench/qrels_en.tsv``. Gold
pages come from the qrels rows with score > 0; a query without qrels rows falls back to its
``query-id`` (``<corpus-id>-<n>``) and ``from_pages`` (``<stem>_<page>.png``); a query with neither
(the released English and Chinese files each have one) is skipped with a warning that counts them.
A corpus-id naming a combined multi-page image (``<stem>_<p1>_<p2>.png`` or ``<stem>_<p1>-<p2>.png``) is
that image when the corpus has it, else its single pages ``<stem>_<p1>.png``, ``<stem>_<p2>.png``. The language is
``zh`` for ``queries_ch``/``_zh`` files and ``en`` for ``_en`` files, else detected from the text.

Documents are matched by exact file name (``Corpus.find_documents``; a name given with folders is
matched by its last part), never by substring; every
question naming a document or page the corpus lacks is listed in one :class:`InputError`.
"""

from __future__ import annotations

import csv
import json
import logging
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

from docrag.corpus import Corpus
from docrag.errors import InputError
from docrag.eval.beir import imported_into, load_dataset_items
from docrag.eval.qa_item import QAItem, detect_lang
from docrag.eval.vidore_v3 import qa_items, read_dataset
from docrag.evidence import GoldEvidence
from docrag.geometry import GeometryError
from docrag.types import Document, page_id

log = logging.getLogger(__name__)


#: the gold box of a question: :class:`docrag.evidence.GoldEvidence` (kept under this name for callers)
GoldBox = GoldEvidence


def load_qa(path: str | Path, corpus: Corpus, qrels: str | Path | None = None,
            limit: int | None = None) -> list[QAItem]:
    """Load a question file of either format (FinRAGBench-V when records have ``query-id``), or a
    folder: a ViDoRe (qa layout) / BEIR-layout dataset imported with ``docrag dataset import``
    (:mod:`docrag.eval.beir`), else a local ViDoRe V3 copy (a folder with ``queries``/``qrels``; the
    corpus built from it by :func:`docrag.eval.vidore_v3.build_corpus`)."""
    if Path(path).is_dir():
        if imported_into(path, corpus):
            return load_dataset_items(path, corpus, limit=limit)
        return qa_items(read_dataset(path), corpus)[:limit]
    records = _read_records(Path(path))
    if records and "query-id" in records[0]:
        return load_finragbench(path, corpus, qrels=qrels, limit=limit, records=records)
    if qrels is not None:
        raise InputError(f"{path}: --qrels is only used with FinRAGBench-V query files (records with 'query-id')")
    return load_qa_jsonl(path, corpus, limit=limit, records=records)


# -- our QA JSONL ----------------------------------------------------------------------------------

_REQUIRED = ("id", "question", "answer", "doc", "pages")


def load_qa_jsonl(path: str | Path, corpus: Corpus, limit: int | None = None,
                  records: list[dict] | None = None) -> list[QAItem]:
    path = Path(path)
    records = _read_records(path) if records is None else records
    if limit is not None:
        records = records[:limit]
    resolver = _DocResolver(corpus)
    items, problems, seen = [], [], set()
    for n, rec in enumerate(records, start=1):
        where = f"{path}: record {n}" + (f" (id {rec.get('id')!r})" if isinstance(rec, dict) and "id" in rec else "")
        try:
            item = _qa_item(rec, resolver, where)
        except InputError as exc:
            problems.append(str(exc))
            continue
        if item.qid in seen:
            problems.append(f"{where}: duplicate id {item.qid!r}")
        seen.add(item.qid)
        items.append(item)
    _raise_problems(path, corpus, problems)
    return items


def _qa_item(rec: Any, resolver: _DocResolver, where: str) -> QAItem:
    if not isinstance(rec, dict):
        raise InputError(f"{where}: expected a JSON object")
    missing = [k for k in _REQUIRED if k not in rec]
    if missing:
        raise InputError(f"{where}: missing field(s) {', '.join(missing)}")
    names = rec["doc"] if isinstance(rec["doc"], list) else [rec["doc"]]
    if not names or not all(isinstance(x, str) and x for x in names):
        raise InputError(f"{where}: 'doc' must be a file name or a list of file names")
    docs = {name: resolver.document(name, where) for name in names}

    def page_ref(ref: Any, doc_name: str | None = None) -> str:
        if isinstance(ref, str) and ":" in ref and doc_name is None:
            doc_name, _, ref = ref.rpartition(":")
        if doc_name is None:
            if len(names) > 1:
                raise InputError(f"{where}: page {ref!r} is ambiguous with several documents; "
                                 "write '<file name>:<page>' or give the box a 'doc'")
            doc_name = names[0]
        if doc_name not in docs:
            raise InputError(f"{where}: page {ref!r} refers to {doc_name!r}, which is not in 'doc'")
        try:
            no = int(ref)
        except (TypeError, ValueError):
            raise InputError(f"{where}: page {ref!r} is not a page number") from None
        return resolver.page(docs[doc_name], no, where)

    pages = rec["pages"] if isinstance(rec["pages"], list) else [rec["pages"]]
    if not pages:
        raise InputError(f"{where}: 'pages' is empty; every question needs at least one gold page")
    gold_pages = list(dict.fromkeys(page_ref(p) for p in pages))
    boxes = []
    for b in rec.get("boxes") or []:
        if not isinstance(b, dict) or "page" not in b or "bbox" not in b:
            raise InputError(f"{where}: each box needs 'page' and 'bbox', got {b!r}")
        pid = page_ref(b["page"], b.get("doc"))
        page = resolver.corpus.page(pid)
        try:
            x0, y0, x1, y1 = (float(v) for v in b["bbox"])
            box = page.box_pt(x0, y0, x1, y1).ordered()
        except (TypeError, ValueError, GeometryError) as exc:
            raise InputError(f"{where}: bad bbox {b['bbox']!r} ({exc}); "
                             "expected [x0, y0, x1, y1] in PDF points") from None
        boxes.append(GoldEvidence(pid, box))
    question = str(rec["question"])
    return QAItem(qid=str(rec["id"]), question=question, answer=str(rec["answer"]),
                  category=str(rec.get("category", "") or ""), lang=str(rec.get("lang") or detect_lang(question)),
                  answer_type=str(rec.get("answer_type", "") or ""), gold_pages=gold_pages, gold_boxes=boxes,
                  source={"doc": rec["doc"], "pages": rec["pages"]})


# -- FinRAGBench-V ---------------------------------------------------------------------------------

_FRB_REQUIRED = ("query-id", "query", "answer")


def load_finragbench(queries: str | Path, corpus: Corpus, qrels: str | Path | None = None,
                     lang: str | None = None, limit: int | None = None,
                     records: list[dict] | None = None) -> list[QAItem]:
    """FinRAGBench-V queries (+ qrels TSV) over a corpus of its page images (see module docstring)."""
    queries = Path(queries)
    records = _read_records(queries) if records is None else records
    if limit is not None:
        records = records[:limit]
    gold = read_qrels_tsv(Path(qrels)) if qrels is not None else {}
    lang = lang or _lang_from_name(queries.name)
    resolver = _DocResolver(corpus)
    items, problems, seen = [], [], set()
    no_gold: list[str] = []
    for n, rec in enumerate(records, start=1):
        where = f"{queries}: record {n}"
        if not isinstance(rec, dict) or any(k not in rec for k in _FRB_REQUIRED):
            problems.append(f"{where}: needs fields {', '.join(_FRB_REQUIRED)}")
            continue
        qid = str(rec["query-id"])
        where += f" (query-id {qid!r})"
        if qid in seen:
            problems.append(f"{where}: duplicate query-id")
            continue
        seen.add(qid)
        corpus_ids = gold.get(qid) or _fallback_corpus_ids(qid, rec.get("from_pages"))
        if not corpus_ids:
            no_gold.append(qid)
            continue
        try:
            pages = [pid for cid in corpus_ids for pid in _corpus_id_pages(resolver, cid, where)]
        except InputError as exc:
            problems.append(str(exc))
            continue
        question = str(rec["query"])
        items.append(QAItem(qid=qid, question=question, answer=str(rec["answer"]),
                            category=str(rec.get("category", "") or ""),
                            lang=lang or detect_lang(question), answer_type=str(rec.get("answer_type", "") or ""),
                            gold_pages=list(dict.fromkeys(pages)),
                            source={"corpus_ids": corpus_ids, "from_pages": rec.get("from_pages")}))
    if no_gold:
        log.warning("%s: %d question(s) skipped: no qrels rows and no usable from_pages (%s)%s", queries,
                    len(no_gold), ", ".join(no_gold[:5]), "" if qrels is not None else "; pass --qrels")
    _raise_problems(queries, corpus, problems)
    return items


_COMBINED = re.compile(r"^(?P<stem>.+?)_(?P<pages>\d+(?:[_-]\d+)+)\.(?P<ext>png|jpe?g)$", re.IGNORECASE)


def _corpus_id_pages(resolver: _DocResolver, cid: str, where: str) -> list[str]:
    """Page ids of one corpus-id: its own image, or the single pages of a combined multi-page image."""
    try:
        return [resolver.page(resolver.document(cid, where), 1, where)]
    except InputError:
        m = _COMBINED.match(cid)
        if not m:
            raise
        nums = [int(x) for x in re.split(r"[_-]", m.group("pages"))]
        if "-" in m.group("pages") and len(nums) == 2 and 0 < nums[1] - nums[0] < 50:
            nums = list(range(nums[0], nums[1] + 1))   # a range: p1-p2
        for k in range(len(nums)):   # the stem may itself end in _<digits> (e.g. a year)
            stem = m.group("stem") + "".join(f"_{x}" for x in nums[:k])
            names = [f"{stem}_{x}.{m.group('ext')}" for x in nums[k:]]
            if all(resolver.corpus.find_documents(nm) for nm in names):
                return [resolver.page(resolver.document(nm, where), 1, where) for nm in names]
        raise


def read_qrels_tsv(path: Path) -> dict[str, list[str]]:
    """``{query-id: [corpus-id, ...]}`` for rows with score > 0 (header line required)."""
    if not path.exists():
        raise InputError(f"{path}: qrels file not found")
    out: dict[str, list[str]] = defaultdict(list)
    with open(path, encoding="utf-8", newline="") as fh:
        reader = csv.reader(fh, delimiter="\t")
        header = next(reader, None)
        if header is None or [h.strip() for h in header[:3]] != ["query-id", "corpus-id", "score"]:
            raise InputError(f"{path}: first line must be the header "
                             f"'query-id<TAB>corpus-id<TAB>score', got {header!r}")
        for n, row in enumerate(reader, start=2):
            if not row or not "".join(row).strip():
                continue
            if len(row) < 3:
                raise InputError(f"{path}:{n}: expected 3 tab-separated columns, got {row!r}")
            try:
                score = float(row[2])
            except ValueError:
                raise InputError(f"{path}:{n}: score {row[2]!r} is not a number") from None
            if score > 0 and row[1] not in out[row[0]]:
                out[row[0]].append(row[1])
    return dict(out)


def _fallback_corpus_ids(qid: str, from_pages: Any) -> list[str]:
    """``<stem>_<page>.png-<n>`` + from_pages ``"16"``/``"16,17"``/``[16, 17]`` -> image names."""
    m = re.match(r"^(?P<stem>.+)_(?P<page>\d+)\.(?P<ext>png|jpg|jpeg)-[^-]+$", qid, re.IGNORECASE)
    if not m:
        return []
    pages = _page_numbers(from_pages) or [int(m.group("page"))]
    return [f"{m.group('stem')}_{p}.{m.group('ext')}" for p in pages]


def _page_numbers(value: Any) -> list[int]:
    if value is None:
        return []
    if isinstance(value, int):
        return [value]
    if isinstance(value, list):
        return [int(v) for v in value if str(v).strip().isdigit()]
    return [int(v) for v in re.findall(r"\d+", str(value))]


def _lang_from_name(name: str) -> str | None:
    stem = Path(name).stem.lower()
    if re.search(r"(^|[_-])(ch|zh|cn)($|[_-])", stem):
        return "zh"
    if re.search(r"(^|[_-])en($|[_-])", stem):
        return "en"
    return None


# -- shared helpers --------------------------------------------------------------------------------

class _DocResolver:
    def __init__(self, corpus: Corpus) -> None:
        self.corpus = corpus
        self._cache: dict[str, list[Document]] = {}

    def document(self, name: str, where: str) -> Document:
        if name not in self._cache:
            found = self.corpus.find_documents(name)
            base = re.split(r"[\\/]", name)[-1]
            if not found and base != name:  # "pdfs/x.pdf": the file name part, still matched exactly
                found = self.corpus.find_documents(base)
            self._cache[name] = found
        found = self._cache[name]
        if not found:
            raise InputError(f"{where}: document {name!r} is not in the corpus")
        if len(found) > 1:
            raise InputError(f"{where}: {len(found)} documents in the corpus are named {name!r} "
                             f"({', '.join(d.doc_id for d in found)}); name the document by its doc id")
        return found[0]

    def page(self, doc: Document, page_no: int, where: str) -> str:
        if not 1 <= page_no <= doc.n_pages:
            raise InputError(f"{where}: {doc.file_name} has {doc.n_pages} page(s); page {page_no} does not exist")
        return page_id(doc.doc_id, page_no)


def _raise_problems(path: Path, corpus: Corpus, problems: list[str]) -> None:
    if not problems:
        return
    shown = "\n  ".join(problems[:20])
    more = f"\n  ... and {len(problems) - 20} more" if len(problems) > 20 else ""
    raise InputError(f"{path}: {len(problems)} question(s) do not match corpus {corpus.root} "
                     f"(list its documents with 'docrag corpus info {corpus.root}'):\n  {shown}{more}")


def _read_records(path: Path) -> list[dict]:
    """A JSON array or JSONL file of objects."""
    if not path.exists():
        raise InputError(f"{path}: question file not found")
    text = path.read_text(encoding="utf-8-sig")
    if not text.strip():
        raise InputError(f"{path}: question file is empty")
    if text.lstrip().startswith("["):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(f"{path}: not valid JSON ({exc})") from None
        return list(data)
    out = []
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise InputError(f"{path}:{n}: not valid JSON ({exc.msg})") from None
    return out
