"""Grounded citations against a model's own boxes, ViDoRe V3-style pixel Dice over gold pages.

A scripted model gives each question's GOLD answer text and boxes degraded the way ViDoRe V3's
models fail; the boxes are scored as the model drew them (``model``), snapped to layout blocks
(``snap``, the old ``--snap``), and after grounding (``refine``: model boxes as a prior, kept
where they agree with the evidence; ``replace``: model boxes ignored). ``--end-to-end`` adds the
offline defaults (retriever + ``extractive`` generator) answering by themselves.

Degradations: ``perfect`` (the gold boxes), ``none`` (the gold pages named, no box), ``whole_page``
(one box over each gold page), ``shifted`` (each gold box moved by 10-30% of the page and rescaled
by 0.7-1.3, seeded per question), ``wrong_region`` (the gold page's nearest region that misses the
gold box), ``page_off`` (the gold boxes on another retrieved page), ``region_ids`` (citing by region
number, ``cite_by="regions"``: the model names the number of the region that overlaps each gold box
most, read back through :mod:`docrag.generation.parse_regions` -- the ceiling of region citing at the
regions' granularity). The model can only cite retrieved pages (top ``k``), so ``perfect`` is the
ceiling retrieval allows.

    python benchmarks/grounding.py --qa ../shared/corpus/qa.jsonl --pdfs ../shared/corpus/pdfs [--k 5]
        [--retriever bm25] [--end-to-end] [--split kept] [--json out.json]

Several ``--qa``/``--pdfs`` pairs may be given. Records need ``question``, ``answer``, ``doc``
(file name), ``pages`` and ``boxes`` (``{page, bbox}`` in PDF points, top-left origin); optional
``category``, ``lang``, ``split``.
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import re
import sys
import time
from collections import defaultdict
from pathlib import Path

from tqdm import tqdm

from docrag.citation.pixel_grounding import question_pixel_score
from docrag.corpus import Corpus
from docrag.evidence import GoldEvidence
from docrag.geometry import Box
from docrag.grounding import ground
from docrag.regions import page_regions
from docrag.types import Citation

log = logging.getLogger("grounding-bench")
DEGRADATIONS = ("perfect", "none", "whole_page", "shifted", "wrong_region", "page_off", "region_ids")
SYSTEMS = ("model", "snap", "refine", "replace")
_CJK = re.compile(r"[\u3400-\u9fff]")


def load(qa_paths: list[str], pdf_dirs: list[str], work: Path) -> tuple[Corpus, list[dict]]:
    """Ingest every PDF folder into one corpus under ``work`` and read the questions with gold boxes."""
    import docrag

    corpus_dir = work / "corpus"
    docrag.ingest([Path(p) for p in pdf_dirs], out=corpus_dir, show_progress=False)
    corpus = Corpus.open(corpus_dir)
    by_name = {d.file_name: d.doc_id for d in corpus.documents()}
    recs = []
    for qa in qa_paths:
        for line in Path(qa).read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            r = json.loads(line)
            if not r.get("boxes") or r.get("doc") not in by_name:
                continue
            r["doc_id"] = by_name[r["doc"]]
            r.setdefault("lang", "zh" if _CJK.search(r["question"]) else "en")
            r.setdefault("category", "text")
            recs.append(r)
    return corpus, recs


def gold_of(rec: dict, corpus: Corpus) -> list[GoldEvidence]:
    out = []
    for b in rec["boxes"]:
        page = corpus.page(f"{rec['doc_id']}:{b['page']}")
        out.append(GoldEvidence(page.page_id, page.box_pt(*b["bbox"])))
    return out


def degrade(kind: str, gold: list[GoldEvidence], pages: list, rng: random.Random) -> list[Citation]:
    """The model's citations for one degradation (only pages it was shown)."""
    shown = {p.page_id: p for p in pages}
    by_page: dict[str, list[Box]] = defaultdict(list)
    for g in gold:
        if g.page_id in shown:
            by_page[g.page_id].append(g.box)
    if kind == "region_ids":
        return _by_region_number(by_page, pages)
    if kind == "page_off":
        others = [p.page_id for p in pages if p.page_id not in by_page]
        if not others or not by_page:
            return []
        o = shown[others[0]]
        return [Citation(o.page_id, boxes=[o.box_pt(min(b.x0, o.width_pt - 1), min(b.y0, o.height_pt - 1),
                                                    min(b.x1, o.width_pt), min(b.y1, o.height_pt))
                                           for bs in by_page.values() for b in bs])]
    out = []
    for pid, boxes in by_page.items():
        page = shown[pid]
        w, h = page.width_pt, page.height_pt
        if kind == "perfect":
            out.append(Citation(pid, boxes=list(boxes)))
        elif kind == "none":
            out.append(Citation(pid, boxes=[]))
        elif kind == "whole_page":
            out.append(Citation(pid, boxes=[page.box_pt(0, 0, w, h)]))
        elif kind == "shifted":
            moved = []
            for b in boxes:
                dx, dy = (rng.uniform(0.1, 0.3) * rng.choice((-1, 1)) for _ in range(2))
                s = rng.uniform(0.7, 1.3)
                cx, cy = (b.x0 + b.x1) / 2 + dx * w, (b.y0 + b.y1) / 2 + dy * h
                hw, hh = b.width * s / 2, b.height * s / 2
                x0, y0, x1, y1 = max(0, cx - hw), max(0, cy - hh), min(w, cx + hw), min(h, cy + hh)
                if x1 - x0 > 1 and y1 - y0 > 1:
                    moved.append(page.box_pt(x0, y0, x1, y1))
            out.append(Citation(pid, boxes=moved))
        elif kind == "wrong_region":
            misses = [r.box for r in page_regions(page) if all(r.box.iou(b) < 0.1 for b in boxes)]
            if misses:
                cy = sum((b.y0 + b.y1) / 2 for b in boxes) / len(boxes)
                out.append(Citation(pid, boxes=[min(misses, key=lambda m: abs((m.y0 + m.y1) / 2 - cy))]))
            else:
                out.append(Citation(pid, boxes=[]))
    return out


def _by_region_number(by_page: dict[str, list[Box]], pages: list) -> list[Citation]:
    """``region_ids``: per gold page, the numbers of the regions that overlap its gold boxes most,
    as a reply ``{"regions": {"<image>": [n, ...]}}`` read by the generator's own parser."""
    from docrag.generation.parse import ImageFrame
    from docrag.generation.parse_regions import citations_from_regions

    frames, reply = [], {}
    for i, page in enumerate(pages, start=1):
        regions = tuple(page_regions(page))
        frames.append(ImageFrame(i, page, (1024, 768), None, regions))
        numbers = []
        for b in by_page.get(page.page_id, ()):
            best = max(regions, key=lambda r: r.box.intersection_area(b), default=None)
            if best is not None and best.box.intersection_area(b) > 0 and best.number not in numbers:
                numbers.append(best.number)
        if page.page_id in by_page:
            reply[str(i)] = numbers
    return citations_from_regions(reply, frames)[0]


def dice_iou(citations: list[Citation], gold: list[GoldEvidence], corpus: Corpus) -> tuple[float, float]:
    """Pixel Dice (F1) and IoU of the cited boxes against the gold boxes, over the gold pages."""
    system: dict[str, list[Box]] = defaultdict(list)
    for c in citations:
        system[c.page_id].extend(c.boxes)
    pages = {pid: corpus.page(pid) for pid in {*system, *(g.page_id for g in gold)}}
    score = question_pixel_score(system, gold, pages, {g.page_id for g in gold})
    if score is None or not score.pages:
        return 0.0, 0.0
    return score.f1 or 0.0, score.iou or 0.0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--qa", action="append", required=True)
    ap.add_argument("--pdfs", action="append", required=True)
    ap.add_argument("--work", default="/tmp/docrag-grounding-bench")
    ap.add_argument("--retriever", default=None, help="default: the configured retriever")
    ap.add_argument("-k", "--k", type=int, default=5)
    ap.add_argument("--split", default=None, help="only records of this split")
    ap.add_argument("--end-to-end", action="store_true", help="also the offline defaults answering alone")
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    from docrag.generation.snap import snap_citations
    from docrag.pipeline import RAG

    corpus, recs = load(args.qa, args.pdfs, Path(args.work))
    if args.split:
        recs = [r for r in recs if r.get("split") == args.split]
    rag = RAG(corpus, retriever=args.retriever, show_progress=False)
    hits = rag.index.search_batch([r["question"] for r in recs], k=args.k)
    rows = []
    ground_s, grounded = 0.0, 0
    for rec, hs in tqdm(list(zip(recs, hits, strict=True)), desc="questions", disable=not sys.stderr.isatty()):
        gold = gold_of(rec, corpus)
        pages = rag.pages_for(hs)
        rng = random.Random(rec.get("id", rec["question"]))
        row = {"id": rec.get("id"), "category": rec["category"], "lang": rec["lang"], "scores": {}}
        row["iou"] = {}
        for kind in DEGRADATIONS:
            model = degrade(kind, gold, pages, rng)
            by_id = {p.page_id: p for p in pages}
            t0 = time.perf_counter()
            refined = ground(rec["question"], rec["answer"], pages, model_citations=model).citations
            ground_s += time.perf_counter() - t0
            grounded += 1
            systems = {"model": model, "snap": snap_citations(model, by_id), "refine": refined,
                       "replace": ground(rec["question"], rec["answer"], pages, model_citations=model,
                                         mode="replace").citations}
            scored = {s: dice_iou(c, gold, corpus) for s, c in systems.items()}
            row["scores"][kind] = {s: d for s, (d, _) in scored.items()}
            row["iou"][kind] = {s: i for s, (_, i) in scored.items()}
        if args.end_to_end:
            ans = rag.answer(rec["question"], hs)
            d, i = dice_iou(ans.citations, gold, corpus)
            row["scores"]["end_to_end"] = {"offline": d}
            row["iou"]["end_to_end"] = {"offline": i}
        rows.append(row)
    log.warning("grounding took %.1f ms a call on average (%d calls)", 1000 * ground_s / max(grounded, 1), grounded)
    report = summarize(rows)
    print(render(report, len(rows), args))
    if args.json:
        Path(args.json).write_text(json.dumps({"report": report, "rows": rows}, indent=1), encoding="utf-8")
    return 0


def summarize(rows: list[dict]) -> dict:
    """Mean Dice per degradation and system, overall and per category and language."""
    out: dict = {}
    groups = {"all": rows}
    for key in ("category", "lang"):
        for val in sorted({r[key] for r in rows}):
            groups[f"{key}={val}"] = [r for r in rows if r[key] == val]
    for name, rs in groups.items():
        out[name] = {"n": len(rs)}
        for kind in rs[0]["scores"] if rs else ():
            out[name][kind] = {s: round(sum(r["scores"][kind][s] for r in rs) / len(rs), 3)
                               for s in rs[0]["scores"][kind]}
            out[name][f"{kind}/iou"] = {s: round(sum(r["iou"][kind][s] for r in rs) / len(rs), 3)
                                        for s in rs[0]["iou"][kind]}
    return out


def render(report: dict, n: int, args: argparse.Namespace) -> str:
    """Markdown: Dice and IoU per degradation and system, then ``refine`` Dice per group."""
    everything = report["all"]
    kinds = [k for k in everything if k != "n" and not k.endswith("/iou")]
    lines = [f"pixel Dice / IoU over gold pages, {n} questions, k={args.k}, "
             f"retriever={args.retriever or 'default'}", "",
             "| degradation | " + " | ".join(f"{s} Dice" for s in SYSTEMS) + " | " +
             " | ".join(f"{s} IoU" for s in SYSTEMS) + " |", "|---" * (1 + 2 * len(SYSTEMS)) + "|"]
    for kind in kinds:
        dice_row = [f"{everything[kind][s]:.3f}" if s in everything[kind] else "" for s in SYSTEMS]
        iou_row = [f"{everything[kind + '/iou'][s]:.3f}" if s in everything[kind + "/iou"] else "" for s in SYSTEMS]
        if kind == "end_to_end":
            dice_row = [f"offline {everything[kind]['offline']:.3f}"] + [""] * (len(SYSTEMS) - 1)
            iou_row = [f"offline {everything[kind + '/iou']['offline']:.3f}"] + [""] * (len(SYSTEMS) - 1)
        lines.append(f"| {kind} | " + " | ".join(dice_row) + " | " + " | ".join(iou_row) + " |")
    groups = [g for g in report if g != "all"]
    lines += ["", "grounded Dice (`refine`; end_to_end: offline defaults) by group", "",
              "| degradation | all | " + " | ".join(f"{g} (n={report[g]['n']})" for g in groups) + " |",
              "|---" * (2 + len(groups)) + "|"]
    for kind in kinds:
        system = "offline" if kind == "end_to_end" else "refine"
        lines.append(f"| {kind} | {everything[kind][system]:.3f} | " +
                     " | ".join(f"{report[g][kind][system]:.3f}" if kind in report[g] else "" for g in groups) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
