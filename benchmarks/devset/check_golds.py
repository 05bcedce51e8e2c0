"""Check the real-document dev set's golds (``qa.jsonl``, FORMAT.md) with PyMuPDF only: no retriever, no generator.

Format checks (always, on every record):

* every field of FORMAT.md present and of its type; ids unique; ``lang`` is ``en``/``zh`` and ``doc`` is
  ``<lang>_<name>.pdf``; ``split`` is what the sha1 rule gives for ``doc`` (``kept`` when
  ``int(sha1(doc).hexdigest(), 16) % 10 < 3``, else ``seen``);
* ``category`` and ``finrag_category`` take FORMAT.md's values (a ``multi_page`` question has two pages or more);
* ``pages`` are distinct 1-based page numbers; every box is on one of them, its bbox is four numbers with
  ``x0 < x1`` and ``y0 < y1``; every gold page has at least one box and at most 5.

PDF checks (when ``<pdfs>/<doc>`` is there; fetched PDFs are not committed, see SOURCES.md):

* every page number within the PDF, every bbox inside its page (``page.rect``, a 0.5 pt tolerance);
* each ``answer_values`` item is in the text of the gold pages (NFKC, whitespace removed, thousands separators
  and dash variants folded); for a ``numerical_calculation`` question, a ``chart`` question or an answer
  that shows its arithmetic or says where it read the value (a computed or read-off value that need not be
  printed) a missing value is only a warning, as it is on pages with no text
  layer or when the gold boxes hold no text (the evidence is an image);
* the PDF's sha256 equals its line in ``pdfs.sha256`` (``sha256sum`` format) when that file is there.

Records of a document whose PDF is absent are reported as not checked; that alone does not fail. Exits 1 when
there is an error, else 0::

    python benchmarks/devset/check_golds.py [--qa benchmarks/devset/qa.jsonl] [--pdfs benchmarks/devset/pdfs]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
QA = HERE / "qa.jsonl"
PDFS = HERE / "pdfs"

FIELDS: dict[str, type | tuple[type, ...]] = {
    "id": str, "lang": str, "doc": str, "split": str, "question": str, "answer": str, "answer_values": list,
    "category": str, "finrag_category": str, "pages": list, "boxes": list, "answer_type": str,
}
LANGS = ("en", "zh")
SPLITS = ("seen", "kept")
CATEGORIES = ("text", "table", "chart", "multi_page")
_COMPUTED = re.compile(r"[=×÷≈]| [−-] |计算|约|数据标签|图表|图\s*\d|(?:figure|chart|exhibit)\s*\d|"
                       r"implied|calculated|divided|\bplus\b|\bminus\b|\babout\b|"
                       r"more than|less than|i\.e\.|difference of|\bsum\b|\bratio\b|data labels?|an image|read off",
                       re.IGNORECASE)
FINRAG_CATEGORIES = ("text_inference", "table_extraction", "chart_extraction", "numerical_calculation",
                     "time_sensitive", "multi_page_inference", "comparison")
MAX_BOXES_PER_PAGE = 5
MAX_PAGES = 12          # FORMAT.md: a page extract of at most 12 pages (a warning above)
EDGE_TOL = 0.5          # points a bbox may pass its page's edge (rounding)
KEPT_SHARE = 3          # int(sha1(doc), 16) % 10 < KEPT_SHARE -> kept
_DASHES = re.compile(r"[\u2010\u2011\u2012\u2013\u2014\u2212\ufe63\uff0d]")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
_SPACE = re.compile(r"\s+")


def split_of(doc: str) -> str:
    """The split FORMAT.md gives a document file name: ``kept`` for three tenths of names, else ``seen``."""
    return "kept" if int(hashlib.sha1(doc.encode("utf-8")).hexdigest(), 16) % 10 < KEPT_SHARE else "seen"


def normalise(text: str) -> str:
    """Text for the value check: NFKC, no whitespace, dash variants as ``-``, no thousands separators."""
    text = _THOUSANDS.sub("", _DASHES.sub("-", unicodedata.normalize("NFKC", text or "")))
    return _SPACE.sub("", text)   # after the separators: "2,673 367" (two cells) is not "2,673367"


def value_in(value: str, text: str) -> bool:
    """``value`` appears in ``text`` once both are normalised (:func:`normalise`)."""
    v = normalise(value)
    return bool(v) and v in normalise(text)


def _is_number(v: object) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def load(path: Path) -> tuple[list[dict], list[str]]:
    """Records of a JSONL file, and errors for lines that are not JSON objects."""
    recs, errs = [], []
    for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as exc:
            errs.append(f"{path.name}:{n}: not JSON ({exc})")
            continue
        if not isinstance(rec, dict):
            errs.append(f"{path.name}:{n}: not a JSON object")
            continue
        rec.setdefault("_line", n)
        recs.append(rec)
    return recs, errs


def _name(rec: dict) -> str:
    rid = rec.get("id")
    return rid if isinstance(rid, str) and rid else f"line {rec.get('_line', '?')}"


def check_record(rec: dict) -> list[str]:
    """Format errors of one record (no PDF needed)."""
    name = _name(rec)
    errs = []
    for key, typ in FIELDS.items():
        if key not in rec:
            errs.append(f"{name}: field {key!r} missing")
        elif not isinstance(rec[key], typ):
            errs.append(f"{name}: field {key!r} is {type(rec[key]).__name__}, not {typ.__name__}")
        elif typ is str and not rec[key].strip():
            errs.append(f"{name}: field {key!r} is empty")
    if errs:
        return errs
    doc, lang = rec["doc"], rec["lang"]
    if lang not in LANGS:
        errs.append(f"{name}: lang {lang!r} is not one of {', '.join(LANGS)}")
    if not doc.endswith(".pdf") or "/" in doc or not doc.startswith(f"{lang}_"):
        errs.append(f"{name}: doc {doc!r} is not a file name <lang>_<name>.pdf for lang {lang!r}")
    if rec["split"] != split_of(doc):
        errs.append(f"{name}: split {rec['split']!r} but the sha1 rule gives {split_of(doc)!r} for {doc}")
    if rec["category"] not in CATEGORIES:
        errs.append(f"{name}: category {rec['category']!r} is not one of {', '.join(CATEGORIES)}")
    if rec["finrag_category"] not in FINRAG_CATEGORIES:
        errs.append(f"{name}: finrag_category {rec['finrag_category']!r} is not one of "
                    f"{', '.join(FINRAG_CATEGORIES)}")
    values = rec["answer_values"]
    if not values or not all(isinstance(v, str) and v.strip() for v in values):
        errs.append(f"{name}: answer_values must be a non-empty list of non-empty strings")
    pages = rec["pages"]
    if not pages or not all(isinstance(p, int) and not isinstance(p, bool) and p >= 1 for p in pages):
        errs.append(f"{name}: pages must be a non-empty list of 1-based page numbers")
        return errs
    if len(set(pages)) != len(pages):
        errs.append(f"{name}: pages {pages} repeat a page")
    if rec["category"] == "multi_page" and len(set(pages)) < 2:
        errs.append(f"{name}: a multi_page question with pages {pages}")
    per_page: Counter[int] = Counter()
    for i, box in enumerate(rec["boxes"]):
        where = f"{name}: box {i}"
        if not isinstance(box, dict):
            errs.append(f"{where} is not an object")
            continue
        page, bbox = box.get("page"), box.get("bbox")
        if not isinstance(page, int) or isinstance(page, bool):
            errs.append(f"{where}: page {page!r} is not a page number")
            continue
        if page not in pages:
            errs.append(f"{where} is on page {page}, not one of the gold pages {pages}")
        per_page[page] += 1
        if not (isinstance(bbox, list) and len(bbox) == 4 and all(_is_number(v) for v in bbox)):
            errs.append(f"{where}: bbox {bbox!r} is not four numbers")
            continue
        x0, y0, x1, y1 = bbox
        if not (x0 < x1 and y0 < y1):
            errs.append(f"{where}: bbox {bbox} does not have x0 < x1 and y0 < y1")
        if "kind" in box and not isinstance(box["kind"], str):
            errs.append(f"{where}: kind {box['kind']!r} is not a string")
    for page in pages:
        if per_page[page] == 0:
            errs.append(f"{name}: gold page {page} has no box")
        elif per_page[page] > MAX_BOXES_PER_PAGE:
            errs.append(f"{name}: {per_page[page]} boxes on page {page} (at most {MAX_BOXES_PER_PAGE})")
    return errs


def check_ids(recs: Iterable[dict]) -> list[str]:
    """An error per id used more than once."""
    counts = Counter(r.get("id") for r in recs if isinstance(r.get("id"), str))
    return [f"{rid}: id used {n} times" for rid, n in sorted(counts.items()) if n > 1]


def check_against_pdf(rec: dict, pdf) -> tuple[list[str], list[str]]:
    """(errors, warnings) of one well-formed record against its open PyMuPDF document."""
    import pymupdf

    name = _name(rec)
    errs: list[str] = []
    warns: list[str] = []
    n = pdf.page_count
    bad = [p for p in rec["pages"] if p > n]
    if bad:
        errs.append(f"{name}: pages {bad} beyond the PDF's {n} pages")
    for i, box in enumerate(rec["boxes"]):
        page_no = box["page"]
        if not 1 <= page_no <= n:
            continue
        r = pdf[page_no - 1].rect
        x0, y0, x1, y1 = box["bbox"]
        if x0 < -EDGE_TOL or y0 < -EDGE_TOL or x1 > r.width + EDGE_TOL or y1 > r.height + EDGE_TOL:
            errs.append(f"{name}: box {i} {box['bbox']} outside page {page_no} "
                        f"({r.width:.1f} x {r.height:.1f} pt)")
    texts = [pdf[p - 1].get_text() for p in rec["pages"] if 1 <= p <= n]
    text = "\n".join(texts)
    computed = bool(_COMPUTED.search(rec["answer"]))   # the answer shows its arithmetic
    soft = rec["finrag_category"] == "numerical_calculation" or rec["category"] == "chart" or computed
    if texts and not text.strip():
        warns.append(f"{name}: gold pages have no text layer; answer_values not checked")
        return errs, warns
    boxed = [pdf[b["page"] - 1].get_textbox(pymupdf.Rect(b["bbox"])) for b in rec["boxes"] if 1 <= b["page"] <= n]
    if boxed and not "".join(boxed).strip():   # the evidence is an image (a scanned table, a raster chart)
        warns.append(f"{name}: no text layer inside the gold boxes (an image?); answer_values not checked")
        return errs, warns
    for v in rec["answer_values"]:
        if not value_in(v, text):
            msg = f"{name}: answer value {v!r} not in the text of pages {rec['pages']}"
            if soft:
                warns.append(msg + f" ({'chart' if rec['category'] == 'chart' else 'computed'})")
            else:
                errs.append(msg)
    return errs, warns


def read_sha256(path: Path) -> dict[str, str]:
    """``file name -> sha256`` from a ``sha256sum``-format file (``<hex>  <name>``, ``*`` binary marks too)."""
    out = {}
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        parts = line.strip().split(maxsplit=1)
        if len(parts) == 2 and not line.lstrip().startswith("#"):
            out[Path(parts[1].lstrip("*")).name] = parts[0].lower()
    return out


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


@dataclass
class Result:
    records: int = 0
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    unchecked: dict[str, list[str]] = field(default_factory=dict)   # doc -> ids not checked (PDF absent)
    pdf_checked: int = 0                                             # records checked against their PDF

    @property
    def ok(self) -> bool:
        return not self.errors


def check(qa: Path = QA, pdfs: Path = PDFS, sha256: Path | None = None, sources: Path | None = None,
          use_sha256: bool = True) -> Result:
    """Every check of this module on ``qa`` with the PDFs of ``pdfs``.

    ``sha256`` defaults to ``pdfs.sha256`` next to ``qa``, ``sources`` to ``SOURCES.md`` there; each is used
    when it exists (every document must then be named in SOURCES.md and match its hash)."""
    import pymupdf

    qa, pdfs = Path(qa), Path(pdfs)
    res = Result()
    recs, res.errors = load(qa)
    res.records = len(recs)
    res.errors += check_ids(recs)
    good = []
    for rec in recs:
        errs = check_record(rec)
        res.errors += errs
        if not errs:
            good.append(rec)
    sha_path = Path(sha256) if sha256 else qa.parent / "pdfs.sha256"
    hashes = read_sha256(sha_path) if use_sha256 and sha_path.exists() else None
    src_path = Path(sources) if sources else qa.parent / "SOURCES.md"
    src_text = src_path.read_text(encoding="utf-8") if src_path.exists() else None
    by_doc: dict[str, list[dict]] = defaultdict(list)
    for rec in good:
        by_doc[rec["doc"]].append(rec)
    for doc, doc_recs in sorted(by_doc.items()):
        if src_text is not None and doc not in src_text:
            res.errors.append(f"{doc}: not in {src_path.name} (where it can be fetched from)")
        path = pdfs / doc
        if not path.exists():
            res.unchecked[doc] = [r["id"] for r in doc_recs]
            continue
        if hashes is not None:
            want = hashes.get(doc)
            if want is None:
                res.warnings.append(f"{doc}: no line in {sha_path.name}")
            elif sha256_of(path) != want:
                res.errors.append(f"{doc}: sha256 differs from {sha_path.name} (another file than the golds "
                                  "were written on: see SOURCES.md)")
        try:
            pdf = pymupdf.open(path)
        except Exception as exc:  # noqa: BLE001 - a broken download is reported, not raised
            res.errors.append(f"{doc}: cannot be opened ({exc})")
            continue
        with pdf:
            if pdf.page_count > MAX_PAGES:
                res.warnings.append(f"{doc}: {pdf.page_count} pages (FORMAT.md: at most {MAX_PAGES})")
            for rec in doc_recs:
                errs, warns = check_against_pdf(rec, pdf)
                res.errors += errs
                res.warnings += warns
                res.pdf_checked += 1
    return res


def summary(qa: Path) -> list[str]:
    """Counts per split, lang, category and finrag_category (the mix FORMAT.md asks for)."""
    recs, _ = load(Path(qa))
    lines = [f"{len(recs)} questions, {len({r.get('doc') for r in recs})} documents"]
    for key in ("split", "lang", "category", "finrag_category"):
        c = Counter(str(r.get(key)) for r in recs)
        lines.append(f"  {key}: " + ", ".join(f"{k} {v} ({100 * v / len(recs):.0f}%)" for k, v in sorted(c.items())))
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--qa", type=Path, default=QA,
                    help=f"the question file (default {QA.relative_to(HERE.parents[1])})")
    ap.add_argument("--pdfs", type=Path, default=PDFS,
                    help=f"folder of the fetched PDFs (default {PDFS.relative_to(HERE.parents[1])})")
    ap.add_argument("--sha256", type=Path, default=None, help="default: pdfs.sha256 next to --qa, when present")
    ap.add_argument("--no-sha256", action="store_true",
                    help="skip the hash check (a PDF re-extracted with another PyMuPDF version differs byte-wise)")
    ap.add_argument("--sources", type=Path, default=None, help="default: SOURCES.md next to --qa, when present")
    ap.add_argument("-q", "--quiet", action="store_true", help="no warnings, no summary")
    args = ap.parse_args(argv)
    if not args.qa.exists():
        print(f"{args.qa}: no such file", file=sys.stderr)
        return 2
    res = check(args.qa, args.pdfs, args.sha256, args.sources, use_sha256=not args.no_sha256)
    for e in res.errors:
        print(f"ERROR {e}")
    if not args.quiet:
        for w in res.warnings:
            print(f"warn  {w}")
    for doc, ids in res.unchecked.items():
        print(f"{doc}: {len(ids)} records not checked (PDF absent: see SOURCES.md)")
    if not args.quiet:
        print("\n".join(summary(args.qa)))
    print(f"{res.records} records, {res.pdf_checked} checked against their PDF, "
          f"{sum(map(len, res.unchecked.values()))} not checked (PDF absent); "
          f"{len(res.errors)} errors, {len(res.warnings)} warnings")
    return 1 if res.errors else 0


if __name__ == "__main__":
    sys.exit(main())
