"""ViDoRe V3 (arXiv 2601.08620) from a local copy: a docrag corpus, questions with graded qrels and
per-annotator boxes, graded nDCG (equal to pytrec_eval) sliced by language and query type.

Local layout (the Hugging Face dataset's subsets, one folder or file each, ``.jsonl``/``.json`` or
``.parquet`` -- parquet needs pyarrow)::

    <root>/corpus/*            corpus_id, image (HF image {"bytes"|"path"} or a path), markdown,
                               doc_id, page_number_in_doc
    <root>/queries/*           query_id, query, language, query_types (or query_type), answer
    <root>/qrels/*             query_id, corpus_id, score (graded, 0 = not relevant),
                               bounding_boxes: [{"annotator", "x1", "y1", "x2", "y2"}, ...] or
                               {annotator: [[x1, y1, x2, y2], ...]}  -- integer pixels of the released image
    <root>/documents_metadata/* doc_id, file_name (optional), page_width_pt/page_height_pt (optional)

The top-level column names (``corpus_id``, ``image``, ``markdown``, ``doc_id``,
``page_number_in_doc``; ``query_id``, ``query``, ``language``, ``query_types``, ``answer``;
``query_id``, ``corpus_id``, ``score``, ``bounding_boxes``) match a public converter script that
reads the released subsets; the inner layout of ``bounding_boxes`` follows the issue's description
(per-annotator integer pixel boxes) and was not checked against a download here -- both layouts
above are accepted. The aliases in :data:`ALIASES` cover the BEIR spellings (``corpus-id``,
``query-id``).
Pixel boxes become PDF points through the page size (``Box.pixels(...).to_points``): the metadata's
page size in points when given, else the image at ``dpi`` (default 72: 1 px = 1 pt).
Queries translated into several languages share their qrels; a question id is
``<query_id>`` (or ``<query_id>:<language>`` when one id appears in several languages).
"""

from __future__ import annotations

import base64
import io
import json
import logging
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from docrag.corpus import Corpus
from docrag.errors import InputError, MissingDependencyError
from docrag.eval.qa_item import QAItem
from docrag.evidence import GoldEvidence
from docrag.geometry import Box
from docrag.ingestion.images import ocr_into
from docrag.ingestion.ocr import parse_langs
from docrag.types import Document, Hit, Page, TextSource, page_id

log = logging.getLogger(__name__)

SUBSETS = ("corpus", "queries", "qrels", "documents_metadata")
ALIASES = {"corpus-id": "corpus_id", "query-id": "query_id", "lang": "language", "text": "query",
           "page_number": "page_number_in_doc", "doc-id": "doc_id"}


@dataclass
class VidoreV3:
    corpus: list[dict]
    queries: list[dict]
    qrels: list[dict]
    documents: dict[str, dict] = field(default_factory=dict)
    root: Path | None = None


# -- reading ---------------------------------------------------------------------------------------

def _files(root: Path, subset: str) -> list[Path]:
    cands = [root / subset] if (root / subset).is_dir() else []
    files = [p for d in cands for p in sorted(d.rglob("*")) if p.suffix in (".jsonl", ".json", ".parquet")]
    files += [p for ext in (".jsonl", ".json", ".parquet") for p in [root / f"{subset}{ext}"] if p.exists()]
    return files


def _read(path: Path) -> list[dict]:
    if path.suffix == ".parquet":
        try:
            import pyarrow.parquet as pq
        except ImportError as exc:
            raise MissingDependencyError(f"{path}: reading parquet needs pyarrow (pip install pyarrow), "
                                         "or convert the subset to JSONL") from exc
        return pq.read_table(path).to_pylist()
    text = path.read_text(encoding="utf-8")
    try:
        if path.suffix == ".json":
            data = json.loads(text)
            return data if isinstance(data, list) else list(data.values())
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}: not valid JSON ({exc})") from None


def _norm(rec: dict) -> dict:
    return {ALIASES.get(k, k): v for k, v in rec.items()}


def read_dataset(root: str | Path) -> VidoreV3:
    """Read the four subsets of a local ViDoRe V3 copy (see module docstring)."""
    root = Path(root)
    if not root.is_dir():
        raise InputError(f"{root}: not a folder; give the local copy of a ViDoRe V3 dataset")
    data: dict[str, list[dict]] = {}
    for subset in SUBSETS:
        files = _files(root, subset)
        if not files and subset != "documents_metadata":
            raise InputError(f"{root}: no '{subset}' subset (expected {root}/{subset}/*.jsonl|parquet)")
        data[subset] = [_norm(r) for f in files for r in _read(f)]
    for subset, needed in (("corpus", ("corpus_id", "image")), ("queries", ("query_id", "query")),
                           ("qrels", ("query_id", "corpus_id", "score"))):
        for i, rec in enumerate(data[subset]):
            missing = [k for k in needed if k not in rec]
            if missing:
                raise InputError(f"{root}/{subset}: record {i} lacks {', '.join(missing)}")
    docs = {str(d["doc_id"]): d for d in data["documents_metadata"] if "doc_id" in d}
    return VidoreV3(data["corpus"], data["queries"], data["qrels"], docs, root)


def _image(value: Any, root: Path | None):
    from PIL import Image

    if isinstance(value, dict):
        if value.get("bytes"):
            raw = value["bytes"]
            return Image.open(io.BytesIO(base64.b64decode(raw) if isinstance(raw, str) else raw)).convert("RGB")
        value = value.get("path")
    if isinstance(value, str) and value:
        path = Path(value) if Path(value).is_absolute() or root is None else root / value
        with Image.open(path) as im:
            return im.convert("RGB")
    raise InputError(f"corpus image {str(value)[:60]!r}: expected {{'bytes': ...}}, {{'path': ...}} or a path")


# -- corpus ----------------------------------------------------------------------------------------

def _doc_key(rec: dict) -> str:
    return str(rec.get("doc_id", "vidore"))


def _doc_id(key: str) -> str:
    return "v3-" + "".join(c if c.isalnum() or c in "-_." else "_" for c in key)[:80]


def corpus_page_ids(ds: VidoreV3) -> dict[str, str]:
    """corpus_id -> docrag page id (document = ``doc_id``, page = ``page_number_in_doc`` or order)."""
    out: dict[str, str] = {}
    counters: dict[str, int] = {}
    for rec in ds.corpus:
        key = _doc_key(rec)
        counters[key] = counters.get(key, 0) + 1
        no = int(rec.get("page_number_in_doc") or counters[key])
        out[str(rec["corpus_id"])] = page_id(_doc_id(key), no if no >= 1 else counters[key])
    return out


def build_corpus(ds: VidoreV3, out: str | Path, dpi: float = 72.0, show_progress: bool = True,
                 ocr: str = "auto", lang: str = "en,ch") -> Corpus:
    """Write the pages as a docrag corpus (images, markdown as the text layer); documents already in
    ``out`` are kept (re-running resumes). With ``ocr`` ``auto`` (default) or ``always`` each image is
    OCR'd into words with boxes and layout blocks, so answers can be grounded on the page (the
    markdown stays the text layer); ``never`` skips it (retrieval only, much faster)."""
    from tqdm.auto import tqdm

    if ocr not in ("auto", "always", "never"):
        raise ValueError(f"ocr={ocr!r}: use auto, always or never")
    langs = parse_langs(lang)

    out = Path(out)
    corpus = Corpus.open(out) if (out / "manifest.json").exists() else Corpus.create(out)
    pids = corpus_page_ids(ds)
    by_doc: dict[str, list[dict]] = {}
    for rec in ds.corpus:
        by_doc.setdefault(_doc_key(rec), []).append(rec)
    writer = corpus.writer()
    for key, recs in tqdm(by_doc.items(), desc="ViDoRe V3 documents", unit="doc", disable=not show_progress):
        doc_id = _doc_id(key)
        if writer.has_document(doc_id):
            continue
        meta = ds.documents.get(key, {})
        name = str(meta.get("file_name") or meta.get("doc_name") or f"{key}.pdf")
        nos = [int(pids[str(r["corpus_id"])].rpartition(":")[2]) for r in recs]
        doc = Document(doc_id=doc_id, file_name=name, source_path=f"vidore-v3:{key}", sha256=doc_id,
                       n_pages=max(nos), kind="image", meta={"vidore_v3_doc_id": key})
        staged = writer.begin(doc)
        for rec, no in zip(recs, nos, strict=True):
            img = _image(rec["image"], ds.root)
            img.save(staged.staged_image_path(no, "png"))
            w_pt, h_pt = _page_size_pt(meta, img.width, img.height, dpi)
            text = str(rec.get("markdown") or "")
            page = Page(doc_id=doc_id, page_no=no, width_pt=w_pt, height_pt=h_pt,
                        image=staged.image_relpath(no, "png"), image_width=img.width,
                        image_height=img.height, dpi=72.0 * img.width / w_pt, text=text,
                        text_source=TextSource.OCR if text else TextSource.NONE,
                        lang=str(rec.get("language", "") or ""), file_name=name)
            if ocr != "never":
                ocr_into(page, img.convert("RGB"), langs, keep_text=True)
            staged.add_page(page)
        staged.commit()
    return Corpus.open(out)


def _page_size_pt(meta: Mapping, img_w: int, img_h: int, dpi: float) -> tuple[float, float]:
    w, h = meta.get("page_width_pt"), meta.get("page_height_pt")
    if w and h:
        return float(w), float(h)
    return img_w * 72.0 / dpi, img_h * 72.0 / dpi


# -- questions and qrels ---------------------------------------------------------------------------

def _boxes(value: Any) -> list[tuple[str, list[float]]]:
    """(annotator, [x1, y1, x2, y2]) from either box layout (see module docstring)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return []
    if isinstance(value, str):
        value = json.loads(value) if value.strip() else []
    out: list[tuple[str, list[float]]] = []
    if isinstance(value, dict):
        for ann, boxes in value.items():
            out += [(str(ann), [float(v) for v in b]) for b in boxes or []]
        return out
    for b in value:
        if isinstance(b, dict):
            coords = b.get("bbox") or [b["x1"], b["y1"], b["x2"], b["y2"]]
            out.append((str(b.get("annotator", b.get("annotator_id", ""))), [float(v) for v in coords]))
        else:
            out.append(("", [float(v) for v in b]))
    return out


def graded_qrels(ds: VidoreV3, items: Sequence[QAItem]) -> dict[str, dict[str, int]]:
    """``{qid: {page_id: grade}}`` for every question (grades as released, 0 kept out)."""
    pids = corpus_page_ids(ds)
    by_query: dict[str, dict[str, int]] = {}
    for r in ds.qrels:
        grade = int(r["score"])
        if grade > 0 and str(r["corpus_id"]) in pids:
            by_query.setdefault(str(r["query_id"]), {})[pids[str(r["corpus_id"])]] = grade
    return {it.qid: by_query.get(str(it.source["query_id"]), {}) for it in items}


def qa_items(ds: VidoreV3, corpus: Corpus) -> list[QAItem]:
    """One question per (query, language), gold pages = graded relevant pages, gold boxes = every
    annotator's boxes mapped to the page's PDF points."""
    pids = corpus_page_ids(ds)
    rel: dict[str, list[str]] = {}
    boxes: dict[str, list[GoldEvidence]] = {}
    for r in ds.qrels:
        cid, qid = str(r["corpus_id"]), str(r["query_id"])
        if cid not in pids or int(r["score"]) <= 0:
            continue
        pid = pids[cid]
        rel.setdefault(qid, []).append(pid)
        page = corpus.page(pid)
        for ann, (x1, y1, x2, y2) in _boxes(r.get("bounding_boxes")):
            box = Box.pixels(x1, y1, x2, y2, page.image_width, page.image_height).ordered().clipped()
            boxes.setdefault(qid, []).append(GoldEvidence(pid, page.to_page_points(box), annotator=ann))
    counts: dict[str, int] = {}
    for q in ds.queries:
        counts[str(q["query_id"])] = counts.get(str(q["query_id"]), 0) + 1
    items = []
    for q in ds.queries:
        qid = str(q["query_id"])
        lang = str(q.get("language") or "")
        qtype = q.get("query_type", q.get("query_types", ""))
        qtype = ",".join(map(str, qtype)) if isinstance(qtype, list) else str(qtype or "")
        items.append(QAItem(qid=qid if counts[qid] == 1 else f"{qid}:{lang}", question=str(q["query"]),
                            answer=str(q.get("answer") or ""), category=qtype, lang=lang,
                            gold_pages=sorted(set(rel.get(qid, []))), gold_boxes=boxes.get(qid, []),
                            source={"query_id": qid, "dataset": "vidore-v3"}))
    return items


# -- graded nDCG -----------------------------------------------------------------------------------

def _trec_order(run: Mapping[str, float]) -> list[str]:
    return [p for p, _ in sorted(run.items(), key=lambda kv: (kv[1], kv[0].encode("utf-8")), reverse=True)]


def graded_ndcg(run: Mapping[str, float], qrels: Mapping[str, int], k: int) -> float:
    """trec_eval's ``ndcg_cut.k`` with graded gains (gain = grade, discount log2(rank + 1))."""
    ranked = _trec_order(run)[:k]
    dcg = sum(qrels.get(p, 0) / math.log2(i + 2) for i, p in enumerate(ranked))
    ideal = sorted((g for g in qrels.values() if g > 0), reverse=True)[:k]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg > 0 else 0.0


def evaluate(hits: Mapping[str, Sequence[Hit]], qrels: Mapping[str, Mapping[str, int]], items: Sequence[QAItem],
             cutoffs: Iterable[int] = (5, 10)) -> dict:
    """nDCG@k (percent) overall, per ``lang:`` and per ``query_type:`` slice, plus the largest
    difference from pytrec_eval on the same run (must be ~0)."""
    cutoffs = list(cutoffs)
    run = {q: {h.page_id: float(h.score) for h in hs} for q, hs in hits.items()}
    judged = [it for it in items if qrels.get(it.qid)]
    per_q = {it.qid: {f"ndcg@{k}": graded_ndcg(run.get(it.qid, {}), qrels[it.qid], k) for k in cutoffs}
             for it in judged}
    slices: dict[str, list[str]] = {"overall": [it.qid for it in judged]}
    for it in judged:
        slices.setdefault(f"lang:{it.lang or 'unknown'}", []).append(it.qid)
        for t in (it.category or "unknown").split(","):
            slices.setdefault(f"query_type:{t}", []).append(it.qid)
    out = {"groups": {name: {**{m: 100.0 * sum(per_q[q][m] for q in ids) / len(ids) for m in per_q[ids[0]]},
                             "n": len(ids)} for name, ids in sorted(slices.items()) if ids},
           "n_unjudged": len(items) - len(judged), "pytrec_eval_max_abs_diff": None}
    try:
        import pytrec_eval
    except ImportError:
        log.warning("pytrec_eval is not installed; graded nDCG not cross-checked")
        return out
    measures = {f"ndcg_cut.{k}" for k in cutoffs}
    theirs = pytrec_eval.RelevanceEvaluator({q: dict(qrels[q]) for q in per_q}, measures).evaluate(
        {q: run.get(q) or {"__none__": 0.0} for q in per_q})
    out["pytrec_eval_max_abs_diff"] = max((abs(per_q[q][f"ndcg@{k}"] - theirs[q][f"ndcg_cut_{k}"])
                                           for q in per_q for k in cutoffs), default=0.0)
    return out
