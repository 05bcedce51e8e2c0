"""Small on-disk data for the viewer tests: a synthetic corpus, a tiny PDF and an evaluation run.

The corpus is written with the real :class:`~docrag.corpus.CorpusWriter` (no ingestion, no OCR),
so viewer tests do not depend on the rendering stack; the run directory follows the documented
``docrag eval`` layout (``run.json``, ``generations.jsonl``, ``report.json``).
"""

from __future__ import annotations

import json
from pathlib import Path

from docrag.corpus import Corpus
from docrag.geometry import Box
from docrag.types import Answer, Block, BlockKind, Citation, Document, Hit, Page, TextSource, Word

PAGE_W, PAGE_H = 612.0, 792.0   # US letter, points
DPI = 72.0                      # 1 pixel per point keeps the images small

PAGES = {
    "alpha": ["Revenue grew to 42 million dollars in 2011.", "Costs fell by 3 percent."],
    "beta": ["Arrests for fraud totalled 1,200 in 2009.", "The table lists arrests by offense."],
}


def _page_image(path: Path, lines: list[str]) -> None:
    from PIL import Image, ImageDraw

    img = Image.new("RGB", (int(PAGE_W), int(PAGE_H)), "white")
    draw = ImageDraw.Draw(img)
    for i, line in enumerate(lines):
        draw.text((72, 100 + 200 * i), line, fill="black")
    img.save(path)


def make_corpus(root: Path) -> Corpus:
    """A corpus of two one-page documents (``alpha.pdf``, ``beta.pdf``) with text blocks."""
    corpus = Corpus.create(root)
    writer = corpus.writer()
    for name, lines in PAGES.items():
        doc = Document(doc_id=f"doc{name}", file_name=f"{name}.pdf", source_path=f"/src/{name}.pdf",
                       sha256=f"sha-{name}", n_pages=1)
        staged = writer.begin(doc)
        _page_image(staged.staged_image_path(1, "png"), lines)
        blocks = [Block(BlockKind.TEXT, Box.points(72, 100 + 200 * i, 400, 130 + 200 * i, PAGE_W, PAGE_H),
                        text=line, block_id=i) for i, line in enumerate(lines)]
        words = [Word(w, b.box) for b in blocks for w in b.text.split()[:1]]
        staged.add_page(Page(doc_id=doc.doc_id, page_no=1, width_pt=PAGE_W, height_pt=PAGE_H,
                             image=staged.image_relpath(1, "png"), image_width=int(PAGE_W),
                             image_height=int(PAGE_H), dpi=DPI, text="\n".join(lines),
                             text_source=TextSource.PDF, lang="en", words=words, blocks=blocks,
                             file_name=doc.file_name))
        staged.commit()
    return Corpus.open(root)


def make_pdf(path: Path, text: str = "Uploaded report: net income was 7 million.") -> Path:
    """A one-page born-digital PDF."""
    import pymupdf

    with pymupdf.open() as doc:
        page = doc.new_page(width=PAGE_W, height=PAGE_H)
        page.insert_text((72, 100), text, fontsize=12)
        doc.save(path)
    return path


def answer_for(question: str, page: Page) -> Answer:
    """An answer citing the first block of ``page`` (what an extractive generator would return)."""
    block = page.blocks[0]
    return Answer(question=question, answer=block.text, citations=[Citation(page.page_id, [block.box], 1)],
                  hits=[Hit(page.page_id, 3.5, 1, "fake")], raw=json.dumps({"answer": block.text}),
                  generator="fake", retriever="fake")


def make_run(run_dir: Path, corpus: Corpus) -> Path:
    """A two-question run in the documented RUN_DIR layout (one correct, one retrieval miss)."""
    alpha, beta = corpus.page("docalpha:1"), corpus.page("docbeta:1")
    good = answer_for("What was revenue in 2011?", alpha)
    miss = Answer(question="How many fraud arrests in 2009?", answer="3 percent",
                  citations=[Citation(alpha.page_id, [alpha.blocks[1].box], 1)],
                  hits=[Hit(alpha.page_id, 1.0, 1, "fake")], raw='{"answer": "3 percent", "coordinates": {}}')
    records = [
        {"id": "q1", "question": good.question, "category": "text", "lang": "en",
         "gold": {"answer": "42 million dollars", "page_ids": [alpha.page_id],
                  "boxes": [{"page_id": alpha.page_id, "box": alpha.blocks[0].box.to_dict()}]},
         "answer": good.to_json(),
         "metrics": {"answer_correct": True, "retrieval_miss": False, "page_recall": 1.0,
                     "page_precision": 1.0, "block_recall": 1.0, "block_precision": 1.0},
         "verdicts": [{"unit": "docalpha:1", "verdict": "yes", "detail": "alone: yes"}]},
        {"id": "q2", "question": miss.question, "category": "table", "lang": "zh",
         "gold": {"answer": "1,200", "page_ids": [beta.page_id],
                  "boxes": [{"page_id": beta.page_id, "box": beta.blocks[0].box.to_dict()}]},
         "answer": miss.to_json(),
         "metrics": {"answer_correct": False, "retrieval_miss": True, "page_recall": 0.0,
                     "page_precision": 0.0, "block_recall": 0.0, "block_precision": 0.0},
         "verdicts": []},
    ]
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "run.json").write_text(json.dumps({"retriever": "fake", "generator": "fake", "k": 1,
                                                   "corpus_fingerprint": corpus.fingerprint()}))
    (run_dir / "generations.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    (run_dir / "report.json").write_text(json.dumps({"scores": {"answer_accuracy": 50.0, "P_Rec": 50.0}}))
    return run_dir
