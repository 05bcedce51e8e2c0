"""Answer quality of the offline defaults on the real dev set, per split, category, FinRAG category and language.

Ingests, into one corpus, every PDF of the real dev set that has been fetched (``benchmarks/devset/pdfs``, see
``benchmarks/devset/README.md``; the questions are ``benchmarks/devset/qa.jsonl``, FORMAT.md) and the shared
development corpus (``../shared/corpus``: its PDFs and ``qa.jsonl``, scored as the split ``shared``), asks every
question of the chosen splits with the configured defaults (retriever, generator, k) and reports:

* ``page@1``: the first citation is on a gold page (same document);
* ``box``: a cited box overlaps a gold box (their intersection covers at least half of the smaller box);
* ``Dice`` / ``IoU``: pixel Dice (= pixel F1) and IoU of the cited boxes against the gold boxes, ViDoRe V3
  style (``docrag.citation.pixel_grounding.question_pixel_score``, default options: pages neither side boxed
  skipped, averaged per question, then over questions);
* ``figure``: every ``answer_values`` item appears in the answer (numbers compared after removing separators,
  within the rounding of the less precise side and within 2% of the gold, scale words such as million/亿/万
  read: "$3.2 billion" states "$3,214 million", a stray "1" does not state "1.37"; a value with words
  must appear verbatim, NFKC and whitespace-insensitive); the shared split has no ``answer_values``: the first
  number of its gold answer stands in;
* ``declined``: share of answers that decline.

The real set's ``kept`` split (FORMAT.md: measured once per generator version, never looked at while
developing) is asked only when named (``--split kept``); by default the ``seen`` and ``shared`` splits are::

    python benchmarks/answer_quality.py [--work /tmp/aq] [--split seen --split shared] [--json results.json]
"""

from __future__ import annotations

import argparse
import json
import logging
import re
import sys
import unicodedata
from collections import defaultdict
from dataclasses import dataclass, replace
from pathlib import Path

from docrag.geometry import Box
from docrag.quantities import Quantity, quantities, same_amount

ROOT = Path(__file__).resolve().parents[1]
DEVSET = ROOT / "benchmarks" / "devset"
SHARED = ROOT.parent / "shared" / "corpus"
SPLITS = ("seen", "kept", "shared")
DEFAULT_SPLITS = ("seen", "shared")
_NUM = re.compile(r"-?\d[\d,]*(?:\.\d+)?")
_CJK = re.compile(r"[\u3400-\u9fff]")
_ABBREV = re.compile(r"(?<=\d)\s?([KMB])(?![A-Za-z])")   # 72M, $1.2B, 15K: scale letters
_ABBREV_WORD = {"K": " thousand", "M": " million", "B": " billion"}
# unit and scale words a numeric value may carry and still be compared as a number ("$921 million", "1,234.5亿元")
_UNITS = re.compile(
    r"thousands?|millions?|billions?|trillions?|\bmn\b|\bmln\b|\bbn\b|\btn\b|percentage points?|per cent|percent"
    r"|\bpp\b|\bbps\b|basis points?|\b(?:US|USD|EUR|RMB|CNY|HK|HKD|INR|Rs)\b|个百分点|百分点|万亿|千万|百万|十万"
    r"|人民币|美元|港元|港币|欧元|亿|万|千|元|点|倍|股|人|%", re.IGNORECASE)


# -- figures ------------------------------------------------------------------------------------------------
def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text or "")).strip()


def _squash(text: str) -> str:
    """NFKC, no whitespace, no thousands separators: for verbatim comparison."""
    return re.sub(r"\s+", "", re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", unicodedata.normalize("NFKC", text or "")))


def _amounts(text: str) -> list:
    return quantities(_ABBREV.sub(lambda m: _ABBREV_WORD[m.group(1)], _norm(text)))


def token_found(token: str, answer: str) -> bool:
    """``token`` appears verbatim in ``answer``, not as part of a longer ASCII word (``x`` is not in ``next``)."""
    token, answer = _norm(token), _norm(answer)
    pre = r"(?<![A-Za-z0-9])" if token[:1].isascii() and token[:1].isalnum() else ""
    post = r"(?![A-Za-z0-9])" if token[-1:].isascii() and token[-1:].isalnum() else ""
    return bool(token) and bool(re.search(pre + re.escape(token) + post, answer, re.IGNORECASE))


def is_numeric(value: str) -> bool:
    """A value made of numbers with units and scale words only (compared as amounts, not verbatim)."""
    rest = _ABBREV.sub("", _norm(value))
    rest = _UNITS.sub("", _NUM.sub("", rest))
    return bool(_NUM.search(value)) and not re.search(r"[A-Za-z\u3400-\u9fff]", rest)


# a figure rounded coarser than the gold states it only this close: "96%" for "96.1%", "$3.2 billion" for
# "$3,214 million"; a stray "1" of a chart's axis text is not "1.37", nor "5" "5.5" (issue 23, 2026-11-26)
MAX_ROUNDING = 0.02


def _same(answer: Quantity, gold: Quantity) -> bool:
    """The same amount, or the same figure with a scale word only on one side ("1,234.5" in a table headed
    "in millions" and "1,234.5 million" in the answer); within :data:`MAX_ROUNDING` of the gold either way."""
    pairs = [(answer, gold)]
    if (answer.scale == 1.0) != (gold.scale == 1.0):
        pairs.append((replace(answer, scale=1.0), replace(gold, scale=1.0)))
    return any(same_amount(a, g) and abs(abs(a.value) - abs(g.value)) <= MAX_ROUNDING * abs(g.value)
               for a, g in pairs)


def value_found(value: str, answer: str) -> bool:
    """One gold value in an answer. A numeric value: every number of it among the answer's amounts, within
    rounding (``docrag.quantities.same_amount``: "$921 million" is "$0.92 billion", "1,234.5亿元" is
    "123,450,000,000"); any other value verbatim (NFKC; an ASCII word not inside a longer word, case aside; with
    Chinese characters, whitespace and thousands separators aside)."""
    if not _squash(value):
        return False
    if is_numeric(value):
        want, got = _amounts(value), _amounts(answer)
        return bool(want) and all(any(_same(g, w) for g in got) for w in want)
    if _CJK.search(value):
        return _squash(value) in _squash(answer)
    return token_found(value, answer)


_CHART_DUMP = re.compile(r"\[chart text:[^\]]*\]")


def figures_found(values: list[str], answer: str) -> bool:
    """Every gold value appears in the answer; the words of a chart the answer quotes as "[chart text: …]"
    (its axis ticks, labels and legend, when no data label answers) state no figure."""
    stated = _CHART_DUMP.sub(" ", answer)
    return bool(values) and all(value_found(v, stated) for v in values)


# -- records ------------------------------------------------------------------------------------------------
@dataclass
class Loaded:
    records: list[dict]
    absent: dict[str, int]        # doc -> questions left out: PDF not fetched
    note: str = ""                # why the real set is missing, if it is


def load_records(qa: Path = DEVSET / "qa.jsonl", pdfs: Path = DEVSET / "pdfs", shared: Path = SHARED) -> Loaded:
    """The real set's records (``path`` set; those without a fetched PDF counted in ``absent``) and the shared
    corpus' records as split ``shared`` (with ``lang``, ``answer_values`` and ``finrag_category`` filled in)."""
    recs: list[dict] = []
    absent: dict[str, int] = defaultdict(int)
    note = ""
    if qa.exists():
        for line in qa.read_text(encoding="utf-8").splitlines():
            if line.strip():
                r = json.loads(line)
                path = pdfs / r["doc"]
                if path.exists():
                    recs.append({**r, "path": str(path)})
                else:
                    absent[r["doc"]] += 1
    else:
        note = f"{qa}: not found (the real dev set's questions; see benchmarks/devset/README.md)"
    sqa = shared / "qa.jsonl"
    if sqa.exists():
        for line in sqa.read_text(encoding="utf-8").splitlines():
            if line.strip():
                r = json.loads(line)
                first = _NUM.search(r["answer"])
                recs.append({**r, "split": "shared", "lang": "zh" if _CJK.search(r["question"]) else "en",
                             "answer_values": [first.group(0)] if first else [],
                             "finrag_category": r.get("finrag_category", "-"),
                             "path": str(shared / "pdfs" / r["doc"])})
    return Loaded(recs, dict(absent), note)


def absent_message(absent: dict[str, int], pdfs: Path, sources: Path = DEVSET / "SOURCES.md") -> str:
    n = sum(absent.values())
    lines = [f"{len(absent)} documents of the real dev set have no PDF in {pdfs} ({n} questions left out):"]
    lines += [f"  {doc} ({k} questions)" for doc, k in sorted(absent.items())]
    lines.append(f"Fetch them as {sources} lists them (repository, path, commit, pages kept); "
                 "benchmarks/devset/README.md says how.")
    return "\n".join(lines)


# -- scoring ------------------------------------------------------------------------------------------------
def overlaps(a: Box, b: Box) -> bool:
    smaller = min(a.area, b.area)
    return smaller > 0 and a.intersection_area(b) >= 0.5 * smaller


@dataclass
class _Gold:
    page_id: str
    box: Box
    annotator: str = ""


def score(rec: dict, ans, corpus) -> dict:
    """One question's scores (``page1``, ``box``, ``dice``, ``iou``, ``figure``, ``declined``)."""
    from docrag.citation.pixel_grounding import question_pixel_score
    from docrag.errors import CorpusError
    from docrag.generation.extractive import NO_ANSWER
    from docrag.types import page_id

    declined = ans.answer.strip() == NO_ANSWER or not ans.citations
    out = {"id": rec["id"], "split": rec["split"], "category": rec["category"],
           "finrag_category": rec.get("finrag_category", "-"), "lang": rec["lang"],
           "declined": declined, "answer": ans.answer, "confidence": ans.confidence}
    if rec["category"] == "unanswerable":
        return out
    gold_pages = set(rec["pages"])
    docs = {d.doc_id for d in corpus.find_documents(rec["doc"])}
    cits = list(ans.citations)
    first = cits[0] if cits else None
    out["page1"] = bool(first and first.doc_id in docs and first.page_no in gold_pages)
    hit = False
    for c in cits:
        if c.doc_id not in docs:
            continue
        page = corpus.page(c.page_id)
        for g in rec["boxes"]:
            if g["page"] != c.page_no:
                continue
            gb = page.box_pt(*g["bbox"])
            hit = hit or any(overlaps(page.to_page_points(b), gb) for b in c.boxes)
    out["box"] = hit
    pages, gold = {}, []
    doc_id = sorted(docs)[0] if docs else None
    if doc_id is not None:
        for g in rec["boxes"]:
            try:
                page = corpus.page(page_id(doc_id, g["page"]))
            except CorpusError:
                continue
            pages[page.page_id] = page
            gold.append(_Gold(page.page_id, page.box_pt(*g["bbox"])))
    system: dict[str, list[Box]] = {}
    for c in cits:
        system.setdefault(c.page_id, []).extend(c.boxes)
        if c.page_id not in pages:
            try:
                pages[c.page_id] = corpus.page(c.page_id)
            except CorpusError:
                pass
    gold_pids = [pid for pid, p in pages.items() if p.doc_id == doc_id and p.page_no in gold_pages]
    px = question_pixel_score(system, gold, pages, gold_pids)
    out["dice"], out["iou"] = (px.f1 or 0.0, px.iou or 0.0) if px is not None and px.pages else (0.0, 0.0)
    if rec.get("answer_values"):
        out["figure"] = figures_found(rec["answer_values"], ans.answer)
    return out


def table(rows: list[dict], key) -> list[str]:
    groups: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        groups[key(r)].append(r)
    lines = ["| slice | n | page@1 % | box % | pixel Dice | pixel IoU | figure % (n) | declined % |",
             "|---|---|---|---|---|---|---|---|"]
    for name in sorted(groups):
        g = groups[name]
        ans = [r for r in g if r["category"] != "unanswerable"]
        figs = [r for r in ans if "figure" in r]
        pct = lambda xs, k: f"{100 * sum(bool(x[k]) for x in xs) / len(xs):.1f}" if xs else "-"  # noqa: E731
        mean = lambda xs, k: f"{sum(x[k] for x in xs) / len(xs):.3f}" if xs else "-"  # noqa: E731
        lines.append(f"| {name} | {len(g)} | {pct(ans, 'page1')} | {pct(ans, 'box')} | {mean(ans, 'dice')} | "
                     f"{mean(ans, 'iou')} | {pct(figs, 'figure')} ({len(figs)}) | {pct(g, 'declined')} |")
    return lines


def report(rows: list[dict]) -> list[str]:
    """Markdown tables per split: all, per category, per FinRAG category, per language."""
    out = []
    for split in SPLITS:
        part = [r for r in rows if r["split"] == split]
        if not part:
            continue
        lines = table(part, lambda r: "all")
        lines += table(part, lambda r: f"category {r['category']}")[2:]
        if split != "shared":
            lines += table(part, lambda r: f"finrag {r['finrag_category']}")[2:]
        lines += table(part, lambda r: f"lang {r['lang']}")[2:]
        out += [f"### {split} split ({len(part)} questions)", "", *lines, ""]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--qa", type=Path, default=DEVSET / "qa.jsonl", help="the real dev set's questions")
    ap.add_argument("--pdfs", type=Path, default=DEVSET / "pdfs", help="folder of its fetched PDFs")
    ap.add_argument("--shared", type=Path, default=SHARED, help="the shared corpus (pdfs/ and qa.jsonl)")
    ap.add_argument("--work", type=Path, default=Path("/tmp/docrag-answer-quality"),
                    help="folder for the ingested corpus and its indexes (reused when present)")
    ap.add_argument("--retriever", default=None, help="default: the configured default")
    ap.add_argument("-k", type=int, default=None)
    ap.add_argument("--split", choices=SPLITS, action="append",
                    help="ask and score only this split (repeat for several; default: seen and shared; kept is "
                    "asked only when named)")
    ap.add_argument("--ids", help="comma-separated question ids: ask only these (of the chosen splits)")
    ap.add_argument("--limit", type=int, default=0, help="ask only the first N questions of each split")
    ap.add_argument("--json", type=Path, help="write per-question results here")
    ap.add_argument("-v", "--verbose", action="store_true",
                    help="print every answer (never those of the kept split)")
    args = ap.parse_args()
    logging.basicConfig(level=logging.WARNING)
    splits = tuple(args.split or DEFAULT_SPLITS)

    loaded = load_records(args.qa, args.pdfs, args.shared)
    if loaded.note:
        print(loaded.note, file=sys.stderr)
    if loaded.absent:
        print(absent_message(loaded.absent, args.pdfs, args.qa.parent / "SOURCES.md"), file=sys.stderr)
    recs = [r for r in loaded.records if r["split"] in splits]
    if args.ids:
        want = set(args.ids.split(","))
        recs = [r for r in recs if r["id"] in want]
    if args.limit:
        seen: dict[str, int] = defaultdict(int)
        kept = []
        for r in recs:
            seen[r["split"]] += 1
            if seen[r["split"]] <= args.limit:
                kept.append(r)
        recs = kept
    if not recs:
        sys.exit(f"no questions to ask in split(s) {', '.join(splits)}")

    from docrag.ingestion import ingest
    from docrag.pipeline import RAG

    # one corpus of every PDF there is (all splits), so the distractors do not change with --split
    paths = sorted({r["path"] for r in loaded.records if Path(r["path"]).exists()})
    ingest(paths, args.work / "corpus", show_progress=False)
    rag = RAG(args.work / "corpus", retriever=args.retriever, index_dir=args.work / "indexes",
              show_progress=False)
    rows = []
    for rec in recs:
        ans = rag.ask(rec["question"], k=args.k)
        res = score(rec, ans, rag.corpus)
        rows.append(res)
        if args.verbose and rec["split"] != "kept":
            print(json.dumps({k: res.get(k) for k in ("id", "page1", "box", "dice", "figure", "declined")}),
                  "|", ans.answer[:160])
    print(f"retriever {rag.retriever_name}, generator {rag.generator.name}, k {args.k or rag.default_k}; "
          f"{len(rows)} questions of split(s) {', '.join(splits)}; corpus {len(paths)} PDFs "
          f"({sum(loaded.absent.values())} real-set questions left out: PDF not fetched)\n")
    print("\n".join(report(rows)))
    if args.json:
        args.json.write_text(json.dumps(rows, ensure_ascii=False, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
