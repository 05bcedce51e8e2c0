"""Answer quality of the offline defaults on the dev set, per split, category and language.

Ingests the dev corpus (``../shared/corpus/pdfs`` with its ``qa.jsonl``: the *tune* split, used
while building the generator) and the dev set of ``benchmarks/devset`` (``generated.jsonl``:
report PDFs rendered from real public data, questions on a real Debian-shipped specification, and
unanswerable questions; the *heldout* split unless a record says otherwise; the *fresh* split: parallel
English/Chinese documents whose golds were committed before any generator ran on them; the *fresh2* split: a
second such set, built once *fresh* had been tuned on; the *fresh3* split: a third, built once *fresh2* had
been tuned on; the *fresh4* split: a fourth, built once *fresh3* had been tuned on; the *fresh5* split: a
fifth, built once *fresh4* had been tuned on; the *fresh6* split: a sixth, built once *fresh5* had been tuned
on; the *fresh7* split: a seventh, built once *fresh6* had been tuned on; the *fresh8* split: an eighth, built
once *fresh7* had been tuned on; the *fresh9* split: a ninth, built once *fresh8* had been tuned on; the *fresh10*
split: a tenth, built once *fresh9* had been tuned on; the *fresh11* split: an eleventh, built once *fresh10* had
been tuned on), asks every question with the configured defaults
(retriever, generator, k) and reports:

* ``page@1``: the first citation is on a gold page (same document);
* ``box``: a cited box overlaps a gold box (their intersection covers at least half of the smaller box);
* ``IoU``: mean over questions of the best IoU between a cited and a gold box (0 when none);
* ``figure``: a gold figure appears in the answer (numbers compared after removing separators,
  within rounding; a figure without digits, such as a key or a setting name, must appear verbatim,
  not inside a longer word), over questions that have one;
* ``declined``: share of answers that decline (unanswerable questions: higher is better).

    python benchmarks/answer_quality.py [--work /tmp/aq] [--json results.json]
"""

from __future__ import annotations

import argparse
import json
import logging
import re
from collections import defaultdict
from pathlib import Path

from docrag.geometry import Box

ROOT = Path(__file__).resolve().parents[1]
DEVSET = ROOT / "benchmarks" / "devset"
SHARED = ROOT.parent / "shared" / "corpus"
_NUM = re.compile(r"-?\d[\d,]*(?:\.\d+)?")
_CJK = re.compile(r"[\u3400-\u9fff]")
SPLITS = ("tune", "heldout", "fresh", "fresh2", "fresh3", "fresh4", "fresh5", "fresh6", "fresh7", "fresh8",
          "fresh9", "fresh10", "fresh11")


def numbers(text: str) -> list[float]:
    out = []
    for m in _NUM.findall(text or ""):
        try:
            out.append(float(m.replace(",", "")))
        except ValueError:
            continue
    return out


def token_found(token: str, answer: str) -> bool:
    """``token`` appears verbatim in ``answer``, not as part of a longer ASCII word (``x`` is not in ``next``)."""
    pre = r"(?<![A-Za-z0-9])" if token[:1].isascii() and token[:1].isalnum() else ""
    post = r"(?![A-Za-z0-9])" if token[-1:].isascii() and token[-1:].isalnum() else ""
    return bool(re.search(pre + re.escape(token) + post, answer or ""))


def figure_found(figures: list[str], answer: str) -> bool:
    """A gold figure is among the answer's numbers (within the gold figure's printed precision); a figure
    without digits (a key, a setting, a word) is found verbatim."""
    got = numbers(answer)
    for fig in figures:
        want = numbers(fig)
        if not want:
            if fig.strip() and token_found(fig.strip(), answer):
                return True
            continue
        w = want[0]
        decimals = len(fig.split(".")[1]) if "." in fig else 0
        tol = 0.5 * 10 ** -decimals + 1e-9
        if any(abs(abs(g) - abs(w)) <= tol for g in got):
            return True
    return False


def load_records() -> list[dict]:
    recs = []
    qa = SHARED / "qa.jsonl"
    if qa.exists():
        for line in qa.read_text(encoding="utf-8").splitlines():
            if line.strip():
                r = json.loads(line)
                first = _NUM.search(r["answer"])
                r.update(split="tune", lang="zh" if _CJK.search(r["question"]) else "en",
                         figures=[first.group(0)] if first else [], path=str(SHARED / "pdfs" / r["doc"]))
                recs.append(r)
    for line in (DEVSET / "generated.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            r = json.loads(line)
            r.setdefault("path", str(DEVSET / "pdfs" / r["doc"]) if r["doc"] else "")
            recs.append(r)
    return recs


def overlaps(a: Box, b: Box) -> bool:
    smaller = min(a.area, b.area)
    return smaller > 0 and a.intersection_area(b) >= 0.5 * smaller


def score(rec: dict, ans, corpus) -> dict:
    from docrag.generation.extractive import NO_ANSWER

    declined = ans.answer.strip() == NO_ANSWER or not ans.citations
    out = {"id": rec["id"], "split": rec["split"], "category": rec["category"], "lang": rec["lang"],
           "declined": declined, "answer": ans.answer, "confidence": ans.confidence}
    if rec["category"] == "unanswerable":
        return out
    gold_pages = set(rec["pages"])
    docs = {d.doc_id for d in corpus.find_documents(rec["doc"])}
    cits = [c for c in ans.citations]
    first = cits[0] if cits else None
    out["page1"] = bool(first and first.doc_id in docs and first.page_no in gold_pages)
    best, hit = 0.0, False
    for c in cits:
        if c.doc_id not in docs:
            continue
        page = corpus.page(c.page_id)
        for g in rec["boxes"]:
            if g["page"] != c.page_no:
                continue
            gb = page.box_pt(*g["bbox"])
            for b in c.boxes:
                bp = page.to_page_points(b)
                best = max(best, bp.iou(gb))
                hit = hit or overlaps(bp, gb)
    out.update(box=hit, iou=best)
    if rec.get("figures"):
        out["figure"] = figure_found(rec["figures"], ans.answer)
    return out


def table(rows: list[dict], key) -> list[str]:
    groups: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        groups[key(r)].append(r)
    lines = ["| slice | n | page@1 % | box % | mean IoU | figure % (n) | declined % |", "|---|---|---|---|---|---|---|"]
    for name in sorted(groups):
        g = groups[name]
        ans = [r for r in g if r["category"] != "unanswerable"]
        figs = [r for r in ans if "figure" in r]
        pct = lambda xs, k: f"{100 * sum(bool(x[k]) for x in xs) / len(xs):.1f}" if xs else "-"  # noqa: E731
        iou = f"{sum(r['iou'] for r in ans) / len(ans):.3f}" if ans else "-"
        lines.append(f"| {name} | {len(g)} | {pct(ans, 'page1')} | {pct(ans, 'box')} | {iou} | "
                     f"{pct(figs, 'figure')} ({len(figs)}) | {pct(g, 'declined')} |")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--work", type=Path, default=Path("/tmp/docrag-answer-quality"),
                    help="folder for the ingested corpus and its indexes (reused when present)")
    ap.add_argument("--retriever", default=None, help="default: the configured default")
    ap.add_argument("-k", type=int, default=None)
    ap.add_argument("--json", type=Path, help="write per-question results here")
    ap.add_argument("-v", "--verbose", action="store_true",
                    help="print every answer of the tune split (held-out and fresh answers stay unseen while "
                    "tuning)")
    ap.add_argument("--show-heldout", action="store_true",
                    help="with -v, print the answers of the heldout, fresh, fresh2, fresh3, fresh4, fresh5, fresh6, "
                    "fresh7, fresh8, fresh9, fresh10 and fresh11 splits too")
    ap.add_argument("--split", choices=SPLITS, action="append",
                    help="ask and score only this split (repeat for several; develop on tune without seeing "
                    "held-out numbers)")
    args = ap.parse_args()
    logging.basicConfig(level=logging.WARNING)

    from docrag.ingestion import ingest
    from docrag.pipeline import RAG

    recs = load_records()
    paths = sorted({r["path"] for r in recs if r.get("path") and Path(r["path"]).exists()})  # all: one corpus
    missing = {r["id"] for r in recs if r.get("path") and not Path(r["path"]).exists()}
    recs = [r for r in recs if r["id"] not in missing and (not args.split or r["split"] in args.split)]
    ingest(paths, args.work / "corpus", show_progress=False)
    rag = RAG(args.work / "corpus", retriever=args.retriever, index_dir=args.work / "indexes",
              show_progress=False)
    rows = []
    for rec in recs:
        ans = rag.ask(rec["question"], k=args.k)
        res = score(rec, ans, rag.corpus)
        rows.append(res)
        if args.verbose and (rec["split"] == "tune" or args.show_heldout):
            print(json.dumps({k: res.get(k) for k in ("id", "page1", "box", "iou", "figure", "declined")}),
                  "|", ans.answer[:160])
    print(f"retriever {rag.retriever_name}, generator {rag.generator.name}, k {args.k or rag.default_k}; "
          f"{len(rows)} questions ({len(missing)} left out: source PDF missing)\n")
    for split in SPLITS:
        part = [r for r in rows if r["split"] == split]
        if not part:
            continue
        print(f"### {split} split\n")
        print("\n".join(table(part, lambda r: "all")[:2] + table(part, lambda r: "all")[2:]
                        + table(part, lambda r: f"category {r['category']}")[2:]
                        + table(part, lambda r: f"lang {r['lang']}")[2:]))
        print()
    if args.json:
        args.json.write_text(json.dumps(rows, ensure_ascii=False, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
